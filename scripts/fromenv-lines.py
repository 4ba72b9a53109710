#!/usr/bin/env python3
"""Asks `where is X read?` for every variable os.Getenv/os.LookupEnv reads in
weaviate's FromEnv (usecases/config/environment.go under REPO), and counts:
sites cited at a line that does not hold X (its line number is wrong),
reading lines of FromEnv not cited at their own line, answers whose first
site is not a line that reads X, and answers in which a line that sets X
(Setenv) comes before one that reads it. scripts/fromenv-lines.sh runs it.

Usage: python3 fromenv-lines.py RAGBOT CONFIG REPO"""
import json, re, subprocess, sys
ragbot, config, repo = sys.argv[1:4]
path = "usecases/config/environment.go"
lines = open(f"{repo}/{path}").read().split("\n")
start = next(i for i, l in enumerate(lines) if l.startswith("func FromEnv(")) + 1
end = next(i for i in range(start, len(lines)) if lines[i - 1] == "}")
read = re.compile(r'os\.(?:Getenv|LookupEnv)\("([A-Z][A-Z0-9_]+)"\)')
reads = {}
for n in range(start, end + 1):
    for m in read.finditer(lines[n - 1]):
        reads.setdefault(m.group(1), []).append(n)
files = {}
def line(p, n):
    if p not in files:
        files[p] = open(f"{repo}/{p}").read().split("\n")
    return files[p][n - 1]
wrong_line = missed = not_first = set_before = sites_total = 0
for name, want in sorted(reads.items()):
    out = subprocess.run([ragbot, "ask", "--json", "--config", config, f"where is {name} read?"], capture_output=True, text=True)
    ans = json.loads(out.stdout)
    u = ans.get("usage") or {}
    sites = ans["snippets"][u.get("definitions", 0):]
    sites_total += len(sites)
    cited = {s["start_line"] for s in sites if s["path"] == path}
    for s in sites:
        if name not in line(s["path"], s["start_line"]):
            wrong_line += 1
    missed += sum(1 for n in want if n not in cited)
    kinds = []
    for s in sites:
        t = line(s["path"], s["start_line"])
        kinds.append("R" if re.search(r'(?:Getenv|LookupEnv)\("' + name + '"', t) else "S" if re.search(r'[Ss]etenv\("' + name + '"', t) else "-")
    if not kinds or kinds[0] != "R":
        not_first += 1
    if "S" in kinds and "R" in kinds and kinds.index("S") < len(kinds) - 1 - kinds[::-1].index("R"):
        set_before += 1
print(f"{len(reads)} variables read in FromEnv (lines {start}-{end}), {sum(map(len, reads.values()))} reading lines; "
      f"{sites_total} sites listed; {wrong_line} sites cited at a line not holding the name; {missed} reading lines not cited at their own line; "
      f"{not_first} answers whose first site is not a read; {set_before} answers with a Setenv before a read")
