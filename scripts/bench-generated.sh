#!/usr/bin/env bash
# The generated held-out benchmark (testdata/eval/generated/README.md): 32
# repositories pinned in testdata/eval/generated/repos.tsv, with questions
# made by tools/benchgen from their doc comments, headings and API summaries,
# named-absent questions and hand-written near misses.
#   bash scripts/bench-generated.sh fetch DEST   fetch every repository into DEST/<name> (checksum checked,
#                                               one deterministic git commit each; present ones are kept),
#                                               then write testdata/eval/generated/<name>/questions.jsonl
#   bash scripts/bench-generated.sh check DEST   check the committed questions are what the generator makes
#   bash scripts/bench-generated.sh config DEST  print a ragbot config with every repository as a source
#   bash scripts/bench-generated.sh run DEST     fetch if needed, index all into one collection, `ragbot eval
#                                               --json` every question (report in DEST/eval.json), and
#                                               print figures per kind and per group
# config and run use a local weaviate-server (port RAGBOT_BENCH_PORT, default 8295) unless
# RAGBOT_BENCH_WEAVIATE_URL is set, e.g. http://127.0.0.1:8179; the collection is
# RAGBOT_BENCH_COLLECTION (default GenBench). RAGBOT_EVAL_FLAGS is added to `ragbot eval`.
# With RAGBOT_EVAL_JSON_DIR=DIR (scripts/eval-tables.sh) run writes, after indexing, the
# reports into DIR instead of printing figures: hybrid+rerank.json and hybrid.json
# (`ragbot eval --json --mode M` on every question), groups.tsv (`benchgen groups`) and
# loo.md (`benchgen loo`: the coverage thresholds chosen leave-one-repository-out).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
SET="testdata/eval/generated"
usage() { echo "usage: bash scripts/bench-generated.sh fetch|check|config|run DEST" >&2; exit 2; }
[ $# -eq 2 ] || usage
CMD="$1"
mkdir -p "$2"
DEST="$(cd "$2" && pwd)"
. testdata/eval/fetch-lib.sh

benchgen() { ( cd tools/benchgen && go run . -dir "$ROOT/$SET" "$@" ); }

# fetch_one NAME GROUP REGISTRY PACKAGE VERSION CHECKSUM PATH: one repository
# into DEST/NAME, in a subshell (fetch-lib.sh's functions set an EXIT trap).
fetch_one() {
  local name=$1 registry=$3 pkg=$4 version=$5 sum=$6 sub=$7
  case "$registry" in
    gomod) ( fetch_go_module "$pkg" "$version" "$sum" "$name" "$DEST" ) ;;
    deb) ( fetch_deb "$pkg" "$version" "$sum" "$sub" "$name" "$DEST" ) ;;
    npm) # fetch_npm names the folder PKG@VERSION: fetch beside, then move
      local tmp
      tmp="$(mktemp -d)"
      ( fetch_npm "$pkg" "$version" "$sum" "$tmp" ) && mv "$tmp/$pkg@$version" "$DEST/$name"
      rm -rf "$tmp" ;;
    *) echo "error: $name: unknown registry $registry" >&2; return 1 ;;
  esac
}

fetch_all() {
  local n=0
  while IFS=$'\t' read -r name group registry pkg version sum sub licence; do
    case "$name" in ''|'#'*) continue ;; esac
    if [ -d "$DEST/$name/.git" ]; then continue; fi
    fetch_one "$name" "$group" "$registry" "$pkg" "$version" "$sum" "$sub" >/dev/null
    echo "fetched $name ($registry $pkg@$version) at $(git -C "$DEST/$name" rev-parse HEAD)"
    n=$((n + 1))
  done < "$SET/repos.tsv"
  echo "fetched $n repositories into $DEST"
}

write_config() { # FILE
  {
    echo "weaviate:"
    if [ -n "${RAGBOT_BENCH_WEAVIATE_URL:-}" ]; then
      echo "  url: $RAGBOT_BENCH_WEAVIATE_URL"
    else
      echo "  data_dir: $DEST/.weaviate"
      echo "  port: ${RAGBOT_BENCH_PORT:-8295}"
    fi
    echo "  collection: ${RAGBOT_BENCH_COLLECTION:-GenBench}"
    [ -n "${RAGBOT_BENCH_EMBEDDER:-}" ] && printf '%s\n' "$RAGBOT_BENCH_EMBEDDER"
    echo "sources:"
    benchgen -corpus "$DEST" sources
  } > "$1"
}

case "$CMD" in
  fetch) fetch_all; benchgen -corpus "$DEST" gen ;;
  check) benchgen -corpus "$DEST" check ;;
  config) cfg="$(mktemp)"; write_config "$cfg"; cat "$cfg"; rm -f "$cfg" ;;
  run)
    fetch_all
    benchgen -corpus "$DEST" check
    mkdir -p bin && go build -o bin/ragbot ./cmd/ragbot
    CFG="$DEST/genbench.yaml"
    write_config "$CFG"
    WORK="$(mktemp -d)"
    trap 'rm -rf "$WORK"' EXIT
    bash scripts/install-model.sh >/dev/null # the default semantic model, when not cached yet: ragbot index runs here whatever Weaviate it writes to
    if [ -z "${RAGBOT_BENCH_WEAVIATE_URL:-}" ]; then
      bash scripts/install-weaviate.sh >/dev/null
      bin/ragbot weaviate --config "$CFG" > "$WORK/weaviate.out" 2>&1 &
      WV_PID=$!
      trap 'kill $WV_PID 2>/dev/null; wait $WV_PID 2>/dev/null; rm -rf "$WORK"' EXIT
      for _ in $(seq 1 120); do grep -q "weaviate ready" "$WORK/weaviate.out" && break; sleep 1; done
      grep -q "weaviate ready" "$WORK/weaviate.out" || { cat "$WORK/weaviate.out"; exit 1; }
    fi
    start=$(date +%s)
    bin/ragbot index --config "$CFG" --recreate 2>&1 | grep -v "parse failed" | tail -n 40
    echo "index wall time: $(( $(date +%s) - start )) s"
    benchgen groups > "$WORK/groups.tsv"
    if [ -n "${RAGBOT_EVAL_JSON_DIR:-}" ]; then
      mkdir -p "$RAGBOT_EVAL_JSON_DIR"
      J="$(cd "$RAGBOT_EVAL_JSON_DIR" && pwd)"
      cp "$WORK/groups.tsv" "$J/groups.tsv"
      for mode in hybrid+rerank hybrid; do
        # shellcheck disable=SC2086
        bin/ragbot eval --config "$CFG" --json --mode "$mode" ${RAGBOT_EVAL_FLAGS:-} "$SET"/*/questions.jsonl > "$J/$mode.json"
      done
      benchgen loo "$J/hybrid+rerank.json" > "$J/loo.md"
      exit 0
    fi
    # shellcheck disable=SC2086
    bin/ragbot eval --config "$CFG" --json ${RAGBOT_EVAL_FLAGS:-} "$SET"/*/questions.jsonl > "$DEST/eval.json"
    python3 scripts/bench-generated-report.py "$DEST/eval.json" "$WORK/groups.tsv" "$SET"/*/questions.jsonl
    ;;
  *) usage ;;
esac
