#!/usr/bin/env bash
# Figures of cited lines on a real long function: weaviate v1.39.2's FromEnv
# (usecases/config/environment.go, 1,433 lines, 131 variables read with
# os.Getenv/os.LookupEnv). Downloads the module from the Go module proxy (its
# go.sum hash checked), indexes its usecases/config folder with RAGBOT into a
# local Weaviate of its own, asks "where is X read?" for every variable, and
# prints one line (scripts/fromenv-lines.py says what it counts).
#   bash scripts/fromenv-lines.sh [RAGBOT] [PORT]   (defaults bin/ragbot, 8731..8736)
set -euo pipefail
cd "$(dirname "$0")/.."
RAGBOT="$(realpath "${1:-bin/ragbot}")"
PORT="${2:-8731}"
MODULE=github.com/weaviate/weaviate VERSION=v1.39.2 SUM='h1:036gj+U4UsYzXb0oTrDLwmMa5zejMZ8Op3chTBgNmTA='
WORK="$(mktemp -d)"
json=$(cd "$WORK" && GOWORK=off GO111MODULE=on GOFLAGS=-modcacherw go mod download -json "$MODULE@$VERSION")
field() { printf '%s\n' "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin).get(sys.argv[1],""))' "$1"; }
if [ "$(field Sum)" != "$SUM" ]; then echo "error: $MODULE@$VERSION: go.sum hash $(field Sum), want $SUM $(field Error)" >&2; exit 1; fi
mkdir -p "$WORK/repo/usecases/config"
cp "$(field Dir)"/usecases/config/*.go "$WORK/repo/usecases/config/"
chmod -R u+w "$WORK/repo"
( cd "$WORK/repo" && git init -q -b main && git add -A &&
  GIT_AUTHOR_NAME=corpus GIT_AUTHOR_EMAIL=corpus@example.invalid GIT_AUTHOR_DATE=2026-01-01T00:00:00Z \
  GIT_COMMITTER_NAME=corpus GIT_COMMITTER_EMAIL=corpus@example.invalid GIT_COMMITTER_DATE=2026-01-01T00:00:00Z \
  git -c commit.gpgsign=false commit -q -m "corpus $MODULE@$VERSION usecases/config" )
CFG="$WORK/ragbot.yaml"
cat > "$CFG" <<YAML
weaviate:
  data_dir: $WORK/weaviate
  port: $PORT
embedder: {kind: offline, semantic: {kind: none}}
sources:
  - {name: weaviate, kind: git, path: $WORK/repo}
YAML
"$RAGBOT" weaviate --config "$CFG" > "$WORK/weaviate.out" 2>&1 &
WV_PID=$!
trap 'kill $WV_PID 2>/dev/null; wait $WV_PID 2>/dev/null; rm -rf "$WORK"' EXIT
for i in $(seq 1 120); do grep -q "weaviate ready" "$WORK/weaviate.out" && break; sleep 1; done
grep -q "weaviate ready" "$WORK/weaviate.out" || { cat "$WORK/weaviate.out"; exit 1; }
"$RAGBOT" index --config "$CFG" >/dev/null
python3 scripts/fromenv-lines.py "$RAGBOT" "$CFG" "$WORK/repo"
