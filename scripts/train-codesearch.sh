#!/usr/bin/env bash
# Fetches the pinned training inputs of the codesearch embedder and trains
# models/codesearch-v1/model.bin (see models/codesearch-v1/PROVENANCE.md):
#   bash scripts/train-codesearch.sh [CACHE_DIR]   (default ~/.cache/ragbot-codesearch)
# Inputs: the Go standard library of the running toolchain, the Go modules
# of models/codesearch-v1/inputs/go-modules.txt (through the module proxy,
# checked against their h1: sums), the Debian packages of debian-packages.lock
# (apt-get download, checked against their SHA-256) and the npm packages of
# npm-packages.lock (npm pack, checked against their sha512 integrity). A
# package missing from a lock file is added to it from the current registry
# (the first run).
# Same inputs and seed -> same model bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
IN="$ROOT/models/codesearch-v1/inputs"
CACHE="${1:-${XDG_CACHE_HOME:-$HOME/.cache}/ragbot-codesearch}"
mkdir -p "$CACHE/deb" "$CACHE/npm" "$CACHE/src"
ROOTS="$CACHE/roots.txt"
: > "$ROOTS"

echo "go stdlib $(go env GOROOT)/src" >> "$ROOTS"

# Go modules: go mod download verifies each zip against the checksum
# database; we also compare with the pinned h1: sum.
GOFLAGS=-mod=mod go mod download -json $(awk 'NF {print $1 "@" $2}' "$IN/go-modules.txt") > "$CACHE/go-modules.json"
python3 - "$IN/go-modules.txt" "$CACHE/go-modules.json" >> "$ROOTS" <<'PY'
import json, sys
pinned = [l.split() for l in open(sys.argv[1]) if l.strip()]
dec, text, got = json.JSONDecoder(), open(sys.argv[2]).read(), {}
i = 0
while i < len(text):
    if text[i].isspace():
        i += 1
        continue
    obj, i = dec.raw_decode(text, i)
    got[obj["Path"] + "@" + obj["Version"]] = obj
for mod, ver, h1 in pinned:
    o = got.get(mod + "@" + ver)
    if o is None or o.get("Error") or o.get("Sum") != h1:
        sys.exit("checksum mismatch or download error for %s@%s: %s" % (mod, ver, o and (o.get("Error") or o.get("Sum"))))
    print("go", mod, o["Dir"])
PY

# Debian packages (Python): pinned name=version and SHA-256.
if [ ! -f "$IN/debian-packages.lock" ]; then
  while read -r p; do
    [ -z "$p" ] && continue
    v="$(apt-cache policy "$p" | awk '/Candidate:/ {print $2}')"
    (cd "$CACHE/deb" && apt-get download -q "$p=$v" >/dev/null)
    f="$(ls "$CACHE"/deb/"${p}"_*.deb | head -1)"
    echo "$p $v $(sha256sum "$f" | cut -d' ' -f1)"
  done < "$IN/debian-packages.txt" > "$IN/debian-packages.lock"
fi
while read -r p v sha; do
  f="$(ls "$CACHE"/deb/"${p}"_*.deb 2>/dev/null | head -1 || true)"
  if [ -z "$f" ]; then (cd "$CACHE/deb" && apt-get download -q "$p=$v" >/dev/null); f="$(ls "$CACHE"/deb/"${p}"_*.deb | head -1)"; fi
  [ "$(sha256sum "$f" | cut -d' ' -f1)" = "$sha" ] || { echo "checksum mismatch for $f" >&2; exit 1; }
  d="$CACHE/src/deb-$p"
  [ -d "$d" ] || dpkg -x "$f" "$d"
  echo "python $p $d" >> "$ROOTS"
done < "$IN/debian-packages.lock"

# npm packages (JavaScript/TypeScript): pinned name@version and integrity.
touch "$IN/npm-packages.lock"
while read -r p; do
  [ -z "$p" ] && continue
  grep -q "^$p " "$IN/npm-packages.lock" && continue
  (cd "$CACHE/npm" && npm pack --silent --json "$p" > "$CACHE/npm/pack.json")
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))[0]; print(sys.argv[2], d["filename"], d["integrity"])' "$CACHE/npm/pack.json" "$p" >> "$IN/npm-packages.lock"
done < "$IN/npm-packages.txt"
while read -r p file integrity; do
  f="$CACHE/npm/$file"
  [ -f "$f" ] || (cd "$CACHE/npm" && npm pack --silent "$p" >/dev/null)
  got="sha512-$(openssl dgst -sha512 -binary "$f" | base64 -w0)"
  [ "$got" = "$integrity" ] || { echo "checksum mismatch for $f" >&2; exit 1; }
  d="$CACHE/src/npm-${file%.tgz}"
  [ -d "$d" ] || { mkdir -p "$d" && tar -xzf "$f" -C "$d"; }
  echo "js $p $d" >> "$ROOTS"
done < "$IN/npm-packages.lock"

# The trainer is its own Go module (tools/codesearch), outside the ragbot binary.
(cd tools/codesearch && go run . -roots "$ROOTS" \
  -o "$ROOT/models/codesearch-v1/model.bin" -report "$ROOT/models/codesearch-v1/train-report.json" "${@:2}")
