#!/usr/bin/env bash
# Indexes the paraphrase corpora (testdata/eval/paraphrase: go.etcd.io/bbolt,
# Debian's python3-requests, npm ws) into one collection, as a team's several
# repositories would be, checks the question sets against them
# (testdata/eval/paraphrase/validate.py), and prints `ragbot eval` right after
# indexing: the paraphrase questions per retrieval mode, with figures per
# corpus, then every question with the unanswerable ones (no coverage).
#   bash scripts/bench-paraphrase.sh [CORPUS_DIR]   (default .ragbot/paraphrase-corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
CORPUS="${1:-$ROOT/.ragbot/paraphrase-corpus}"
SETS=(bbolt requests ws)
bash scripts/install-weaviate.sh >/dev/null
mkdir -p "$CORPUS"
# Each set's corpus folder is named <set>@<version>.
for s in "${SETS[@]}"; do
  ls -d "$CORPUS/$s"@*/ >/dev/null 2>&1 || bash "testdata/eval/paraphrase/$s/fetch.sh" "$CORPUS"
done
check="$(python3 testdata/eval/paraphrase/validate.py "$CORPUS")" || { echo "$check"; exit 1; }
echo "$check" | tail -n 1
mkdir -p bin && go build -o bin/ragbot ./cmd/ragbot

WORK="$(mktemp -d)"
{
  echo "weaviate:"
  echo "  data_dir: $WORK/weaviate"
  echo "  port: 8339"
  echo "sources:"
  for s in "${SETS[@]}"; do
    name="$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["corpus"])' "testdata/eval/paraphrase/$s/questions.jsonl")"
    dir="$(ls -d "$CORPUS/$s"@*/ | head -1)"
    printf '  - name: "%s"\n    kind: git\n    path: %s\n' "$name" "${dir%/}"
  done
} > "$WORK/paraphrase.yaml"
bin/ragbot weaviate --config "$WORK/paraphrase.yaml" > "$WORK/weaviate.out" 2>&1 &
WV_PID=$!
trap 'kill $WV_PID 2>/dev/null; wait $WV_PID 2>/dev/null; rm -rf "$WORK"' EXIT
for i in $(seq 1 120); do grep -q "weaviate ready" "$WORK/weaviate.out" && break; sleep 1; done
grep -q "weaviate ready" "$WORK/weaviate.out" || { cat "$WORK/weaviate.out"; exit 1; }

bin/ragbot index --config "$WORK/paraphrase.yaml" --recreate 2>&1 | grep -v "parse failed" | tail -n "${#SETS[@]}"
python3 - "$WORK" testdata/eval/paraphrase/*/questions.jsonl <<'PY'
import json, sys
work, files = sys.argv[1], sys.argv[2:]
qs = [json.loads(l) for f in files for l in open(f)]
split = {
    "paraphrase": [q for q in qs if q["expect"]],
    "all": qs,
}
for name, sel in split.items():
    with open(f"{work}/{name}.jsonl", "w") as f:
        f.writelines(json.dumps(q) + "\n" for q in sel)
PY
for mode in bm25 vector hybrid hybrid+rerank; do
  echo; echo "== paraphrase questions, ragbot eval --mode $mode"
  bin/ragbot eval --config "$WORK/paraphrase.yaml" --mode "$mode" "$WORK/paraphrase.jsonl" ${RAGBOT_EVAL_FLAGS:-} | sed -n '/^kind/,/^misses/p' | grep -v '^misses'
done
echo; echo "== every question, with the unanswerable ones (hybrid+rerank): no coverage"
bin/ragbot eval --config "$WORK/paraphrase.yaml" "$WORK/all.jsonl" ${RAGBOT_EVAL_FLAGS:-} | sed -n '/^no coverage/,/^misses/p' | grep -v '^misses'
