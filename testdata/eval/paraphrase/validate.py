#!/usr/bin/env python3
"""Checks the paraphrase question sets against their fetched corpora.

    python3 validate.py CORPUS_DIR

CORPUS_DIR holds the corpora as the sets' fetch.sh scripts leave them
(CORPUS_DIR/bbolt@v1.4.3/, CORPUS_DIR/requests@2.28.1+dfsg-1/, ...). For each
set folder next to this script (one with questions.jsonl and NOTES.md) it
checks that:

- every line parses and has the fields of the public set's format
  (`ragbot eval -h`); ids are unique and carry the set's prefix; `corpus` is
  the same on every line and equals the "Corpus name" in NOTES.md;
- kinds are only `paraphrase` (1-3 expectations) and `unanswerable`
  (`expect: []`), 16 and 6 of them;
- every expected path exists in the corpus, is not a test file, and its range
  lies within the file;
- every range is exactly one declaration found by a real parser: go/parser
  (through a tiny Go program run with `go run`) for Go, Python's `ast` for
  Python (first decorator line, or the `def`/`class` line, through
  `end_lineno`); for JavaScript a lenient check that the range starts at a
  JSDoc block directly above a function/method/class/assignment line, or at
  that line, and ends at a closing brace indented like it;
- no paraphrase or plain-words unanswerable question contains a word of four
  or more letters that is camelCase or snake_case, that the corpus uses as a
  code identifier but never in prose (comments, strings, docs), or that names
  a corpus file or folder; made-up identifiers in the other unanswerable
  questions occur nowhere in the corpus;
- the "no hits" greps that NOTES.md gives for the unanswerable questions
  (written as grep -riE 'PATTERN') really have no hits in the corpus.

Five-word runs a question shares with the corpus text are printed as
warnings (a question should not copy the code's own wording), not errors.
Exit status 1 when any check fails.
"""
import keyword
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
# The declaration listers are freshcheck.py's, the same code.
from freshcheck import go_decls, py_decls  # noqa: E402
PREFIX = {"bbolt": "PB", "requests": "PR", "ws": "PW"}
WANT = {"paraphrase": 16, "unanswerable": 6}


errors = []


def err(msg):
    errors.append(msg)
    print("ERROR:", msg)


JS_DECL = re.compile(
    r"^\s*(?:"
    r"(?:export\s+)?(?:async\s+)?function\b"                      # function f(
    r"|(?:export\s+)?class\b"                                      # class X
    r"|(?:static\s+)?(?:async\s+)?(?:get\s+|set\s+)?"
    r"(?:[A-Za-z_$][\w$]*|\[[\w$.]+\])\s*\([^)]*\)?\s*\{?\s*$"     # method(...) {
    r"|(?:const|let|var)\s+[\w$]+\s*="                             # const f = ...
    r"|[\w$.\[\]]+\s*=\s*"                                         # a.b = ...
    r")")


def js_check(lines, s, e):
    """Lenient check that lines s..e (1-based) are one JS declaration."""
    i = s - 1
    if lines[i].strip().startswith("/**"):
        while i < e - 1 and "*/" not in lines[i]:
            i += 1
        i += 1  # the line after the JSDoc block
        if i >= e:
            return "JSDoc block with no declaration after it"
    decl = lines[i]
    if not JS_DECL.match(decl):
        return "line %d does not start a function/method/class/assignment: %r" % (i + 1, decl.strip())
    indent = len(decl) - len(decl.lstrip())
    last = lines[e - 1]
    if not re.match(r"^\}[)\];,]*$", last.strip()) or len(last) - len(last.lstrip()) != indent:
        return "last line %d is not a closing brace indented like the declaration: %r" % (e, last)
    if s > 1 and lines[s - 2].strip().startswith("*") and not lines[s - 1].strip().startswith("/**"):
        return "range leaves out the JSDoc block directly above it, or starts inside it"
    return None


# Comments and string literals of Go and JavaScript (template literals and
# Go raw strings between backquotes; regex literals are not recognised).
STR_OR_COMMENT = re.compile(
    r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|`[^`]*`',
    re.S)
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# Language keywords are not identifiers: a question may say "switch" or "return".
# Go: https://go.dev/ref/spec#Keywords; JavaScript: ECMA-262 "ReservedWord";
# Python: keyword.kwlist.
KEYWORDS = set(keyword.kwlist) | set(
    "break case chan const continue default defer else fallthrough for func go goto "
    "if import interface map package range return select struct switch type var "
    "await catch class debugger delete do export extends false finally function in "
    "instanceof new null super this throw true try typeof void while with yield "
    "let static".split())


def split_code(text, ext):
    """Returns (identifier tokens, prose text) of a source file."""
    if ext == ".py":
        import io
        import tokenize
        ids, prose = [], []
        try:
            for tok in tokenize.generate_tokens(io.StringIO(text).readline):
                if tok.type == tokenize.NAME and tok.string not in KEYWORDS:
                    ids.append(tok.string)
                elif tok.type in (tokenize.STRING, tokenize.COMMENT):
                    prose.append(tok.string)
        except (tokenize.TokenError, IndentationError):
            pass
        return ids, "\n".join(prose)
    prose = []

    def keep(m):
        prose.append(m.group(0))
        return " "
    code = STR_OR_COMMENT.sub(keep, text)
    return [w for w in WORD.findall(code) if w not in KEYWORDS], "\n".join(prose)


CODE_EXT = {".go", ".py", ".js", ".mjs", ".cjs"}


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
            if ext in CODE_EXT:
                i, p = split_code(text, ext)
                ids.update(i)
                prose_words.update(w.lower() for w in WORD.findall(p))
                texts.append(p)
            else:
                prose_words.update(w.lower() for w in WORD.findall(text))
                texts.append(text)
    return {
        "ids_lower": {i.lower() for i in ids},
        "prose": prose_words,
        "stems": {s for s in stems if len(s) >= 4},
        "fivegrams": fivegrams(" ".join(texts)),
        "all_text": "\n".join(all_text),
    }


def fivegrams(text):
    words = re.findall(r"[a-z0-9']+", text.lower())
    return {tuple(words[i:i + 5]) for i in range(len(words) - 4)}


MADE_UP = re.compile(r"\b[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b|\b\w+_\w+\b")


def check_words(qid, question, idx):
    for w in set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", question)):
        if len(w) < 4:
            continue
        lw = w.lower()
        if re.search(r"[a-z][A-Z]|_|[A-Za-z][0-9]", w):
            err(f"{qid}: '{w}' looks like an identifier (camelCase/snake_case)")
        elif lw in idx["ids_lower"] and lw not in idx["prose"]:
            err(f"{qid}: '{w}' occurs in the corpus only as a code identifier")
        if lw in idx["stems"] or (lw.endswith("s") and lw[:-1] in idx["stems"]):
            err(f"{qid}: '{w}' names a corpus file or folder")
    words = re.findall(r"[a-z0-9']+", question.lower())
    for i in range(len(words) - 4):
        if tuple(words[i:i + 5]) in idx["fivegrams"]:
            print(f"warning: {qid}: shares '{' '.join(words[i:i + 5])}' with the corpus text")


def notes_greps(notes):
    """Yields (question id, pattern) for NOTES lines claiming a grep has no hits."""
    for line in notes.splitlines():
        m = re.match(r"- (P[A-Z]\d{3})\b.*", line)
        if not m or "no hits" not in line:
            continue
        for pat in re.findall(r"grep -riE '([^']+)'[^;]*?: no hits", line):
            yield m.group(1), pat


def check_set(name, corpus_root):
    folder = os.path.join(HERE, name)
    notes = open(os.path.join(folder, "NOTES.md"), encoding="utf-8").read()
    m = re.search(r"Corpus name: `([^`]+)`; corpus dir: `([^`]+)`", notes)
    if not m:
        err(f"{name}: NOTES.md has no 'Corpus name: `...`; corpus dir: `...`' line")
        return []
    corpus_name, corpus_dir = m.groups()
    root = os.path.join(corpus_root, corpus_dir)
    if not os.path.isdir(root):
        err(f"{name}: corpus dir {root} missing (run: bash {name}/fetch.sh {corpus_root})")
        return []
    idx = corpus_index(root)
    qs = []
    for n, line in enumerate(open(os.path.join(folder, "questions.jsonl"), encoding="utf-8"), 1):
        try:
            q = json.loads(line)
        except json.JSONDecodeError as e:
            err(f"{name}/questions.jsonl:{n}: {e}")
            continue
        if set(q) != {"id", "corpus", "kind", "question", "expect"}:
            err(f"{name}:{n}: fields {sorted(q)}")
            continue
        qs.append(q)
    counts = {}
    go_files = set()
    for q in qs:
        qid = q["id"]
        if not re.fullmatch(PREFIX[name] + r"\d{3}", qid):
            err(f"{qid}: id does not match {PREFIX[name]}NNN")
        if q["corpus"] != corpus_name:
            err(f"{qid}: corpus {q['corpus']!r} != {corpus_name!r} (NOTES.md)")
        counts[q["kind"]] = counts.get(q["kind"], 0) + 1
        if q["kind"] == "unanswerable":
            if q["expect"] != []:
                err(f"{qid}: unanswerable with expectations")
            made_up = MADE_UP.findall(q["question"])
            for ident in made_up:
                last = ident.split(".")[-1]
                if re.search(re.escape(last), idx["all_text"], re.I):
                    err(f"{qid}: made-up name '{ident}' occurs in the corpus")
            if not made_up:
                check_words(qid, q["question"], idx)
        elif q["kind"] == "paraphrase":
            if not 1 <= len(q["expect"]) <= 3:
                err(f"{qid}: {len(q['expect'])} expectations, want 1-3")
            check_words(qid, q["question"], idx)
        else:
            err(f"{qid}: kind {q['kind']!r}")
        for e in q["expect"]:
            path = os.path.join(root, e["path"])
            if re.search(r"(_test\.go|(^|/)tests?/|btesting|test_[^/]*\.py|\.test\.js)$|(^|/)tests?/", e["path"]):
                err(f"{qid}: {e['path']} is a test file")
            if not os.path.isfile(path):
                err(f"{qid}: {e['path']} not in corpus")
                continue
            lines = open(path, encoding="utf-8").read().split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            s, t = e["start_line"], e["end_line"]
            if not 1 <= s <= t <= len(lines):
                err(f"{qid}: {e['path']}:{s}-{t} outside 1-{len(lines)}")
                continue
            if path.endswith(".go"):
                go_files.add(path)
            elif path.endswith(".py"):
                if (s, t) not in py_decls(path):
                    err(f"{qid}: {e['path']}:{s}-{t} is not a Python def/class range")
            elif path.endswith(".js"):
                why = js_check(lines, s, t)
                if why:
                    err(f"{qid}: {e['path']}:{s}-{t}: {why}")
            else:
                err(f"{qid}: {e['path']}: not a Go, Python or JavaScript file")
    decls = go_decls(go_files)
    for q in qs:
        for e in q["expect"]:
            path = os.path.join(root, e["path"])
            if path in decls and (e["start_line"], e["end_line"]) not in decls[path]:
                err(f"{q['id']}: {e['path']}:{e['start_line']}-{e['end_line']} is not a Go declaration range")
    for kind, want in WANT.items():
        if counts.get(kind, 0) != want:
            err(f"{name}: {counts.get(kind, 0)} {kind} questions, want {want}")
    greps = list(notes_greps(notes))
    unanswerable = {q["id"] for q in qs if q["kind"] == "unanswerable"}
    for qid, pat in greps:
        rx = re.compile(pat, re.I)
        if rx.search(idx["all_text"]):
            err(f"{qid}: NOTES.md says grep -riE '{pat}' has no hits, but it has")
    missing = unanswerable - {qid for qid, _ in greps}
    for qid in sorted(missing):
        err(f"{qid}: NOTES.md gives no 'no hits' grep for this unanswerable question")
    print(f"{name}: {len(qs)} questions {counts}, corpus {corpus_name}")
    return qs


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    seen = {}
    for name in sorted(PREFIX):
        for q in check_set(name, sys.argv[1]):
            if q["id"] in seen:
                err(f"{q['id']}: duplicate id")
            seen[q["id"]] = True
    if errors:
        print(f"{len(errors)} error(s)")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
