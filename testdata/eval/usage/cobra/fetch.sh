#!/usr/bin/env bash
# Fetch github.com/spf13/cobra@v1.8.1 from the Go module proxy and commit it deterministically.
# Usage: bash fetch.sh DEST   -> creates DEST/cobra@v1.8.1/ (a git repo with one commit)
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_go_module github.com/spf13/cobra v1.8.1 'h1:e5/vxKd/rZsfSJMUX1agtjeTDf+qv1/JdBF8gg5k9ZM=' cobra@v1.8.1 "$1"
