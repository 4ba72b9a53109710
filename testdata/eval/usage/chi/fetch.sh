#!/usr/bin/env bash
# Fetch github.com/go-chi/chi/v5@v5.1.0 from the Go module proxy and commit it deterministically.
# Usage: bash fetch.sh DEST   -> creates DEST/chi@v5.1.0/ (a git repo with one commit)
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_go_module github.com/go-chi/chi/v5 v5.1.0 'h1:acVI1TYaD+hhedDJ3r54HyA6sExp3HfXq7QWEEY/xMw=' chi@v5.1.0 "$1"
