#!/usr/bin/env python3
"""Trace-matrix inputs for the differential (issue 34, class 4).

Usage: generate.py OUT_DIR COUNT SEED

Writes COUNT case folders under OUT_DIR, each a contract.yaml (one
std/consistency criterion, `trace_matrix: true`, `specification: [spec]`),
a specification defining REQ-1, and a repository whose CSV matrix maps
REQ-1 to `impl.py` and to one entry: a name in a Python, Rust, JS/TS or Go
file, or an anchor in a Markdown document, placed where it is a definition
or where it only looks like one (comments, strings, docstrings, template
literals, regex literals, raw strings, indented code, fenced code, HTML
comments, inline code, sentences, tables), or an entry into the matrix (a
CSV file, or a Markdown document holding the matrix table and maybe a
T-1 anchor beside it) or the specification. Code files sit where their test
runner builds and runs them (a module `mod`-declared in a cargo package's
src/lib.rs, a `.test.js`/`.test.ts` file, a `_test.go` file), so that only
the definition decides. The same seed writes the same bytes.
"""

import os
import random
import sys

NAME = "test_target"

# (extension, [(snippet holding NAME, is it a definition?)])
CODE = {
    "py": [
        ("def test_target():\n    pass\n", True),
        ("async def test_target():\n    pass\n", True),
        ("class test_target:\n    pass\n", True),
        ("class T:\n    def test_target(self):\n        pass\n", True),
        ("@decorator\ndef test_target():\n    pass\n", True),
        # Defined, but a plain `pytest` run does not run it (vcc refuses).
        ("import pytest\n\n@pytest.mark.skip\ndef test_target():\n    pass\n", True),
        ("import pytest\npytestmark = pytest.mark.xfail\n\ndef test_target():\n    pass\n", True),
        ("class TestT(dict):\n    def test_target(self):\n        pass\n", True),
        ("class TestT:\n    __test__ = False\n\n    def test_target(self):\n        pass\n", True),
        ("# def test_target(): pass\n", False),
        ("x = 'def test_target(): pass'\n", False),
        ('"""\ndef test_target():\n    pass\n"""\n', False),
        ("s = '''\ndef test_target(): pass\n'''\n", False),
        ("test_target = lambda: None\n", False),
        ("x = r'\\'\n# def test_target(): pass\n", None),
        ("x = 'it''s'  # def test_target\n", False),
        ("s = \"\"\"a \\\"\"\" \ndef test_target(): pass\n\"\"\"\n", False),
        ("if True:\n    def test_target():\n        pass\n", True),
        ("x = f'{1}'\ndef test_target(): pass\n", True),
        ("x = (\n  'a'\n  'def test_target(): pass'\n)\n", False),
        ("def test_target_other():\n    pass\n", False),
        ("print('#')\ndef test_target(): pass\n", True),
        ('x = f"{"""\ndef test_target(): pass\n"""}"\n# """\n', False),
        ("x = f'{{'\ndef test_target(): pass\n", True),
        ("x = f'{d[\"k\"]}'\ndef test_target(): pass\n", True),
    ],
    "rs": [
        ("fn test_target() {}\n", True),
        ("#[test]\nfn test_target() {}\n", True),
        ("pub(crate) async fn test_target() {}\n", True),
        ("// fn test_target() {}\n", False),
        ("/* /* */ fn test_target() {} */\n", False),
        ("const S: &str = \"fn test_target() {}\";\n", False),
        ("const S: &str = \"a\nfn test_target() {}\n\";\n", False),
        ("const S: &str = r#\"\nfn test_target() {}\n\"#;\n", False),
        ("fn f<'a>(x: &'a str) -> &'a str { x }\nfn test_target() {}\n", True),
        ("const C: char = '\"';\nfn test_target() {}\n", True),
        ("/// fn test_target() {}\nfn other() {}\n", False),
        ("macro_rules! m { () => {} }\nm!(fn test_target() {});\n", None),
    ],
    "js": [
        ("function test_target() {}\n", True),
        ("const test_target = () => 1;\n", True),
        ("const test_target = async (a) => a;\n", True),
        ("class test_target {}\n", True),
        ("test('test_target', () => {});\n", True),
        ("it(\"test_target\", () => {});\n", True),
        ("// function test_target() {}\n", False),
        ("/* function test_target() {} */\n", False),
        ("const s = 'function test_target() {}';\n", False),
        ("const s = `\nfunction test_target() {}\n`;\n", False),
        ("const re = /`/;\nconst s = `\nfunction test_target() {}\n`;\n", False),
        ("const re = /\\/\\/`/;\nfunction test_target() {}\n", True),
        ("const x = a / b; function test_target() {}\n", True),
        ("test(`test_target`, () => {});\n", True),
        ("test(`${'test_target'}`, () => {});\n", False),
        ("const test_target = 3;\n", False),
        ("xtest('test_target', () => {});\n", False),
    ],
    "ts": [
        ("export function test_target(): void {}\n", True),
        ("const test_target = (n: number): number => n;\n", True),
        ("const s: string = 'function test_target() {}';\n", False),
        ("// test('test_target', () => {})\n", False),
        ("describe('test_target', () => {});\n", True),
    ],
    "go": [
        ("package p\n\nfunc test_target() {}\n", True),
        ("package p\n\nfunc (r *R) test_target() {}\n", True),
        ("package p\n\ntype test_target struct{}\n", True),
        ("package p\n\n// func test_target() {}\n", False),
        ("package p\n\nvar s = `\nfunc test_target() {}\n`\n", False),
        ("package p\n\nvar r = '\"'\n\nfunc test_target() {}\n", True),
        ("package p\n\n/*\nfunc test_target() {}\n*/\n", False),
    ],
}

ANCHOR = "T-1"
DOCS = [
    ("## T-1: page size\n", True),
    ("## T-1\n", True),
    ("## Page size {#T-1}\n", True),
    ('<a id="T-1"></a>\n', True),
    ('<a name="T-1"></a>\n', True),
    ("Step [one]{#T-1}.\n", True),
    ("Tests T-1 will be written later.\n", False),
    ("    ## T-1\n", False),
    ("```\n## T-1\n```\n", False),
    ("<!--\n## T-1\n-->\n", False),
    ('`<a id="T-1">`\n', False),
    ("| T-1 | x |\n|---|---|\n", False),
    ("- T-1: later\n", False),
    ("T-1\n===\n", True),
    ("#T-1\n", False),
    ("Text {#T-1} here.\n", False),
    ("> ## T-1\n", True),
    ("- ## T-1\n", True),
    ("~~~\n<a id=\"T-1\"></a>\n~~~\n", False),
    ("<div id=\"T-1\">x</div>\n", True),
    ("<!-- <a id=\"T-1\"></a> -->\n", False),
    ("## `T-1` size\n", True),
    ("\t## T-1\n", False),
    ("   ## T-1\n", True),
]

CARGO = '[package]\nname = "target"\nversion = "0.1.0"\nedition = "2021"\n'
SPEC = "# Requirements\n\n- REQ-1: pages of 100 records.\n"
CONTRACT = """vcc: 1
id: differential-trace-{n}
deliverables:
  - {{ id: spec, path: "spec.md" }}
  - {{ id: repo, path: "repo" }}
validators:
  c: {{ component: std/consistency }}
criteria:
  - {{ id: TRACE, severity: must, validator: c, targets: [spec, repo], params: {{ trace_matrix: true, specification: [spec], scope: false, requirements: false }} }}
"""


def case(rng):
    """(files under repo/, the entry)."""
    kind = rng.random()
    if kind < 0.55:
        ext = rng.choice(sorted(CODE))
        pieces = rng.sample(CODE[ext], k=rng.randint(1, 2))
        text = "".join(p for p, _ in pieces)
        if ext == "go" and len(pieces) > 1:
            text = "package p\n\n" + text.replace("package p\n\n", "")
        # Where the runner builds and runs tests (std/consistency refuses
        # a test anywhere else): a module of a cargo package, a Jest/Vitest
        # test file, a file pytest collects (`test_*.py`).
        name = {"rs": "src/target.rs", "js": "src/target.test.js", "ts": "src/target.test.ts",
                "go": "src/target_test.go",
                "py": "src/test_target.py"}.get(ext, f"src/target.{ext}")
        files = {name: text}
        if ext == "go":
            # `go test ./...` needs a module around the test file.
            files["go.mod"] = "module target\n\ngo 1.22\n"
        if ext == "rs":
            files["Cargo.toml"] = CARGO
            files["src/lib.rs"] = "mod target;\n"
        fragment = NAME
        if rng.random() < 0.1:
            fragment = f"L{rng.randint(1, 8)}"
            return files, f"{name}#{fragment}"
        return files, f"{name}::{fragment}"
    if kind < 0.9:
        pieces = rng.sample(DOCS, k=rng.randint(1, 2))
        text = "# Test plan\n\n" + "\n".join(p for p, _ in pieces)
        return {"plan.md": text}, f"plan.md#{rng.choice([ANCHOR, ANCHOR, 't-1', 'page-size'])}"
    if kind < 0.95:
        # The matrix in a document that also holds (or only mentions) T-1.
        pieces = rng.sample(DOCS, k=1)
        text = "# Plan\n\n" + MATRIX_TABLE + "\n" + pieces[0][0]
        return {"TRACE.md": text}, rng.choice(["TRACE.md#T-1", "TRACE.md", "./TRACE.md#t-1"])
    choice = rng.choice(["trace.csv", "./trace.csv", "spec.md#REQ-1", "copy.md#requirements", "copy.md", "impl.py:1"])
    return {"copy.md": SPEC}, choice


# A Markdown matrix; `ENTRY` is the test entry.
MATRIX_TABLE = "| Requirement | Implementation | Tests |\n|---|---|---|\n| REQ-1 | impl.py | ENTRY |\n"


def main():
    out, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    for n in range(count):
        files, entry = case(rng)
        d = os.path.join(out, f"gen-{n:04d}")
        os.makedirs(os.path.join(d, "repo"), exist_ok=True)
        with open(os.path.join(d, "contract.yaml"), "w") as f:
            f.write(CONTRACT.format(n=n))
        with open(os.path.join(d, "spec.md"), "w") as f:
            f.write(SPEC)
        with open(os.path.join(d, "repo", "impl.py"), "w") as f:
            f.write("def impl():\n    pass\n")
        if "TRACE.md" in files:
            files["TRACE.md"] = files["TRACE.md"].replace("ENTRY", entry)
        else:
            cell = '"' + entry.replace('"', '""') + '"' if ("," in entry or '"' in entry) else entry
            with open(os.path.join(d, "repo", "trace.csv"), "w") as f:
                f.write(f"Requirement,Implementation,Tests\nREQ-1,impl.py,{cell}\n")
        for rel, text in files.items():
            path = os.path.join(d, "repo", rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)


if __name__ == "__main__":
    main()
