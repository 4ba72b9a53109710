#!/usr/bin/env bash
# Fetch github.com/gorilla/websocket@v1.5.3 from the Go module proxy and commit it deterministically.
# Usage: bash fetch.sh DEST   -> creates DEST/websocket@v1.5.3/ (a git repo with one commit)
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_go_module github.com/gorilla/websocket v1.5.3 'h1:saDtZ6Pbx/0u+bgYQ3q96pZgCzfhKXGPqt7kZ72aNNg=' websocket@v1.5.3 "$1"
