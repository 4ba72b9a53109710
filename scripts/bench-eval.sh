#!/usr/bin/env bash
# Indexes the public eval corpus (../shared/eval: alertmanager and the GitHub
# OpenAPI spec, in one collection, since BM25 statistics are collection-wide)
# and measures it: a full index from empty, a re-index of the unchanged corpus
# (up-to-date check), a forced re-chunk of the unchanged corpus (--full:
# everything chunked, nothing embedded), each with wall time and peak RSS of
# ragbot from /usr/bin/time -v; then, right after indexing, prints
# `ragbot eval` for each retrieval mode (the ablation), the
# no-coverage calibration with testdata/eval/unanswerable.jsonl, and the
# latency of Asker.Ask (--bench). Weaviate runs as a separate process
# (`ragbot weaviate`), so its memory is not in ragbot's figures.
#   bash scripts/bench-eval.sh [CORPUS_DIR]     (default .ragbot/eval-corpus)
# Its Weaviate takes ports $RAGBOT_EVAL_PORT..+5 (default 8279); the script
# stops if they are taken rather than measure another server.
# With RAGBOT_EVAL_JSON_DIR=DIR (scripts/eval-tables.sh) it writes, after
# indexing, the reports of `ragbot eval --json` into DIR instead of printing
# them (mode-<mode>.json, coverage.json, latency.json, index.jsonl, meta.json).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
EVAL="${RAGBOT_EVAL_DIR:-$ROOT/../shared/eval}"
CORPUS="${1:-$ROOT/.ragbot/eval-corpus}"
PORT="${RAGBOT_EVAL_PORT:-8279}"
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time; }
bash scripts/install-weaviate.sh >/dev/null
bash scripts/install-model.sh >/dev/null # the default semantic model (all-MiniLM-L6-v2), when not cached yet
[ -d "$CORPUS/alertmanager@v0.35.0" ] || bash "$EVAL/fetch-corpus.sh" "$CORPUS"
mkdir -p bin && go build -o bin/ragbot ./cmd/ragbot

WORK="$(mktemp -d)"
cat > "$WORK/eval.yaml" <<YAML
weaviate:
  data_dir: $WORK/weaviate
  port: $PORT
${RAGBOT_BENCH_EMBEDDER:-}
sources:
  - name: github.com/prometheus/alertmanager@v0.35.0
    kind: git
    path: $CORPUS/alertmanager@v0.35.0
  - name: "npm:@octokit/openapi@23.0.2"
    kind: openapi
    path: $CORPUS/octokit-openapi@23.0.2/package/generated/api.github.com.json
YAML
bin/ragbot weaviate --config "$WORK/eval.yaml" > "$WORK/weaviate.out" 2>&1 &
WV_PID=$!
trap 'kill $WV_PID 2>/dev/null || true; wait $WV_PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
for i in $(seq 1 120); do
  grep -q "weaviate ready" "$WORK/weaviate.out" && break
  kill -0 $WV_PID 2>/dev/null || break
  sleep 1
done
grep -q "weaviate ready" "$WORK/weaviate.out" || { cat "$WORK/weaviate.out"; exit 1; }
AUTH="Authorization: Bearer $(cat "$WORK/weaviate/ragbot-api-key")"  # the local server is locked
curl -s -H "$AUTH" http://127.0.0.1:$PORT/v1/meta | grep -o '"version":"[^"]*"' | sed 's/"version":"\(.*\)"/weaviate-server \1/'

measure() { # name, args...
  local name="$1"; shift
  /usr/bin/time -v bin/ragbot "$@" > "$WORK/out" 2> "$WORK/err" || { cat "$WORK/err"; exit 1; }
  cat "$WORK/out"
  local wall rss
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$WORK/err")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$WORK/err")
  printf '%-28s wall %s  peak RSS %d MB\n' "$name" "$wall" $((rss / 1024))
  [ -z "${RAGBOT_EVAL_JSON_DIR:-}" ] ||
    printf '{"step": "%s", "wall": "%s", "peak_rss_mb": %d}\n' "$name" "$wall" $((rss / 1024)) >> "$RAGBOT_EVAL_JSON_DIR/index.jsonl"
}
measure "full index (empty)" index --config "$WORK/eval.yaml" --recreate
measure "re-index, unchanged" index --config "$WORK/eval.yaml"
measure "re-chunk, unchanged (--full)" index --config "$WORK/eval.yaml" --full
if [ -n "${RAGBOT_EVAL_JSON_DIR:-}" ]; then # scripts/eval-tables.sh: the reports as JSON, then stop
  J="$RAGBOT_EVAL_JSON_DIR"
  curl -s -H "$AUTH" http://127.0.0.1:$PORT/v1/meta > "$J/meta.json"
  for mode in bm25 vector hybrid hybrid+rerank; do
    bin/ragbot eval --config "$WORK/eval.yaml" --json --mode "$mode" "$EVAL/questions.jsonl" ${RAGBOT_EVAL_FLAGS:-} > "$J/mode-$mode.json"
  done
  bin/ragbot eval --config "$WORK/eval.yaml" --json "$EVAL/questions.jsonl" testdata/eval/unanswerable.jsonl ${RAGBOT_EVAL_FLAGS:-} > "$J/coverage.json"
  bin/ragbot eval --config "$WORK/eval.yaml" --json --bench --bench-runs 5 "$EVAL/questions.jsonl" > "$J/latency.json"
  exit 0
fi
for mode in bm25 vector hybrid hybrid+rerank; do
  echo; echo "== ragbot eval --mode $mode"
  bin/ragbot eval --config "$WORK/eval.yaml" --mode "$mode" "$EVAL/questions.jsonl" ${RAGBOT_EVAL_FLAGS:-} | sed -n '1,/^all /p'
done
echo; echo "== no coverage, misses and ask latency (hybrid+rerank)"
bin/ragbot eval --config "$WORK/eval.yaml" "$EVAL/questions.jsonl" testdata/eval/unanswerable.jsonl ${RAGBOT_EVAL_FLAGS:-}
bin/ragbot eval --config "$WORK/eval.yaml" --bench --bench-runs 5 "$EVAL/questions.jsonl" | grep '^ask latency' 
