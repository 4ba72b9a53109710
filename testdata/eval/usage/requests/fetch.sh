#!/usr/bin/env bash
# Builds DEST/requests@2.28.1+dfsg-1/ : a git repo with one deterministic commit holding
# the requests package as shipped in Debian's python3-requests .deb, plus its docs.
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_deb python3-requests 2.28.1+dfsg-1 c75b5c05d8d4a813bd83c3d432ffe65a2ca13e771bc91d4b9787690097598603 requests 'requests@2.28.1+dfsg-1' "$1"
