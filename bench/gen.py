#!/usr/bin/env python3
"""Seeded data for the benchmarks (never downloaded). Same seed, same bytes.

    python3 bench/gen.py w1 DIR      # 500 JSON + 500 Markdown documents
    python3 bench/gen.py tree DIR N  # N small files in nested folders (W2b, W5)
    python3 bench/gen.py small DIR N  # N files of ~512 bytes, 100 per folder (W8)
    python3 bench/gen.py big FILE MiB  # one file of pseudo-random bytes (W2a)
    python3 bench/gen.py tiny DIR    # one small file (W3, W4)
"""
import json
import os
import random
import sys

SEED = 20261122
WORDS = ("contract validator deliverable criterion evidence digest sandbox "
         "verdict report schema section citation budget runtime host guest").split()


def sentence(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def w1(root):
    rng = random.Random(SEED)
    os.makedirs(f"{root}/json", exist_ok=True)
    os.makedirs(f"{root}/md", exist_ok=True)
    for i in range(500):
        doc = {
            "id": f"item-{i:04d}",
            "title": sentence(rng, 6),
            "version": f"{rng.randint(0, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 99)}",
            "tags": [rng.choice(WORDS) for _ in range(rng.randint(1, 5))],
            "score": round(rng.uniform(0, 100), 2),
            "steps": [{"name": rng.choice(WORDS), "ok": rng.random() < 0.95,
                       "ms": rng.randint(1, 5000)} for _ in range(rng.randint(5, 40))],
        }
        with open(f"{root}/json/doc-{i:04d}.json", "w") as f:
            json.dump(doc, f, indent=2)
    for i in range(500):
        parts = [f"# Report {i}\n"]
        for section in ("Summary", "Changes", "Risks", "Testing"):
            parts.append(f"\n## {section}\n\n")
            for _ in range(rng.randint(2, 6)):
                parts.append(sentence(rng, rng.randint(8, 30)) + "\n\n")
        with open(f"{root}/md/report-{i:04d}.md", "w") as f:
            f.write("".join(parts))


def tree(root, n):
    rng = random.Random(SEED)
    for i in range(n):
        d = f"{root}/d{i % 100:02d}/e{(i // 100) % 10}"
        os.makedirs(d, exist_ok=True)
        size = int(rng.expovariate(1 / 4096)) + 1
        with open(f"{d}/f{i:06d}.txt", "wb") as f:
            f.write(rng.randbytes(size))


def small(root, n):
    rng = random.Random(SEED)
    made = set()
    for i in range(n):
        d = f"{root}/d{i % 1000:03d}/e{(i // 1000) % 10}"
        if d not in made:
            os.makedirs(d, exist_ok=True)
            made.add(d)
        size = int(rng.expovariate(1 / 512)) + 1
        with open(f"{d}/f{i:07d}.txt", "wb") as f:
            f.write(rng.randbytes(size))


def big(path, mib):
    rng = random.Random(SEED)
    with open(path, "wb") as f:
        for _ in range(mib):
            f.write(rng.randbytes(1 << 20))


def tiny(root):
    os.makedirs(root, exist_ok=True)
    with open(f"{root}/notes.md", "w") as f:
        f.write("# Notes\n\nDone.\n")


if __name__ == "__main__":
    kind = sys.argv[1]
    if kind == "w1":
        w1(sys.argv[2])
    elif kind == "tree":
        tree(sys.argv[2], int(sys.argv[3]))
    elif kind == "small":
        small(sys.argv[2], int(sys.argv[3]))
    elif kind == "big":
        big(sys.argv[2], int(sys.argv[3]))
    elif kind == "tiny":
        tiny(sys.argv[2])
    else:
        sys.exit(f"unknown data set {kind}")
