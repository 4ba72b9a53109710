#!/usr/bin/env python3
"""Scores ragbot's own usage answers against truth.jsonl: precision and recall
of the lines each answer lists as sites.

Usage: python3 ask.py RAGBOT CONFIG [OUT_DIR]

CONFIG has git sources named "requests" and "axios" (the corpora of
README.md). Each question is asked as `RAGBOT ask --json --config CONFIG
--source CORPUS "who calls NAME"`; its sites are the usage snippets after the
definitions (answer.usage.definitions of them), one line each (start_line),
as scripts/callers-score.py reads them. Prints one line per question, then
listed / correct / true, precision and recall per language and in all
(micro: summed over questions), twice: over every line the answers list,
and over the lines in the files score.py scores (requests/*.py; axios's
lib/*.js and index.js, not its dist/ bundles, which ragbot indexes too).
OUT_DIR keeps each answer's JSON.
"""
import json, os, subprocess, sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ragbot, config = sys.argv[1:3]
out_dir = sys.argv[3] if len(sys.argv) > 3 else None
agg = defaultdict(lambda: [0, 0, 0])  # (scope, lang) -> listed, correct, true

def in_scope(corpus, rel):  # score.py's, without dist/
    if corpus == "requests":
        return rel.startswith("requests/") and rel.endswith(".py")
    return rel.startswith("lib/") and rel.endswith(".js") or rel == "index.js"

for t in map(json.loads, open(os.path.join(HERE, "truth.jsonl"))):
    q = "who calls %s" % t["name"]
    res = subprocess.run([ragbot, "ask", "--json", "--config", config, "--source", t["corpus"], q],
                         capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"{q}: ragbot ask failed: {res.stderr}")
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
        open(os.path.join(out_dir, t["corpus"] + "-" + t["name"] + ".json"), "w").write(res.stdout)
    ans = json.loads(res.stdout)
    usage = ans.get("usage") or {}
    snips = (ans.get("snippets") or [])[usage.get("definitions", 0):] if usage else []
    listed = {(s["path"], s["start_line"]) for s in snips}
    want = {(s["path"], s["line"]) for s in t["sites"]}
    ok = listed & want
    scoped = {x for x in listed if in_scope(t["corpus"], x[0])}
    for k in (t["lang"], "all"):
        for scope, L in (("every listed line", listed), ("score.py's files", scoped)):
            a = agg[(scope, k)]; a[0] += len(L); a[1] += len(L & want); a[2] += len(want)
    by = usage.get("resolved_by") or []
    print(f"{t['lang'][:2]} {t['name']:24s} listed {len(listed):3d} correct {len(ok):3d} true {len(want):3d}"
          f" resolved_by={','.join(by) or '-'} by_name={len(usage.get('by_name') or [])}"
          + (f" missed={sorted(want - listed)}" if want - listed else ""))
print()
print("| lines | set | listed | correct | true | precision | recall |")
for k in sorted(agg):
    l, c, n = agg[k]
    print(f"| {k[0]} | {k[1]} | {l} | {c} | {n} | {c / l if l else float('nan'):.3f} | {c / n:.3f} |")
