#!/usr/bin/env bash
# Prints the TCP ports the local Weaviate of `ragbot weaviate` listens on
# (`ss -ltnp`) and, for each one not bound to 127.0.0.1, what a request
# without the API key gets there, sent to this host's first non-loopback
# address as another machine would: REST a GET /v1/schema and the cluster
# data port a POST to each of its routes (want 401), gRPC an empty Search (want grpc-status != 0 with
# "unauthorized"; weaviate-server v1.39.2 answers code 2, Unknown, not 16,
# Unauthenticated: see TestLockedServer). Any other open port is listed as
# UNCHECKED. Exit 1 when a port answers without the key.
#
#   bash scripts/weaviate-open-ports.sh [port, default 8310]
#
# A Weaviate already serving on port (`ragbot weaviate` started by hand) is
# probed as it is; otherwise one is started in a temporary data dir.
#
# Needs ss (iproute2) and curl with HTTP/2.
set -euo pipefail
cd "$(dirname "$0")/.."
port="${1:-8310}"
dir="$(mktemp -d)"
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill -INT "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
if ! curl -sf -o /dev/null "http://127.0.0.1:$port/v1/.well-known/ready"; then
  go build -o bin/ragbot ./cmd/ragbot
  printf 'weaviate:\n  port: %s\n  data_dir: %s/weaviate\nsources:\n  - {name: docs, kind: markdown, path: %s/docs}\n' "$port" "$dir" "$PWD" > "$dir/ragbot.yaml"
  bin/ragbot weaviate --config "$dir/ragbot.yaml" > "$dir/out" 2>&1 &
  pid=$!
  for _ in $(seq 120); do grep -q "weaviate ready" "$dir/out" && break; sleep 1; done
  grep -q "weaviate ready" "$dir/out" || { cat "$dir/out"; exit 1; }
fi
wpid="$(ss -ltnpH "sport = :$port" | sed -n 's/.*pid=\([0-9]*\),.*/\1/p' | head -1)"
host="$(hostname -I | awk '{print $1}')"
echo "weaviate-server pid $wpid; probing from $host"
ss -ltnp | grep "pid=$wpid," | awk '{print $4}' | sort -u > "$dir/listen"
cat "$dir/listen"
bad=0
while read -r addr; do
  p="${addr##*:}"
  case "$addr" in 127.0.0.1:*) continue ;; esac
  case "$p" in
    $((port + 1)))
      # gRPC: an empty weaviate.v1.SearchRequest (5-byte frame header, no body).
      hdr="$(printf '\0\0\0\0\0' | curl -s -o /dev/null -D - --http2-prior-knowledge -H 'content-type: application/grpc' \
        -H 'te: trailers' --data-binary @- "http://$host:$p/weaviate.v1.Weaviate/Search" | tr -d '\r')"
      status="$(sed -n 's/^grpc-status: //p' <<<"$hdr")"
      msg="$(sed -n 's/^grpc-message: //p' <<<"$hdr")"
      echo "$addr gRPC without key: grpc-status ${status:-none} ${msg}"
      if [ "${status:-0}" = 0 ] || ! grep -qi unauthorized <<<"$msg"; then bad=1; fi ;;
    "$port")
      code="$(curl -s -o /dev/null -w '%{http_code}' "http://$host:$p/v1/schema")"
      echo "$addr REST GET /v1/schema without key: $code"
      [ "$code" = 401 ] || bad=1 ;;
    $((port + 3)))
      # The cluster data API's routes (Weaviate's adapters/handlers/rest/clusterapi);
      # its root only describes itself.
      for path in /indices/Chunk/shards/s/objects /replicas/indices/Chunk/shards/s/objects /nodes/status /backups/can-commit /classifications/transactions/; do
        code="$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://$host:$p$path")"
        echo "$addr cluster data POST $path without password: $code"
        [ "$code" = 401 ] || bad=1
      done ;;
    *)
      echo "$addr UNCHECKED"; bad=1 ;;
  esac
done < "$dir/listen"
exit "$bad"
