#!/usr/bin/env bash
# Fetch npm:ws@8.18.3 via `npm pack` and make DEST/ws@8.18.3 a git repo with one deterministic commit.
set -euo pipefail

VERSION=8.18.3
NAME="ws@${VERSION}"
SHA1=b56b88abffde62791c639170400c93dcb0c95472

if [ $# -ne 1 ]; then
  echo "usage: bash fetch.sh DEST" >&2
  exit 2
fi
DEST=$1
OUT="${DEST}/${NAME}"
if [ -e "$OUT" ]; then
  echo "error: $OUT already exists; refusing to overwrite" >&2
  exit 1
fi
mkdir -p "$DEST"
OUT="$(cd "$DEST" && pwd)/${NAME}"

git_commit() { ( cd "$1" && git init -q -b main && git add -A -f &&
  GIT_AUTHOR_NAME=corpus GIT_AUTHOR_EMAIL=corpus@example.invalid GIT_AUTHOR_DATE=2026-01-01T00:00:00Z \
  GIT_COMMITTER_NAME=corpus GIT_COMMITTER_EMAIL=corpus@example.invalid GIT_COMMITTER_DATE=2026-01-01T00:00:00Z \
  git -c commit.gpgsign=false commit -q -m "corpus $2" ) }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

( cd "$TMP" && npm pack --silent "ws@${VERSION}" >/dev/null )
TGZ="$TMP/ws-${VERSION}.tgz"
[ -f "$TGZ" ] || { echo "error: npm pack did not produce $TGZ" >&2; exit 1; }

echo "${SHA1}  ${TGZ}" | sha1sum -c --quiet - || { echo "error: sha1 mismatch for $TGZ" >&2; exit 1; }

mkdir "$TMP/x"
tar -xzf "$TGZ" -C "$TMP/x"
mv "$TMP/x/package" "$OUT"
git_commit "$OUT" "npm:${NAME}"
echo "ok: $OUT ($(git -C "$OUT" rev-parse HEAD))"
