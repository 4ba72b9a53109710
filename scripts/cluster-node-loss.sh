#!/usr/bin/env bash
# Prints what a local 3-node Weaviate cluster does when one node is
# SIGKILLed (the figures in docs/deploy.md, "Scaling out"): it starts
# `ragbot weaviate --nodes 3`, indexes this repository's docs/ with
# replication factor 3, kills the Raft leader (or, with "follower", another
# node), then polls a live node every half second: the nodes GET /v1/nodes
# lists, whether a schema read (GET /v1/schema/{class}, forwarded to the Raft
# leader) and a BM25 search at QUORUM answer within 2 s, and the leader each
# live node names.
#
#   bash scripts/cluster-node-loss.sh [leader|follower]
#
# RAGBOT_CLUSTER_PORT (default 8520) is node1's HTTP port; the nodes take
# port..port+5, port+10..port+15 and port+20..port+25. Needs curl and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
victim="${1:-leader}"
port="${RAGBOT_CLUSTER_PORT:-8520}"
go build -o bin/ragbot ./cmd/ragbot
dir="$(mktemp -d)"
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill -INT "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
urls="http://127.0.0.1:$port, http://127.0.0.1:$((port + 10)), http://127.0.0.1:$((port + 20))"
cat > "$dir/ragbot.yaml" <<EOF
weaviate:
  port: $port
  data_dir: $dir/weaviate
sources:
  - {name: docs, kind: markdown, path: $PWD/docs}
EOF
cat > "$dir/repl3.yaml" <<EOF
weaviate:
  urls: [$urls]
  api_key_env: RAGBOT_WEAVIATE_API_KEY
  collection: Repl3
  replication_factor: 3
  timeout: 5s
sources:
  - {name: docs, kind: markdown, path: $PWD/docs}
EOF
bin/ragbot weaviate --nodes 3 --config "$dir/ragbot.yaml" > "$dir/weaviate.out" 2>&1 &
pid=$!
for _ in $(seq 1 120); do
  grep -q "ready\|rror" "$dir/weaviate.out" && break
  sleep 1
done
cat "$dir/weaviate.out"
grep -q ready "$dir/weaviate.out"
# The local cluster is locked: its key is in the data dir (ragbot weaviate prints where).
export RAGBOT_WEAVIATE_API_KEY="$(cat "$dir/weaviate/ragbot-api-key")"
auth="Authorization: Bearer $RAGBOT_WEAVIATE_API_KEY"
bin/ragbot index --config "$dir/repl3.yaml" | tail -1

leader="$(curl -s -H "$auth" "http://127.0.0.1:$port/v1/cluster/statistics" | python3 -c 'import json,sys; print(json.load(sys.stdin)["statistics"][0]["leaderId"])')"
n="${leader#node}"
if [ "$victim" = follower ]; then n=$(( n % 3 + 1 )); fi
kill_port=$(( port + 10 * (n - 1) ))
ask_port=$(( port + 10 * (n % 3) ))
echo "Raft leader: $leader; killing node$n (port $kill_port), polling port $ask_port"
kill -9 "$(pgrep -f "weaviate-server.*--port $kill_port ")"
killed="$(date +%s.%N)"
search='{"query":"{Get{Repl3(limit:2, consistencyLevel: QUORUM, bm25:{query:\"weaviate\"}){path}}}"}'
for _ in $(seq 1 15); do
  t="$(python3 -c "import time; print(f'{time.time() - $killed:5.1f}')")"
  nodes="$(curl -s -m 2 -H "$auth" "http://127.0.0.1:$ask_port/v1/nodes" | python3 -c 'import json,sys; print(" ".join(n["name"] + ":" + n["status"] for n in json.load(sys.stdin)["nodes"]))' 2>/dev/null || echo "-")"
  schema="$(curl -s -m 2 -H "$auth" -o /dev/null -w '%{http_code}' "http://127.0.0.1:$ask_port/v1/schema/Repl3" || true)"
  # GraphQL answers 200 with "errors" in the body: look for hits instead.
  graphql="$(curl -s -m 2 -H "$auth" -XPOST "http://127.0.0.1:$ask_port/v1/graphql" -H 'Content-Type: application/json' -d "$search" | grep -q '"path"' && echo ok || echo failed)"
  leaders="$(curl -s -m 2 -H "$auth" "http://127.0.0.1:$ask_port/v1/cluster/statistics" | python3 -c 'import json,sys; print(",".join(s.get("leaderId") or "-" for s in json.load(sys.stdin)["statistics"]))' 2>/dev/null || echo "-")"
  echo "+${t}s nodes [$nodes] schema $schema search $graphql leaders $leaders"
  sleep 0.5
done
