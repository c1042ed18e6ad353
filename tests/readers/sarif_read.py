#!/usr/bin/env python3
"""Read a SARIF log with PyPI `sarif-tools` (not vcc's code) and print its
results as JSON: per result the rule, level, kind, location and line.

    sarif_read.py LOG.sarif
"""
import json
import sys

from sarif import loader

log = loader.load_sarif_file(sys.argv[1])
out = {"result_count": log.get_result_count(), "tools": sorted(log.get_distinct_tool_names()), "results": []}
for run in log.runs:
    for r in run.get_results():
        loc = (r.get("locations") or [{}])[0].get("physicalLocation", {})
        out["results"].append({
            "rule": r.get("ruleId"),
            "level": r.get("level"),
            "kind": r.get("kind"),
            "uri": loc.get("artifactLocation", {}).get("uri"),
            "line": loc.get("region", {}).get("startLine"),
            "fingerprint": r.get("partialFingerprints", {}).get("vcc/v1"),
            "properties": r.get("properties", {}),
        })
print(json.dumps(out))
