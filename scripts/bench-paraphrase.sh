#!/usr/bin/env bash
# The paraphrase test set (testdata/eval/paraphrase: go.etcd.io/bbolt,
# Debian's python3-requests, npm ws) through scripts/bench-sets.sh, which
# says what it prints, with its questions checked by validate.py first;
# Weaviate on ports 8339..8344.
#   bash scripts/bench-paraphrase.sh [CORPUS_DIR]   (default .ragbot/paraphrase-corpus)
set -euo pipefail
RAGBOT_BENCH_PORT="${RAGBOT_BENCH_PORT:-8339}" exec bash "$(dirname "$0")/bench-sets.sh" paraphrase "$@"
