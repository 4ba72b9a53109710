#!/usr/bin/env bash
# Fetch github.com/afex/hystrix-go@v0.0.0-20180502004556-fa1af6a1f4f5 from the Go module proxy and commit it deterministically.
# Usage: bash fetch.sh DEST   -> creates DEST/hystrix@v0.0.0-20180502004556-fa1af6a1f4f5/ (a git repo with one commit)
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_go_module github.com/afex/hystrix-go v0.0.0-20180502004556-fa1af6a1f4f5 'h1:rFw4nCn9iMW+Vajsk51NtYIcwSTkXr+JGrMd36kTDJw=' hystrix@v0.0.0-20180502004556-fa1af6a1f4f5 "$1"
