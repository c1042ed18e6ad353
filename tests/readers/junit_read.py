#!/usr/bin/env python3
"""Read a JUnit XML report with PyPI `junitparser` (not vcc's code) and
print what it holds as JSON: each suite with its properties and each
test case with its classname, result kind, message, type and file.

    junit_read.py REPORT.xml
"""
import json
import sys

from junitparser import Error, Failure, JUnitXml, Skipped

xml = JUnitXml.fromfile(sys.argv[1])
suites = []
for suite in xml:
    cases = []
    for case in suite:
        kind, message, type_ = "pass", None, None
        for r in case.result:
            if isinstance(r, Failure):
                kind = "failure"
            elif isinstance(r, Error):
                kind = "error"
            elif isinstance(r, Skipped):
                kind = "skipped"
            message, type_ = r.message, r.type
        cases.append({
            "name": case.name,
            "classname": case.classname,
            "result": kind,
            "message": message,
            "type": type_,
            "file": case._elem.get("file"),
            "line": case._elem.get("line"),
            "properties": {p.get("name"): p.get("value") for p in case._elem.iter("property")},
        })
    suites.append({
        "name": suite.name,
        "tests": suite.tests,
        "failures": suite.failures,
        "errors": suite.errors,
        "skipped": suite.skipped,
        "properties": {p.name: p.value for p in suite.properties()},
        "cases": cases,
    })
print(json.dumps({"suites": suites}))
