#!/usr/bin/env bash
# How often the absence check's "did you mean" (retrieval.Correction) picks
# the word meant, on the real misspellings of codespell's dictionary
# (codespell 2.4.3 from PyPI, sha256 pinned; its dictionary is CC BY-SA 3.0
# and stays out of the repository) against the vocabulary of source trees:
#   bash scripts/typo-eval.sh [DIR...]   (default: the eval, held-out, paraphrase and fresh corpora under .ragbot/)
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/ragbot/codespell-2.4.3"
WHL=codespell-2.4.3-py3-none-any.whl
SHA=af2505b335e8573dbd2d384d1c4ef498f4006f4ba2d6fceca01e55b91f52628a
if [ ! -f "$CACHE/codespell_lib/data/dictionary.txt" ]; then
  mkdir -p "$CACHE"
  python3 -m pip download --no-deps --quiet codespell==2.4.3 -d "$CACHE"
  echo "$SHA  $CACHE/$WHL" | sha256sum -c --quiet
  python3 -m zipfile -e "$CACHE/$WHL" "$CACHE"
fi
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(.ragbot/eval-corpus .ragbot/heldout-corpus .ragbot/paraphrase-corpus .ragbot/fresh-corpus)
go run ./tools/typoeval -dict "$CACHE/codespell_lib/data/dictionary.txt" "${dirs[@]}"
