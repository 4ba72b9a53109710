#!/usr/bin/env bash
# Measures git indexing on a generated repository of 5,000 Go files (15,000
# functions) pushed to a local remote, against a real Weaviate:
#   full-index       first index run (clone, chunk, blame, embed, store): files/s, chunks/s
#   webhook-to-ask   signed GitHub push webhook for a one-file change -> `ask`
#                    returns the changed symbol: ms/push, with the default
#                    500 ms settle time and with none
# Each sub-benchmark generates the repository once (about 20 s) and indexes
# it (about 30 s on 2 cores).
#   bash scripts/bench-reindex.sh [N]     (N pushes / full runs each, default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-weaviate.sh >/dev/null
bash scripts/install-model.sh >/dev/null # the default semantic model (all-MiniLM-L6-v2), when not cached yet
go test ./ingest/ -run '^$' -bench 'BenchmarkGitIndex' -benchtime "${1:-5}x" -timeout 60m
