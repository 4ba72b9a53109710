#!/usr/bin/env bash
# Indexes the held-out corpora (testdata/eval/heldout: hashicorp/raft,
# urllib3, axios) into one collection, as a team's several repositories
# would be, and prints `ragbot eval` right after indexing for each
# retrieval mode, split into the ordinary kinds, the paraphrases and the
# unanswerable questions, with figures per corpus.
#   bash scripts/bench-heldout.sh [CORPUS_DIR]   (default .ragbot/heldout-corpus)
# RAGBOT_EVAL_FLAGS is added to every `ragbot eval` (e.g. "--expand prf");
# RAGBOT_EXPAND_SETS="none prf glove wordnet prf,glove,wordnet" also prints
# hybrid+rerank for each query expansion set (`ragbot eval --expand`), on
# the same index; RAGBOT_HELDOUT_PORT picks the Weaviate ports (default
# 8289..8294).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
CORPUS="${1:-$ROOT/.ragbot/heldout-corpus}"
SETS=(raft urllib3 axios)
bash scripts/install-weaviate.sh >/dev/null
mkdir -p "$CORPUS"
# Each set's corpus folder is named <set>@<version>.
for s in "${SETS[@]}"; do
  ls -d "$CORPUS/$s"@*/ >/dev/null 2>&1 || bash "testdata/eval/heldout/$s/fetch.sh" "$CORPUS"
done
mkdir -p bin && go build -o bin/ragbot ./cmd/ragbot

WORK="$(mktemp -d)"
{
  echo "weaviate:"
  echo "  data_dir: $WORK/weaviate"
  echo "  port: ${RAGBOT_HELDOUT_PORT:-8289}"
  echo "sources:"
  for s in "${SETS[@]}"; do
    name="$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["corpus"])' "testdata/eval/heldout/$s/questions.jsonl")"
    dir="$(ls -d "$CORPUS/$s"@*/ | head -1)"
    printf '  - name: "%s"\n    kind: git\n    path: %s\n' "$name" "${dir%/}"
  done
} > "$WORK/heldout.yaml"
bin/ragbot weaviate --config "$WORK/heldout.yaml" > "$WORK/weaviate.out" 2>&1 &
WV_PID=$!
trap 'kill $WV_PID 2>/dev/null; wait $WV_PID 2>/dev/null; rm -rf "$WORK"' EXIT
for i in $(seq 1 120); do grep -q "weaviate ready" "$WORK/weaviate.out" && break; sleep 1; done
grep -q "weaviate ready" "$WORK/weaviate.out" || { cat "$WORK/weaviate.out"; exit 1; }

bin/ragbot index --config "$WORK/heldout.yaml" --recreate 2>&1 | grep -v "parse failed" | tail -n "${#SETS[@]}"
python3 - "$WORK" testdata/eval/heldout/*/questions.jsonl <<'PY'
import json, sys
work, files = sys.argv[1], sys.argv[2:]
qs = [json.loads(l) for f in files for l in open(f)]
split = {
    "ordinary": [q for q in qs if q["expect"] and q["kind"] != "paraphrase"],
    "paraphrase": [q for q in qs if q["expect"] and q["kind"] == "paraphrase"],
    "all": qs,
}
for name, sel in split.items():
    with open(f"{work}/{name}.jsonl", "w") as f:
        f.writelines(json.dumps(q) + "\n" for q in sel)
PY
for set in ordinary paraphrase; do
  for mode in bm25 vector hybrid hybrid+rerank; do
    echo; echo "== $set questions, ragbot eval --mode $mode"
    bin/ragbot eval --config "$WORK/heldout.yaml" --mode "$mode" "$WORK/$set.jsonl" ${RAGBOT_EVAL_FLAGS:-} | sed -n '/^kind/,/^misses/p' | grep -v '^misses'
  done
done
echo; echo "== every question, with the unanswerable ones (hybrid+rerank): no coverage"
bin/ragbot eval --config "$WORK/heldout.yaml" "$WORK/all.jsonl" ${RAGBOT_EVAL_FLAGS:-} | sed -n '/^no coverage/,/^misses/p' | grep -v '^misses'
for exp in ${RAGBOT_EXPAND_SETS:-}; do
  for set in ordinary paraphrase; do
    echo; echo "== $set questions, ragbot eval --expand $exp"
    bin/ragbot eval --config "$WORK/heldout.yaml" ${RAGBOT_EVAL_FLAGS:-} --expand "$exp" "$WORK/$set.jsonl" | sed -n '/^kind/,/^misses/p' | grep -v '^misses'
  done
done
