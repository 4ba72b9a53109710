#!/usr/bin/env python3
"""Builds questions.jsonl and sites.jsonl from spec.txt and decisions.tsv.

Usage: python3 groundtruth.py CORPORA_DIR [--review]

candidates.py lists, for each question, every line a pure name match would
return (the name as a `.Name` selector, or for a package function as a
whole word). Each of those lines was decided by reading the code around it
(the receiver's declaration, the function's parameters, the struct's
fields) and the decision is kept, with its reason, in decisions.tsv:

  site           the method of that type (value or pointer receiver) is
                 called or taken as a method value there, directly or through
                 a variable, field or return value whose static type is that
                 type (or, for a package function, that function is called)
  not            another type's method or function of the same name, a type
                 or field of that name, a string, or an interface that the
                 type does not implement
  via_interface  a call through an interface that the type implements (a
                 judgment call: kept apart, not counted as a site)

This script checks that decisions.tsv decides every candidate line and
nothing else, then writes questions.jsonl (ragbot's eval format; `expect` is
the definition) and sites.jsonl (every site; plus, beyond the usage set's
format, the via_interface lines and the count of name-match candidates),
and prints the per-question table of README.md. --review prints each
candidate with its decision, reason and code, for reading. Nothing here
runs ragbot or a type checker.
"""
import json, os, re, sys
from collections import defaultdict

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import candidates as C

here = C.here
root = sys.argv[1]
review = "--review" in sys.argv

dec = {}
for row in open(os.path.join(here, "decisions.tsv")):
    if row.startswith("id\t") or not row.strip():
        continue
    qid, path, line, d, reason = row.rstrip("\n").split("\t")
    assert d in ("site", "not", "via_interface"), row
    key = (qid, path, int(line))
    assert key not in dec, f"decided twice: {key}"
    dec[key] = (d, reason)

questions, sites, table, seen, problems = [], [], [], set(), []
cache = {}
for qid, corpus, name, question, pkg, typ, meth in C.spec():
    files = cache.setdefault(corpus, list(C.go_files(root, corpus)))
    defs = C.definition(files, corpus, pkg, typ, meth)
    if len(defs) != 1:
        problems.append(f"{qid}: {len(defs)} definitions of {name}")
    found, via, n_cand, calls = [], [], 0, set()
    callre = re.compile((r"\." if typ else r"(?<![A-Za-z0-9_])") + meth + r"\(")
    for path, n, raw, lines, code in C.candidates(files, corpus, pkg, typ, meth, defs):
        n_cand += 1
        if callre.search(code[n - 1]):
            calls.add((path, n))
        key = (qid, path, n)
        seen.add(key)
        if key not in dec:
            problems.append(f"undecided candidate {qid} {path}:{n}: {raw.strip()}")
            continue
        d, reason = dec[key]
        if review:
            print(f"{qid}\t{d}\t{path}:{n}\t{reason}\t| {raw.strip()[:120]}")
        if d == "site":
            found.append({"path": path, "line": n})
        elif d == "via_interface":
            via.append({"path": path, "line": n})
    questions.append({"id": qid, "corpus": corpus.split("@")[0], "kind": "usage", "question": question, "expect": defs})
    sites.append({"id": qid, "name": name, "sites": found, "via_interface": via, "name_match_candidates": n_cand})
    table.append((qid, name, len(found), n_cand, len(via), len(calls), sum((s["path"], s["line"]) in calls for s in found)))
for key in sorted(set(dec) - seen):
    problems.append(f"decision for a line that is no candidate: {key}")
if problems:
    sys.exit("\n".join(problems))

if not review:
    with open(os.path.join(here, "questions.jsonl"), "w") as f:
        for q in questions:
            f.write(json.dumps(q) + "\n")
    with open(os.path.join(here, "sites.jsonl"), "w") as f:
        for s in sites:
            f.write(json.dumps(s) + "\n")
    print("| id | name | true sites | name-match candidates | not sites | via_interface |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for qid, name, ns, nc, nv, _, _ in table:
        print(f"| {qid} | `{name}` | {ns} | {nc} | {nc - ns} | {nv} |")
    S = sum(t[2] for t in table); N = sum(t[3] for t in table); V = sum(t[4] for t in table)
    print(f"| all | {len(table)} questions | {S} | {N} | {N - S} | {V} |")
    print(f"\npure name match precision: {S}/{N} = {S / N:.3f} (micro); "
          f"mean per question {sum(t[2] / t[3] for t in table if t[3]) / len(table):.3f}; "
          f"counting via_interface lines as right too: {(S + V) / N:.3f}")
    K = sum(t[5] for t in table); KS = sum(t[6] for t in table)
    print(f"call form only (`.Name(`, or `Name(` for a package function): {KS}/{K} = {KS / K:.3f}; "
          f"sites it misses (method values, no parenthesis): {S - KS}")
