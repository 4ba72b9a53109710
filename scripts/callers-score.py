#!/usr/bin/env python3
"""Scores usage answers by their call-site lines: precision and recall.

Usage: python3 scripts/callers-score.py RAGBOT CONFIG EVAL_DIR [OUT_DIR]

EVAL_DIR holds questions.jsonl and sites.jsonl in the format of
testdata/eval/usage (id, corpus, question; id, sites: path and line). Each
question is asked with `RAGBOT ask --json --config CONFIG --source CORPUS`.
An answer's sites are its usage snippets after the definitions
(answer.usage.definitions of them), each one line (start_line). Per
question and in all (micro: summed over questions) it prints

  precision = listed sites that are true sites / listed sites
  recall    = true sites listed as sites / true sites

A question with no true sites counts every listed site as a false positive
and adds nothing to recall. testdata/eval/usage/score.py counts a site as
listed when any snippet covers its line (a definition's body too); this
counts only the lines the answer lists as uses. OUT_DIR keeps each
answer's JSON.
"""
import json, os, subprocess, sys

ragbot, config, eval_dir = sys.argv[1:4]
out_dir = sys.argv[4] if len(sys.argv) > 4 else None
truth = {s["id"]: {(x["path"], x["line"]) for x in s["sites"]}
         for s in map(json.loads, open(os.path.join(eval_dir, "sites.jsonl")))}
tp = fp = fn = 0
for q in map(json.loads, open(os.path.join(eval_dir, "questions.jsonl"))):
    res = subprocess.run([ragbot, "ask", "--json", "--config", config, "--source", q["corpus"], q["question"]],
                         capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"{q['id']}: ragbot ask failed: {res.stderr}")
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
        open(os.path.join(out_dir, q["id"] + ".json"), "w").write(res.stdout)
    ans = json.loads(res.stdout)
    usage = ans.get("usage") or {}
    snips = (ans.get("snippets") or [])[usage.get("definitions", 0):] if usage else []
    listed = {(s["path"], s["start_line"]) for s in snips}
    want = truth[q["id"]]
    t, f, n = len(listed & want), len(listed - want), len(want - listed)
    tp, fp, fn = tp + t, fp + f, fn + n
    p = t / (t + f) if t + f else 1.0
    r = t / (t + n) if t + n else 1.0
    note = "; ".join(usage.get("by_name") or [])
    print(f"{q['id']} listed {len(listed):3d} true {len(want):3d} tp {t:3d} precision {p:.3f} recall {r:.3f}"
          f" resolved={bool(usage.get('resolved'))} {q['question']}" + (f" [by name: {note}]" if note else ""))
print(f"all: listed {tp + fp}, true {tp + fn}, tp {tp}; precision {tp / max(tp + fp, 1):.3f}, recall {tp / max(tp + fn, 1):.3f}")
