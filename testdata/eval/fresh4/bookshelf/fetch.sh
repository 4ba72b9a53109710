#!/usr/bin/env bash
# Fetch npm:bookshelf@1.2.0 via `npm pack`, check the registry's integrity (sha512) and make
# DEST/bookshelf@1.2.0 a git repo with one deterministic commit.
# Usage: bash fetch.sh DEST   -> creates DEST/bookshelf@1.2.0/
# fetch-lib.sh's fetch_npm checks a sha1; this script checks the sha512 of the
# registry's dist.integrity instead, with the same steps otherwise.
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
NAME=bookshelf
VERSION=1.2.0
INTEGRITY='sha512-rm04YpHkLej6bkNezKUQjzuXV30rbyEHQoaKvfQ3fOyLYxPeB18uBL+h2t6SmeXjfsB+aReMmbhkMF/lUTbtMA=='
out=$(dest_dir "$1" "${NAME}@${VERSION}")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
( cd "$TMP" && npm pack --silent "${NAME}@${VERSION}" >/dev/null )
tgz="$TMP/${NAME}-${VERSION}.tgz"
[ -f "$tgz" ] || { echo "error: npm pack did not produce $tgz" >&2; exit 1; }
got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
if [ "$got" != "$INTEGRITY" ]; then echo "error: integrity mismatch: got $got, expected $INTEGRITY" >&2; exit 1; fi
mkdir "$TMP/x"
tar -xzf "$tgz" -C "$TMP/x"
mv "$TMP/x/package" "$out"
git_commit "$out" "npm:${NAME}@${VERSION}"
echo "ok: $out ($(git -C "$out" rev-parse HEAD))"
