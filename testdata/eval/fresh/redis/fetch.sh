#!/usr/bin/env bash
# Builds DEST/redis@4.3.4-3/ : a git repo with one deterministic commit holding
# the redis package (redis-py) as shipped in Debian bookworm's python3-redis .deb,
# plus its docs (usr/share/doc/python3-redis, .gz files decompressed) under doc/python3-redis/.
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_deb python3-redis 4.3.4-3 5209fb79e67ad146d947dd5fdc789ca9a7662bb716fc18dda40471a2045f4a15 redis 'redis@4.3.4-3' "$1"
