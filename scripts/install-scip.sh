#!/usr/bin/env bash
# Installs the SCIP indexers that resolve Python and JavaScript/TypeScript
# callers at index time (package ingest/scipcalls, docs/callers.md):
# @sourcegraph/scip-python 0.6.6 (MIT) and @sourcegraph/scip-typescript 0.4.0
# (Apache-2.0), with their dependencies (MIT, Apache-2.0, ISC, BSD; about
# 97 MB of node_modules), pinned by ingest/scipcalls/npm/package-lock.json
# (every package's integrity hash) and installed from the npm registry with
# `npm ci` into
#
#   $RAGBOT_SCIP_DIR/<sha256 of package-lock.json>/node_modules/.bin/
#
# RAGBOT_SCIP_DIR defaults to $XDG_CACHE_HOME/ragbot/scip, else
# ~/.cache/ragbot/scip (scipcalls.Dir), outside the repository. A finished
# install leaves PROVENANCE beside node_modules, so a second run prints one
# line and returns at once; an install of another lock goes to another folder.
# Needs Node 18+ and npm; scip-python also runs python3 (and pip) when it
# indexes, to list the Python environment.
#
#   bash scripts/install-scip.sh
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "install-scip: $*" >&2; exit 1; }
LOCK=ingest/scipcalls/npm/package-lock.json
command -v node >/dev/null || die "node not found: scip-python and scip-typescript run on Node 18+ (e.g. apt-get install nodejs npm)"
command -v npm >/dev/null || die "npm not found: it installs the pinned indexers (apt-get install npm)"
SUM="$(sha256sum "$LOCK" | cut -d' ' -f1)"
BASE="${RAGBOT_SCIP_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ragbot/scip}"
DEST="$BASE/$SUM"
if [ -f "$DEST/PROVENANCE" ] && [ -x "$DEST/node_modules/.bin/scip-python" ] && [ -x "$DEST/node_modules/.bin/scip-typescript" ]; then
  echo "scip indexers already installed: $DEST"
  exit 0
fi
mkdir -p "$BASE"
# One install at a time per directory (CI may start two): the second waits,
# then finds the install in place.
if command -v flock >/dev/null; then
  exec 9>"$BASE/.install.lock"
  flock 9
  if [ -f "$DEST/PROVENANCE" ]; then echo "scip indexers already installed: $DEST"; exit 0; fi
fi
STAGE="$(mktemp -d "$BASE/.install.XXXXXX")"
trap 'rm -rf "$STAGE"' EXIT
cp ingest/scipcalls/npm/package.json "$LOCK" "$STAGE/"
echo "npm ci (scip-python 0.6.6, scip-typescript 0.4.0) ..."
(cd "$STAGE" && npm ci --no-audit --no-fund --ignore-scripts) >"$STAGE/npm.log" 2>&1 ||
  { cat "$STAGE/npm.log" >&2; die "npm ci in $STAGE failed"; }
"$STAGE/node_modules/.bin/scip-python" --version >/dev/null 2>&1 || die "scip-python does not run after npm ci"
"$STAGE/node_modules/.bin/scip-typescript" --version >/dev/null 2>&1 || die "scip-typescript does not run after npm ci"
cat > "$STAGE/PROVENANCE" <<TXT
SCIP indexers for ragbot (ingest/scipcalls), installed by scripts/install-scip.sh
on $(date -u +%Y-%m-%dT%H:%M:%SZ) with npm $(npm -v), Node $(node -v).
From the npm registry, pinned by package-lock.json (sha256 $SUM), every
package checked against the lock's integrity hash by npm ci:
  @sourcegraph/scip-python 0.6.6      MIT         https://github.com/sourcegraph/scip-python
  @sourcegraph/scip-typescript 0.4.0  Apache-2.0  https://github.com/sourcegraph/scip-typescript
  their dependencies                  MIT, Apache-2.0, ISC, BSD (package-lock.json "license")
Size: $(du -sh "$STAGE/node_modules" | cut -f1) of node_modules.
TXT
rm -f "$STAGE/npm.log"
# Swap in whole, so that a reader never sees half an install.
rm -rf "$DEST.old"
[ ! -e "$DEST" ] || mv "$DEST" "$DEST.old"
mv "$STAGE" "$DEST"
rm -rf "$DEST.old"
trap - EXIT
echo "installed scip indexers: $DEST"
