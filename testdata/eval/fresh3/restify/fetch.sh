#!/usr/bin/env bash
# Fetch npm:restify@12.0.0 via `npm pack`, check the registry's integrity (sha512) and make
# DEST/restify@12.0.0 a git repo with one deterministic commit.
# Usage: bash fetch.sh DEST   -> creates DEST/restify@12.0.0/
# fetch-lib.sh's fetch_npm checks a sha1; this script checks the sha512 of the
# registry's dist.integrity instead, with the same steps otherwise.
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
NAME=restify
VERSION=12.0.0
INTEGRITY='sha512-phWRX0ca9sSulM6SJ2SxnPze7gmkm2ePLNd6cuo9loM1UfARu+ZhcNNCKldEal/R3virVcl6Anp1XyPNVVCptQ=='
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
