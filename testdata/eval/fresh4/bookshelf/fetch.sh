#!/usr/bin/env bash
# Fetch npm:bookshelf@1.2.0 via `npm pack`, check the registry's integrity (sha512) and make
# DEST/bookshelf@1.2.0 a git repo with one deterministic commit.
# Usage: bash fetch.sh DEST   -> creates DEST/bookshelf@1.2.0/
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_npm bookshelf 1.2.0 'sha512-rm04YpHkLej6bkNezKUQjzuXV30rbyEHQoaKvfQ3fOyLYxPeB18uBL+h2t6SmeXjfsB+aReMmbhkMF/lUTbtMA==' "$1"
