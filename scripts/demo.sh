#!/usr/bin/env bash
# The embedded default, end to end: installs weaviate-server if missing, builds
# ragbot, starts a local Weaviate, indexes this repository and its docs/ and
# answers a question in the terminal with cited snippets.
#   bash scripts/demo.sh ["your question"]
set -euo pipefail
cd "$(dirname "$0")/.."
QUESTION="${1:-where is Store.Upsert defined?}"
bash scripts/install-weaviate.sh
mkdir -p bin
go build -o bin/ragbot ./cmd/ragbot
CONFIG=ragbot.yaml
[ -f "$CONFIG" ] || CONFIG=ragbot.example.yaml
echo "ragbot ask --config $CONFIG --index \"$QUESTION\""
exec bin/ragbot ask --config "$CONFIG" --index "$QUESTION"
