"""SARIF logs where readers may resolve a result's level differently.

Usage: python generate.py OUT_DIR [COUNT] [SEED]  (defaults 300, 34).
Each log is one run (sometimes two) whose results reach their rules in
every way SARIF allows — ruleId, ruleIndex, rule.index/id/guid, the driver
or tool.extensions through rule.toolComponent {index|guid|name} — with
levels from the result, the rule's default, an invocation's override, or
nothing; then 0-3 mutations from the shapes where readers differ: indexes
out of range, components that do not exist, ids that disagree, unknown
levels, suppressions mixed in status, kinds, a hierarchical rule id, a
result naming an extension's rule by index where the driver has another
rule at that index (red team 34: sarif-tools reads the driver's).
"""

import json
import os
import random
import sys

LEVELS = ["none", "note", "warning", "error"]


def rule(rng, rid, guid):
    r = {"id": rid, "guid": guid}
    if rng.random() < 0.8:
        r["defaultConfiguration"] = {"level": rng.choice(LEVELS)}
    return r


def log(rng, n):
    driver_rules = [rule(rng, f"D{i}", f"d-{n}-{i}") for i in range(rng.randint(0, 3))]
    exts = []
    for e in range(rng.randint(0, 2)):
        exts.append({
            "name": f"pack/{e}",
            "guid": f"e-{n}-{e}",
            "rules": [rule(rng, f"pack{e}/R{i}", f"r-{n}-{e}-{i}") for i in range(rng.randint(1, 3))],
        })
    tool = {"driver": {"name": "tool", "guid": f"drv-{n}", "rules": driver_rules}}
    if exts:
        tool["extensions"] = exts
    run = {"tool": tool, "results": []}
    overrides = []
    for _ in range(rng.randint(1, 4)):
        res = {"message": {"text": "finding"}}
        homes = [("driver", None, driver_rules)] + [("ext", e, x["rules"]) for e, x in enumerate(exts)]
        home, e, rules = rng.choice(homes)
        if rules and rng.random() < 0.9:
            i = rng.randrange(len(rules))
            r = rules[i]
            how = rng.choice(["ruleId", "ruleIndex", "both", "rule.index", "rule.id", "rule.guid"])
            ref = {}
            if how in ("ruleId", "both"):
                res["ruleId"] = r["id"]
            if how in ("ruleIndex", "both"):
                res["ruleIndex"] = i
            if how == "rule.index":
                ref["index"] = i
            if how == "rule.id":
                ref["id"] = r["id"]
            if how == "rule.guid":
                ref["guid"] = r["guid"]
            if home == "ext":
                ref["toolComponent"] = rng.choice([{"index": e}, {"guid": exts[e]["guid"]}, {"name": exts[e]["name"]}])
                if not ({"index", "id", "guid"} & set(ref)):
                    ref["index"] = i
            if ref:
                res["rule"] = ref
            if rng.random() < 0.15:
                overrides.append({"descriptor": {"id": r["id"]}, "configuration": {"level": rng.choice(LEVELS)}})
                res["provenance"] = {"invocationIndex": 0}
        if rng.random() < 0.3:
            res["level"] = rng.choice(LEVELS)
        run["results"].append(res)
    run["invocations"] = [{"executionSuccessful": True, "ruleConfigurationOverrides": overrides}]
    return {"version": "2.1.0", "runs": [run]}


def mutate(rng, doc):
    run = doc["runs"][0]
    res = rng.choice(run["results"])
    m = rng.randrange(15)
    if m == 0:
        res["ruleIndex"] = 99
    elif m == 1:
        res.setdefault("rule", {})["toolComponent"] = {"index": 7}
    elif m == 2:
        res.setdefault("rule", {})["toolComponent"] = {"name": "no-such-pack"}
    elif m == 3:
        res["ruleId"] = "X1"
        res.setdefault("rule", {})["id"] = "X2"
    elif m == 4:
        res["level"] = rng.choice(["fatal", "Error", 3, None, ""])
    elif m == 5:
        res["suppressions"] = rng.choice([
            [{"kind": "inSource"}],
            [{"kind": "external", "status": "accepted"}, {"kind": "external", "status": "rejected"}],
            [{"kind": "external", "status": "underReview"}],
            [],
        ])
    elif m == 6:
        # Spec kinds, words that are not SARIF's (case matters), and a
        # non-fail kind beside an explicit level (red team 34).
        res["kind"] = rng.choice(["pass", "open", "review", "notApplicable", "informational", "fail", "FAIL", "Pass", ""])
        if rng.random() < 0.5:
            res["level"] = rng.choice(["error", "warning", "note", "none"])
    elif m == 7:
        rid = res.get("ruleId") or "D0"
        res["ruleId"] = rid + "/sub"
        res.pop("ruleIndex", None)
    elif m == 8:
        res["ruleIndex"] = -1
    elif m == 9:
        run["tool"].pop("extensions", None)
    elif m == 10:
        for r in run["tool"]["driver"]["rules"]:
            r.pop("defaultConfiguration", None)
    elif m == 11:
        res["ruleId"] = "NOT-A-RULE"
    elif m == 12:
        run["invocations"][0]["ruleConfigurationOverrides"].append(
            {"descriptor": {"index": 0}, "configuration": {"level": "error"}})
        res["provenance"] = {"invocationIndex": 0}
    elif m == 13:
        res.pop("rule", None)
        res.pop("ruleId", None)
        res["ruleIndex"] = rng.randrange(4)
    else:
        # An extension's rule by index; the driver's rule of that index
        # is another one, at another level.
        exts = run["tool"].setdefault("extensions", [])
        if not exts:
            exts.append({"name": "pack/x", "rules": [{"id": "packx/R0", "defaultConfiguration": {"level": "note"}}]})
        ext_rule = exts[0]["rules"][0]
        drivers = run["tool"]["driver"]["rules"]
        if not drivers:
            drivers.append({"id": "D0"})
        drivers[0]["defaultConfiguration"] = {"level": rng.choice(LEVELS)}
        for key in ("ruleIndex", "level"):
            res.pop(key, None)
        res["ruleId"] = ext_rule["id"]
        res["rule"] = {"index": 0, "toolComponent": rng.choice([{"index": 0}, {"name": exts[0]["name"]}])}


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 34)
    os.makedirs(out, exist_ok=True)
    for n in range(count):
        doc = log(rng, n)
        for _ in range(rng.choice([0, 1, 1, 2, 3])):
            mutate(rng, doc)
        with open(os.path.join(out, f"gen-{n:04}.sarif"), "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
