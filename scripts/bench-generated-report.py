#!/usr/bin/env python3
"""Prints the generated benchmark's figures from one `ragbot eval --json` report.

    python3 scripts/bench-generated-report.py EVAL.json GROUPS.tsv QUESTIONS.jsonl...

GROUPS.tsv is `benchgen groups` (corpus, group, name a line). For every kind,
group (go, python, js, openapi, markdown) and repository it prints the
answerable questions' recall@5 (a wanted location among the first 5) and the
share answered "no coverage", and the unanswerable questions' no-coverage and
"not sure" shares, so that a threshold or weight can be chosen on some
repositories and judged on the others (leave-one-repository-out).
"""
import json
import sys
from collections import defaultdict


def main():
    report_file, groups_file, *question_files = sys.argv[1:]
    report = json.load(open(report_file))
    group_of, name_of = {}, {}
    for line in open(groups_file):
        corpus, group, name = line.rstrip("\n").split("\t")
        group_of[corpus], name_of[corpus] = group, name
    questions = [json.loads(l) for f in question_files for l in open(f) if l.strip()]
    ranks = report.get("ranks", {})
    answered = set(report.get("wrong_answers", []))  # unanswerable ones that got snippets
    refused = set(report.get("wrong_refusals", []))  # answerable ones answered "no coverage"
    not_sure = set(report.get("not_sure", []))

    rows = defaultdict(lambda: {"ans": 0, "r5": 0, "refused": 0, "un": 0, "nocov": 0, "notsure": 0})
    for q in questions:
        keys = ["all", "kind:" + q["kind"], "group:" + group_of.get(q["corpus"], "?"),
                "repo:" + name_of.get(q["corpus"], q["corpus"])]
        for k in keys:
            r = rows[k]
            if q["expect"]:
                r["ans"] += 1
                r["r5"] += 1 if 1 <= ranks.get(q["id"], 0) <= 5 else 0
                r["refused"] += q["id"] in refused
            else:
                r["un"] += 1
                r["nocov"] += q["id"] not in answered
                r["notsure"] += q["id"] in not_sure

    def share(n, d):
        return f"{n / d:.3f}" if d else "-"

    print(f"mode {report.get('mode')}, embedder {report.get('embedder')}: recall@5 {report.get('recall_at_5', 0):.3f}, "
          f"MRR@10 {report.get('mrr_at_10', 0):.3f}, no_coverage_rate {report.get('no_coverage_rate', 0):.3f}, "
          f"wrong_refusal_rate {report.get('wrong_refusal_rate', 0):.3f}")
    print(f"{'':24} {'answerable':>10} {'recall@5':>8} {'refused':>8} {'unanswerable':>12} {'no_cover':>8} {'not_sure':>8}")
    order = sorted(rows, key=lambda k: (k != "all", k.split(":")[0] != "kind", k.split(":")[0] != "group", k))
    for k in order:
        r = rows[k]
        print(f"{k:24} {r['ans']:>10} {share(r['r5'], r['ans']):>8} {share(r['refused'], r['ans']):>8} "
              f"{r['un']:>12} {share(r['nocov'], r['un']):>8} {share(r['notsure'], r['un']):>8}")


if __name__ == "__main__":
    main()
