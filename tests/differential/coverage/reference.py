"""What coverage.py itself says of each generated project.

Usage: python reference.py THRESHOLDS PROJECT...  (THRESHOLDS like
`50,75,90`; the `diff-data-py` venv). Prints one JSON object: for each
project, two readers, each with its total percent and, per threshold,
whether it passes:

- "report": `coverage report --fail-under=T` as coverage.py decides it
  (its own `should_fail_under` on the total of its own JSON report,
  `coverage.json` beside out/): what a CI step would say.
- "all-sources": the same data with every `.py` file under src/ counted,
  a file coverage.py did not list (a folder without __init__.py that
  nothing imported) at 0% of its statements as coverage.py's own parser
  counts them: what the project's coverage is.
"""

import json
import os
import sys

from coverage.python import PythonParser
from coverage.results import should_fail_under


def judge(project, thresholds):
    with open(os.path.join(project, "coverage.json")) as fh:
        report = json.load(fh)
    listed = {name.replace(os.sep, "/") for name in report["files"]}
    totals = report["totals"]
    total = totals["percent_covered"]
    statements, covered = totals["num_statements"], totals["covered_lines"]
    src = os.path.join(project, "src")
    unlisted = []
    for here, _, names in os.walk(src):
        for name in sorted(names):
            rel = os.path.relpath(os.path.join(here, name), src).replace(os.sep, "/")
            if not name.endswith(".py") or rel in listed:
                continue
            parser = PythonParser(filename=os.path.join(here, name))
            parser.parse_source()
            statements += len(parser.statements)
            unlisted.append(rel)
    every = 100.0 * covered / statements if statements else 100.0

    def verdicts(percent):
        return {str(int(t)): not should_fail_under(percent, t, 0) for t in thresholds}

    return {
        "report": {"percent": total, "pass": verdicts(total)},
        "all-sources": {"percent": every, "unlisted": unlisted, "pass": verdicts(every)},
    }


def main():
    thresholds = [float(t) for t in sys.argv[1].split(",")]
    out = {}
    for project in sys.argv[2:]:
        project = os.path.abspath(project)
        try:
            out[project] = judge(project, thresholds)
        except Exception as e:  # noqa: BLE001 - the reader's refusal
            out[project] = {"error": f"{type(e).__name__}: {e}"}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
