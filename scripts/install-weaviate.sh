#!/usr/bin/env bash
# Installs weaviate-server (the real Weaviate, built from its Go module at the
# pinned version) into $(go env GOPATH)/bin unless the binary ragbot would run
# ($RAGBOT_WEAVIATE_BINARY, else the first weaviate-server on PATH, else the one
# in GOPATH/bin; see retrieval/weaviatelocal.FindBinary) is that version already.
# A cold build downloads and compiles a large dependency tree: about 6 minutes
# on 2 cores; later runs reuse the binary and return at once.
# v1.39.2, not earlier: v1.35.2's BlockMax-WAND BM25 ranked documents still in
# a memtable differently from flushed ones (weaviate/weaviate PRs #11779,
# #11780, #12022), so answers changed about a minute after indexing.
set -euo pipefail
VERSION=v1.39.2
BIN="$(go env GOPATH)/bin/weaviate-server"
pinned() { [ -x "$1" ] && go version -m "$1" 2>/dev/null | grep -qE "^\s+mod\s+github.com/weaviate/weaviate\s+$VERSION\b"; }
USED="${RAGBOT_WEAVIATE_BINARY:-$(command -v weaviate-server || true)}"
if [ -n "$USED" ]; then
  if pinned "$USED"; then
    echo "weaviate-server $VERSION already installed: $USED"
    exit 0
  fi
  if [ "$(readlink -f "$USED")" != "$(readlink -f "$BIN")" ]; then
    echo "warning: $USED is not $VERSION and comes first, so ragbot runs it, not $BIN" >&2
  fi
fi
if pinned "$BIN"; then
  echo "weaviate-server $VERSION already installed: $BIN"
  exit 0
fi
echo "building weaviate-server $VERSION (first time: several minutes)..."
# Outside any module, so that our go.mod does not take part.
cd "$(mktemp -d)"
GOFLAGS=-mod=mod GOWORK=off go install "github.com/weaviate/weaviate/cmd/weaviate-server@$VERSION"
echo "installed: $BIN"
