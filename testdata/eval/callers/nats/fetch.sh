#!/usr/bin/env bash
# Fetch github.com/nats-io/nats.go@v1.56.0 from the Go module proxy and commit it deterministically.
# Usage: bash fetch.sh DEST   -> creates DEST/nats@v1.56.0/ (a git repo with one commit)
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_go_module github.com/nats-io/nats.go v1.56.0 'h1:z1p2yNGsIEoz1j6QhRMmZi4WEiaPBXBeg6qMIM27wzY=' nats@v1.56.0 "$1"
