"""The test cases of each JUnit XML report as two readers see them.

Usage: python reference.py REPORT...  Prints one JSON object: for each
report, for each reader, either {"error": "..."} (the reader refuses it) or
{"tests": N, "failed": F, "errored": E, "skipped": S, "names": [...]}.

Readers:
- "junitparser": junitparser 5.0.3 over lxml 6.1.3 (the `diff-xml-py` venv
  of tests/install-tools.sh), as a
  user's script reads a report: `JUnitXml.fromfile`, every suite, every
  case (suites nest), a case's result from `TestCase.result` (which walks
  every descendant of the case).
- "etree": Python's xml.etree.ElementTree, as a whole-document reader
  reads it: every `testcase` element anywhere (no namespace), its result
  from its direct `failure`/`error`/`skipped` children.
"""

import json
import sys
import xml.etree.ElementTree as ET


def junitparser_view(path):
    from junitparser import Error, Failure, JUnitXml, Skipped

    out = {"tests": 0, "failed": 0, "errored": 0, "skipped": 0, "names": []}
    for suite in JUnitXml.fromfile(path):
        for case in suite:
            out["tests"] += 1
            out["names"].append(f"{case.classname}.{case.name}" if case.classname else case.name)
            result = case.result
            if any(isinstance(r, Failure) for r in result):
                out["failed"] += 1
            elif any(isinstance(r, Error) for r in result):
                out["errored"] += 1
            elif any(isinstance(r, Skipped) for r in result):
                out["skipped"] += 1
    return out


def etree_view(path):
    root = ET.parse(path).getroot()
    if root.tag not in ("testsuites", "testsuite"):
        raise ValueError(f"root <{root.tag}>")
    out = {"tests": 0, "failed": 0, "errored": 0, "skipped": 0, "names": []}
    cases = [root] if root.tag == "testcase" else list(root.iter("testcase"))
    for case in cases:
        out["tests"] += 1
        cls, name = case.get("classname"), case.get("name") or ""
        out["names"].append(f"{cls}.{name}" if cls else name)
        kids = {c.tag for c in case}
        if "failure" in kids:
            out["failed"] += 1
        elif "error" in kids:
            out["errored"] += 1
        elif "skipped" in kids:
            out["skipped"] += 1
    return out


def main():
    import junitparser.junitparser as jp

    # Without lxml junitparser reads with ElementTree: not the reader meant.
    if jp.etree.__name__ != "lxml.etree":
        sys.exit(f"junitparser reads with {jp.etree.__name__}, not lxml")
    out = {}
    for path in sys.argv[1:]:
        seen = {}
        for name, view in (("junitparser", junitparser_view), ("etree", etree_view)):
            try:
                seen[name] = view(path)
            except Exception as e:  # noqa: BLE001 - the reader's refusal
                seen[name] = {"error": f"{type(e).__name__}: {e}"}
        out[path] = seen
    json.dump(out, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
