#!/usr/bin/env python3
"""JSON documents for the JSON-evidence differential (issue 34, class 9).

Usage: generate.py OUT_DIR COUNT SEED

Each document has a `checks` list (or something else where a list is
expected) whose elements have a `status`, lack it, have it `null`, are
scalars, nested lists or objects; scores as numbers, strings and booleans;
`meta.runs[*].results[*].ok` with missing levels; duplicate keys, NaN,
empty lists. The same seed writes the same bytes.
"""

import json
import os
import random
import sys

ELEMENTS = [
    '{"name": "a", "status": "pass", "score": 4}',
    '{"name": "b", "status": "pass"}',
    '{"name": "c", "status": "fail", "score": 5}',
    '{"name": "d"}',
    '{"name": "e", "status": null}',
    '{"name": "", "status": "pass", "score": 3}',
    '{"name": "f", "status": "skip", "score": 2.5}',
    '{"name": "g", "result": "pass"}',
    '{"name": "h", "status": "pass", "status": "fail"}',
    '{"name": "i", "status": "fail", "status": "pass"}',
    '{"name": "j", "status": "PASS"}',
    '{"name": "k", "status": "pass\\n"}',
    '{"name": "l", "status": ["pass"]}',
    '{"name": "m", "status": "pass", "score": "4"}',
    '{"name": "n", "status": "pass", "score": true}',
    '{"name": "o", "status": "pass", "score": NaN}',
    '{"name": "p", "status": "pass", "score": 1e400}',
    '{}',
    '"pass"',
    '3',
    'null',
    '[{"status": "pass"}]',
    '{"status": {"status": "pass"}}',
]

CHECKS = ["[{}]", "[]", "{}", '"none"', "null", '{"x": {"status": "pass"}, "y": {}}']

RUNS = [
    '{"runs": [{"results": [{"ok": true}, {"ok": true}]}]}',
    '{"runs": [{"results": [{"ok": true}, {}]}]}',
    '{"runs": [{"results": []}, {"results": [{"ok": true}]}]}',
    '{"runs": [{}, {"results": [{"ok": true}]}]}',
    '{"runs": []}',
    '{"runs": [{"results": [{"ok": 1}]}]}',
    '{}',
]


def main():
    out, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    os.makedirs(out, exist_ok=True)
    for n in range(count):
        if rng.random() < 0.15:
            checks = rng.choice(CHECKS)
        else:
            k = rng.randint(1, 4)
            checks = "[" + ", ".join(rng.choice(ELEMENTS) for _ in range(k)) + "]"
        parts = []
        if rng.random() < 0.9:
            parts.append(f'"checks": {checks}')
        if rng.random() < 0.6:
            parts.append(f'"meta": {rng.choice(RUNS)}')
        text = "{" + ", ".join(parts) + "}\n"
        with open(os.path.join(out, f"doc-{n:04d}.json"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
