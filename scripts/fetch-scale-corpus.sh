#!/usr/bin/env bash
# fetch-scale-corpus.sh [DEST]: the scale benchmark's corpus (docs/deploy.md,
# "Sizing"): fifteen large Go modules from the Go module proxy, each checked
# against its go.sum hash and made a git repository with one deterministic
# commit (testdata/eval/fetch-lib.sh's git_commit), under DEST (default
# /work/scale-corpus/repos). Modules made mostly of generated code are left
# out (aws-sdk-go-v2/service/ec2: 851 of its 853 files say "Code generated
# ... DO NOT EDIT."), as are vitess and influxdb, fetched at first and
# dropped to keep the index near 300,000 chunks (294,997 with these 15). The
# module cache is kept in
# $SCALE_MODCACHE (default DEST/../modcache), so a second run downloads
# nothing. About 1 GB of source, 1-3 minutes on a fast link. The question
# set over it is testdata/eval/scale/questions.jsonl; the config that indexes
# it is written by scripts/bench-scale.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../testdata/eval/fetch-lib.sh
. "$here/../testdata/eval/fetch-lib.sh"
dest=${1:-/work/scale-corpus/repos}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
modcache=${SCALE_MODCACHE:-$(dirname "$dest")/modcache}

# module version h1-sum dirname
modules=(
  "k8s.io/kubernetes v1.37.2 h1:A2VDEiObzkYqFTKhSsn0ZEb0RlLEXpHWj93gi2HqEwE= kubernetes"
  "k8s.io/client-go v0.37.2 h1:sgFtyRZukGkOrsu+QgS7LYnbFFJ5ut3MchdBNduD//E= client-go"
  "k8s.io/apiserver v0.37.2 h1:9Jq73PeHAA0RThpW7ou6lBcO2+SxLcPrAgleONSMUNQ= apiserver"
  "k8s.io/api v0.37.2 h1:PnxqnUFy93jr2GcpWDkKOm8wfy25kT9wa572MuQS8oc= k8s-api"
  "github.com/prometheus/prometheus v0.316.0 h1:f1GRFerhTMKQma+awCoC9T820ecWeGSdF+xAlMHzZzM= prometheus"
  "go.etcd.io/etcd/server/v3 v3.7.3 h1:KcTZ/aEZrOiQe0/kdr7iYYcvyfbEoOwDOacHkz8xwZc= etcd-server"
  "github.com/ethereum/go-ethereum v1.17.10 h1:b3WO+xux3pItpm13kqT5Xddv01zOxBFZxQgk/Ate4/M= go-ethereum"
  "github.com/cockroachdb/pebble/v2 v2.1.7 h1:hFQnbsniSWg9BVcNKMuaUufYPiVXY6uJvaY9grbQ9+U= pebble"
  "golang.org/x/tools v0.52.0 h1:ryxg4U63oaUYk7uOLTF37n43f4qgtGvqV4Ioit1BaEs= x-tools"
  "istio.io/istio v0.0.0-20260827124520-eed52ebb66ad h1:ui9TJjRMAV/hb5ehQaZDq7IUGxuQP6dra9lapT/VjHI= istio"
  "github.com/VictoriaMetrics/VictoriaMetrics v1.151.0 h1:Svzb/7gPYbzmQnvLjab8h1Jl9olB76mokDE7ykvF/ro= victoriametrics"
  "github.com/docker/docker v28.5.2+incompatible h1:DBX0Y0zAjZbSrm1uzOkdr1onVghKaftjlSWt4AFexzM= moby"
  "github.com/containerd/containerd/v2 v2.4.2 h1:p6Qg+xbEz8lvwdhHDx0U469xENvp4LgGBx+E7djXkGw= containerd"
  "google.golang.org/grpc v1.85.0 h1:BPBCfuVRQ1qvBhKDOq9uvQllMvO59rKsYhXpp7Dd8vw= grpc-go"
  "github.com/nats-io/nats-server/v2 v2.15.3 h1:IgHIKL4DYN9mEfwtPcdM39muvXG8v9FBADQn0f4Whs0= nats-server"
)

for row in "${modules[@]}"; do
  read -r module version want name <<<"$row"
  if [ -e "$dest/$name" ]; then echo "skip: $dest/$name exists"; continue; fi
  json=$(cd "$(mktemp -d)" && GOFLAGS=-modcacherw GOWORK=off GO111MODULE=on GOMODCACHE="$modcache" \
    go mod download -json "${module}@${version}")
  field() { printf '%s\n' "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin).get(sys.argv[1],""))' "$1"; }
  err=$(field Error)
  if [ -n "$err" ]; then echo "error: $module@$version: $err" >&2; exit 1; fi
  sum=$(field Sum)
  if [ "$sum" != "$want" ]; then echo "error: $module@$version: checksum $sum, expected $want" >&2; exit 1; fi
  out=$(dest_dir "$dest" "$name")
  mkdir "$out"
  cp -R "$(field Dir)"/. "$out"/
  chmod -R u+w "$out"
  git_commit "$out" "${module}@${version}"
  echo "ok: ${module}@${version} -> $out @ $(git -C "$out" rev-parse --short HEAD)"
done
