#!/usr/bin/env bash
# Builds DEST/limits@2.8.0-1/ : a git repo with one deterministic commit holding
# the limits package as shipped in Debian bookworm's python3-limits .deb,
# plus its docs (usr/share/doc/python3-limits, .gz files decompressed) under doc/python3-limits/.
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_deb python3-limits 2.8.0-1 40ecc254514dcd62e8f66c61b53a1977b3db8ef44e305ef6c1a2495b2005113a limits 'limits@2.8.0-1' "$1"
