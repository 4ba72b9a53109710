#!/usr/bin/env bash
# Fetch github.com/hibiken/asynq@v0.26.0 from the Go module proxy and commit it deterministically.
# Usage: bash fetch.sh DEST   -> creates DEST/asynq@v0.26.0/ (a git repo with one commit)
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_go_module github.com/hibiken/asynq v0.26.0 'h1:1Zxr92MlDnb1Zt/QR5g2vSCqUS03i95lUfqx5X7/wrw=' asynq@v0.26.0 "$1"
