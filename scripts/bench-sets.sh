#!/usr/bin/env bash
# Indexes the corpora of a family of question sets (testdata/eval/<family>/<set>:
# heldout = hashicorp/raft, urllib3, axios; paraphrase = go.etcd.io/bbolt,
# Debian's python3-requests, npm ws; fresh to fresh6, each folder's README.md)
# into one collection, as a team's several
# repositories would be, checks the sets with the family's validate.py when it
# has one, and prints `ragbot eval` right after indexing for each retrieval
# mode, split into the ordinary kinds and the paraphrases (each group only when
# the sets have it), then every question with the unanswerable ones (no
# coverage), with figures per corpus. The figures are rates; docs/evaluation.md
# gives them as found / questions. Fetching needs go (the Go module proxy),
# npm and apt-get download (Debian) as the sets' fetch.sh use them.
#   bash scripts/bench-sets.sh FAMILY [CORPUS_DIR]   (default .ragbot/FAMILY-corpus)
# With RAGBOT_EVAL_JSON_DIR=DIR (scripts/eval-tables.sh) it writes, after
# indexing, the reports of `ragbot eval --json` into DIR instead of printing
# them: <group>-<mode>.json for each group and mode, and all.json.
# scripts/bench-heldout.sh and scripts/bench-paraphrase.sh run it per family.
# RAGBOT_EVAL_FLAGS is added to every `ragbot eval` (e.g. "--without coverage");
# RAGBOT_BENCH_PORT picks the Weaviate ports (default 8289..8294).
# With RAGBOT_EVAL_JSON_DIR, the index run's output goes to index.out and its
# /usr/bin/time -v figures to index.time there; RAGBOT_EVAL_BENCH=1 adds
# latency.json (`ragbot eval --bench --depth 50`) and candidates.jsonl.
# RAGBOT_BENCH_EMBEDDER, when set, is YAML put in the config as it is, e.g.
# 'embedder: {kind: offline, semantic: {kind: onnx, model: all-minilm-l6-v2-q}}'
# (scripts/eval-candidates.sh measures each candidate so).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
FAMILY="${1:?usage: bash scripts/bench-sets.sh FAMILY [CORPUS_DIR], FAMILY a folder of testdata/eval: heldout, paraphrase, fresh, fresh2 .. fresh6}"
SETDIR="testdata/eval/$FAMILY"
[ -d "$SETDIR" ] || { echo "no question sets in $SETDIR" >&2; exit 2; }
CORPUS="${2:-$ROOT/.ragbot/$FAMILY-corpus}"
SETS=()
for d in "$SETDIR"/*/; do [ -f "$d/fetch.sh" ] && SETS+=("$(basename "$d")"); done
bash scripts/install-weaviate.sh >/dev/null
bash scripts/install-model.sh >/dev/null # the default semantic model (all-MiniLM-L6-v2), when not cached yet
mkdir -p "$CORPUS"
# Each set's corpus folder is named <set>@<version>.
for s in "${SETS[@]}"; do
  ls -d "$CORPUS/$s"@*/ >/dev/null 2>&1 || bash "$SETDIR/$s/fetch.sh" "$CORPUS"
done
if [ -f "$SETDIR/validate.py" ]; then
  check="$(python3 "$SETDIR/validate.py" "$CORPUS")" || { echo "$check"; exit 1; }
  echo "$check" | tail -n 1
fi
mkdir -p bin && go build -o bin/ragbot ./cmd/ragbot

WORK="$(mktemp -d)"
CFG="$WORK/$FAMILY.yaml"
{
  echo "weaviate:"
  echo "  data_dir: $WORK/weaviate"
  echo "  port: ${RAGBOT_BENCH_PORT:-8289}"
  [ -n "${RAGBOT_BENCH_EMBEDDER:-}" ] && printf '%s\n' "$RAGBOT_BENCH_EMBEDDER"
  echo "sources:"
  for s in "${SETS[@]}"; do
    name="$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["corpus"])' "$SETDIR/$s/questions.jsonl")"
    dir="$(ls -d "$CORPUS/$s"@*/ | head -1)"
    printf '  - name: "%s"\n    kind: git\n    path: %s\n' "$name" "${dir%/}"
  done
} > "$CFG"
bin/ragbot weaviate --config "$CFG" > "$WORK/weaviate.out" 2>&1 &
WV_PID=$!
trap 'kill $WV_PID 2>/dev/null; wait $WV_PID 2>/dev/null; rm -rf "$WORK"' EXIT
for i in $(seq 1 120); do grep -q "weaviate ready" "$WORK/weaviate.out" && break; sleep 1; done
grep -q "weaviate ready" "$WORK/weaviate.out" || { cat "$WORK/weaviate.out"; exit 1; }

if [ -n "${RAGBOT_EVAL_JSON_DIR:-}" ]; then # the index run's output and /usr/bin/time -v figures, for scripts/eval-candidates.sh
  /usr/bin/time -v -o "$RAGBOT_EVAL_JSON_DIR/index.time" bin/ragbot index --config "$CFG" --recreate > "$RAGBOT_EVAL_JSON_DIR/index.out" 2>&1
  grep -v "parse failed" "$RAGBOT_EVAL_JSON_DIR/index.out" | tail -n "$(( ${#SETS[@]} + 1 ))"
else
  bin/ragbot index --config "$CFG" --recreate 2>&1 | grep -v "parse failed" | tail -n "$(( ${#SETS[@]} + 1 ))"
fi
# Writes ordinary.jsonl and paraphrase.jsonl (the groups the sets have) and all.jsonl.
python3 - "$WORK" "$SETDIR"/*/questions.jsonl <<'PY'
import json, sys
work, files = sys.argv[1], sys.argv[2:]
qs = [json.loads(l) for f in files for l in open(f)]
split = {
    "ordinary": [q for q in qs if q["expect"] and q["kind"] != "paraphrase"],
    "paraphrase": [q for q in qs if q["expect"] and q["kind"] == "paraphrase"],
}
for name, sel in split.items():
    if sel:
        with open(f"{work}/{name}.jsonl", "w") as f:
            f.writelines(json.dumps(q) + "\n" for q in sel)
with open(f"{work}/all.jsonl", "w") as f:
    f.writelines(json.dumps(q) + "\n" for q in qs)
PY
SPLITS=()
for g in ordinary paraphrase; do [ -f "$WORK/$g.jsonl" ] && SPLITS+=("$g"); done
if [ -n "${RAGBOT_EVAL_JSON_DIR:-}" ]; then # scripts/eval-tables.sh: the reports as JSON, then stop
  for set in "${SPLITS[@]}"; do
    for mode in bm25 vector hybrid hybrid+rerank; do
      bin/ragbot eval --config "$CFG" --json --mode "$mode" "$WORK/$set.jsonl" ${RAGBOT_EVAL_FLAGS:-} > "$RAGBOT_EVAL_JSON_DIR/$set-$mode.json"
    done
  done
  bin/ragbot eval --config "$CFG" --json "$WORK/all.jsonl" ${RAGBOT_EVAL_FLAGS:-} > "$RAGBOT_EVAL_JSON_DIR/all.json"
  if [ -n "${RAGBOT_EVAL_BENCH:-}" ]; then # ask latency, and each answerable question's first 50 candidates
    bin/ragbot eval --config "$CFG" --json --bench --bench-runs 3 --depth 50 --candidates "$RAGBOT_EVAL_JSON_DIR/candidates.jsonl" "$WORK/all.jsonl" ${RAGBOT_EVAL_FLAGS:-} > "$RAGBOT_EVAL_JSON_DIR/latency.json"
  fi
  exit 0
fi
for set in "${SPLITS[@]}"; do
  for mode in bm25 vector hybrid hybrid+rerank; do
    echo; echo "== $set questions, ragbot eval --mode $mode"
    bin/ragbot eval --config "$CFG" --mode "$mode" "$WORK/$set.jsonl" ${RAGBOT_EVAL_FLAGS:-} | sed -n '/^kind/,/^misses/p' | grep -v '^misses'
  done
done
echo; echo "== every question, with the unanswerable ones (hybrid+rerank): no coverage"
bin/ragbot eval --config "$CFG" "$WORK/all.jsonl" ${RAGBOT_EVAL_FLAGS:-} | sed -n '/^no coverage/,/^misses/p' | grep -v '^misses'
