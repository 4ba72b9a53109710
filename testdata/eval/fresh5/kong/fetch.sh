#!/usr/bin/env bash
# Fetch github.com/alecthomas/kong@v1.17.0 from the Go module proxy (`go mod download`), check its
# go.sum hash and make DEST/kong@v1.17.0 a git repo with one deterministic commit.
# Usage: bash fetch.sh DEST   -> creates DEST/kong@v1.17.0/
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_go_module github.com/alecthomas/kong v1.17.0 'h1:f52BVWChYMDkMkCoqkEWRuFOk/K4B5LO7xIijeLJRdk=' 'kong@v1.17.0' "$1"
