#!/usr/bin/env bash
# Builds DEST/urllib3@1.26.12-1+deb12u3/ : a git repo with one deterministic commit holding
# the urllib3 package as shipped in Debian's python3-urllib3 .deb, plus its docs
# (usr/share/doc/python3-urllib3, .gz files decompressed) under doc/python3-urllib3/.
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_deb python3-urllib3 1.26.12-1+deb12u3 78c45a1c9912125f239269f80e2a5b8fc38c4a76169d1e4a2f0090369d2fd7a5 urllib3 'urllib3@1.26.12-1+deb12u3' "$1"
