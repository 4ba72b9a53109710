#!/usr/bin/env bash
# Builds ragbot with its version and commit stamped in, so that `ragbot
# version` names the commit however it was built: the go command stamps
# vcs.revision itself only when it can run git on the work tree and
# -buildvcs is not false (GOFLAGS=-buildvcs=false, a CI cache, a copy of the
# tree without .git). Outside a git work tree it stamps nothing and ragbot
# falls back to the build info.
#   bash scripts/build.sh [output, default bin/ragbot]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-bin/ragbot}"
LDFLAGS=""
if COMMIT="$(git rev-parse HEAD 2>/dev/null)"; then
  LDFLAGS="-X main.stampedCommit=$COMMIT"
  # As the go command's vcs.modified: any change to the work tree, untracked files included.
  if [ -n "$(git status --porcelain 2>/dev/null)" ]; then
    LDFLAGS="$LDFLAGS -X main.stampedModified=true"
  fi
  if TAG="$(git describe --tags --exact-match 2>/dev/null)"; then
    LDFLAGS="$LDFLAGS -X main.stampedVersion=$TAG"
  fi
fi
mkdir -p "$(dirname "$OUT")"
exec go build -ldflags "$LDFLAGS" -o "$OUT" ./cmd/ragbot
