#!/usr/bin/env python3
"""Scores name matching (ragbot's siteMatcher for a qualified method, mimicked)
and SCIP references against truth.jsonl. Writes results.json and prints tables."""
import json, re, os, sys, glob
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.environ.get("SCIP_WORK", HERE)  # holds corpora/, the *.json dumps and results.json
ROOT = os.path.join(WORK, "corpora")
CORP = {"requests": ("requests@2.28.1+dfsg-1", "requests.json"), "axios": ("axios@1.7.9", "axios.json")}

def in_scope(corpus, rel, with_dist=False):
    if corpus == "requests":
        return rel.startswith("requests/") and rel.endswith(".py")
    if rel.startswith("lib/") and rel.endswith(".js") or rel == "index.js":
        return True
    if with_dist and rel.startswith("dist/") and (rel.endswith(".js") or rel.endswith(".cjs")):
        return not minified(rel)
    return False

def minified(rel):  # ingest/code/skip.go
    p = os.path.join(ROOT, CORP["axios"][0], rel)
    src = open(p, "rb").read()
    if rel.lower().endswith(".min.js"): return True
    if len(src) <= 2048: return False
    return len(src) // (src.count(b"\n") + 1) > 300

def files(corpus, with_dist=False):
    base = os.path.join(ROOT, CORP[corpus][0])
    out = []
    for dp, dn, fn in os.walk(base):
        dn[:] = [d for d in dn if d not in (".git", "node_modules")]
        for f in fn:
            rel = os.path.relpath(os.path.join(dp, f), base)
            if in_scope(corpus, rel, with_dist): out.append(rel)
    return sorted(out)

def lines(corpus, rel):
    return open(os.path.join(ROOT, CORP[corpus][0], rel), encoding="utf-8", errors="replace").read().split("\n")

def definition(corpus, name):
    """(path, start, end) 1-based of Type.method's definition in the corpus (not dist)."""
    typ, meth = name.split(".")
    for rel in files(corpus):
        ls = lines(corpus, rel)
        for i, l in enumerate(ls):
            if re.match(r"\s*(export\s+(default\s+)?)?class\s+%s\b" % typ, l):
                cind = len(l) - len(l.lstrip())
                for j in range(i + 1, len(ls)):
                    t = ls[j]
                    if t.strip() and len(t) - len(t.lstrip()) <= cind and not t.strip().startswith((")", "}", "@")):
                        break
                    if re.match(r"\s*(def\s+|static\s+|async\s+)?%s\s*\(" % re.escape(meth), t) and len(t) - len(t.lstrip()) > cind:
                        ind = len(t) - len(t.lstrip())
                        k = j + 1
                        while k < len(ls):
                            s = ls[k]
                            if s.strip() and len(s) - len(s.lstrip()) <= ind:
                                if s.strip().startswith(("}", ")")) :
                                    k += 1
                                    if corpus == "axios": break
                                    continue
                                break
                            k += 1
                        return rel, j + 1, k  # k is 1-based last line
    raise SystemExit("no definition for " + name)

def is_comment(t):
    return t == "*" or any(t.startswith(p) for p in ("//", "#", "/*", "* ", "--"))

def name_match(corpus, name, with_dist=False):
    meth = name.split(".")[-1]
    rx = re.compile(r"\.(?:%s)\s*\(" % re.escape(meth))
    dpath, ds, de = definition(corpus, name)
    out = set()
    for rel in files(corpus, with_dist):
        in_doc = in_imp = False
        for n, l in enumerate(lines(corpus, rel), 1):
            t = l.strip()
            q = t.count('"""') + t.count("'''")
            doc = in_doc or t.startswith('"""') or t.startswith("'''")
            if q % 2 == 1: in_doc = not in_doc
            imp = in_imp or t.startswith("import ") or t.startswith("from ")
            if imp: in_imp = (in_imp or "(" in t) and ")" not in t
            if doc or imp or is_comment(t) or not rx.search(l): continue
            if rel == dpath and ds <= n <= de: continue  # the definition's own chunk
            out.add((rel, n))
    return out

_idx = {}
def scip_refs(corpus, name):
    if corpus not in _idx: _idx[corpus] = json.load(open(os.path.join(WORK, CORP[corpus][1])))
    typ, meth = name.split(".")
    dpath, ds, de = definition(corpus, name)
    out, syms = set(), set()
    for doc in _idx[corpus]["documents"]:
        for o in doc["occurrences"]:
            s = o["symbol"]
            if o["roles"] & 1: continue  # definition
            # the method as defined in the corpus's own source (not dist/ copies, not index.d.ts)
            if not re.search(r"/%s#%s\(\)\.$" % (re.escape(typ), re.escape(meth)), s): continue
            if "dist/" in s or "index.d." in s: continue
            if not in_scope(corpus, doc["path"]): continue
            line = o["range"][0] + 1
            if doc["path"] == dpath and ds <= line <= de: continue
            out.add((doc["path"], line)); syms.add(s)
    return out, syms

def hybrid(corpus, name, named, resolved):
    """SCIP's sites, plus the name-matched lines where SCIP gives the method's
    identifier no symbol at all (an untyped receiver): matched by name."""
    meth = name.split(".")[-1]
    docs = {d["path"]: d for d in _idx[corpus]["documents"]}
    out = set(resolved)
    for p, l in named:
        occ = [o for o in docs.get(p, {"occurrences": []})["occurrences"]
               if o["range"][0] + 1 == l and re.search(r"[#/.`]%s\(\)\.$" % re.escape(meth), o["symbol"])]
        if not occ: out.add((p, l))
    return out

def main():
    truth = [json.loads(l) for l in open(os.path.join(HERE, "truth.jsonl"))]
    rows, res = [], []
    agg = defaultdict(lambda: [0, 0, 0])  # key -> listed, correct, true
    for t in truth:
        T = {(s["path"], s["line"]) for s in t["sites"]}
        r = {"q": t["name"], "lang": t["lang"], "true": len(T), "definition": definition(t["corpus"], t["name"])}
        methods = {"name": name_match(t["corpus"], t["name"]), "scip": scip_refs(t["corpus"], t["name"])[0]}
        methods["hybrid"] = hybrid(t["corpus"], t["name"], methods["name"], methods["scip"])
        if t["corpus"] == "axios": methods["name+dist"] = name_match(t["corpus"], t["name"], True)
        r["scip_symbols"] = sorted(scip_refs(t["corpus"], t["name"])[1])
        for m, S in methods.items():
            ok = S & T
            r[m] = {"listed": len(S), "correct": len(ok), "missed": sorted(T - S), "wrong": sorted(S - T)}
            for k in ((t["lang"], m), ("all", m)):
                a = agg[k]; a[0] += len(S); a[1] += len(ok); a[2] += len(T)
        res.append(r)
    json.dump(res, open(os.path.join(WORK, "results.json"), "w"), indent=1)
    print("| question | true | name: listed/correct | SCIP: listed/correct | SCIP + name where unresolved | name incl. dist/ |")
    for r in res:
        print(f"| {r['lang'][:2]} {r['q']} | {r['true']} | {r['name']['listed']}/{r['name']['correct']} | {r['scip']['listed']}/{r['scip']['correct']} | {r['hybrid']['listed']}/{r['hybrid']['correct']} |" + (f" {r['name+dist']['listed']}/{r['name+dist']['correct']} |" if 'name+dist' in r else " |"))
    print()
    print("| set | method | listed | correct | true | precision | recall |")
    for k in sorted(agg):
        l, c, n = agg[k]
        print(f"| {k[0]} | {k[1]} | {l} | {c} | {n} | {c/l if l else float('nan'):.3f} | {c/n:.3f} |")

main()
