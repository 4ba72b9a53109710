#!/usr/bin/env python3
"""Lists the name-match candidate lines of each question of spec.txt.

Usage: python3 candidates.py CORPORA_DIR [ID ...]

A candidate is a line of a .go file (tests included) whose code, with
comments taken out, holds the name as a selector (`.Name` not followed by
an identifier character) or, for a package function, the name as a whole
word anywhere (so `pkg.Name`, a bare `Name(` and any other `.Name`), other
than the definition line itself and other `func ... Name(` definitions. This is what a pure name
match would return. For each candidate it prints the code and, to help the
reading, the nearest earlier line in the same function (or the file) that
declares the selector's root identifier. It decides nothing: the decisions
are made by reading, and kept in decisions.tsv.
"""
import os, re, sys

here = os.path.dirname(os.path.abspath(__file__))

# Go package name -> folder in the corpus (as the spec's qualified names use them).
PKGDIR = {
    ("retryablehttp@v0.7.8", "retryablehttp"): ".",
    ("pgx@v5.13.0", "pgx"): ".",
    ("pgx@v5.13.0", "pgxpool"): "pgxpool",
    ("pgx@v5.13.0", "pgconn"): "pgconn",
    ("pgx@v5.13.0", "pgproto3"): "pgproto3",
    ("pgx@v5.13.0", "stmtcache"): "internal/stmtcache",
    ("pgx@v5.13.0", "bgreader"): "pgconn/internal/bgreader",
    ("pgx@v5.13.0", "ctxwatch"): "pgconn/ctxwatch",
    ("nats@v1.56.0", "nats"): ".",
}

def spec():
    for row in open(os.path.join(here, "spec.txt")):
        if row.startswith("#") or not row.strip():
            continue
        qid, corpus, name, question = row.rstrip("\n").split("|")
        parts = name.split(".")
        pkg, typ, meth = (parts[0], parts[1], parts[2]) if len(parts) == 3 else (parts[0], None, parts[1])
        yield qid, corpus, name, question, pkg, typ, meth

def go_files(root, corpus):
    base = os.path.join(root, corpus)
    for d, dirs, fs in os.walk(base):
        dirs[:] = sorted(x for x in dirs if x != ".git")
        for f in sorted(fs):
            if f.endswith(".go"):
                p = os.path.join(d, f)
                yield os.path.relpath(p, base), open(p, encoding="utf-8", errors="replace").read().split("\n")

def strip_comments(lines):
    """Each line's code with // and /* */ comments blanked (string literals kept)."""
    out, in_block = [], False
    for s in lines:
        res, i, q = [], 0, None
        while i < len(s):
            c = s[i]
            if in_block:
                if s.startswith("*/", i):
                    in_block = False
                    i += 2
                else:
                    i += 1
                continue
            if q:
                res.append(c)
                if c == "\\" and q != "`":
                    res.append(s[i + 1:i + 2]); i += 2; continue
                if c == q:
                    q = None
                i += 1
                continue
            if s.startswith("//", i):
                break
            if s.startswith("/*", i):
                in_block = True; i += 2; continue
            if c in "\"'`":
                q = c
            res.append(c); i += 1
        out.append("".join(res))
    return out

def package_of(lines):
    for s in lines:
        m = re.match(r"^package (\w+)", s)
        if m:
            return m.group(1)
    return None

def def_span(lines, i):
    for j in range(i, len(lines)):
        if lines[j] == "}" or (j == i and lines[j].rstrip().endswith("}")):
            return j + 1
    return i + 1

def definition(files, corpus, pkg, typ, meth):
    d = PKGDIR[(corpus, pkg)]
    if typ:
        r = re.compile(r"^func \(\w+ \*?" + typ + r"(\[[^\]]*\])?\) " + meth + r"[(\[]")
    else:
        r = re.compile(r"^func " + meth + r"[(\[]")
    out = []
    for path, lines in files:
        if os.path.dirname(path) != ("" if d == "." else d):
            continue
        for i, s in enumerate(lines):
            if r.match(s):
                out.append({"path": path, "symbol": (typ + "." if typ else "") + meth, "start_line": i + 1, "end_line": def_span(lines, i)})
    return out

def candidates(files, corpus, pkg, typ, meth, defs):
    sel = re.compile(r"\." + meth + r"(?![A-Za-z0-9_])")
    word = re.compile(r"(?<![A-Za-z0-9_])" + meth + r"(?![A-Za-z0-9_])")
    funcdef = re.compile(r"^func (\([^)]*\) )?" + meth + r"[(\[]")
    for path, lines in files:
        code = strip_comments(lines)
        for n, s in enumerate(code, 1):
            if any(d["path"] == path and d["start_line"] == n for d in defs):
                continue
            if funcdef.match(s):
                continue   # another definition of the same name (not a use)
            if sel.search(s) or (typ is None and word.search(s)):
                yield path, n, lines[n - 1], lines, code

def root_decl(code, n, expr_root):
    """Nearest earlier line in the enclosing func (or at top level) declaring expr_root."""
    pat = re.compile(r"(?<![.\w])" + re.escape(expr_root) + r"(\s*,\s*\w+)*\s*(:=|=[^=]|\s+\*?[\w.\[\]]+)|(\(|,\s*)" + re.escape(expr_root) + r"\s+[\w*.\[\]]|var\s+" + re.escape(expr_root) + r"\b|range\b")
    for j in range(n - 1, 0, -1):
        s = code[j - 1]
        if re.search(r"(?<![.\w])" + re.escape(expr_root) + r"\b", s) and (pat.search(s) or s.startswith("func ")):
            if re.search(r"(?<![.\w])" + re.escape(expr_root) + r"\s*(,\s*[\w.]+\s*)*:=|var " + re.escape(expr_root) + r"\b|" +
                         r"[(,]\s*" + re.escape(expr_root) + r"(\s*,\s*\w+)*\s+[*\w\[]|range", s) or s.startswith("func "):
                return j, s.strip()
        if s.startswith("func ") and j < n:
            break
    return None, ""

def receiver_root(s, meth):
    m = re.search(r"([A-Za-z_][\w]*)((?:\.[A-Za-z_]\w*|\(\)|\[[^\]]*\])*)\." + meth + r"(?![\w])", s)
    return m.group(1) if m else None

if __name__ == "__main__":
    root = sys.argv[1]
    only = set(sys.argv[2:])
    cache = {}
    for qid, corpus, name, question, pkg, typ, meth in spec():
        if only and qid not in only:
            continue
        files = cache.setdefault(corpus, list(go_files(root, corpus)))
        defs = definition(files, corpus, pkg, typ, meth)
        print(f"## {qid} {name}  def {defs}")
        for path, n, raw, lines, code in candidates(files, corpus, pkg, typ, meth, defs):
            r = receiver_root(code[n - 1], meth)
            j, decl = root_decl(code, n, r) if r else (None, "")
            print(f"{qid}\t{path}\t{n}\t{raw.strip()[:140]}\t<{r}> {j}: {decl[:120]}")
