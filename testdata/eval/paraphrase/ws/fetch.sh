#!/usr/bin/env bash
# Fetch npm:ws@8.18.3 via `npm pack` and make DEST/ws@8.18.3 a git repo with one deterministic commit.
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_npm ws 8.18.3 b56b88abffde62791c639170400c93dcb0c95472 "$1"
