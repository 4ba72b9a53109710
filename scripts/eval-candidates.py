#!/usr/bin/env python3
"""Renders the side-by-side table of the semantic-vector candidates
(scripts/eval-candidates.sh) into a document, between
<!-- eval-candidates:begin --> and <!-- eval-candidates:end -->.

    python3 scripts/eval-candidates.py DIR DOC CANDIDATE...

DOC "-" prints the table and writes no document.

DIR/<candidate>/<set>/ holds the reports that the bench scripts wrote with
RAGBOT_EVAL_JSON_DIR set: public (mode-*.json, coverage.json, latency.json,
bench.log), heldout, paraphrase and fresh to fresh6 (<group>-<mode>.json, all.json,
latency.json, index.out, index.time, candidates.jsonl), generated
(hybrid+rerank.json, groups.tsv, bench.log). A set a candidate lacks is "-".
"""
import glob
import json
import os
import re
import sys

FAMILIES = ("heldout", "paraphrase", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6")
QDIR = dict({f: "testdata/eval/" + f for f in FAMILIES}, generated="testdata/eval/generated")
MODELS = {"minilm": "all-minilm-l6-v2-q", "minilm-fp32": "all-minilm-l6-v2", "bge": "bge-small-en-v1.5-q", "e5": "e5-small-v2-q"}


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def questions(s):
    out = {}
    for f in glob.glob(os.path.join(QDIR[s], "*", "questions.jsonl")):
        for line in open(f):
            if line.strip():
                q = json.loads(line)
                out[q["id"]] = q
    return out


def r5mrr(rep):
    if not rep or not rep.get("questions"):
        return "-"
    return "%.3f / %.3f" % (rep["recall_at_5"], rep["mrr_at_10"])


def sub(rep, ids):
    """recall@5 / MRR@10 of rep's ranks over ids."""
    ranks = [rep["ranks"][i] for i in ids if i in rep.get("ranks", {})]
    if not ranks:
        return "-"
    r5 = sum(1 for r in ranks if 1 <= r <= 5) / len(ranks)
    mrr = sum(1 / r for r in ranks if 1 <= r <= 10) / len(ranks)
    return "%.3f / %.3f" % (r5, mrr)


def timefile(path):
    """peak RSS (MB) and wall seconds of a /usr/bin/time -v file."""
    try:
        t = open(path).read()
    except OSError:
        return None, None
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", t)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", t)
    secs = None
    if wall:
        parts = [float(p) for p in wall.group(1).split(":")]
        secs = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
    return (int(rss.group(1)) // 1024 if rss else None), secs


def index_rates(text):
    """(chunks, lexical-pass seconds, fill chunks/s) from an index run's output."""
    chunks = sum(int(m) for m in re.findall(r"files, (\d+) chunks", text))
    fill = re.search(r"semantic vectors: (\d+) of (\d+) chunks filled in ([\dhms.]+) \((\d+) chunks/s\)", text)
    return chunks, (int(fill.group(4)) if fill else None)


def model_mb(c):
    m = MODELS.get(c)
    if not m:
        return "11.7 (built in)" if c == "codesearch" else "-"
    d = os.environ.get("RAGBOT_MODEL_DIR") or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "ragbot", "models")
    f = os.path.join(d, m, m + ".onnx")
    return "%.1f" % (os.path.getsize(f) / 1e6) if os.path.exists(f) else "?"


def column(d, c):
    col = {}
    pub = os.path.join(d, c, "public")
    col["public"] = r5mrr(load(os.path.join(pub, "mode-hybrid+rerank.json")))
    for s in FAMILIES:
        j = os.path.join(d, c, s)
        if not os.path.isdir(j):
            continue
        col[s + " ordinary"] = r5mrr(load(os.path.join(j, "ordinary-hybrid+rerank.json")))
        col[s + " paraphrase"] = r5mrr(load(os.path.join(j, "paraphrase-hybrid+rerank.json")))
        al = load(os.path.join(j, "all.json"))
        qs = questions(s)
        if al:
            para = [i for i, q in qs.items() if q["kind"] == "paraphrase" and q["expect"]]
            un = [i for i, q in qs.items() if not q["expect"]]
            ns = set(al.get("not_sure") or [])
            sw = set(al.get("sure_wrong") or [])
            col[s + " not sure (answerable paraphrases)"] = "%d/%d" % (len(ns & set(para)), len(para))
            col[s + " unanswerable answered outright"] = "%d/%d" % (len(sw & set(un)), len(un))
            col[s + " tests above the implementation"] = "%d/%d" % (len(al.get("tests_above") or []), al.get("tests_asked_not", 0))
    g = load(os.path.join(d, c, "generated", "hybrid+rerank.json"))
    if g:
        qs = questions("generated")
        group = {}
        gt = os.path.join(d, c, "generated", "groups.tsv")
        if os.path.exists(gt):
            for line in open(gt):
                corpus, grp, _ = line.rstrip("\n").split("\t")
                group[corpus] = grp
        for grp in ("go", "python", "js", "openapi", "markdown"):
            ids = [i for i, q in qs.items() if q["expect"] and group.get(q["corpus"]) == grp]
            col["generated " + grp] = sub(g, ids)
        nm = [i for i, q in qs.items() if q["kind"] == "near_miss"]
        un = [i for i, q in qs.items() if not q["expect"]]
        sw = set(g.get("sure_wrong") or [])
        col["generated near misses answered outright"] = "%d/%d" % (len(sw & set(nm)), len(nm))
        col["generated unanswerable answered outright"] = "%.3f" % (len(sw & set(un)) / max(len(un), 1))
    h = os.path.join(d, c, "heldout")
    rss, _ = timefile(os.path.join(h, "index.time"))
    try:
        chunks, fill = index_rates(open(os.path.join(h, "index.out")).read())
    except OSError:
        chunks, fill = 0, None
    col["heldout chunks"] = str(chunks) if chunks else "-"
    col["semantic fill, chunks/s"] = str(fill) if fill else "inline"
    lat = load(os.path.join(h, "latency.json"))
    if lat and lat.get("latency_ms"):
        col["ask p50 / p95 (ms, heldout)"] = "%.0f / %.0f" % (lat["latency_ms"]["p50"], lat["latency_ms"]["p95"])
    col["index peak RSS (MB, heldout)"] = str(rss) if rss else "-"
    col["model size (MB)"] = model_mb(c)
    return col


def main():
    d, doc, *cands = sys.argv[1:]
    cols = {c: column(d, c) for c in cands}
    rows = []
    for c in cands:
        for k in cols[c]:
            if k not in rows:
                rows.append(k)
    lines = ["| measure | " + " | ".join(cands) + " |", "|---|" + "---:|" * len(cands)]
    for r in rows:
        lines.append("| " + r + " | " + " | ".join(cols[c].get(r, "-") for c in cands) + " |")
    table = "\n".join(lines)
    print(table)
    if doc == "-":
        return
    text = open(doc).read()
    begin, end = "<!-- eval-candidates:begin -->", "<!-- eval-candidates:end -->"
    if begin in text:
        pre, rest = text.split(begin, 1)
        post = rest.split(end, 1)[1]
        text = pre + begin + "\n" + table + "\n" + end + post
    else:
        text += "\n" + begin + "\n" + table + "\n" + end + "\n"
    open(doc, "w").write(text)


if __name__ == "__main__":
    main()
