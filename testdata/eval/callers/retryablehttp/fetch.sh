#!/usr/bin/env bash
# Fetch github.com/hashicorp/go-retryablehttp@v0.7.8 from the Go module proxy and commit it deterministically.
# Usage: bash fetch.sh DEST   -> creates DEST/retryablehttp@v0.7.8/ (a git repo with one commit)
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_go_module github.com/hashicorp/go-retryablehttp v0.7.8 'h1:ylXZWnqa7Lhqpk0L1P1LzDtGcCR0rPVUrx/c8Unxc48=' retryablehttp@v0.7.8 "$1"
