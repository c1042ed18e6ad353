"""JUnit XML reports where readers may count tests or results differently.

Usage: python generate.py OUT_DIR [COUNT] [SEED]  (defaults 300, 34).
Each report is a few suites of test cases (some passing, some with a
result), then 0-3 mutations from the shapes where readers differ: a case
directly under <testsuites>, in an unknown wrapper, inside another case;
nested suites; a result inside <system-out> or a wrapper; namespaced
elements (a prefix, a default xmlns, xmlns="" undoing it); encoding
declarations (UTF-8, UTF-16 over UTF-8 bytes, ISO-8859-1 over ASCII or
not, a BOM, real UTF-16); character references, internal DTD entities, a
CDATA holding markup; duplicate test names; flaky/rerun elements; a suite
claiming counts it does not hold; comments.
"""

import os
import random
import sys

RESULTS = [
    "",
    "",
    "",
    '<failure message="assert 0 == 3">trace</failure>',
    '<error message="ImportError">E</error>',
    '<skipped message="later"/>',
    '<flakyFailure message="once">t</flakyFailure>',
    '<rerunFailure message="once">t</rerunFailure>',
    "<system-out>ok</system-out>",
]


def case(rng, i, inner=None):
    body = rng.choice(RESULTS) if inner is None else inner
    name = f'test_{rng.choice(["list", "export", "page", "size"])}_{i}'
    if body:
        return f'<testcase classname="tests.api" name="{name}">{body}</testcase>'
    return f'<testcase classname="tests.api" name="{name}"/>'


def report(rng):
    suites = []
    n = 0
    for s in range(rng.randint(1, 3)):
        cases = []
        for _ in range(rng.randint(1, 4)):
            cases.append(case(rng, n))
            n += 1
        suites.append((f"suite{s}", cases))
    extra_root = []  # children of the root, beside the suites
    decl = '<?xml version="1.0" encoding="utf-8"?>\n'
    doctype = ""
    root_attrs = ""
    encode = "utf-8"
    bom = b""
    for _ in range(rng.randint(0, 3)):
        m = rng.randrange(16)
        cases = rng.choice(suites)[1]
        if m == 0:
            extra_root.append(case(rng, n))
            n += 1
        elif m == 1:
            cases.append(f"<group>{case(rng, n)}</group>")
            n += 1
        elif m == 2:
            cases.append(case(rng, n, inner=case(rng, n + 1)))
            n += 2
        elif m == 3:
            cases.append(f'<testsuite name="nested">{case(rng, n)}</testsuite>')
            n += 1
        elif m == 4:
            inner = rng.choice(RESULTS[3:6])
            cases.append(case(rng, n, inner=f"<system-out>out {inner}</system-out>"))
            n += 1
        elif m == 5:
            inner = rng.choice(RESULTS[3:6])
            cases.append(case(rng, n, inner=f"<rerun>{inner}</rerun>"))
            n += 1
        elif m == 6:
            cases.append(f'<x:testcase xmlns:x="urn:x" classname="tests.api" name="test_ns_{n}"/>')
            n += 1
        elif m == 7:
            cases.append(case(rng, n, inner='<x:failure xmlns:x="urn:x" message="ns"/>'))
            n += 1
        elif m == 8:
            root_attrs = ' xmlns="urn:junit"' if rng.random() < 0.5 else ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
            if rng.random() < 0.5:
                cases.append(f'<testcase xmlns="" name="test_undone_{n}"/>')
                n += 1
        elif m == 9:
            choice = rng.randrange(6)
            if choice == 0:
                decl = '<?xml version="1.0" encoding="UTF-16"?>\n'
            elif choice == 1:
                decl = '<?xml version="1.0" encoding="ISO-8859-1"?>\n'
            elif choice == 2:
                decl = '<?xml version="1.0" encoding="ISO-8859-1"?>\n'
                cases.append('<testcase classname="tests.api" name="test_caf\u00e9"/>')
                n += 1
            elif choice == 3:
                bom = b"\xef\xbb\xbf"
            elif choice == 4:
                decl = '<?xml version="1.0" encoding="UTF-16"?>\n'
                encode = "utf-16"
            else:
                decl = ""
        elif m == 10:
            cases.append(case(rng, n, inner="<system-out>a&#10;b &#x3C;failure/&#x3E; &lt;error/&gt;</system-out>"))
            n += 1
        elif m == 11:
            doctype = '<!DOCTYPE testsuites [<!ENTITY boom "<failure message=\'entity\'/>">]>\n'
            cases.append(case(rng, n, inner="&boom;"))
            n += 1
        elif m == 12:
            cases.append(case(rng, n, inner="<system-out><![CDATA[<failure message='cdata'/>]]></system-out>"))
            n += 1
        elif m == 13:
            cases.append(cases[0])
            n += 1
        elif m == 14:
            cases.append("<!-- <testcase name='commented'/> -->")
        else:
            cases.append(f'<properties>{case(rng, n)}</properties>')
            n += 1
    body = "".join(
        f'<testsuite name="{name}" tests="{len(cases) + rng.choice([0, 0, 3])}">{"".join(cases)}</testsuite>'
        for name, cases in suites
    )
    if len(suites) == 1 and not extra_root and rng.random() < 0.3:
        xml = body.replace("<testsuite ", f"<testsuite{root_attrs} ", 1)
        if doctype:
            doctype = doctype.replace("testsuites", "testsuite", 1)
    else:
        xml = f"<testsuites{root_attrs}>{''.join(extra_root)}{body}</testsuites>"
    return bom + (decl + doctype + xml + "\n").encode(encode)


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 34
    rng = random.Random(seed)
    os.makedirs(out, exist_ok=True)
    for i in range(count):
        with open(os.path.join(out, f"gen-{i:04}.xml"), "wb") as f:
            f.write(report(rng))


if __name__ == "__main__":
    main()
