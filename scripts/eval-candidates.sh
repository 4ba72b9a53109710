#!/usr/bin/env bash
# Measures the semantic-vector candidates side by side, in one run, and
# writes the table of docs/evaluation.md between the markers
# <!-- eval-candidates:begin/end -->: for each candidate, each question-set
# family is indexed into a fresh collection (scripts/bench-eval.sh,
# scripts/bench-sets.sh through bench-heldout/paraphrase/fresh, and
# scripts/bench-generated.sh run) with RAGBOT_BENCH_EMBEDDER set to the
# candidate's embedder section, and `ragbot eval --json` is kept; then
# scripts/eval-candidates.py renders recall@5 and MRR@10 per family and kind,
# the three outcomes, tests above the implementation, index chunks/s, the
# semantic fill's chunks/s, query p50/p95, model size and peak RSS.
#
#   bash scripts/eval-candidates.sh [--candidates LIST] [--sets LIST] [--keep DIR] [--from DIR] [--doc FILE]
#
#   --candidates LIST  comma-separated, of: codesearch (the code-search encoder
#                      built into the binary, the default before minilm),
#                      minilm (all-minilm-l6-v2-q), minilm-fp32, bge
#                      (bge-small-en-v1.5-q), e5 (e5-small-v2-q), none
#                      (no semantic vector); default codesearch,minilm,bge,e5
#   --sets LIST        of public, heldout, paraphrase, fresh, fresh2, fresh3,
#                      fresh4, fresh5, fresh6, generated (default all)
#   --keep DIR         keep the reports in DIR/<candidate>/<set> (default: a
#                      temporary folder, removed); a report already there is
#                      not measured again
#   --from DIR         render from DIR's reports; run nothing
#   --doc FILE         the document whose table to rewrite; "-" prints the
#                      table only. Default: docs/evaluation.md for a run
#                      without --candidates and --sets; a run with either
#                      prints its table and leaves the document (whose
#                      table holds every candidate) alone
#
# The models of kind onnx are installed first (scripts/install-model.sh). A
# full run on 2 cores takes about an hour per transformer candidate (the
# generated benchmark's corpus dominates); each family runs its own Weaviate.
set -euo pipefail
cd "$(dirname "$0")/.."
CANDS="codesearch,minilm,bge,e5"
SETS="public,heldout,paraphrase,fresh,fresh2,fresh3,fresh4,fresh5,fresh6,generated"
KEEP=""
FROM=""
DOC=""
NARROW=""
while [ $# -gt 0 ]; do
  case "$1" in
    --candidates) CANDS="${2:?}"; NARROW=1; shift ;;
    --sets) SETS="${2:?}"; NARROW=1; shift ;;
    --keep) KEEP="${2:?}"; shift ;;
    --from) FROM="${2:?}"; shift ;;
    --doc) DOC="${2:?}"; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "eval-candidates.sh: unknown argument \"$1\"; see --help" >&2; exit 2 ;;
  esac
  shift
done

embedder() { # CANDIDATE: the embedder section of its config
  case "$1" in
    codesearch) echo 'embedder: {kind: offline, semantic: {kind: codesearch}}' ;;
    none) echo 'embedder: {kind: offline, semantic: {kind: none}}' ;;
    minilm) echo 'embedder: {kind: offline, semantic: {kind: onnx, model: all-minilm-l6-v2-q}}' ;;
    minilm-fp32) echo 'embedder: {kind: offline, semantic: {kind: onnx, model: all-minilm-l6-v2}}' ;;
    bge) echo 'embedder: {kind: offline, semantic: {kind: onnx, model: bge-small-en-v1.5-q}}' ;;
    e5) echo 'embedder: {kind: offline, semantic: {kind: onnx, model: e5-small-v2-q}}' ;;
    *) echo "eval-candidates.sh: unknown candidate \"$1\"" >&2; exit 2 ;;
  esac
}
model() { # CANDIDATE: its model name of kind onnx, or nothing
  embedder "$1" | sed -n 's/.*kind: onnx, model: \([^}]*\)}}/\1/p'
}

if [ -z "$DOC" ]; then
  DOC="docs/evaluation.md"
  [ -z "$NARROW" ] || DOC="-"
fi
IFS=, read -r -a CLIST <<< "$CANDS"
IFS=, read -r -a SLIST <<< "$SETS"
if [ -z "$FROM" ]; then
  OUT="${KEEP:-$(mktemp -d)}"
  [ -n "$KEEP" ] || trap 'rm -rf "$OUT"' EXIT
  models=()
  for c in "${CLIST[@]}"; do m="$(model "$c")"; [ -z "$m" ] || models+=("$m"); done
  [ ${#models[@]} -eq 0 ] || bash scripts/install-model.sh "${models[@]}"
  for c in "${CLIST[@]}"; do
    for s in "${SLIST[@]}"; do
      J="$OUT/$c/$s"
      if [ -f "$J/done" ]; then echo "$c $s: kept from an earlier run"; continue; fi
      mkdir -p "$J"
      echo "== $c $s ($(date +%T))"
      export RAGBOT_EVAL_JSON_DIR="$J" RAGBOT_BENCH_EMBEDDER="$(embedder "$c")" RAGBOT_EVAL_BENCH=1
      case "$s" in
        public) bash scripts/bench-eval.sh ;;
        heldout|paraphrase|fresh) bash "scripts/bench-$s.sh" ;;
        fresh2|fresh3|fresh4|fresh5|fresh6) bash scripts/bench-sets.sh "$s" ;;
        generated) bash scripts/bench-generated.sh run "${RAGBOT_GENERATED_CORPUS:-.ragbot/genbench}" ;;
        *) echo "eval-candidates.sh: unknown set \"$s\"" >&2; exit 2 ;;
      esac > "$J/bench.log" 2>&1 || { tail -n 20 "$J/bench.log"; exit 1; }
      touch "$J/done"
    done
  done
  FROM="$OUT"
fi
python3 scripts/eval-candidates.py "$FROM" "$DOC" "${CLIST[@]}"
