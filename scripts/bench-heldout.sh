#!/usr/bin/env bash
# The held-out sets (testdata/eval/heldout: hashicorp/raft, urllib3, axios)
# through scripts/bench-sets.sh, which says what it prints and which
# environment variables it reads; RAGBOT_HELDOUT_PORT still picks the
# Weaviate ports (default 8289..8294).
#   bash scripts/bench-heldout.sh [CORPUS_DIR]   (default .ragbot/heldout-corpus)
set -euo pipefail
RAGBOT_BENCH_PORT="${RAGBOT_BENCH_PORT:-${RAGBOT_HELDOUT_PORT:-8289}}" exec bash "$(dirname "$0")/bench-sets.sh" heldout "$@"
