#!/usr/bin/env python3
"""Adversarial TAP streams for the differential harness, from a fixed seed.

Each stream starts as a good one (an optional version line, a plan at the
start or the end, tests numbered in order, directives, YAML blocks,
subtests) and then takes 0-3 mutations from the shapes where readers
differ: `okay`/`ok,`/`ok1` lines, indented or repeated plans, numbers out
of sequence, escaped `#`, `# skipped`, YAML blocks cut by test lines,
Bail out! at any indent, version lines in the wrong place; YAML block
bodies made of the shapes TAP::Parser's YAMLish reader reads and refuses
(a line deeper than the block with no key above it, `|` scalars, lone
dashes, unclosed quotes, inline `--- x`).

usage: generate.py OUT_DIR [COUNT] [SEED]
"""
import os
import random
import sys

POOL = [
    "okay, all good", "ok,", "ok, 3", "ok-1", "ok1", "not ok-2", "not  ok 2",
    " ok 9", "    ok 1 - inner", "1..", "1..2 # later", "1..0 # SKIP none",
    "TAP version 13", "TAP version 14", "TAP version 12", "  ---", "  ...",
    "  a: 1", "", "# a comment", "Bail out!", "    Bail out! deep", "ok",
    "not ok", "ok 1 - a \\# TODO x", "not ok 1 - a \\# TODO x",
    "not ok 1 - a \\\\# TODO x", "ok 2 # skipped", "ok 2 #skip: net",
    "not ok 3 # TODO later", "ok 3 # TODOx", "not ok 2 # SKIP", "ok\t2",
    "ok 02", "ok 0", "ok 99 - far", "NOT OK 1", "Ok 1", "ok 1\r",
    "\ufeffok 1", "1..3\r", "  --- inline", "  ---x",
]

YAML = [
    "message: hi", "key:", "- a", "- k: v", "-", "key: |", "key: >", "'q': x",
    '"k": "v"', '"k": "open', "k: 'it''s'", "k: ~", "k: []", "k:v", "a:b c",
    "k :", "- k:", "-x", "x", "%", "- - x", "...", "---",
]


def yaml_block(rng):
    body = [" " * rng.choice([0, 0, 0, 2, 2, 4, 1]) + rng.choice(YAML)
            for _ in range(rng.randint(0, 4))]
    return ["  ---"] + ["  " + line for line in body] + ["  ..."]


def good(rng):
    n = rng.randint(0, 6)
    lines = []
    version = rng.choice([None, None, "13", "14"])
    if version:
        lines.append(f"TAP version {version}")
    plan_last = rng.random() < 0.3
    if not plan_last:
        lines.append(f"1..{n}")
    for i in range(1, n + 1):
        word = "ok" if rng.random() < 0.85 else "not ok"
        number = f" {i}" if rng.random() < 0.9 else ""
        desc = rng.choice(["", " - pages", " filters", " - a b c"])
        directive = rng.choice(["", "", "", " # SKIP no net", " # TODO soon"])
        lines.append(f"{word}{number}{desc}{directive}")
        if version and rng.random() < 0.2:
            lines += yaml_block(rng) if rng.random() < 0.6 else ["  ---", "  message: hi", "  ..."]
        if version == "14" and rng.random() < 0.15:
            lines[-1:-1] = [f"# Subtest: s{i}", "    ok 1 - inner", "    1..1"]
    if plan_last:
        lines.append(f"1..{n}")
    return lines


def mutate(rng, lines):
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        at = rng.randint(0, len(lines))
        kind = rng.random()
        if kind < 0.5 or not lines:
            lines.insert(at, rng.choice(POOL))
        elif kind < 0.7:
            del lines[min(at, len(lines) - 1)]
        elif kind < 0.85:
            lines[min(at, len(lines) - 1)] = rng.choice(POOL)
        else:
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
    return lines


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 34)
    os.makedirs(out, exist_ok=True)
    for k in range(count):
        lines = mutate(rng, good(rng))
        with open(os.path.join(out, f"gen-{k:04}.tap"), "w", encoding="utf-8", newline="") as f:
            f.write("\n".join(lines) + "\n")


main()
