#!/usr/bin/env bash
# Fetch github.com/jackc/pgx/v5@v5.13.0 from the Go module proxy and commit it deterministically.
# Usage: bash fetch.sh DEST   -> creates DEST/pgx@v5.13.0/ (a git repo with one commit)
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_go_module github.com/jackc/pgx/v5 v5.13.0 'h1:Hl08k64maU0nrRyVUEbwCnK6/gT0EhMrtAqBHz9/gA4=' pgx@v5.13.0 "$1"
