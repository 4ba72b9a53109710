#!/usr/bin/env bash
# The embedded default, end to end: installs weaviate-server if missing, builds
# ragbot, starts a local Weaviate, indexes this repository and its docs/ and
# answers a question in the terminal with cited snippets.
#   bash scripts/demo.sh ["your question"]
set -euo pipefail
cd "$(dirname "$0")/.."
QUESTION="${1:-where is Store.Upsert defined?}"
# The code parser (github.com/smacker/go-tree-sitter) is C built through cgo:
# without cgo or a C compiler the build fails with a long, unclear error.
if [ "$(go env CGO_ENABLED)" != 1 ]; then
  echo "demo.sh: go env CGO_ENABLED is not 1; ragbot needs cgo for tree-sitter: set CGO_ENABLED=1 and install a C compiler (README, first lines)" >&2
  exit 1
fi
CC_BIN="$(go env CC)"
if ! command -v "${CC_BIN%% *}" >/dev/null 2>&1 && ! command -v cc >/dev/null 2>&1 && ! command -v gcc >/dev/null 2>&1; then
  echo "demo.sh: no C compiler on PATH (go env CC is ${CC_BIN:-unset}; cc and gcc are missing too); ragbot needs one for tree-sitter through cgo: e.g. apt-get install gcc, or xcode-select --install on macOS" >&2
  exit 1
fi
bash scripts/install-weaviate.sh
mkdir -p bin
go build -o bin/ragbot ./cmd/ragbot
CONFIG=ragbot.yaml
[ -f "$CONFIG" ] || CONFIG=ragbot.example.yaml
echo "ragbot ask --config $CONFIG --index \"$QUESTION\""
exec bin/ragbot ask --config "$CONFIG" --index "$QUESTION"
