#!/usr/bin/env bash
# Counts the Go lines of this checkout (every line, blank and comment lines
# included, as `wc -l` counts them), by what they are:
#   product       non-test files compiled into ragbot (`go list -deps ./cmd/ragbot`,
#                 this module's packages: GoFiles and CgoFiles)
#   test support  non-test files of this module that ragbot does not compile: the
#                 test doubles (slackfake, teamsfake, confluencetest, ...) and the
#                 test-output summariser
#   fixtures      .go files under testdata/ (inputs that tests index or parse;
#                 the go tool ignores testdata)
#   tools         the lab's own modules under tools/ (encoder training, the
#                 generated benchmark, the load test), non-test files
#   tests         *_test.go files anywhere
# and prints one row per top-level folder, then the totals.
#   bash scripts/lines.sh
set -euo pipefail
cd "$(dirname "$0")/.."
mod="$(go list -m)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# path<TAB>category, one row per file
go list -deps -f '{{if .Module}}{{if eq .Module.Path "'"$mod"'"}}{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}}
{{end}}{{range .CgoFiles}}{{$d}}/{{.}}
{{end}}{{end}}{{end}}' ./cmd/ragbot | sed "s|^$PWD/||" | sort -u > "$tmp/product"
git ls-files '*.go' | while read -r f; do
  case "$f" in
    *_test.go) c=tests ;;
    tools/*) c=tools ;;
    testdata/* | */testdata/*) c=fixtures ;;
    *) if grep -qxF "$f" "$tmp/product"; then c=product; else c="test support"; fi ;;
  esac
  printf '%s\t%s\t%s\n' "${f%%/*}" "$c" "$(wc -l < "$f")"
done | sort -t$'\t' -k1,1 | awk -F'\t' '
  { top = ($1 ~ /\.go$/) ? "." : $1; n[top, $2] += $3; tot[$2] += $3; if (!(top in seen)) { seen[top] = 1; tops[++m] = top } }
  END {
    split("product,test support,fixtures,tools,tests", cs, ",")
    printf "%-22s %9s %13s %9s %7s %7s\n", "folder", cs[1], cs[2], cs[3], cs[4], cs[5]
    for (i = 1; i <= m; i++) {
      t = tops[i]; printf "%-22s", t
      for (j = 1; j <= 5; j++) printf " %*d", (j == 2 ? 13 : (j <= 3 ? 9 : 7)), n[t, cs[j]]
      printf "\n"
    }
    printf "%-22s", "total"
    for (j = 1; j <= 5; j++) printf " %*d", (j == 2 ? 13 : (j <= 3 ? 9 : 7)), tot[cs[j]]
    printf "\n"
  }'
