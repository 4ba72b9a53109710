#!/usr/bin/env bash
# Installs weaviate-server (the real Weaviate, built from its Go module at the
# pinned version) into $(go env GOPATH)/bin unless that version is there already.
# A cold build downloads and compiles a large dependency tree: about 6 minutes
# on 2 cores; later runs reuse the binary and return at once.
set -euo pipefail
VERSION=v1.35.2
BIN="$(go env GOPATH)/bin/weaviate-server"
if [ -x "$BIN" ] && go version -m "$BIN" 2>/dev/null | grep -qE "^\s+mod\s+github.com/weaviate/weaviate\s+$VERSION\b"; then
  echo "weaviate-server $VERSION already installed: $BIN"
  exit 0
fi
echo "building weaviate-server $VERSION (first time: several minutes)..."
# Outside any module, so that our go.mod does not take part.
cd "$(mktemp -d)"
GOFLAGS=-mod=mod GOWORK=off go install "github.com/weaviate/weaviate/cmd/weaviate-server@$VERSION"
echo "installed: $BIN"
