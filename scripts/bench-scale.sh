#!/usr/bin/env bash
# The scale benchmark (docs/deploy.md, "Sizing"): 294,997 chunks of 15
# large Go modules (scripts/fetch-scale-corpus.sh) in one collection on one
# local weaviate-server, with the product's default embedders (lexical hash
# vector, then the onnx sentence encoder's vectors filled in a second pass).
#
#   bash scripts/bench-scale.sh config DIR        write DIR/scale.yaml (every module a git source) and
#                                                DIR/scale15k.yaml (grpc-go and etcd-server, ~15,800 chunks)
#   bash scripts/bench-scale.sh weaviate DIR CFG  start `ragbot weaviate --config CFG` in the background and
#                                                sample its VmRSS/VmHWM and the load average every 10 s
#                                                into DIR/<cfg>.samples
#   bash scripts/bench-scale.sh lexical DIR CFG   `/usr/bin/time -v ragbot index --recreate`, stopped (SIGINT)
#                                                when the last source's summary line is out, i.e. as the
#                                                semantic fill starts: the lexical pass alone
#   bash scripts/bench-scale.sh fill DIR CFG      `/usr/bin/time -v ragbot index` (sources unchanged: it only
#                                                resumes the fill); RAGBOT_SCALE_FILL_LIMIT=SECONDS stops it
#   bash scripts/bench-scale.sh ask DIR CFG NAME  recall (`ragbot eval`), then ask latency: 1 asker in the
#                                                question's corpus and in all sources, 20 askers in all
#                                                sources; reports in DIR/NAME.*.json
#
# DIR defaults to /work/scale-corpus (the corpus in DIR/repos). Every step
# prints the load average: the figures are only comparable on a machine as
# loaded. Run long steps under `nice -n 5` on a shared machine.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
cmd="${1:?usage: bench-scale.sh config|weaviate|lexical|fill|ask DIR [CFG [NAME]]}"
dir="${2:-/work/scale-corpus}"
RAGBOT="${RAGBOT:-$ROOT/bin/ragbot}"
questions="$ROOT/testdata/eval/scale/questions.jsonl"
load() { echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) ($(date -u +%H:%M:%S) UTC)"; }

case "$cmd" in
config)
  {
    echo "weaviate:"
    echo "  data_dir: $dir/weaviate-data"
    echo "  port: ${RAGBOT_SCALE_PORT:-8460}"
    echo "  collection: ScaleChunk"
    echo "sources:"
    for d in "$dir"/repos/*/; do
      n="$(basename "$d")"
      printf '  - name: %s\n    kind: git\n    path: %s\n' "$n" "${d%/}"
    done
  } > "$dir/scale.yaml"
  {
    echo "weaviate:"
    echo "  data_dir: $dir/weaviate-15k"
    echo "  port: ${RAGBOT_SCALE15K_PORT:-8470}"
    echo "  collection: Scale15k"
    echo "sources:"
    for n in grpc-go etcd-server; do
      printf '  - name: %s\n    kind: git\n    path: %s\n' "$n" "$dir/repos/$n"
    done
  } > "$dir/scale15k.yaml"
  # The 15k index holds two of the modules: its latency set is the same 37
  # questions, all filed under grpc-go and timed in all sources.
  python3 - "$questions" "$dir/latency-15k.jsonl" <<'EOF'
import json, sys
with open(sys.argv[2], "w") as f:
    for line in open(sys.argv[1]):
        q = json.loads(line); q["corpus"] = "grpc-go"; f.write(json.dumps(q) + "\n")
EOF
  echo "wrote $dir/scale.yaml, $dir/scale15k.yaml, $dir/latency-15k.jsonl"
  ;;
weaviate)
  cfg="${3:?config}"
  out="$dir/$(basename "$cfg" .yaml)"
  nice -n 5 "$RAGBOT" weaviate --config "$cfg" > "$out.weaviate.log" 2>&1 &
  port="$(awk '/^  port:/{print $2; exit}' "$cfg")"
  for _ in $(seq 60); do
    curl -sf -o /dev/null "http://127.0.0.1:$port/v1/.well-known/ready" && break
    sleep 2
  done
  pid="$(pgrep -f "weaviate-server --host 127.0.0.1 --port $port ")"
  echo "weaviate-server pid $pid on port $port"
  ( while kill -0 "$pid" 2>/dev/null; do
      echo "$(date -u +%H:%M:%S) load=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ,) $(grep -E 'VmRSS|VmHWM' /proc/"$pid"/status | awk '{printf "%s%s ", $1, $2}')"
      sleep 10
    done >> "$out.samples" ) &
  ;;
lexical)
  cfg="${3:?config}"
  out="$dir/$(basename "$cfg" .yaml)"
  load
  nice -n 5 /usr/bin/time -v "$RAGBOT" index --recreate --config "$cfg" > "$out.lexical.out" 2> "$out.lexical.err" &
  tpid=$!
  # The fill starts as soon as the last source's summary line is printed.
  n="$(grep -c '^  - name:' "$cfg")"
  until [ "$(grep -c '@main (' "$out.lexical.out" 2>/dev/null)" -ge "$n" ] || ! kill -0 "$tpid" 2>/dev/null; do sleep 1; done
  kill -INT "$(pgrep -P "$tpid")" 2>/dev/null || true
  wait "$tpid" || true
  load
  grep "@" "$out.lexical.out" | sed 's/ (.*, \([0-9.ms]*\)$/ \1/' || true
  grep -E "Elapsed|Maximum resident" "$out.lexical.err"
  ;;
fill)
  cfg="${3:?config}"
  out="$dir/$(basename "$cfg" .yaml)"
  load
  nice -n 5 /usr/bin/time -v "$RAGBOT" index --config "$cfg" > "$out.fill.out" 2> "$out.fill.err" &
  tpid=$!
  if [ -n "${RAGBOT_SCALE_FILL_LIMIT:-}" ]; then
    ( sleep "$RAGBOT_SCALE_FILL_LIMIT"; kill -INT "$(pgrep -P "$tpid")" 2>/dev/null ) &
  fi
  wait "$tpid" || true
  load
  tr '\r' '\n' < "$out.fill.err" | grep "^semantic vectors" | tail -1
  cat "$out.fill.out"
  grep -E "Elapsed|Maximum resident" "$out.fill.err"
  ;;
ask)
  cfg="${3:?config}"; name="${4:?name}"
  qs="${RAGBOT_SCALE_QUESTIONS:-$questions}"
  load
  nice -n 5 "$RAGBOT" eval --config "$cfg" --json --bench --bench-runs 3 "$qs" > "$dir/$name.corpus.json"
  nice -n 5 "$RAGBOT" eval --config "$cfg" --json --bench --bench-runs 3 --bench-all-sources "$qs" > "$dir/$name.all.json"
  load
  nice -n 5 "$RAGBOT" eval --config "$cfg" --json --bench --bench-runs 2 --bench-askers 20 --bench-all-sources "$qs" > "$dir/$name.all20.json"
  load
  for f in corpus all all20; do
    python3 - "$dir/$name.$f.json" <<'EOF'
import json, sys
o = json.load(open(sys.argv[1])); l = o.get("latency_ms") or {}
print(f"{sys.argv[1]}: recall@5 {o['recall_at_5']:.3f} ({o['questions']} questions); "
      f"ask p50 {l.get('p50')} ms p95 {l.get('p95')} ms max {l.get('max')} ms, "
      f"{l.get('calls')} calls, askers {l.get('askers', 1)}, all sources {l.get('all_sources', False)}, "
      f"{l.get('calls_per_second', '')} calls/s")
EOF
  done
  ;;
*) echo "unknown step $cmd" >&2; exit 2 ;;
esac
