#!/usr/bin/env bash
# Runs every test against a real Weaviate: the server named by
# RAGBOT_TEST_WEAVIATE_URL (as .ci/run provides), or one weaviate-server per
# test package started by the tests themselves. Installs weaviate-server first
# if it is missing (a cold build takes several minutes), and the default
# semantic model and ONNX Runtime (scripts/install-model.sh; a second run
# returns at once).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-weaviate.sh
bash scripts/install-model.sh
unformatted="$(gofmt -l $(git ls-files '*.go' ':!:testdata/**'))"  # testdata holds deliberately malformed sources
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./...
# The encoder's trainer, the held-out question generator and the load test
# are modules of their own (tools/codesearch, tools/benchgen, tools/loadtest),
# which ./... does not reach; their tests take seconds and need no Weaviate.
for m in tools/codesearch tools/benchgen tools/loadtest; do (cd "$m" && go vet ./...); done
# go test's -json events go through internal/testsummary, which prints what a
# plain go test would and ends with "N passed, N failed"; under pipefail the
# script still fails when a go test does.
bindir="$(mktemp -d)"
trap 'rm -rf "$bindir"' EXIT
go build -o "$bindir/testsummary" ./internal/testsummary
(
  rc=0
  go test -count=1 -json ./... || rc=1
  (cd tools/codesearch && go test -count=1 -json ./...) || rc=1
  (cd tools/benchgen && go test -count=1 -json ./...) || rc=1
  (cd tools/loadtest && go test -count=1 -json ./...) || rc=1
  exit $rc
) | "$bindir/testsummary"
