#!/usr/bin/env bash
# Fetch npm:axios@1.7.9 via `npm pack` and make DEST/axios@1.7.9 a git repo with one deterministic commit.
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_npm axios 1.7.9 d7d071380c132a24accda1b2cfc1535b79ec650a "$1"
