#!/usr/bin/env bash
# Builds DEST/cachecontrol@0.12.12-2/ : a git repo with one deterministic commit holding
# the cachecontrol package as shipped in Debian bookworm's python3-cachecontrol .deb,
# plus its docs (usr/share/doc/python3-cachecontrol, .gz files decompressed) under doc/python3-cachecontrol/.
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_deb python3-cachecontrol 0.12.12-2 bb969082bf59c66c889655c0f69cb1ba6ed76b3dadd6fa2e2d1ded0f41ec8660 cachecontrol 'cachecontrol@0.12.12-2' "$1"
