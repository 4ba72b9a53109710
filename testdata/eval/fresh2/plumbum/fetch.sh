#!/usr/bin/env bash
# Builds DEST/plumbum@1.8.0-1/ : a git repo with one deterministic commit holding
# the plumbum package as shipped in Debian bookworm's python3-plumbum .deb,
# plus its docs (usr/share/doc/python3-plumbum, .gz files decompressed) under doc/python3-plumbum/.
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_deb python3-plumbum 1.8.0-1 4124871920a98008ae59a57b4ecd71713cc0c3a7dfe1e6739847f6b36f568296 plumbum 'plumbum@1.8.0-1' "$1"
