#!/usr/bin/env bash
# Builds DEST/requests@2.28.1+dfsg-1/ : a git repo with one deterministic commit holding
# the requests package as shipped in Debian's python3-requests .deb, plus its docs
# (usr/share/doc/python3-requests, .gz files decompressed) under doc/python3-requests/.
set -euo pipefail

PKG=python3-requests
VERSION=2.28.1+dfsg-1
SHA256=c75b5c05d8d4a813bd83c3d432ffe65a2ca13e771bc91d4b9787690097598603
DIRNAME="requests@${VERSION}"

git_commit() { ( cd "$1" && git init -q -b main && git add -A -f &&
  GIT_AUTHOR_NAME=corpus GIT_AUTHOR_EMAIL=corpus@example.invalid GIT_AUTHOR_DATE=2026-01-01T00:00:00Z \
  GIT_COMMITTER_NAME=corpus GIT_COMMITTER_EMAIL=corpus@example.invalid GIT_COMMITTER_DATE=2026-01-01T00:00:00Z \
  git -c commit.gpgsign=false commit -q -m "corpus $2" ) }

if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
DEST=$1
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)
OUT="$DEST/$DIRNAME"
if [ -e "$OUT" ]; then echo "error: $OUT already exists; remove it first" >&2; exit 1; fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
chmod 777 "$TMP"   # lets apt's _apt user write the download

( cd "$TMP" && { apt-get download "${PKG}=${VERSION}" ||
    { apt-get update -qq && apt-get download "${PKG}=${VERSION}"; }; } )
DEB=$(ls "$TMP"/*.deb)
echo "${SHA256}  ${DEB}" | sha256sum -c - >/dev/null || {
  echo "error: checksum mismatch for $DEB (expected $SHA256, got $(sha256sum "$DEB" | cut -d' ' -f1))" >&2; exit 1; }

dpkg-deb -x "$DEB" "$TMP/x"
STAGE="$TMP/corpus"
mkdir -p "$STAGE/doc"
cp -a "$TMP/x/usr/lib/python3/dist-packages/requests" "$STAGE/requests"
if [ -d "$TMP/x/usr/share/doc/$PKG" ]; then
  cp -a "$TMP/x/usr/share/doc/$PKG" "$STAGE/doc/$PKG"
  find "$STAGE/doc/$PKG" -name '*.gz' -exec gunzip -f {} +
fi
find "$STAGE" -name '__pycache__' -prune -exec rm -rf {} +

mv "$STAGE" "$OUT"
git_commit "$OUT" "deb:${PKG}@${VERSION}"
echo "$OUT at $(git -C "$OUT" rev-parse HEAD)"
