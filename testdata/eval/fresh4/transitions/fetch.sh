#!/usr/bin/env bash
# Builds DEST/transitions@0.9.0-1/ : a git repo with one deterministic commit holding
# the transitions package as shipped in Debian bookworm's python3-transitions .deb,
# plus its docs (usr/share/doc/python3-transitions, .gz files decompressed) under doc/python3-transitions/.
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_deb python3-transitions 0.9.0-1 650abe9b05fc86800baf5d5d6b4884c8cb960a9f884762d0267f861b0e7f9682 transitions 'transitions@0.9.0-1' "$1"
