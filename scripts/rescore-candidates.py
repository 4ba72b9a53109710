#!/usr/bin/env python3
"""Re-ranks the candidate lists of `ragbot eval --depth N --candidates FILE`
offline, to try a rerank change before writing it in Go.

    python3 scripts/rescore-candidates.py FILE [GROUPS.tsv]

Prints recall@5 per corpus (with GROUPS.tsv, `benchgen groups` of the generated
benchmark: per language group), paraphrases apart from the other kinds, for the
ranking ragbot made (base) and for each variant below, with its change
against base. The variants are the ones docs/evaluation.md ("Rescoring variants") reports
as tried and not kept; add one by appending to VARIANTS a function of
(candidate, candidates, question) that returns a score, best highest.
"""
import collections
import json
import math
import re
import sys

BONUS = re.compile(r"\b([a-z_]+):([+-][0-9.]+)")
FUSED = re.compile(r"hybrid\(([0-9.]+)\)")


def fused(c):
    """The hybrid query's fused score, before the rerank's bonuses."""
    m = FUSED.search(c["debug"])
    return float(m.group(1)) if m and not c["debug"].startswith("lookup") else 0.0


def rrf_scores(cands, keys, k=60):
    """Reciprocal rank fusion (Cormack, Clarke and Buettcher, SIGIR 2009) of
    the candidates' orders by each key, k = 60 as in the paper."""
    total = [0.0] * len(cands)
    for key in keys:
        order = sorted(range(len(cands)), key=lambda i: -cands[i][key])
        for r, i in enumerate(order):
            total[i] += 1 / (k + r + 1)
    return total


def bonuses(c):
    return sum(float(v) for _, v in BONUS.findall(c["debug"]))


def per_file_cap(cap, kinds=None):
    def order(cands):
        seen, top, rest = collections.Counter(), [], []
        for c in cands:
            if (kinds is None or c["kind"] in kinds) and seen[c["path"]] >= cap:
                rest.append(c)
                continue
            seen[c["path"]] += 1
            top.append(c)
        return top + rest
    return order


def where(q):
    return re.search(r"\bwhere\b", q.lower()) is not None


# Score variants: f(candidate, candidates, question) -> score.
VARIANTS = {
    "semantic cosine x0.5": lambda c, cs, q: c["score"] + 0.5 * c["semantic"],
    "semantic cosine x1.0": lambda c, cs, q: c["score"] + 1.0 * c["semantic"],
    "semantic cosine x1.5": lambda c, cs, q: c["score"] + 1.5 * c["semantic"],
    "semantic cosine x3.0": lambda c, cs, q: c["score"] + 3.0 * c["semantic"],
    "lexical cosine x1.0": lambda c, cs, q: c["score"] + 1.0 * c["similarity"],
    "code length prior 0.05": lambda c, cs, q: c["score"] + (0.05 * math.log1p(c["end_line"] - c["start_line"] + 1) if c["kind"] == "code" else 0),
    "code length prior 0.10": lambda c, cs, q: c["score"] + (0.10 * math.log1p(c["end_line"] - c["start_line"] + 1) if c["kind"] == "code" else 0),
    "docs -0.2 for where": lambda c, cs, q: c["score"] - (0.2 if where(q) and c["kind"] == "doc" else 0),
}
# The coverage feature's weight scaled (docs/evaluation.md, "Thresholds and rerank on
# the generated benchmark"): its bonus in debug is wCoverage times the share.
for _w in (0.5, 1.5, 2.0):
    VARIANTS["coverage x%.1f" % _w] = lambda c, cs, q, w=_w: c["score"] + (w - 1) * sum(
        float(v) for k, v in BONUS.findall(c["debug"]) if k == "coverage")
# Order variants: f(candidates in ragbot's order) -> new order.
ORDERS = {
    "at most 1 per doc file": per_file_cap(1, {"doc"}),
    "at most 2 per file": per_file_cap(2),
}


def main(path, groups_file=None):
    lines = [json.loads(l) for l in open(path)]
    group_of = {}
    if groups_file:
        for line in open(groups_file):
            corpus, group, _ = line.rstrip("\n").split("\t")
            group_of[corpus] = group
    for l in lines:
        l["corpus"] = group_of.get(l["corpus"], l["corpus"])
    groups = collections.OrderedDict()
    for l in sorted(lines, key=lambda l: (l["corpus"], l["kind"] != "paraphrase")):
        groups.setdefault((l["corpus"], "paraphrase" if l["kind"] == "paraphrase" else "other"), []).append(l)

    def found(order):
        return any(c["match"] for c in order[:5])

    rankers = {"base": lambda cs, q: cs}
    for name, f in VARIANTS.items():
        rankers[name] = lambda cs, q, f=f: sorted(cs, key=lambda c: -f(c, cs, q))
    for name, f in ORDERS.items():
        rankers[name] = lambda cs, q, f=f: f(cs)
    for keys in (["bm25", "similarity", "semantic"], ["bm25", "similarity", "semantic", "term_coverage"]):
        def rrf(cs, q, keys=keys):
            s = rrf_scores(cs, keys)
            i = sorted(range(len(cs)), key=lambda i: -(bonuses(cs[i]) - (cs[i]["term_coverage"] if "term_coverage" in keys else 0) + 20 * s[i]))
            return [cs[j] for j in i]
        rankers["rrf(" + ",".join(keys) + ") for fused"] = rrf

    width = max(len(n) for n in rankers)
    cols = [f"{c.split('/')[-1].split(':')[-1].split('@')[0][:9]}{' para' if k == 'paraphrase' else ''}" for c, k in groups]
    print(f"{'recall@5 (found/n)':<{width}}  " + "  ".join(f"{c:>14}" for c in cols))
    base = {}
    for name, rank in rankers.items():
        cells = []
        for g, ls in groups.items():
            n = sum(found(rank(l["candidates"], l["question"])) for l in ls)
            if name == "base":
                base[g] = n
            d = n - base[g]
            cells.append(f"{n:>3}/{len(ls):<3}{'' if name == 'base' else f'({d:+d})':>5}")
        print(f"{name:<{width}}  " + "  ".join(f"{c:>14}" for c in cells))


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(*sys.argv[1:])
