#!/usr/bin/env python3
"""Builds questions.jsonl and sites.jsonl from spec.txt by reading the corpora.

Usage: python3 groundtruth.py CORPORA_DIR [--review]

For each question's name X it lists every line of the corpus's code files
(.go or .py) where X occurs as a whole word, case-sensitive, and sorts each
line into: the definition (Go "func [recv] X(", Python "def X("), a comment
or docstring line, an import line, a line inside X's own definition, or a
site. --review prints every line with its class, for reading by hand; the
README says what the reading changed. Nothing here reads ragbot's output.
"""
import json, os, re, sys

here = os.path.dirname(os.path.abspath(__file__))
root = sys.argv[1]
review = "--review" in sys.argv

def code_files(corpus, ext):
    for d, _, fs in os.walk(os.path.join(root, corpus)):
        if "/.git" in d:
            continue
        for f in sorted(fs):
            if f.endswith(ext):
                p = os.path.join(d, f)
                yield os.path.relpath(p, os.path.join(root, corpus)), open(p, encoding="utf-8", errors="replace").read().split("\n")

def def_span(lines, i, ext):
    """1-based inclusive end of the definition starting at index i."""
    if ext == ".go":
        for j in range(i, len(lines)):
            if lines[j] == "}" or (j == i and lines[j].rstrip().endswith("}")):
                return j + 1
        return i + 1
    ind = len(lines[i]) - len(lines[i].lstrip())
    end = i
    for j in range(i + 1, len(lines)):
        s = lines[j]
        if s.strip() == "":
            continue
        if len(s) - len(s.lstrip()) <= ind:
            break
        end = j
    return end + 1

def docstring_lines(lines):
    out, inside = set(), None
    for n, s in enumerate(lines, 1):
        t = s.strip()
        if inside:
            out.add(n)
            if inside in t:
                inside = None
            continue
        for q in ('"""', "'''"):
            if t.startswith(q) or t.startswith("r" + q):
                out.add(n)
                if t.count(q) == 1:
                    inside = q
    return out

# Corrections made reading the --review output by hand: lines the word
# match classed as sites that are not uses.
EXCLUDE = {
    ("UC04", "context.go", 39): "the string \"RouteContext\" names a context key",
    ("UC08", "mux.go", 30): "declaration of the Mux field of the same name",
    ("UB01", "completions_test.go", 2775): "a comment after code",
    ("UB08", "doc/man_docs.go", 130): "error message text",
    # Found when the first after-run missed it, then read: the line is in a
    # test commented out with /* */, which the prefix check cannot see.
    ("UC05", "middleware/throttle_test.go", 211): "inside a /* */ comment",
}
# Environment variables have no definition: the expected first answer is
# the Go or Python line that reads them (os.Getenv, os.environ.get).
READERS = {
    "UB08": [("doc/man_docs.go", 127)], "UB09": [("completions.go", 876)],
    "UR07": [("requests/sessions.py", 767)], "UR08": [("requests/utils.py", 197)],
}

questions, sites = [], []
for row in open(os.path.join(here, "spec.txt")):
    if row.startswith("#") or not row.strip():
        continue
    qid, corpus, name, question = row.rstrip("\n").split("|")
    ext = ".py" if corpus.startswith("requests") else ".go"
    word = re.compile(r"(?<![A-Za-z0-9_])" + re.escape(name) + r"(?![A-Za-z0-9_])")
    if ext == ".go":
        defre = re.compile(r"^func (\([^)]*\) )?" + re.escape(name) + r"[(\[]")
    else:
        defre = re.compile(r"^\s*def " + re.escape(name) + r"\(")
    defs, found = [], []
    files = list(code_files(corpus, ext))
    for path, lines in files:
        for i, s in enumerate(lines):
            if defre.search(s):
                defs.append({"path": path, "symbol": name, "start_line": i + 1, "end_line": def_span(lines, i, ext)})
    for path, lines in files:
        docs = docstring_lines(lines) if ext == ".py" else set()
        for n, s in enumerate(lines, 1):
            if not word.search(s):
                continue
            t = s.strip()
            cls = "site"
            if any(d["path"] == path and d["start_line"] <= n <= d["end_line"] for d in defs):
                cls = "definition" if any(d["path"] == path and d["start_line"] == n for d in defs) else "inside-definition"
            elif t.startswith(("//", "#", "*", "/*")) or n in docs:
                cls = "comment"
            elif t.startswith(("import ", "from ")) or (ext == ".py" and re.match(r"^\s+\w+,?\s*(#.*)?$", s) and "import" in "".join(lines[max(0, n - 30):n])):
                cls = "import"
            if review:
                print(f"{qid} {cls:18} {path}:{n}: {t[:110]}")
            if cls == "site" and (qid, path, n) in EXCLUDE:
                cls = "excluded: " + EXCLUDE[(qid, path, n)]
            if cls == "site":
                found.append({"path": path, "line": n})
    if qid in READERS:
        defs = [{"path": p, "start_line": n, "end_line": n} for p, n in READERS[qid]]
    expect = defs or [{"path": s["path"], "start_line": s["line"], "end_line": s["line"]} for s in found]
    questions.append({"id": qid, "corpus": corpus.split("@")[0], "kind": "usage", "question": question, "expect": expect})
    sites.append({"id": qid, "name": name, "sites": found})

if not review:
    with open(os.path.join(here, "questions.jsonl"), "w") as f:
        for q in questions:
            f.write(json.dumps(q) + "\n")
    with open(os.path.join(here, "sites.jsonl"), "w") as f:
        for s in sites:
            f.write(json.dumps(s) + "\n")
    print(f"{len(questions)} questions, {sum(len(s['sites']) for s in sites)} sites")
