#!/usr/bin/env bash
# Fetch github.com/hashicorp/raft@v1.7.1 from the Go module proxy and commit it deterministically.
# Usage: bash fetch.sh DEST   -> creates DEST/raft@v1.7.1/ (a git repo with one commit)
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_go_module github.com/hashicorp/raft v1.7.1 'h1:ytxsNx4baHsRZrhUcbt3+79zc4ly8qm7pi0393pSchY=' raft@v1.7.1 "$1"
