#!/usr/bin/env python3
"""Renders the current tables of docs/evaluation.md from `ragbot eval --json` reports.

    python3 scripts/eval-tables.py [--check] JSON_DIR DOC

JSON_DIR holds what scripts/eval-tables.sh collects, one folder per question-set
family (each optional; a family without its folder keeps its tables as they are):

    public/mode-<mode>.json       ragbot eval --json --mode <mode> on ../shared/eval/questions.jsonl
    public/coverage.json          ragbot eval --json questions.jsonl testdata/eval/unanswerable.jsonl
    public/latency.json           ragbot eval --json --bench --bench-runs 5 questions.jsonl
    public/index.jsonl            one {"step", "wall", "peak_rss_mb"} line per index run
    public/machine.json           {"commit", "date", "cores", "loadavg"}
    public/meta.json              Weaviate's GET /v1/meta
    heldout/<split>-<mode>.json   split = ordinary | paraphrase (the groups the sets have)
    heldout/all.json              every question with the unanswerable ones, hybrid+rerank
    paraphrase/...                as heldout
    generated/<mode>.json         ragbot eval --json --mode <mode> (hybrid, hybrid+rerank) on every
                                  question of testdata/eval/generated (scripts/bench-generated.sh)
    generated/groups.tsv          benchgen groups: corpus, group, name a line
    generated/loo.md              benchgen loo: thresholds chosen leave-one-repository-out

Each table sits in DOC between `<!-- eval-tables:NAME:begin -->` and
`<!-- eval-tables:NAME:end -->`; NAME is public, heldout or paraphrase (recall@1,
recall@5 and MRR@10 per retrieval mode), FAMILY-coverage (the three outcomes and
the answer band's calibration), generated and generated-loo (per language group) or
timing (public corpus only). Without --check the blocks are rewritten in
place. With --check nothing is written: the exit status is 1, with a diff, when a
regenerated block differs from the committed one. The `timing` block (latency and
index time: they depend on the machine and its load) is rewritten but never
compared.
"""

import difflib
import json
import os
import re
import sys

MODES = ["bm25", "vector", "hybrid", "hybrid+rerank"]
FAMILIES = ["public", "heldout", "paraphrase", "generated"]
UNCHECKED = {"timing"}  # machine-dependent: rewritten, not compared by --check

# The kinds of the public set, in the order of its README; others follow sorted.
PUBLIC_KINDS = ["identifier", "path_or_error", "config", "docs", "openapi", "semantic"]


def load(path):
    with open(path) as f:
        return json.load(f)


def f3(x):
    return "%.3f" % x


def ordered(keys, first=()):
    keys = list(keys)
    return [k for k in first if k in keys] + sorted(k for k in keys if k not in first)


def corpus_label(name):
    """Short label of a corpus (source) name: github.com/hashicorp/raft@v1.7.1 -> raft@v1.7.1,
    deb:python3-urllib3@1.26.12-1+deb12u4 -> python3-urllib3@1.26.12-1+deb12u4."""
    rest = name.split(":", 1)[-1]
    base, at, version = rest.rpartition("@")
    if not at or not base:
        base, version = rest, ""
    short = base.rstrip("/").split("/")[-1] or base
    return short + ("@" + version if version else "")


# ---- public set ----------------------------------------------------------------


def render_public(d):
    reports = {m: load(os.path.join(d, "mode-%s.json" % m)) for m in MODES if os.path.exists(os.path.join(d, "mode-%s.json" % m))}
    if not reports:
        return None
    any_rep = next(iter(reports.values()))
    kinds = ordered(any_rep["by_kind"], PUBLIC_KINDS)
    head = ["mode", "metric", "all (%d)" % any_rep["questions"]] + ["%s (%d)" % (k, any_rep["by_kind"][k]["questions"]) for k in kinds]
    out = ["Embedder `%s`; ragbot eval --mode M on `questions.jsonl`." % any_rep.get("embedder", "?"), ""]
    out.append("| " + " | ".join(head) + " |")
    out.append("| --- | --- | " + " | ".join(["---:"] * (len(head) - 2)) + " |")
    for m in MODES:
        if m not in reports:
            continue
        r = reports[m]
        for i, (key, label) in enumerate([("recall_at_1", "recall@1"), ("recall_at_5", "recall@5"), ("mrr_at_10", "MRR@10")]):
            cells = [f3(r[key])] + [f3(r["by_kind"].get(k, {}).get(key, 0)) for k in kinds]
            if key == "recall_at_5":
                cells = ["**%s**" % c for c in cells]
            out.append("| %s | %s | %s |" % (m if i == 0 else "", label, " | ".join(cells)))
    return "\n".join(out)


# ---- held-out and paraphrase families ------------------------------------------


def render_family(d):
    def path(split, mode):
        return os.path.join(d, "%s-%s.json" % (split, mode))
    splits = [s for s in ("ordinary", "paraphrase") if any(os.path.exists(path(s, m)) for m in MODES)]
    if not splits:
        return None
    modes = [m for m in MODES if any(os.path.exists(path(s, m)) for s in splits)]
    head = ["corpus", "questions", "n"] + modes
    if "hybrid+rerank" in modes:
        head.append("recall@1 (hybrid+rerank)")
    embedder = None
    rows = []
    for s in splits:
        reps = {m: load(path(s, m)) for m in modes if os.path.exists(path(s, m))}
        first = next(iter(reps.values()))
        embedder = embedder or first.get("embedder")
        corpora = sorted(first["by_corpus"], key=lambda c: (corpus_label(c), c)) + [None]
        for c in corpora:
            def metrics(rep):
                return rep["by_corpus"].get(c) if c else rep
            cells = []
            for m in modes:
                mm = metrics(reps[m]) if m in reps else None
                cells.append("%s / %s" % (f3(mm["recall_at_5"]), f3(mm["mrr_at_10"])) if mm else "–")
            if "hybrid+rerank" in modes:
                mm = metrics(reps["hybrid+rerank"]) if "hybrid+rerank" in reps else None
                cells.append(f3(mm["recall_at_1"]) if mm else "–")
            name = "**all**" if c is None else corpus_label(c)
            rows.append("| %s | %s | %d | %s |" % (name, s, metrics(first)["questions"], " | ".join(cells)))
    out = ["Embedder `%s`; recall@5 / MRR@10 per retrieval mode." % (embedder or "?"), ""]
    out.append("| " + " | ".join(head) + " |")
    out.append("| --- | --- | ---: | " + " | ".join(["---:"] * (len(head) - 3)) + " |")
    out.extend(rows)
    return "\n".join(out)


# ---- no coverage ----------------------------------------------------------------


def outcomes(rep):
    """Counts of the three outcomes for answerable and unanswerable questions."""
    ranks = rep.get("ranks", {})
    not_sure = set(rep.get("not_sure") or [])
    refused = set(rep.get("wrong_refusals") or [])
    ans_ns = sum(1 for q in ranks if q in not_sure)
    ans_nc = sum(1 for q in ranks if q in refused)
    answered = [q for q in ranks if q not in not_sure and q not in refused]
    right = sum(1 for q in answered if 1 <= ranks[q] <= 5)
    u = rep.get("unanswerable", 0)
    wrong_answers = rep.get("wrong_answers") or []
    sure_wrong = rep.get("sure_wrong") or []
    return {
        "answerable": len(ranks), "ans_answered": len(answered), "ans_right": right, "ans_not_sure": ans_ns, "ans_no_cov": ans_nc,
        "unanswerable": u, "un_answered": len(sure_wrong), "un_not_sure": len(wrong_answers) - len(sure_wrong),
        "un_no_cov": u - len(wrong_answers),
    }


def rate(x):
    return "–" if x is None else f3(x)


def render_coverage(path, label):
    """The outcome counts and the answer band's calibration of one report of
    answerable and unanswerable questions together."""
    if not os.path.exists(path):
        return None
    rep = load(path)
    o = outcomes(rep)
    out = ["Embedder `%s`, hybrid+rerank, configured thresholds; %s. An answer is right when a wanted chunk is in its first 5." % (rep.get("embedder", "?"), label), ""]
    out.append("| questions | n | answered (right) | not sure | no coverage |")
    out.append("| --- | ---: | ---: | ---: | ---: |")
    out.append("| answerable | %d | %d (%d) | %d | %d |" % (o["answerable"], o["ans_answered"], o["ans_right"], o["ans_not_sure"], o["ans_no_cov"]))
    out.append("| unanswerable | %d | %d | %d | %d |" % (o["unanswerable"], o["un_answered"], o["un_not_sure"], o["un_no_cov"]))
    out += ["", "no_coverage_rate (unanswerable refused) %s, wrong_refusal_rate (answerable refused) %s." % (
        rate(rep.get("no_coverage_rate")), rate(rep.get("wrong_refusal_rate")))]
    cal = rep.get("calibration")
    if cal:
        band = cal["band"]

        def cell(b, thresholds=True):
            if not b:
                return "–"
            wrong = b["answered_wrong_answerable"] + b["answered_wrong_unanswerable"]
            t = "%.2f, %.2f: " % (b["min_similarity"], b["min_term_coverage"]) if thresholds else ""
            return "%s%d / %d (%d + %d)" % (t, b["answered_right"], wrong, b["answered_wrong_answerable"], b["answered_wrong_unanswerable"])
        out += ["", "Answer band (`min_similarity`, `min_term_coverage`): answered right / answered wrong (answerable + unanswerable).", ""]
        out.append("| configured | suggested by `ragbot eval` | leave-one-corpus-out |")
        out.append("| --- | --- | --- |")
        out.append("| %s | %s | %s |" % (cell(band["configured"]), cell(band["suggested"]), cell(band.get("leave_one_corpus_out"), False)))
    return "\n".join(out)


# ---- generated benchmark, by language group -------------------------------------------

KIND_OF = {"P": "paraphrase", "O": "openapi", "D": "docs", "A": "absent", "N": "near_miss"}
GROUPS = ["go", "python", "js", "openapi", "markdown"]


def render_generated(d):
    """recall@5 of plain hybrid and hybrid+rerank, and the three outcomes under the
    configured thresholds, by language group (groups.tsv) and question kind (the id's
    letter, testdata/eval/generated/README.md)."""
    reps = {m: load(os.path.join(d, m + ".json")) for m in ("hybrid", "hybrid+rerank") if os.path.exists(os.path.join(d, m + ".json"))}
    if "hybrid+rerank" not in reps:
        return None
    group_of = {}
    with open(os.path.join(d, "groups.tsv")) as f:
        for line in f:
            _, group, name = line.rstrip("\n").split("\t")
            group_of[name] = group
    rr = reps["hybrid+rerank"]
    ev = rr["calibration"]["evidence"]
    not_sure, refused = set(rr.get("not_sure") or []), set(rr.get("wrong_refusals") or [])
    sure_wrong, wrong_answers = set(rr.get("sure_wrong") or []), set(rr.get("wrong_answers") or [])
    rows = {}
    for qid in ev:
        name, tail = qid.rsplit("-", 1)
        kind = KIND_OF[tail[0]]
        for key in ((group_of[name], "all"), (group_of[name], kind), ("all", "all")):
            r = rows.setdefault(key, {"n": 0, "h": 0, "rr": 0, "right": 0, "wrong": 0, "ns": 0, "ref": 0, "un": 0, "u_ans": 0, "u_ns": 0, "u_ref": 0})
            if qid in rr["ranks"]:
                rank = rr["ranks"][qid]
                found = 1 <= rank <= 5
                r["n"] += 1
                r["rr"] += found
                r["h"] += 1 <= reps.get("hybrid", rr)["ranks"].get(qid, 0) <= 5
                if qid in not_sure:
                    r["ns"] += 1
                elif qid in refused:
                    r["ref"] += 1
                elif found:
                    r["right"] += 1
                else:
                    r["wrong"] += 1
            else:
                r["un"] += 1
                r["u_ans"] += qid in sure_wrong
                r["u_ns"] += qid in wrong_answers and qid not in sure_wrong
                r["u_ref"] += qid not in wrong_answers
    out = ["Embedder `%s`; every question of `testdata/eval/generated`, configured thresholds; recall@5 of plain hybrid (`--mode hybrid`) and hybrid+rerank; "
           "an answer is right when a wanted chunk is in its first 5." % rr.get("embedder", "?"), ""]
    out.append("| group | questions | n | recall@5 hybrid | recall@5 hybrid+rerank | answered right | answered wrong | not sure | no coverage |")
    out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for g in GROUPS + ["all"]:
        for k in ("all", "paraphrase", "openapi", "docs", "absent", "near_miss"):
            r = rows.get((g, k))
            if not r or (g == "all" and k != "all"):
                continue
            label = "**%s**" % g if k == "all" else ""
            if r["n"]:
                out.append("| %s | %s | %d | %s | %s | %d | %d | %d | %d |" % (label, "answerable" if k == "all" else k, r["n"],
                           f3(r["h"] / r["n"]) if "hybrid" in reps else "–", f3(r["rr"] / r["n"]), r["right"], r["wrong"], r["ns"], r["ref"]))
            if r["un"]:
                out.append("| %s | %s | %d | | | | %d | %d | %d |" % (label if not r["n"] else "", "unanswerable" if k == "all" else k,
                           r["un"], r["u_ans"], r["u_ns"], r["u_ref"]))
    return "\n".join(out)


def render_text(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return f.read().rstrip("\n")


# ---- timing (not compared) --------------------------------------------------------


def render_timing(d):
    lat = os.path.join(d, "latency.json")
    idx = os.path.join(d, "index.jsonl")
    if not os.path.exists(lat) and not os.path.exists(idx):
        return None
    out = []
    mpath = os.path.join(d, "machine.json")
    if os.path.exists(mpath):
        m = load(mpath)
        meta = os.path.join(d, "meta.json")
        weaviate = "weaviate-server " + load(meta).get("version", "?") if os.path.exists(meta) else "weaviate-server"
        out.append("Measured %s at commit %s, %s, on %s cores (load average %s at the start). Machine-dependent: `--check` does not compare this block." % (
            m.get("date", "?"), m.get("commit", "?"), weaviate, m.get("cores", "?"), m.get("loadavg", "?")))
        out.append("")
    if os.path.exists(idx):
        out.append("| public corpus index run | wall | peak RSS of ragbot |")
        out.append("| --- | ---: | ---: |")
        with open(idx) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    out.append("| %s | %s | %d MB |" % (r["step"], r["wall"], r["peak_rss_mb"]))
        out.append("")
    if os.path.exists(lat):
        rep = load(lat)
        l = rep.get("latency_ms")
        if l:
            out.append("| `Asker.Ask`, public set | calls | p50 | p95 | max | Weaviate requests per question (median / max) |")
            out.append("| --- | ---: | ---: | ---: | ---: | ---: |")
            out.append("| %s | %d | %.1f ms | %.1f ms | %.1f ms | %d / %d |" % (
                rep.get("mode", "hybrid+rerank"), l["calls"], l["p50"], l["p95"], l["max"], l["weaviate_requests_p50"], l["weaviate_requests_max"]))
    return "\n".join(out).rstrip("\n")


# ---- the document -----------------------------------------------------------------


def blocks(root):
    """NAME -> rendered markdown, for the families whose reports are in root."""
    out = {}
    pub = os.path.join(root, "public")
    if os.path.isdir(pub):
        out["public"] = render_public(pub)
        out["public-coverage"] = render_coverage(os.path.join(pub, "coverage.json"), "the public set with `testdata/eval/unanswerable.jsonl`")
        out["timing"] = render_timing(pub)
    for fam, label in (("heldout", "every question of the held-out sets"), ("paraphrase", "every question of the paraphrase test set")):
        d = os.path.join(root, fam)
        if os.path.isdir(d):
            out[fam] = render_family(d)
            out[fam + "-coverage"] = render_coverage(os.path.join(d, "all.json"), label)
    gen = os.path.join(root, "generated")
    if os.path.isdir(gen):
        out["generated"] = render_generated(gen)
        out["generated-loo"] = render_text(os.path.join(gen, "loo.md"))
    return {k: v for k, v in out.items() if v is not None}


MARK = re.compile(r"(<!-- eval-tables:([a-z-]+):begin -->\n)(.*?)(<!-- eval-tables:\2:end -->)", re.S)


def apply(doc, new):
    """Returns doc with the blocks in new replaced, and {name: (old, new)}."""
    seen = {}

    def sub(m):
        name = m.group(2)
        old = m.group(3)
        if name not in new:
            return m.group(0)
        body = new[name].rstrip("\n") + "\n"
        seen[name] = (old, body)
        return m.group(1) + body + m.group(4)
    text = MARK.sub(sub, doc)
    missing = sorted(set(new) - set(seen))
    if missing:
        sys.exit("eval-tables: no <!-- eval-tables:NAME:begin/end --> markers in the document for: " + ", ".join(missing))
    return text, seen


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    if len(args) != 2:
        sys.exit(__doc__)
    root, doc_path = args
    with open(doc_path) as f:
        doc = f.read()
    new = blocks(root)
    if not new:
        sys.exit("eval-tables: no reports under %s" % root)
    text, seen = apply(doc, new)
    if not check:
        if text != doc:
            with open(doc_path, "w") as f:
                f.write(text)
        print("eval-tables: %s: rewrote %s" % (doc_path, ", ".join(sorted(seen))))
        return 0
    stale = [n for n, (old, body) in sorted(seen.items()) if n not in UNCHECKED and old != body]
    for n in stale:
        old, body = seen[n]
        sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), body.splitlines(True),
                                                   "%s (%s, committed)" % (doc_path, n), "%s (%s, regenerated)" % (doc_path, n)))
    if stale:
        print("eval-tables: %s: stale tables: %s; run bash scripts/eval-tables.sh to rewrite them" % (doc_path, ", ".join(stale)))
        return 1
    print("eval-tables: %s: tables up to date (%s)" % (doc_path, ", ".join(n for n in sorted(seen) if n not in UNCHECKED)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
