#!/usr/bin/env python3
"""Writes the reference fixtures of retrieval/embed/wordpiece with Hugging Face tokenizers.

    pip install tokenizers==0.23.3
    python3 scripts/make-wordpiece-fixture.py [--rev REV] [--out DIR] TOKENIZER_JSON

TOKENIZER_JSON is all-MiniLM-L6-v2's tokenizer.json (the quantized export by Xenova that
langchain4j ships; bge-small-en-v1.5 and e5-small-v2 have the same vocabulary and pipeline).
It reads the Go files and docs/*.md of commit REV (default HEAD; the committed fixture used
7e77577e260cc9020692f408c0b75cbe1364f06e) of the repository holding this script, not the
work tree, and writes into DIR (default testdata/wordpiece of that repository):

    tokenizer.json.gz          a gzipped copy of TOKENIZER_JSON (Apache-2.0), the one the tests load
    minilm-ids.jsonl.gz        one {"text", "max_tokens", "ids"} per line: 40-line windows and single
                               lines of this repository, hard strings and random Unicode strings,
                               each encoded with truncation at max_tokens=256; a subset also with
                               max_tokens=0 (no truncation) and a few with 1, 2, 3
    minilm-codepoints.tsv.gz   for every code point c: the words that the normalizer and
                               pre-tokenizer make of "a" + c + "b", as runs of code points
                               "first<TAB>last<TAB>json", where in json "\\u0000" stands for c

The selection is seeded, so the same commit and tokenizers version give the same files. The file's
own truncation (128) and padding settings are switched off: the Go package ignores them.
"""

import argparse
import gzip
import json
import os
import random
import subprocess

import tokenizers
from tokenizers import Tokenizer

WINDOW = 40        # lines per window, like ingest's fallback chunks
N_WINDOWS = 900    # 40-line windows drawn from Go files and docs
N_LINES = 500      # single non-blank lines
N_RANDOM = 200     # random Unicode strings
MAX_TOKENS = 256


def git(*args):
    return subprocess.run(["git", *args], check=True, capture_output=True).stdout


def repo_texts(rng, rev):
    paths = [p for p in git("ls-tree", "-r", "--name-only", rev).decode().splitlines()
             if p.endswith(".go") or (p.startswith("docs/") and p.endswith(".md"))]
    windows, lines = [], []
    for p in sorted(paths):
        text = git("cat-file", "blob", rev + ":" + p).decode("utf-8", "replace")
        ls = text.split("\n")
        for i in range(0, len(ls), WINDOW):
            windows.append("\n".join(ls[i:i + WINDOW]))
        lines.extend(l for l in ls if l.strip())
    return rng.sample(windows, min(N_WINDOWS, len(windows))) + rng.sample(lines, min(N_LINES, len(lines)))


HARD = [
    "", " ", "\t\n\r ", "a", "A", "[CLS]", "[SEP]", "[MASK] is a word", "x[SEP]y", "[cls] lower", "[[PAD]]",
    "[UNK] and [UNK]", "[SEP", "ids [CLS][SEP] end",
    "你好，世界！这是一个测试。", "中文English混合mixed文本", "日本語のテキストとカタカナ", "한국어 텍스트입니다",
    "naïve café résumé Ångström Øresund façade", "İstanbul ıi ß ẞ ǅ ǈ", "ΣΊΣΥΦΟΣ σοφός ς", "Привет, мир! ЁЖ",
    "مرحبا بالعالم", "שָׁלוֹם עוֹלָם", "สวัสดีชาวโลก", "नमस्ते दुनिया", "e\u0301 a\u0308\u0301 o\u0323\u0302",
    "\u1100\u1161\u11a8 각", "ＡＢＣ１２３ ｆｕｌｌｗｉｄｔｈ", "ﬁle ﬂow Ⅻ Ⓐ ㈱ ½ x² ℌ", "≠ ≤ ≥ ≮ ⟨x⟩ 〈y〉 ;·",
    "emoji 🎉🚀 party 👩‍👩‍👧 family 🇫🇷 flag 👍🏽 thumbs 🥰 🫠 new", "😀😃😄😁😆😅😂🤣",
    "ctrl\x00nul\x07bell\x1b[31mred\x1b[0m\x7fdel", "zero\u200bwidth\ufeffbom\u00adsoft\u2060join",
    "replace\ufffdchar", "nel\u0085line nbsp\u00a0ideo\u3000space\u2028sep\u2029para\u202fnarrow",
    "vt\x0bff\x0cfs\x1cus\x1f", "private \ue000\U000f0000 use", "unassigned \u0378 \U000e01f0 \U0003134b",
    "a" * 100, "b" * 101, "x" * 99 + "é", "é" * 101, "supercalifragilistic" * 6,
    "thisIsAVeryLongCamelCaseIdentifierThatGoesOnAndOnForMoreThanOneHundredCharactersInTotalLengthOkay",
    "ThisIsAVeryLongCamelCaseIdentifierThatGoesOnAndOnForMoreThanOneHundredCharactersInTotalLengthOkayYes",
    "this_is_a_very_long_snake_case_identifier_that_goes_on_and_on_for_more_than_one_hundred_characters_x",
    "getHTTPResponseCode parseJSONToStruct XMLHttpRequest newUUIDv4 snake_case_name SCREAMING_SNAKE kebab-case",
    "https://github.com/ragbot/ragbot/blob/main/retrieval/store.go?plain=1#L42 mailto:ops@example.com",
    "http://localhost:8080/v1/graphql?class=Chunk&limit=10 ftp://files.example.org/pub/a%20b.tar.gz",
    "panic: runtime error: invalid memory address or nil pointer dereference\n"
    "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a2b3c]\n\n"
    "goroutine 1 [running]:\nmain.main()\n\t/home/dev/ragbot/cmd/ragbot/main.go:27 +0x1d\nexit status 2",
    "Exception in thread \"main\" java.lang.NullPointerException: Cannot invoke \"String.length()\"\n"
    "\tat com.example.App.run(App.java:42)\n\tat com.example.App.main(App.java:12)",
    "Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>\n    1/0\n"
    "ZeroDivisionError: division by zero",
    "!!!!???...---___***///\\\\|||~~~```", "func(ctx context.Context) (*Store, error) { return nil, err }",
    "0x7fffffff 3.14159e-10 1_000_000 v1.27.0 2026-12-06T16:19:57Z 127.0.0.1:0 10.0.0.1/24",
    "$HOME ${VAR:-default} `cmd` @decorator #hashtag %d %s %v {{.Field}} <html>&amp;</html>",
    "tab\tseparated\tvalues\nand\r\nwindows\rlines", "  leading and trailing spaces  ",
    "\U00020000 \U0002a6d6 \U0002b740 \U0002b820 \U0002b920 \U0002ceb0 \U00030000 \U0002f800 \uf900 \u3400 \u9fff",
]


def random_texts(rng):
    """Strings of random code points (mostly assigned planes) between ASCII words."""
    out = []
    for _ in range(N_RANDOM):
        parts = []
        for _ in range(rng.randint(1, 12)):
            r = rng.random()
            if r < 0.3:
                parts.append(rng.choice(["word", "Go", "x", " ", "_", ".", "ID", "\n"]))
            else:
                hi = rng.choice([0x250, 0x3000, 0x10000, 0x110000])
                c = rng.randrange(0x80, hi)
                if 0xD800 <= c <= 0xDFFF:
                    c = 0xE9
                parts.append(chr(c))
        out.append("".join(parts))
    return out


def codepoint_runs(tok):
    norm, pre = tok.normalizer, tok.pre_tokenizer
    runs = []  # [first, last, json]
    for c in range(0x110000):
        if 0xD800 <= c <= 0xDFFF:
            continue
        ch = chr(c)
        words = [w for w, _ in pre.pre_tokenize_str(norm.normalize_str("a" + ch + "b"))]
        key = json.dumps([w.replace(ch, "\0") for w in words], ensure_ascii=True)
        if runs and runs[-1][1] == c - 1 and runs[-1][2] == key:
            runs[-1][1] = c
        else:
            runs.append([c, c, key])
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tokenizer_json")
    ap.add_argument("--rev", default="HEAD", help="commit whose files are sampled (default HEAD)")
    ap.add_argument("--out", help="output folder (default testdata/wordpiece)")
    args = ap.parse_args()
    src = os.path.abspath(args.tokenizer_json)
    out = os.path.abspath(args.out) if args.out else None
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    out = out or "testdata/wordpiece"
    rev = git("rev-parse", "--verify", args.rev + "^{commit}").decode().strip()
    tok = Tokenizer.from_file(src)
    tok.no_padding()
    rng = random.Random(20261206)
    texts = repo_texts(rng, rev)
    n_repo = len(texts)
    texts += HARD + random_texts(rng)
    records = []
    for i, text in enumerate(texts):
        limits = [MAX_TOKENS]
        if i % 5 == 0 or i >= n_repo:
            limits.append(0)
        if i >= n_repo and i < n_repo + 3:
            limits += [1, 2, 3]
        for m in limits:
            if m == 0:
                tok.no_truncation()
            else:
                tok.enable_truncation(max_length=m)
            records.append({"text": text, "max_tokens": m, "ids": tok.encode(text).ids})
    os.makedirs(out, exist_ok=True)
    with open(src, "rb") as f, gzip.GzipFile(os.path.join(out, "tokenizer.json.gz"), "wb", mtime=0) as g:
        g.write(f.read())
    with gzip.GzipFile(os.path.join(out, "minilm-ids.jsonl.gz"), "wb", mtime=0) as g:
        for r in records:
            g.write((json.dumps(r, ensure_ascii=False) + "\n").encode())
    with gzip.GzipFile(os.path.join(out, "minilm-codepoints.tsv.gz"), "wb", mtime=0) as g:
        for first, last, key in codepoint_runs(tok):
            g.write(f"{first:x}\t{last:x}\t{key}\n".encode())
    print(f"{len(texts)} texts, {len(records)} records from commit {rev}, tokenizers {tokenizers.__version__}")


if __name__ == "__main__":
    main()
