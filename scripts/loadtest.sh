#!/usr/bin/env bash
# Load test of `ragbot serve` (Slack HTTP mode, fake Slack, real Weaviate, two
# real Go repositories indexed), loopback only; see tools/loadtest/main.go (a Go module
# of its own, outside the ragbot binary)
# for what it does and prints. Exit 1 when an acceptance condition fails.
#   bash scripts/loadtest.sh [--askers 50] [--duration 60s] [--retry 0.1] [--replicas 1] [--serve "max_concurrent_answers: 8"]
# Uses the Weaviate at RAGBOT_TEST_WEAVIATE_URL (a collection of its own,
# dropped at the end), else starts one on --weaviate-port (8590..8595).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-weaviate.sh >/dev/null
mkdir -p bin
go build -o bin/ragbot ./cmd/ragbot
(cd tools/loadtest && go build -o ../../bin/loadtest .)
exec bin/loadtest --ragbot bin/ragbot "$@"
