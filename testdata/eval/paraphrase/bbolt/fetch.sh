#!/usr/bin/env bash
# Fetch go.etcd.io/bbolt@v1.4.3 from the Go module proxy and commit it deterministically.
# Usage: bash fetch.sh DEST   -> creates DEST/bbolt@v1.4.3/ (a git repo with one commit)
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_go_module go.etcd.io/bbolt v1.4.3 'h1:dEadXpI6G79deX5prL3QRNP6JB8UxVkqo4UPnHaNXJo=' bbolt@v1.4.3 "$1"
