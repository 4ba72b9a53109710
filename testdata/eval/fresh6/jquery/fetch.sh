#!/usr/bin/env bash
# Fetch npm:jquery@3.7.1 via `npm pack`, check the registry's integrity (sha512) and make
# DEST/jquery@3.7.1 a git repo with one deterministic commit.
# Usage: bash fetch.sh DEST   -> creates DEST/jquery@3.7.1/
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_npm jquery 3.7.1 'sha512-m4avr8yL8kmFN8psrbFFFmB/If14iN5o9nw/NgnnM+kybDJpRsAynV2BsfpTYrTRysYUdADVD7CkUUizgkpLfg==' "$1"
