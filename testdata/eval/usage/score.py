#!/usr/bin/env python3
"""Scores ragbot's answers to the usage questions against sites.jsonl.

Usage: python3 score.py RAGBOT CONFIG [OUT_DIR]

Asks each question of questions.jsonl with `RAGBOT ask --json --config
CONFIG --source CORPUS` and prints, per question and in all: the share of
its call sites (sites.jsonl) listed, a site counting as listed when a
snippet of its file covers its line; and whether the first snippet is the
expected definition (questions.jsonl "expect": a snippet of its file
overlapping its lines). OUT_DIR, when given, keeps each answer's JSON.
"""
import json, os, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
ragbot, config = sys.argv[1], sys.argv[2]
out_dir = sys.argv[3] if len(sys.argv) > 3 else None
sites = {s["id"]: s["sites"] for s in map(json.loads, open(os.path.join(here, "sites.jsonl")))}
total = listed = first = n = 0
for q in map(json.loads, open(os.path.join(here, "questions.jsonl"))):
    res = subprocess.run([ragbot, "ask", "--json", "--config", config, "--source", q["corpus"], q["question"]],
                         capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"{q['id']}: ragbot ask failed: {res.stderr}")
    ans = json.loads(res.stdout)
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
        open(os.path.join(out_dir, q["id"] + ".json"), "w").write(res.stdout)
    snips = ans.get("snippets") or []
    covers = lambda p, a, b: any(s["path"] == p and s["start_line"] <= b and a <= s["end_line"] for s in snips)
    got = sum(1 for s in sites[q["id"]] if covers(s["path"], s["line"], s["line"]))
    want = len(sites[q["id"]])
    is_first = bool(snips) and any(snips[0]["path"] == e["path"] and snips[0]["start_line"] <= e["end_line"]
                                   and e["start_line"] <= snips[0]["end_line"] for e in q["expect"])
    n += 1
    total += want
    listed += got
    first += is_first
    print(f"{q['id']} sites {got}/{want} definition_first={is_first} snippets={len(snips)} {q['question']}")
print(f"questions {n}; call sites listed {listed}/{total} = {listed / max(total, 1):.3f}; "
      f"definition first {first}/{n}")
