#!/usr/bin/env python3
"""Checks a family of fresh question sets (fresh to fresh6) against their
fetched corpora. Each family's validate.py calls main with its folder and
its sets' id prefixes:

    python3 testdata/eval/FAMILY/validate.py CORPUS_DIR

CORPUS_DIR holds the corpora as the sets' fetch.sh scripts leave them
(CORPUS_DIR/<set>@<version>/). For each set folder of the family (one with
fetch.sh) it checks that:

- every line of questions.jsonl parses, has exactly the public set's fields
  (id, corpus, kind, question, expect; `ragbot eval` rejects unknown
  fields), ids are unique and carry the set's prefix, and `corpus` is the
  same on every line;
- kinds are the public set's ones plus `paraphrase` and `unanswerable`;
  `expect` is empty exactly for `unanswerable`, else 1-3 locations;
- every expected path exists, is not a test file, and its range is exactly
  one declaration: go/parser (a tiny Go program) for Go, from the first
  doc-comment line to the closing brace; Python's `ast` for Python, from the
  first decorator or the def/class line to `end_lineno`; for JavaScript
  (js_decls below) a function, class, method, function-valued object
  property or assignment statement that opens a brace (a brace pair that
  closes on the same line, as in a default parameter `= {}`, is skipped),
  from the first line of the comment block directly above it (or its own
  first line) to the line of the matching closing brace; for Markdown an
  H2/H3 section up to the line before the next H1-H3 heading or the end;
- why.jsonl has one line per unanswerable question (id, why, no_hits), and
  each no_hits pattern (a case-insensitive Python regex, searched in every
  file of the corpus except tests and .git, or only in the file named by
  "in") has no hit;
- paraphrase questions use a newcomer's words: no quotes or backquotes
  (no string literal), no camelCase/snake_case/dotted word, no word of four
  or more letters that the corpus uses as a code identifier but never in
  prose (comments, strings, docs), no name of a corpus file or folder
  except the everyday words in EVERYDAY, and no five-word run shared with
  the corpus text (the checks of ../paraphrase/validate.py, the last one an
  error here); a made-up name in an unanswerable question (dotted,
  camelCase or snake_case) occurs nowhere in the corpus. The first family,
  fresh, is checked without the wording checks (main's wording=False): its
  questions were written before those checks, two of them would fail the
  identifier rule, and a set whose answers have been seen is not rewritten.

The last line printed is a one-line summary (scripts/bench-sets.sh shows it).
Exit status 1 when any check fails.
"""
import ast
import io
import json
import keyword
import os
import re
import subprocess
import sys
import tempfile
import tokenize
from collections import Counter

HERE = ""  # the family's folder, set by main
PREFIX = {}  # set name -> id prefix, set by main
WORDING = True  # the paraphrases' wording checks, set by main
# File or folder names a newcomer says anyway (fresh/README.md allows
# "client, server, connection, ..."); any other corpus file name is an error.
EVERYDAY = {"client", "server", "request", "response", "date", "query", "static"}
KINDS = {"identifier", "semantic", "config", "path_or_error", "docs",
         "paraphrase", "unanswerable"}
FIELDS = {"id", "corpus", "kind", "question", "expect"}
EXPECT_FIELDS = {"path", "symbol", "start_line", "end_line"}

GO_LISTER = r'''
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
)

func main() {
	for _, path := range os.Args[1:] {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, d := range f.Decls {
			start := fset.Position(d.Pos()).Line
			var doc *ast.CommentGroup
			switch d := d.(type) {
			case *ast.FuncDecl:
				doc = d.Doc
			case *ast.GenDecl:
				doc = d.Doc
			}
			if doc != nil {
				start = fset.Position(doc.Pos()).Line
			}
			fmt.Printf("%s\t%d\t%d\n", path, start, fset.Position(d.End()).Line)
		}
	}
}
'''

errors = []


def err(msg):
    errors.append(msg)
    print("ERROR:", msg)


def is_test(path):
    base = os.path.basename(path)
    parts = path.split("/")
    return (base.endswith("_test.go") or base.startswith("test_") or base.endswith(".test.js")
            or base == "conftest.py" or "tests" in parts or "test" in parts)


def go_decls(paths):
    out = {p: set() for p in paths}
    if not paths:
        return out
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "golist.go")
        with open(src, "w") as f:
            f.write(GO_LISTER)
        env = dict(os.environ, GOWORK="off", GO111MODULE="on", GOFLAGS="")
        exe = os.path.join(tmp, "golist")
        res = subprocess.run(["go", "build", "-o", exe, src], cwd=tmp, env=env,
                             capture_output=True, text=True)
        if res.returncode == 0:
            res = subprocess.run([exe] + sorted(paths), capture_output=True, text=True)
        if res.returncode != 0:
            err("go/parser lister failed: " + res.stderr.strip())
            return out
        for line in res.stdout.splitlines():
            p, s, e = line.split("\t")
            out[p].add((int(s), int(e)))
    return out


def py_decls(path):
    tree = ast.parse(open(path, encoding="utf-8").read())
    found = set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            start = min([n.lineno] + [d.lineno for d in n.decorator_list])
            found.add((start, n.end_lineno))
    return found


# A JavaScript declaration starts with one of these (any indentation):
# function NAME, class NAME, var/let/const NAME =, a.b.c = (assignments such
# as X.prototype.m = function), a class or object method NAME(...) {,
# module.exports =, and (added for fresh4, as bookshelf writes its methods)
# an object property whose value is a function, bare or wrapped in one call:
# NAME: function(...) {, NAME: Promise.method(function(...) {.
JS_DECL = re.compile(
    r"^\s*(?:(?:async\s+)?function\b|class\s|(?:var|let|const)\s+[\w$]+\s*=|"
    r"[\w$]+(?:\.[\w$]+)+\s*=[^=]|(?:static\s+|async\s+|get\s+|set\s+)*[\w$]+\s*\([^;]*\)\s*\{\s*$|"
    r"[\w$]+\s*:\s*(?:[\w$]+(?:\.[\w$]+)*\(\s*)?(?:async\s+)?function\b)")
JS_NOT = re.compile(r"^\s*(?:if|for|while|switch|catch|return|else|do|try)\b")


def js_brace_depths(text):
    """Yields (offset, char) of every brace outside strings, comments,
    template text and regular expression literals."""
    i, n = 0, len(text)
    prev = ""  # last significant character, to tell a regex from a division
    tmpl = []  # brace depth at which each open template's ${ started
    depth = 0
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
            continue
        if c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i, prev = j + 1, "a"
            continue
        if c == "`" or (c == "}" and tmpl and tmpl[-1] == depth):
            if c == "}":
                tmpl.pop()
            j = i + 1
            while j < n:
                if text[j] == "\\":
                    j += 2
                    continue
                if text[j] == "`":
                    j += 1
                    break
                if text.startswith("${", j):
                    tmpl.append(depth)
                    j += 2
                    break
                j += 1
            i, prev = j, "a"
            continue
        if c == "/" and (prev == "" or prev in "(,=:[!&|?{};+-*%<>~^" or
                         re.search(r"\b(return|typeof|case|in|of)\s*$", text[max(0, i - 8):i])):
            j, cls = i + 1, False
            while j < n and text[j] != "\n":
                if text[j] == "\\":
                    j += 2
                    continue
                if text[j] == "[":
                    cls = True
                elif text[j] == "]":
                    cls = False
                elif text[j] == "/" and not cls:
                    break
                j += 1
            i, prev = j + 1, "a"
            continue
        if c == "{":
            depth += 1
            yield i, c
        elif c == "}":
            depth -= 1
            yield i, c
        if not c.isspace():
            prev = c
        i += 1


def js_decls(path):
    text = open(path, encoding="utf-8").read()
    lines = text.split("\n")
    starts = [0]
    for l in lines:
        starts.append(starts[-1] + len(l) + 1)

    def line_of(off):
        lo, hi = 0, len(lines)
        while lo < hi:
            mid = (lo + hi) // 2
            if starts[mid + 1] <= off:
                lo = mid + 1
            else:
                hi = mid
        return lo + 1

    braces = list(js_brace_depths(text))
    match = {}
    stack = []
    for off, c in braces:
        if c == "{":
            stack.append(off)
        elif stack:
            match[stack.pop()] = off
    opens = sorted(match)
    found = set()
    import bisect
    for ln, l in enumerate(lines, 1):
        if not JS_DECL.match(l) or JS_NOT.match(l):
            continue
        k = bisect.bisect_left(opens, starts[ln - 1])
        if k == len(opens):
            continue
        # skip a brace pair closed on the declaration's own line when another
        # brace opens later on that line (a default parameter `options = {}`)
        eol = starts[ln] - 1
        while k + 1 < len(opens) and match[opens[k]] < eol and opens[k + 1] < eol:
            k += 1
        end = line_of(match[opens[k]])
        # the statement's first brace must open before any other statement
        between = text[starts[ln - 1]:opens[k]]
        if ";" in between:
            continue
        start = ln
        j = ln - 2  # index of the line above
        if j >= 0 and lines[j].strip().endswith("*/"):
            while j >= 0 and not lines[j].strip().startswith("/*"):
                j -= 1
            start = j + 1
        else:
            while j >= 0 and lines[j].strip().startswith("//"):
                start = j + 1
                j -= 1
        found.add((start, end))
    return found


def md_sections(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    heads, fence = [], False
    for i, l in enumerate(lines, 1):
        if l.lstrip().startswith("```"):
            fence = not fence
            continue
        m = re.match(r"(#{1,6})\s", l)
        if m and not fence:
            heads.append((i, len(m.group(1))))
    found = set()
    for j, (i, level) in enumerate(heads):
        if level not in (2, 3):
            continue
        end = len(lines)
        for k, lv in heads[j + 1:]:
            if lv <= 3:
                end = k - 1
                break
        found.add((i, end))
    return found


def corpus_files(root):
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x != ".git"]
        for f in files:
            full = os.path.join(d, f)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            if not is_test(rel):
                yield rel, full


# Comments and string literals of Go (raw strings between backquotes).
STR_OR_COMMENT = re.compile(
    r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|`[^`]*`', re.S)
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
KEYWORDS = set(keyword.kwlist) | set(
    "break case chan const continue default defer else fallthrough for func go goto "
    "if import interface map package range return select struct switch type var".split())


def split_code(text, ext):
    """Returns (identifier tokens, prose text) of a Go or Python file."""
    if ext == ".py":
        ids, prose = [], []
        try:
            for tok in tokenize.generate_tokens(io.StringIO(text).readline):
                if tok.type == tokenize.NAME and tok.string not in KEYWORDS:
                    ids.append(tok.string)
                elif tok.type in (tokenize.STRING, tokenize.COMMENT):
                    prose.append(tok.string)
        except (tokenize.TokenError, IndentationError, SyntaxError):
            pass
        return ids, "\n".join(prose)
    prose = []

    def keep(m):
        prose.append(m.group(0))
        return " "
    code = STR_OR_COMMENT.sub(keep, text)
    return [w for w in WORD.findall(code) if w not in KEYWORDS], "\n".join(prose)


def corpus_index(root):
    ids, prose_words, stems, texts, all_text = set(), set(), set(), [], []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for d in dirnames:
            stems.add(d.lower())
        for fn in filenames:
            path = os.path.join(dirpath, fn)
            stem, ext = os.path.splitext(fn)
            stems.add(stem.lower())
            try:
                text = open(path, encoding="utf-8").read()
            except (UnicodeDecodeError, OSError):
                continue
            all_text.append(text)
            if ext in (".go", ".py", ".js"):
                i, p = split_code(text, ext)
                ids.update(i)
                prose_words.update(w.lower() for w in WORD.findall(p))
                texts.append(p)
            else:
                prose_words.update(w.lower() for w in WORD.findall(text))
                texts.append(text)
    words = re.findall(r"[a-z0-9']+", " ".join(texts).lower())
    return {
        "ids_lower": {i.lower() for i in ids},
        "prose": prose_words,
        "stems": {s for s in stems if len(s) >= 4},
        "fivegrams": {tuple(words[i:i + 5]) for i in range(len(words) - 4)},
        "all_text": "\n".join(all_text),
    }


MADE_UP = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b|\b\w+_\w+\b")


def check_words(qid, question, idx):
    if re.search(r"[\"`]|'[^']*'", question.replace("'s ", " ").replace("n't", "").replace("'ve", "").replace("'m", "")):
        err(f"{qid}: quotes in a paraphrase (no string literal allowed)")
    if re.search(r"\.(go|py|md)\b|/", question):
        err(f"{qid}: looks like a file name or path")
    for w in set(WORD.findall(question)):
        if re.search(r"[a-z][A-Z]|_|[A-Za-z][0-9]|\.", w) or MADE_UP.fullmatch(w):
            err(f"{qid}: '{w}' looks like an identifier (camelCase/snake_case)")
            continue
        if len(w) < 4:
            continue
        lw = w.lower()
        if lw in idx["ids_lower"] and lw not in idx["prose"]:
            err(f"{qid}: '{w}' occurs in the corpus only as a code identifier")
        base = lw[:-1] if lw.endswith("s") and lw[:-1] in idx["stems"] else lw
        if base in idx["stems"] and base not in EVERYDAY:
            err(f"{qid}: '{w}' names a corpus file or folder")
    words = re.findall(r"[a-z0-9']+", question.lower())
    for i in range(len(words) - 4):
        if tuple(words[i:i + 5]) in idx["fivegrams"]:
            err(f"{qid}: shares '{' '.join(words[i:i + 5])}' with the corpus text")


def check_set(name, corpus_root):
    setdir = os.path.join(HERE, name)
    qs = []
    for n, line in enumerate(open(os.path.join(setdir, "questions.jsonl")), 1):
        if not line.strip():
            continue
        try:
            q = json.loads(line)
        except ValueError as e:
            err(f"{name}:{n}: {e}")
            continue
        if set(q) != FIELDS:
            err(f"{name}:{n}: fields {sorted(q)}, want {sorted(FIELDS)}")
            continue
        qs.append(q)
    ids = [q["id"] for q in qs]
    for i, c in Counter(ids).items():
        if c > 1:
            err(f"{name}: id {i} repeated")
    corpora = {q["corpus"] for q in qs}
    if len(corpora) != 1:
        err(f"{name}: corpus names {corpora}")
    go_paths, plans = set(), []
    idx = corpus_index(corpus_root)
    for q in qs:
        qid = q["id"]
        if q["kind"] == "paraphrase" and WORDING:
            check_words(qid, q["question"], idx)
        if q["kind"] == "unanswerable":
            for ident in MADE_UP.findall(q["question"]):
                last = ident.split(".")[-1]
                if re.search(re.escape(last), idx["all_text"], re.I):
                    err(f"{qid}: made-up name '{ident}' occurs in the corpus")
        if not re.fullmatch(PREFIX[name] + r"\d{3}", qid):
            err(f"{qid}: id without the set's prefix {PREFIX[name]}")
        if q["kind"] not in KINDS:
            err(f"{qid}: kind {q['kind']!r}")
        if (q["kind"] == "unanswerable") != (q["expect"] == []):
            err(f"{qid}: kind unanswerable iff expect is empty")
        if len(q["expect"]) > 3:
            err(f"{qid}: more than 3 expected locations")
        for e in q["expect"]:
            if set(e) != EXPECT_FIELDS:
                err(f"{qid}: expect fields {sorted(e)}")
                continue
            full = os.path.join(corpus_root, e["path"])
            if not os.path.isfile(full):
                err(f"{qid}: {e['path']} does not exist")
                continue
            if is_test(e["path"]):
                err(f"{qid}: {e['path']} is a test file")
            nlines = len(open(full, encoding="utf-8").read().split("\n"))
            if not 1 <= e["start_line"] <= e["end_line"] <= nlines:
                err(f"{qid}: {e['path']} lines {e['start_line']}-{e['end_line']} outside 1-{nlines}")
            if full.endswith(".go"):
                go_paths.add(full)
            plans.append((qid, e, full))
    gd = go_decls(go_paths)
    for qid, e, full in plans:
        rng = (e["start_line"], e["end_line"])
        if full.endswith(".go"):
            ok = rng in gd.get(full, set())
        elif full.endswith(".py"):
            ok = rng in py_decls(full)
        elif full.endswith(".js"):
            ok = rng in js_decls(full)
        elif full.endswith(".md"):
            ok = rng in md_sections(full)
        else:
            err(f"{qid}: {e['path']}: no declaration check for this file type")
            continue
        if not ok:
            err(f"{qid}: {e['path']} {rng[0]}-{rng[1]} ({e['symbol']}) is not one declaration/section")
    # why.jsonl: one line per unanswerable question, its no_hits patterns absent.
    unans = {q["id"] for q in qs if q["kind"] == "unanswerable"}
    whys = [json.loads(l) for l in open(os.path.join(setdir, "why.jsonl")) if l.strip()]
    if {w["id"] for w in whys} != unans or len(whys) != len(unans):
        err(f"{name}: why.jsonl ids {sorted(w['id'] for w in whys)} != unanswerable ids {sorted(unans)}")
    texts = {}
    for rel, full in corpus_files(corpus_root):
        try:
            texts[rel] = open(full, encoding="utf-8", errors="replace").read()
        except OSError:
            pass
    for w in whys:
        if set(w) != {"id", "why", "no_hits"} or not w["why"] or not w["no_hits"]:
            err(f"{w.get('id')}: why.jsonl line needs id, why and no_hits")
            continue
        for nh in w["no_hits"]:
            pat = re.compile(nh["pattern"], re.I)
            where = [nh["in"]] if "in" in nh else sorted(texts)
            if "in" in nh and nh["in"] not in texts:
                err(f"{w['id']}: no_hits file {nh['in']} missing")
                continue
            hits = [p for p in where if pat.search(texts[p])]
            if hits:
                err(f"{w['id']}: /{nh['pattern']}/ has hits in {hits[:5]}")
    return Counter(q["kind"] for q in qs)


def main(family_dir, prefix, everyday=None, wording=True):
    """Checks the sets of family_dir (prefix: set name -> id prefix) against
    the corpora in sys.argv[1]; everyday, when given, replaces EVERYDAY;
    wording=False leaves out the paraphrases' wording checks (check_words).
    Exits 1 on any error."""
    global HERE, PREFIX, EVERYDAY, WORDING
    HERE, PREFIX, WORDING = family_dir, prefix, wording
    EVERYDAY = everyday or EVERYDAY
    family = os.path.basename(os.path.normpath(family_dir))
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    root = sys.argv[1]
    total = Counter()
    sets = sorted(d for d in os.listdir(HERE) if os.path.isfile(os.path.join(HERE, d, "fetch.sh")))
    for name in sets:
        dirs = [d for d in os.listdir(root) if d.startswith(name + "@")] if os.path.isdir(root) else []
        if len(dirs) != 1:
            err(f"{name}: want one {name}@* corpus folder in {root}, found {dirs}")
            continue
        c = check_set(name, os.path.join(root, dirs[0]))
        print(f"{name}: {sum(c.values())} questions, " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
        total += c
    if errors:
        print(f"{family} sets: {len(errors)} errors")
        sys.exit(1)
    print(f"{family} sets OK: {sum(total.values())} questions in {len(sets)} sets, "
          + ", ".join(f"{k} {v}" for k, v in sorted(total.items())))

