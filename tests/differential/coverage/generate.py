"""Small Python projects measured by coverage.py, for std/coverage.

Usage: python generate.py OUT_DIR [COUNT] [SEED]  (defaults 60, 34; run
with the `diff-data-py` venv's python, which has coverage.py). Each project
`proj-NNNN/` has `src/` (1-3 folders, each with or without `__init__.py`,
of 1-3 modules: functions with docstrings, comments, statements over
several lines, branches), `tests/run.py` calling some of them, and in
`out/` what coverage.py wrote after `coverage run --source=.` in `src/`:
`coverage.xml` (Cobertura, with the absolute <source> of the temporary
folder it ran in) and `lcov.info`; beside them, `coverage.json` (its own
numbers, for reference.py). A folder
without `__init__.py` is what coverage.py never lists when nothing in it
ran: the case `sources` exists for.
"""

import os
import random
import shutil
import subprocess
import sys
import tempfile


def function(rng, name):
    lines = [f"def {name}(x):"]
    if rng.random() < 0.5:
        lines.append(f'    """{name}: a docstring\n    over two lines."""')
    for i in range(rng.randint(1, 5)):
        kind = rng.randrange(5)
        if kind == 0:
            lines.append(f"    # step {i}")
            lines.append(f"    x = x + {i}")
        elif kind == 1:
            lines.append(f"    if x > {rng.randint(0, 9)}:")
            lines.append(f"        x = x - 1")
        elif kind == 2:
            lines.append("    total = (x +")
            lines.append(f"             {i} +")
            lines.append("             1)")
            lines.append("    x = total")
        elif kind == 3:
            lines.append("")
            lines.append(f"    x = [x, {i}][0]  # a comment after code")
        else:
            lines.append(f"    y = {{'k': {i},")
            lines.append("         'v': x}")
            lines.append("    x = y['v']")
    lines.append("    return x")
    return "\n".join(lines) + "\n"


def project(rng, root):
    src = os.path.join(root, "src")
    calls = []
    for f in range(rng.randint(1, 3)):
        folder = os.path.join(src, f"part{f}")
        os.makedirs(folder)
        package = rng.random() < 0.6
        if package:
            with open(os.path.join(folder, "__init__.py"), "w") as fh:
                fh.write("" if rng.random() < 0.7 else '"""A package."""\n')
        for m in range(rng.randint(1, 3)):
            names = [f"f{m}_{i}" for i in range(rng.randint(1, 4))]
            body = '"""Module."""\n\nimport os\n\n\n' + "\n\n".join(function(rng, n) for n in names)
            with open(os.path.join(folder, f"mod{m}.py"), "w") as fh:
                fh.write(body)
            # Some modules are used by the tests, some not at all (the
            # first always: coverage.py writes no report of no data).
            if rng.random() < 0.6 or (f == 0 and m == 0):
                used = [n for n in names if rng.random() < 0.7]
                calls.append((f"part{f}.mod{m}", used, rng.randint(0, 12)))
    os.makedirs(os.path.join(root, "tests"))
    lines = ["import sys", "sys.path.insert(0, '.')"]
    for module, used, arg in calls:
        lines.append(f"import {module}")
        lines += [f"{module}.{n}({arg})" for n in used]
    with open(os.path.join(root, "tests", "run.py"), "w") as fh:
        fh.write("\n".join(lines) + "\n")


def measure(root):
    """Run the tests under coverage.py somewhere else (so its <source> is
    not the folder vcc sees), and keep its reports in out/."""
    root = os.path.abspath(root)
    out = os.path.join(root, "out")
    os.makedirs(out)
    with tempfile.TemporaryDirectory() as tmp:
        work = os.path.join(tmp, "ci", "checkout")
        shutil.copytree(root, work, ignore=shutil.ignore_patterns("out"))
        src = os.path.join(work, "src")
        cov = [sys.executable, "-m", "coverage"]
        subprocess.run(cov + ["run", "--source=.", "../tests/run.py"], cwd=src, check=True, capture_output=True)
        subprocess.run(cov + ["xml", "-q", "-o", os.path.join(out, "coverage.xml")], cwd=src, check=True, capture_output=True)
        subprocess.run(cov + ["lcov", "-q", "-o", os.path.join(out, "lcov.info")], cwd=src, check=True, capture_output=True)
        # coverage.py's own numbers, for the reference (not given to vcc).
        subprocess.run(cov + ["json", "-q", "-o", os.path.join(root, "coverage.json")], cwd=src, check=True, capture_output=True)


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 34)
    os.makedirs(out, exist_ok=True)
    for n in range(count):
        root = os.path.join(out, f"proj-{n:04}")
        project(rng, root)
        measure(root)


if __name__ == "__main__":
    main()
