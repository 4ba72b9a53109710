#!/usr/bin/env bash
# Builds DEST/urllib3@1.26.12-1+deb12u4/ : a git repo with one deterministic commit holding
# the urllib3 package as shipped in Debian's python3-urllib3 .deb, plus its docs
# (usr/share/doc/python3-urllib3, .gz files decompressed) under doc/python3-urllib3/.
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_deb python3-urllib3 1.26.12-1+deb12u4 9dd6fef10317e437f2195cb5ea8b38d8e39e02106c5fda7b16d58b4bb9a85886 urllib3 'urllib3@1.26.12-1+deb12u4' "$1"
