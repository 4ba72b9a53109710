#!/usr/bin/env bash
# Regenerates the current tables of docs/evaluation.md, so they cannot go stale
# silently: runs `ragbot eval --json` on the public set (../shared/eval, with
# testdata/eval/unanswerable.jsonl) and on the question-set families of
# testdata/eval (heldout, paraphrase, generated), through the bench scripts that
# fetch the corpora, build the configs and index them (scripts/bench-eval.sh,
# scripts/bench-heldout.sh, scripts/bench-paraphrase.sh,
# scripts/bench-generated.sh run, run with
# RAGBOT_EVAL_JSON_DIR set so that they write their reports there and stop),
# then rewrites the tables between the <!-- eval-tables:NAME:begin/end -->
# markers with scripts/eval-tables.py.
#
#   bash scripts/eval-tables.sh [--check] [--sets public,heldout,paraphrase,generated] [--from DIR] [--keep DIR] [--doc FILE]
#
#   --check      write nothing; exit 1 (printing a diff) when a regenerated table
#                differs from the committed one. The latency and index-time block
#                is machine-dependent and never compared.
#   --sets LIST  the families to run (default all four); the others' tables stay
#   --from DIR   render from the reports already in DIR (of an earlier --keep);
#                runs nothing
#   --keep DIR   keep the reports in DIR (default: a temporary folder, removed)
#   --doc FILE   the document to rewrite or check (default docs/evaluation.md)
#
# A full run fetches the corpora it lacks (into .ragbot/), builds bin/ragbot and
# indexes each family into a fresh collection (four index runs of several
# corpora: minutes each on 2 cores, the generated set's 33 repositories about
# 5 minutes and its two eval passes about 4 each; the generated corpus goes to
# RAGBOT_GENERATED_CORPUS, default .ragbot/genbench).
# The bench scripts' own variables apply (RAGBOT_EVAL_DIR, RAGBOT_EVAL_PORT,
# RAGBOT_BENCH_PORT, RAGBOT_EVAL_FLAGS); each family runs its own Weaviate, one
# after the other.
#
# The renderer's own check, on hand-made reports (no ragbot, no Weaviate):
#   cp testdata/evaltables/doc.md /tmp/doc.md
#   bash scripts/eval-tables.sh --from testdata/evaltables/reports --doc /tmp/doc.md
#   diff testdata/evaltables/want.md /tmp/doc.md
set -euo pipefail
cd "$(dirname "$0")/.."

CHECK=""
SETS="public,heldout,paraphrase,generated"
FROM=""
KEEP=""
DOC="docs/evaluation.md"
while [ $# -gt 0 ]; do
  case "$1" in
    --check) CHECK="--check" ;;
    --sets) SETS="${2:?--sets needs a list}"; shift ;;
    --from) FROM="${2:?--from needs a folder}"; shift ;;
    --keep) KEEP="${2:?--keep needs a folder}"; shift ;;
    --doc) DOC="${2:?--doc needs a file}"; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "eval-tables.sh: unknown argument \"$1\"; see --help" >&2; exit 2 ;;
  esac
  shift
done
IFS=, read -r -a FAMILIES <<< "$SETS"
for f in "${FAMILIES[@]}"; do
  case "$f" in
    public|heldout|paraphrase|generated) ;;
    *) echo "eval-tables.sh: --sets \"$f\", want public, heldout, paraphrase or generated" >&2; exit 2 ;;
  esac
done
[ -f "$DOC" ] || { echo "eval-tables.sh: no document $DOC" >&2; exit 2; }

if [ -n "$FROM" ]; then
  [ -d "$FROM" ] || { echo "eval-tables.sh: no folder $FROM" >&2; exit 2; }
  exec python3 scripts/eval-tables.py $CHECK "$FROM" "$DOC"
fi

if [ -n "$KEEP" ]; then
  OUT="$KEEP"
  mkdir -p "$OUT"
else
  OUT="$(mktemp -d)"
  trap 'rm -rf "$OUT"' EXIT
fi

for f in "${FAMILIES[@]}"; do
  rm -rf "${OUT:?}/$f"
  mkdir -p "$OUT/$f"
  echo "== $f: indexing and ragbot eval --json (reports in $OUT/$f)" >&2
  case "$f" in
    public)
      python3 - "$OUT/public/machine.json" "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!docs' 2>/dev/null || echo '+dirty')" <<'PY'
import json, os, sys, time
with open(sys.argv[1], "w") as out:
    json.dump({"commit": sys.argv[2], "date": time.strftime("%Y-%m-%d"), "cores": os.cpu_count(),
               "loadavg": "%.1f" % os.getloadavg()[0]}, out)
PY
      RAGBOT_EVAL_JSON_DIR="$OUT/public" bash scripts/bench-eval.sh >&2 ;;
    heldout) RAGBOT_EVAL_JSON_DIR="$OUT/heldout" bash scripts/bench-heldout.sh >&2 ;;
    paraphrase) RAGBOT_EVAL_JSON_DIR="$OUT/paraphrase" bash scripts/bench-paraphrase.sh >&2 ;;
    generated) RAGBOT_EVAL_JSON_DIR="$OUT/generated" bash scripts/bench-generated.sh run "${RAGBOT_GENERATED_CORPUS:-.ragbot/genbench}" >&2 ;;
  esac
done
python3 scripts/eval-tables.py $CHECK "$OUT" "$DOC"
