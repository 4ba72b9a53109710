#!/usr/bin/env bash
# The fresh sets (testdata/eval/fresh: gorilla/websocket, Debian's python3-redis)
# through scripts/bench-sets.sh, which says what it prints and which environment
# variables it reads; RAGBOT_BENCH_PORT picks the Weaviate ports (default 8359..8364).
#   bash scripts/bench-fresh.sh [CORPUS_DIR]   (default .ragbot/fresh-corpus)
set -euo pipefail
RAGBOT_BENCH_PORT="${RAGBOT_BENCH_PORT:-8359}" exec bash "$(dirname "$0")/bench-sets.sh" fresh "$@"
