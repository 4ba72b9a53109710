# Shared steps of the question sets' fetch.sh scripts (testdata/eval/*/*/fetch.sh):
# fetch a corpus from its registry, check its checksum, and make it a git
# repository with one deterministic commit (fixed author, committer and
# dates, so two runs give the same commit id). Sourced, not run.

# dest_dir DEST DIRNAME: prints the absolute DEST/DIRNAME, creating DEST;
# fails when it exists already.
dest_dir() {
  mkdir -p "$1"
  local out
  out="$(cd "$1" && pwd)/$2"
  if [ -e "$out" ]; then
    echo "error: $out already exists; refusing to overwrite" >&2
    return 1
  fi
  printf '%s\n' "$out"
}

# git_commit DIR NAME: one commit of everything in DIR, message "corpus NAME".
git_commit() { ( cd "$1" && git init -q -b main && git add -A -f &&
  GIT_AUTHOR_NAME=corpus GIT_AUTHOR_EMAIL=corpus@example.invalid GIT_AUTHOR_DATE=2026-01-01T00:00:00Z \
  GIT_COMMITTER_NAME=corpus GIT_COMMITTER_EMAIL=corpus@example.invalid GIT_COMMITTER_DATE=2026-01-01T00:00:00Z \
  git -c commit.gpgsign=false commit -q -m "corpus $2" ) }

# fetch_go_module MODULE VERSION H1SUM DIRNAME DEST: the module from the Go
# module proxy (`go mod download -json`, outside any module, into a private
# module cache), its go.sum hash checked, committed as MODULE@VERSION.
fetch_go_module() {
  local module=$1 version=$2 want=$3 out json err sum src
  out=$(dest_dir "$5" "$4") || return 1
  TMP=$(mktemp -d)
  trap 'rm -rf "$TMP"' EXIT
  json=$(cd "$TMP" && GOFLAGS=-modcacherw GOWORK=off GO111MODULE=on GOMODCACHE="$TMP/modcache" \
    go mod download -json "${module}@${version}")
  field() { printf '%s\n' "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin).get(sys.argv[1],""))' "$1"; }
  err=$(field Error)
  if [ -n "$err" ]; then echo "error: go mod download failed: $err" >&2; return 1; fi
  sum=$(field Sum)
  src=$(field Dir)
  if [ "$sum" != "$want" ]; then echo "error: checksum mismatch: got '$sum', expected '$want'" >&2; return 1; fi
  if [ ! -d "$src" ]; then echo "error: module dir '$src' missing" >&2; return 1; fi
  mkdir "$out"
  cp -R "$src"/. "$out"/
  chmod -R u+w "$out"
  git_commit "$out" "${module}@${version}"
  echo "ok: ${module}@${version} ($sum) -> $out @ $(git -C "$out" rev-parse HEAD)"
}

# fetch_deb PKG VERSION SHA256 PYPACKAGE DIRNAME DEST: Debian's .deb
# (`apt-get download`), its sha256 checked; the corpus holds the Python
# package PYPACKAGE as installed (dist-packages) and the package's docs
# under doc/PKG (.gz files decompressed), committed as deb:PKG@VERSION.
fetch_deb() {
  local pkg=$1 version=$2 sha=$3 pypkg=$4 out deb stage
  out=$(dest_dir "$6" "$5") || return 1
  TMP=$(mktemp -d)
  trap 'rm -rf "$TMP"' EXIT
  chmod 777 "$TMP"   # lets apt's _apt user write the download
  ( cd "$TMP" && { apt-get download "${pkg}=${version}" ||
      { apt-get update -qq && apt-get download "${pkg}=${version}"; }; } )
  deb=$(ls "$TMP"/*.deb)
  echo "${sha}  ${deb}" | sha256sum -c - >/dev/null || {
    echo "error: checksum mismatch for $deb (expected $sha, got $(sha256sum "$deb" | cut -d' ' -f1))" >&2; return 1; }
  dpkg-deb -x "$deb" "$TMP/x"
  stage="$TMP/corpus"
  mkdir -p "$stage/doc"
  cp -a "$TMP/x/usr/lib/python3/dist-packages/$pypkg" "$stage/$pypkg"
  if [ -d "$TMP/x/usr/share/doc/$pkg" ]; then
    cp -a "$TMP/x/usr/share/doc/$pkg" "$stage/doc/$pkg"
    find "$stage/doc/$pkg" -name '*.gz' -exec gunzip -f {} +
  fi
  find "$stage" -name '__pycache__' -prune -exec rm -rf {} +
  mv "$stage" "$out"
  git_commit "$out" "deb:${pkg}@${version}"
  echo "$out at $(git -C "$out" rev-parse HEAD)"
}

# fetch_npm NAME VERSION SUM DEST: the npm tarball (`npm pack`), checked
# against SUM, the registry's dist.shasum (sha1 hex) or its dist.integrity
# ("sha512-" and base64); the corpus is its package/ folder as
# DEST/NAME@VERSION, committed as npm:NAME@VERSION.
fetch_npm() {
  local name=$1 version=$2 sha=$3 out tgz got
  out=$(dest_dir "$4" "${name}@${version}") || return 1
  TMP=$(mktemp -d)
  trap 'rm -rf "$TMP"' EXIT
  ( cd "$TMP" && npm pack --silent "${name}@${version}" >/dev/null )
  tgz="$TMP/${name}-${version}.tgz"
  [ -f "$tgz" ] || { echo "error: npm pack did not produce $tgz" >&2; return 1; }
  if [ "${sha#sha512-}" != "$sha" ]; then
    got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
    [ "$got" = "$sha" ] || { echo "error: integrity mismatch for $tgz: got $got, expected $sha" >&2; return 1; }
  else
    echo "${sha}  ${tgz}" | sha1sum -c --quiet - || { echo "error: sha1 mismatch for $tgz" >&2; return 1; }
  fi
  mkdir "$TMP/x"
  tar -xzf "$tgz" -C "$TMP/x"
  mv "$TMP/x/package" "$out"
  git_commit "$out" "npm:${name}@${version}"
  echo "ok: $out ($(git -C "$out" rev-parse HEAD))"
}
