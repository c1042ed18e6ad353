#!/usr/bin/env python3
"""The structure CI keeps:

- no module of a host crate imports, directly or through others, a module
  that imports it (an import circle): among a crate's top-level modules,
  and among the modules of each folder module (host/cli's command
  families). Imports are `crate::m`/`super::m` paths outside comments and
  test code;
- no source file under host/ is over 800 lines;
- the formats and the harnesses are listed once: `vcc_formats::Format`
  (host/formats/src/lib.rs) and `vcc_report::harness::Harness`
  (host/report/src/harness.rs) own them; any other host source (or fuzz
  target) that names three or more of them is a list written twice.

Prints each problem; exit 1 if there is any."""
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
    """The file without comments and test code. `#[cfg(test)] mod tests;`
    (tests in a file of their own) is only that line; any other
    `#[cfg(test)]` item ends the code, as an inline test module at the end
    of a file does by convention."""
    lines = open(path).read().split("\n")
    out = []
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("//"):
            continue
        if stripped == "#[cfg(test)]":
            following = lines[i + 1].strip() if i + 1 < len(lines) else ""
            if re.fullmatch(r"(pub(\([a-z]+\))? )?mod \w+;", following):
                continue
            break
        out.append(line)
    return "\n".join(out)


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
    return strongly_connected(mods, graph)


def strongly_connected(mods, graph):
    """Each circle (Tarjan's components of more than one module) with its
    edges."""
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


def family_modules(folder):
    """The modules of a folder module: child name -> its files."""
    mods = collections.defaultdict(list)
    for dirpath, _, files in os.walk(folder):
        for f in files:
            if not f.endswith(".rs") or f == "tests.rs":
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), folder)[:-3].split(os.sep)
            if rel[-1] == "mod":
                rel = rel[:-1]
            if rel:
                mods[rel[0]].append(os.path.join(dirpath, f))
    return mods


def family_circles(src, family):
    """Circles among the modules of folder module `family`: a child names
    a sibling as `family::sibling` (from anywhere) or `super::sibling`."""
    mods = family_modules(os.path.join(src, family))
    graph = collections.defaultdict(set)
    for m, files in mods.items():
        text = "\n".join(code(f) for f in files if os.path.dirname(f) == os.path.join(src, family))
        deeper = "\n".join(code(f) for f in files if os.path.dirname(f) != os.path.join(src, family))
        for other in mods:
            name = re.escape(other)
            direct = r"\b" + re.escape(family) + r"::" + name + r"\b|use (crate|super)::" + re.escape(family) + r"::\{[^}]*\b" + name + r"\b"
            if other != m and (
                re.search(direct + r"|\bsuper::" + name + r"\b|use super::\{[^}]*\b" + name + r"\b", text, re.S)
                or re.search(direct + r"|\bsuper::super::" + name + r"\b", deeper, re.S)
            ):
                graph[m].add(other)
    return strongly_connected(mods, graph)


# The lists that must be written once, each where its enum is: the enum's
# variants, and its names on the command line (from `fn name`).
# Formats are named in quotes for other things too ("json" media types,
# the "junit" validator), so only their variants and `report-NAME` flags
# count; a harness's name in quotes is always the harness.
OWNED = {
    "formats": ("host/formats/src/lib.rs", "Format", False),
    "harnesses": ("host/report/src/harness.rs", "Harness", True),
}


def owned_names(path, enum):
    text = open(os.path.join(root, path)).read()
    body = re.search(r"pub enum " + enum + r" \{(.*?)\}", text, re.S).group(1)
    variants = re.findall(r"^\s*([A-Z]\w*),", body, re.M)
    name_fn = re.search(r"pub fn name\(self\) -> &'static str \{(.*?)\n    \}", text, re.S).group(1)
    names = dict(re.findall(enum + r"::(\w+) => \"([a-z-]+)\"", name_fn))
    return variants, names


def lists_written_twice():
    """Host sources (and fuzz targets) other than the owner that name three
    or more of the formats or harnesses: a second list."""
    found = []
    places = [os.path.join(root, "host"), os.path.join(root, "tests", "fuzz", "fuzz_targets")]
    for what, (owner, enum, quoted) in OWNED.items():
        variants, names = owned_names(owner, enum)
        patterns = []
        for v in variants:
            name = names.get(v, v.lower())
            snake = name.replace("-", "_")
            # `Format::Json` (and `CheckFormat::Json`, `FileFormat::Json`),
            # a variant of the same name declared in another enum, the
            # `--report-json` flag or its field, the quoted name.
            patterns.append((v, re.compile(
                r"\b\w*" + enum + r"::" + v + r"\b"
                + r"|^\s*" + v + r"(\(|,|\s*\{)"
                + r"|\breport[-_]" + re.escape(snake) + r"\b"
                + (r'|"' + re.escape(name) + r'"' if quoted else ""),
                re.M,
            )))
        for place in places:
            for dirpath, _, files in os.walk(place):
                if "/target" in dirpath or "/tests" in dirpath.replace(os.path.join(root, "tests", "fuzz"), ""):
                    continue
                for f in files:
                    path = os.path.join(dirpath, f)
                    rel = os.path.relpath(path, root)
                    if not f.endswith(".rs") or rel == owner:
                        continue
                    text = code(path)
                    named = sorted(v for v, pattern in patterns if pattern.search(text))
                    if len(named) >= 3:
                        found.append(f"{rel}: names {len(named)} {what} ({', '.join(named)}): the list is {enum} in {owner}; go through {enum}::ALL instead")
    return found


bad = 0
for problem in lists_written_twice():
    print(problem)
    bad += 1
for crate in sorted(os.listdir(os.path.join(root, "host"))):
    src = os.path.join(root, "host", crate, "src")
    if not os.path.isdir(src):
        continue
    for comp, edges in circles(top_modules(src)):
        print(f"host/{crate}: import circle {comp}: " + ", ".join(f"{a} -> {b}" for a, b in edges))
        bad += 1
    for family in sorted(os.listdir(src)):
        if os.path.isdir(os.path.join(src, family)):
            for comp, edges in family_circles(src, family):
                print(f"host/{crate}/src/{family}: import circle {comp}: " + ", ".join(f"{a} -> {b}" for a, b in edges))
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
print("structure: no import circles, no file over", MAX_LINES, "lines, the formats and harnesses listed once")
