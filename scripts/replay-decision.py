#!/usr/bin/env python3
"""Replays the three-outcome decision (retrieval.Evidence.Decide) offline on
the evidence `ragbot eval --json` keeps, to ask whether a signal could answer
more questions outright without answering wrongly.

    python3 scripts/replay-decision.py DIR

DIR is one candidate's folder of `scripts/eval-candidates.sh --keep KEEP`
(KEEP/minilm: public/coverage.json, heldout|paraphrase|fresh/all.json,
generated/hybrid+rerank.json). For each set it checks that the replay gives
the report's "not sure" list, then splits the questions the decision leaves
"not sure" into answerable ones whose wanted chunk is in the top 5 (answering
them outright would be right), answerable ones without it (outright would be
wrong) and unanswerable ones (outright would be wrong), and prints, per
signal, the quartiles of each group and the area under the ROC curve of
"right" against "wrong": 0.5 means the signal cannot tell them apart, so no
threshold on it answers more right than wrong. The signals: the model's best
cosine of a top hit (Evidence.Semantic), the similarity that the answer band
reads (Evidence.Similarity) and the best term coverage (TermCoverage).
"""
import json
import os
import statistics
import sys

FILES = {"public": "public/coverage.json", "heldout": "heldout/all.json", "paraphrase": "paraphrase/all.json",
         "fresh": "fresh/all.json", "generated": "generated/hybrid+rerank.json"}


def relevant(th, h):
    return h["similarity"] >= th["min_similarity"] and h["term_coverage"] >= th["min_term_coverage"]


def decide(e, th):
    """retrieval.Evidence.Decide, in the same order (retrieval/coverage.go)."""
    top = e.get("top") or [{"similarity": e["similarity"], "term_coverage": e["term_coverage"]}]
    shows = any(h.get("approximate") and (k == 0 or relevant(th, h)) for k, h in enumerate(top))
    covered = "not_sure" if e.get("did_you_mean") or (e.get("approximate") and not shows) else "covered"
    if e.get("absent_names"):
        return "no_coverage"
    if e.get("lexical"):
        return covered
    if e.get("missing"):
        return "no_coverage"
    if any(relevant(th, h) for h in top):
        return covered
    if (e["similarity"] < th["floor_similarity"] and e["term_coverage"] < th["floor_term_coverage"]) or \
            (th["max_absent_share"] > 0 and e.get("absent_share", 0) > th["max_absent_share"]):
        return "no_coverage"
    return "not_sure"


def auc(pos, neg):
    """Probability that a random positive scores above a random negative (ties half)."""
    if not pos or not neg:
        return float("nan")
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def quartiles(xs):
    return "-" if len(xs) < 2 else "/".join(f"{x:.2f}" for x in statistics.quantiles(xs, n=4))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    signals = {"semantic": lambda e: e.get("semantic", 0.0), "similarity": lambda e: e["similarity"],
               "term_coverage": lambda e: e["term_coverage"]}
    print("| set | not sure: right / wrong if answered | signal | quartiles right | quartiles wrong | AUC |")
    print("|---|---|---|---|---|---|")
    for name, rel in FILES.items():
        path = os.path.join(sys.argv[1], rel)
        if not os.path.exists(path):
            continue
        report = json.load(open(path))
        cal, ranks = report["calibration"], report["ranks"]
        th = cal["configured"]
        right, wrong, replayed = [], [], []
        for qid, e in cal["evidence"].items():
            if decide(e, th) != "not_sure":
                continue
            replayed.append(qid)
            (right if qid in ranks and 1 <= ranks[qid] <= 5 else wrong).append(e)
        if sorted(replayed) != sorted(report["not_sure"]):
            sys.exit(f"{path}: the replay's not-sure list differs from the report's: retrieval/coverage.go changed?")
        for sig, f in signals.items():
            r, w = [f(e) for e in right], [f(e) for e in wrong]
            print(f"| {name} | {len(right)} / {len(wrong)} | {sig} | {quartiles(r)} | {quartiles(w)} | {auc(r, w):.2f} |")


if __name__ == "__main__":
    main()
