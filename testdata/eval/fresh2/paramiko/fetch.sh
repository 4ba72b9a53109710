#!/usr/bin/env bash
# Builds DEST/paramiko@2.12.0-2/ : a git repo with one deterministic commit holding
# the paramiko package as shipped in Debian bookworm's python3-paramiko .deb,
# plus its docs (usr/share/doc/python3-paramiko, .gz files decompressed) under doc/python3-paramiko/.
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_deb python3-paramiko 2.12.0-2 4fdca80fc2e93c58f707146ae2186ad0ed185c6002ff7df1667c50acc3fc5044 paramiko 'paramiko@2.12.0-2' "$1"
