#!/usr/bin/env python3
"""Scores ragbot's answers to the callers questions: ../usage/score.py run on this folder's files.

Usage: python3 score.py RAGBOT CONFIG [OUT_DIR]

../usage/score.py reads questions.jsonl and sites.jsonl beside itself; this
runs its code unchanged with this folder in their place, so the figures
(sites listed per question, definition first) mean the same. Only the
`sites` of sites.jsonl are scored. When OUT_DIR is given (the answers are
kept there), it also prints, per question and in all, how many of the
lines decided `not` in decisions.tsv (same name, another type) and
`via_interface` the answer's snippets cover: what a name match gets wrong.
"""
import json, os, sys
from collections import defaultdict

here = os.path.dirname(os.path.abspath(__file__))
usage = os.path.join(here, "..", "usage", "score.py")
exec(compile(open(usage).read(), usage, "exec"), {"__name__": "__main__", "__file__": os.path.join(here, "score.py")})

out_dir = sys.argv[3] if len(sys.argv) > 3 else None
if out_dir:
    dec = defaultdict(list)
    for row in open(os.path.join(here, "decisions.tsv")):
        if row.startswith("id\t") or not row.strip():
            continue
        qid, path, line, d, _ = row.rstrip("\n").split("\t")
        dec[qid].append((path, int(line), d))
    tot = defaultdict(int)
    for qid in dec:
        snips = json.load(open(os.path.join(out_dir, qid + ".json"))).get("snippets") or []
        shown = defaultdict(int)
        for path, line, d in dec[qid]:
            if any(s["path"] == path and s["start_line"] <= line <= s["end_line"] for s in snips):
                shown[d] += 1
        allc = defaultdict(int)
        for _, _, d in dec[qid]:
            allc[d] += 1
        for d in ("not", "via_interface"):
            tot[d, 0] += shown[d]; tot[d, 1] += allc[d]
        print(f"{qid} wrong-type lines shown {shown['not']}/{allc['not']} via_interface shown {shown['via_interface']}/{allc['via_interface']}")
    print(f"wrong-type lines shown {tot['not', 0]}/{tot['not', 1]}; via_interface lines shown {tot['via_interface', 0]}/{tot['via_interface', 1]}")
