#!/usr/bin/env bash
# Fetch go.etcd.io/bbolt@v1.4.3 from the Go module proxy and commit it deterministically.
# Usage: bash fetch.sh DEST   -> creates DEST/bbolt@v1.4.3/ (a git repo with one commit)
set -euo pipefail

MODULE=go.etcd.io/bbolt
VERSION=v1.4.3
EXPECTED_SUM='h1:dEadXpI6G79deX5prL3QRNP6JB8UxVkqo4UPnHaNXJo='
CORPUS_NAME="${MODULE}@${VERSION}"
CORPUS_DIR="bbolt@${VERSION}"

if [ $# -ne 1 ]; then
  echo "usage: $0 DEST" >&2
  exit 2
fi
DEST=$1
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)
OUT="$DEST/$CORPUS_DIR"
if [ -e "$OUT" ]; then
  echo "error: $OUT already exists; refusing to overwrite" >&2
  exit 1
fi

git_commit() { ( cd "$1" && git init -q -b main && git add -A -f &&
  GIT_AUTHOR_NAME=corpus GIT_AUTHOR_EMAIL=corpus@example.invalid GIT_AUTHOR_DATE=2026-01-01T00:00:00Z \
  GIT_COMMITTER_NAME=corpus GIT_COMMITTER_EMAIL=corpus@example.invalid GIT_COMMITTER_DATE=2026-01-01T00:00:00Z \
  git -c commit.gpgsign=false commit -q -m "corpus $2" ) }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Download outside any Go module, into a private module cache.
JSON=$(cd "$TMP" && GOFLAGS=-modcacherw GOWORK=off GO111MODULE=on GOMODCACHE="$TMP/modcache" \
  go mod download -json "${MODULE}@${VERSION}")

field() { printf '%s\n' "$JSON" | python3 -c 'import json,sys; print(json.load(sys.stdin).get(sys.argv[1],""))' "$1"; }
ERR=$(field Error)
if [ -n "$ERR" ]; then
  echo "error: go mod download failed: $ERR" >&2
  exit 1
fi
SUM=$(field Sum)
SRC=$(field Dir)
if [ "$SUM" != "$EXPECTED_SUM" ]; then
  echo "error: checksum mismatch: got '$SUM', expected '$EXPECTED_SUM'" >&2
  exit 1
fi
if [ ! -d "$SRC" ]; then
  echo "error: module dir '$SRC' missing" >&2
  exit 1
fi

mkdir "$OUT"
cp -R "$SRC"/. "$OUT"/
chmod -R u+w "$OUT"
git_commit "$OUT" "$CORPUS_NAME"
echo "ok: $CORPUS_NAME ($SUM) -> $OUT @ $(git -C "$OUT" rev-parse HEAD)"
