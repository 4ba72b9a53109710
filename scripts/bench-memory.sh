#!/usr/bin/env bash
# Peak RSS of `ragbot index` at about 15.6k and 50.9k chunks (docs/evaluation.md,
# "Lean indexing"): each size indexed into its own collection, from empty
# (--recreate) and then again unchanged and re-chunked (--full), with wall time
# and ragbot's peak RSS from /usr/bin/time -v. Weaviate runs as a separate
# process (`ragbot weaviate`), so its memory is not in the figures. The default
# embedder (offline lexical + onnx all-MiniLM-L6-v2) fills the semantic vectors
# after the lexical pass, inside the same run.
#   bash scripts/bench-memory.sh [15k|51k|all|corpus]   (default all; corpus: build the corpora, measure nothing)
# Corpora, built once under $RAGBOT_MEM_DIR (default .ragbot/mem-corpus):
#   15k   prometheus v0.54.1 (Go module proxy) + the public eval corpus
#         (alertmanager v0.35.0, the GitHub OpenAPI spec): three sources
#   51k   one git source (50,898 chunks): prometheus + golang.org/x/tools v0.24.0 + the
#         generated benchmark's repositories but ory-client, toml, npm-docs
# The public corpus comes from ../shared/eval/fetch-corpus.sh (or
# $RAGBOT_EVAL_CORPUS), the generated one from scripts/bench-generated.sh fetch
# (or $RAGBOT_GENBENCH_DIR). With RAGBOT_MEMPROFILE=FILE the
# Go heap profile at its peak goes to FILE.<step> (internal/memprofile).
# Its Weaviate takes port $RAGBOT_MEM_PORT (default 8431).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
WHICH="${1:-all}"
DIR="${RAGBOT_MEM_DIR:-$ROOT/.ragbot/mem-corpus}"
PORT="${RAGBOT_MEM_PORT:-8431}"
EVAL="${RAGBOT_EVAL_DIR:-$ROOT/../shared/eval}"
PUB="${RAGBOT_EVAL_CORPUS:-$ROOT/.ragbot/eval-corpus}"
GEN="${RAGBOT_GENBENCH_DIR:-$ROOT/.ragbot/genbench}"
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time; }
bash scripts/install-weaviate.sh >/dev/null
bash scripts/install-model.sh >/dev/null # the default semantic model (all-MiniLM-L6-v2), when not cached yet
mkdir -p bin "$DIR" && go build -o bin/ragbot ./cmd/ragbot
. testdata/eval/fetch-lib.sh

[ -d "$DIR/prometheus" ] || fetch_go_module github.com/prometheus/prometheus v0.54.1 \
  'h1:vKuwQNjnYN2/mDoWfHXDhAsz/68q/dQDb+YbcEqU7MQ=' prometheus "$DIR"
[ -d "$DIR/tools" ] || fetch_go_module golang.org/x/tools v0.24.0 \
  'h1:J1shsA93PJUEVaUSaay7UXAyE8aimq3GW0pjlolpa24=' tools "$DIR"
[ -d "$PUB/alertmanager@v0.35.0" ] || bash "$EVAL/fetch-corpus.sh" "$PUB"
if [ ! -d "$DIR/big41" ]; then
  [ -d "$GEN/chi" ] || bash scripts/bench-generated.sh fetch
  mkdir -p "$DIR/big41/gen"
  for m in prometheus tools; do git -C "$DIR/$m" archive --prefix="$m/" HEAD | tar -x -C "$DIR/big41"; done
  for d in "$GEN"/*/; do
    n=$(basename "$d")
    case $n in ory-client|toml|npm-docs) continue ;; esac
    [ -d "$d/.git" ] || continue
    mkdir -p "$DIR/big41/gen/$n" && git -C "$d" archive HEAD | tar -x -C "$DIR/big41/gen/$n"
  done
  git_commit "$DIR/big41" big41
fi
[ "$WHICH" != corpus ] || { echo "corpora in $DIR"; exit 0; }

WORK="$(mktemp -d)"
cat > "$WORK/c15.yaml" <<YAML
weaviate: {data_dir: $WORK/weaviate, port: $PORT, collection: Mem15}
sources:
  - {name: prometheus, kind: git, path: $DIR/prometheus}
  - {name: github.com/prometheus/alertmanager@v0.35.0, kind: git, path: $PUB/alertmanager@v0.35.0}
  - {name: "npm:@octokit/openapi@23.0.2", kind: openapi, path: $PUB/octokit-openapi@23.0.2/package/generated/api.github.com.json}
YAML
cat > "$WORK/c51.yaml" <<YAML
weaviate: {data_dir: $WORK/weaviate, port: $PORT, collection: Mem51}
sources:
  - {name: big41, kind: git, path: $DIR/big41}
YAML
bin/ragbot weaviate --config "$WORK/c15.yaml" > "$WORK/weaviate.out" 2>&1 &
WV_PID=$!
trap 'kill $WV_PID 2>/dev/null || true; wait $WV_PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 1 120); do
  grep -q "weaviate ready" "$WORK/weaviate.out" && break
  kill -0 $WV_PID 2>/dev/null || break
  sleep 1
done
grep -q "weaviate ready" "$WORK/weaviate.out" || { cat "$WORK/weaviate.out"; exit 1; }

measure() { # name, args...
  local name="$1"; shift
  local prof=()
  [ -z "${RAGBOT_MEMPROFILE:-}" ] || prof=(env "RAGBOT_MEMPROFILE=$RAGBOT_MEMPROFILE.$name")
  "${prof[@]}" /usr/bin/time -v bin/ragbot "$@" > "$WORK/out" 2> "$WORK/err" || { tail -n 20 "$WORK/err"; exit 1; }
  grep -E "chunks|semantic vectors:" "$WORK/out" | cut -c1-160
  local wall rss
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$WORK/err")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$WORK/err")
  printf '%-22s wall %s  peak RSS %d MB  (load average %s)\n' "$name" "$wall" $((rss / 1024)) "$(cut -d' ' -f1-3 /proc/loadavg)"
}
for size in 15 51; do
  case "$WHICH" in all | "${size}k") ;; *) continue ;; esac
  measure "${size}k-recreate" index --config "$WORK/c$size.yaml" --recreate
  measure "${size}k-unchanged" index --config "$WORK/c$size.yaml"
  measure "${size}k-full" index --config "$WORK/c$size.yaml" --full
done
