#!/usr/bin/env python3
"""The structure CI keeps: no module of a host crate imports, directly or
through others, a module that imports it (an import circle), and no source
file under host/ is over 800 lines. Imports are `crate::m`/`super::m` paths
outside comments and test code. Prints each circle (with its edges) and
each long file; exit 1 if there is any."""
import collections
import os
import re
import sys

MAX_LINES = 800
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def top_modules(src):
    """Top-level module name -> its files (a folder module's files too)."""
    mods = collections.defaultdict(list)
    for dirpath, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs") or f == "tests.rs":
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), src)[:-3].split(os.sep)
            if rel[-1] == "mod":
                rel = rel[:-1]
            if rel in (["lib"], ["main"]):
                continue
            mods[rel[0]].append(os.path.join(dirpath, f))
    return mods


def code(path):
    text = open(path).read()
    cut = text.find("#[cfg(test)]")
    if cut >= 0:
        text = text[:cut]
    return "\n".join(l for l in text.split("\n") if not l.lstrip().startswith("//"))


def circles(mods):
    graph = collections.defaultdict(set)
    for m, files in mods.items():
        text = "\n".join(code(f) for f in files)
        for other in mods:
            if other != m and re.search(
                r"\b(crate|super)::" + re.escape(other) + r"\b"
                + r"|use (crate|super)::\{[^}]*\b" + re.escape(other) + r"\b",
                text,
                re.S,
            ):
                graph[m].add(other)
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(mods):
        if v not in index:
            visit(v)
    return [(c, sorted((a, b) for a in c for b in graph[a] if b in c)) for c in found]


bad = 0
for crate in sorted(os.listdir(os.path.join(root, "host"))):
    src = os.path.join(root, "host", crate, "src")
    if not os.path.isdir(src):
        continue
    for comp, edges in circles(top_modules(src)):
        print(f"host/{crate}: import circle {comp}: " + ", ".join(f"{a} -> {b}" for a, b in edges))
        bad += 1
    for dirpath, _, files in os.walk(src):
        for f in files:
            path = os.path.join(dirpath, f)
            if f.endswith(".rs"):
                n = sum(1 for _ in open(path))
                if n > MAX_LINES:
                    print(f"{os.path.relpath(path, root)}: {n} lines (at most {MAX_LINES}: split it along a seam)")
                    bad += 1
if bad:
    sys.exit(1)
print("structure: no import circles, no file over", MAX_LINES, "lines")
