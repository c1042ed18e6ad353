"""The level of every result of each SARIF log, as the SARIF 2.1.0
specification defines it (written here from the text, independent of
std/sarif), and as sarif-tools reads it when it is installed.

Usage: python reference.py LOG...  Prints one JSON object: for each log,
for each reader, either {"error": "..."} (not a SARIF 2.1.0 log) or
{"not_read": "..."} (a reader that
does not read some part of it: not compared), or
{"analysed": <runs with a results array>, "tool_failed": bool,
 "levels": [level of each counted result: "error" | "warning" | "note" |
 "none" | "unresolved"]}.

sarif-tools reads every result: no kind filter, no suppressions (below).

The specification's algorithm ("spec"):
- a result counts when its kind is "fail" (absent: fail) and it is not
  suppressed: suppressed means a non-empty `suppressions` whose every
  entry is accepted (status absent or "accepted"; §3.34.3, as the SARIF
  SDK's IsSuppressed reads it);
- its level (§3.27.10): `result.level`; else the configuration override
  of the invocation `provenance.invocationIndex` names, for the rule;
  else the rule's `defaultConfiguration.level`; else "warning";
- its rule (§3.27.5-3.27.7, §3.52.7, §3.54): the component is
  `rule.toolComponent` (index into `tool.extensions`, else guid, else name,
  among the driver and the extensions), else the driver; the descriptor is
  `rules[ruleIndex or rule.index]` (-1 or absent: none), else the one whose
  guid is `rule.guid`, else whose id is `ruleId or rule.id` (or the
  hierarchical parent of it). A reference that points at nothing, or two
  references that disagree, is "unresolved": the log does not say the
  level, so a reader cannot count it less than "error".
"""

import json
import sys

LEVELS = ("none", "note", "warning", "error")


class Unresolved(Exception):
    pass


def index(v):
    if v is None or v == -1:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise Unresolved(f"bad index {v!r}")
    return v


def component(run, ref):
    tool = run.get("tool") if isinstance(run.get("tool"), dict) else {}
    driver = tool.get("driver") if isinstance(tool.get("driver"), dict) else None
    ext = tool.get("extensions") if isinstance(tool.get("extensions"), list) else []
    if ref is None:
        if driver is None:
            raise Unresolved("no driver")
        return driver
    if not isinstance(ref, dict):
        raise Unresolved("toolComponent is not an object")
    i = index(ref.get("index"))
    if i is not None:
        if i >= len(ext):
            raise Unresolved(f"no extension {i}")
        return ext[i]
    everyone = ([driver] if driver is not None else []) + ext
    for key in ("guid", "name"):
        if key in ref:
            for c in everyone:
                if isinstance(c, dict) and c.get(key) == ref[key]:
                    return c
            raise Unresolved(f"no component with {key} {ref[key]!r}")
    raise Unresolved("toolComponent names nothing")


def rule_of(run, result):
    ref = result.get("rule")
    if ref is not None and not isinstance(ref, dict):
        raise Unresolved("rule is not an object")
    ref = ref or {}
    a, b = index(result.get("ruleIndex")), index(ref.get("index"))
    if a is not None and b is not None and a != b:
        raise Unresolved("ruleIndex and rule.index differ")
    idx = a if a is not None else b
    ida, idb = result.get("ruleId"), ref.get("id")
    if ida is not None and not isinstance(ida, str):
        ida = None
    if idb is not None and not isinstance(idb, str):
        idb = None
    if ida is not None and idb is not None and ida != idb:
        raise Unresolved("ruleId and rule.id differ")
    rid = ida if ida is not None else idb
    guid = ref.get("guid")
    tc = ref.get("toolComponent")
    if idx is None and rid is None and guid is None and tc is None:
        return None, None, None
    comp = component(run, tc)
    rules = comp.get("rules") if isinstance(comp, dict) else None
    rules = rules if isinstance(rules, list) else []

    def matches(r, want):
        have = r.get("id") if isinstance(r, dict) else None
        return isinstance(have, str) and (want == have or want.startswith(have + "/"))

    if idx is not None:
        if idx >= len(rules):
            raise Unresolved(f"no rule {idx}")
        if rid is not None and not matches(rules[idx], rid):
            raise Unresolved("the indexed rule has another id")
        return rules[idx], idx, comp
    if guid is not None:
        for i, r in enumerate(rules):
            if isinstance(r, dict) and r.get("guid") == guid:
                if rid is not None and not matches(r, rid):
                    raise Unresolved("the rule with that guid has another id")
                return r, i, comp
        raise Unresolved("no rule with that guid")
    if rid is not None:
        for i, r in enumerate(rules):
            if isinstance(r, dict) and r.get("id") == rid:
                return r, i, comp
        for i, r in enumerate(rules):
            if matches(r, rid):
                return r, i, comp
        raise Unresolved(f"no rule {rid!r}")
    raise Unresolved("a component but no rule")


def level_word(v):
    return v if v in LEVELS else "unresolved"


def spec_level(run, result):
    if "level" in result:
        return level_word(result["level"])
    try:
        rule, idx, comp = rule_of(run, result)
    except Unresolved:
        return "unresolved"
    if rule is None:
        return "warning"
    prov = result.get("provenance")
    inv_i = prov.get("invocationIndex") if isinstance(prov, dict) else None
    invs = run.get("invocations") if isinstance(run.get("invocations"), list) else []
    if isinstance(inv_i, int) and 0 <= inv_i < len(invs) and isinstance(invs[inv_i], dict):
        for o in invs[inv_i].get("ruleConfigurationOverrides") or []:
            d = o.get("descriptor") if isinstance(o, dict) else None
            if isinstance(d, dict) and (d.get("id") == rule.get("id") or (d.get("index") == idx and same(run, d.get("toolComponent"), comp))):
                lvl = (o.get("configuration") or {}).get("level")
                if lvl is not None:
                    return level_word(lvl)
    conf = rule.get("defaultConfiguration")
    if isinstance(conf, dict) and "level" in conf:
        return level_word(conf["level"])
    return "warning"


def same(run, ref, comp):
    """Whether a descriptor's toolComponent reference (absent: the driver)
    is the component `comp`."""
    try:
        return component(run, ref) is comp
    except Unresolved:
        return False


class NotRead(Exception):
    """A reader that does not read this part of SARIF."""


def suppressed(result):
    s = result.get("suppressions")
    if not isinstance(s, list) or not s:
        return False
    return all(isinstance(x, dict) and x.get("status", "accepted") == "accepted" for x in s)


def spec_counts(result):
    """The specification's (and the SARIF SDK's) filter: kind "fail" (absent:
    fail) and not suppressed."""
    return result.get("kind", "fail") == "fail" and not suppressed(result)


def every_result(result):
    """sarif-tools' filter: none. It reads neither kind nor suppressions
    (its `read_result_severity` gives a result its own level whatever its
    kind, and "none" to a non-fail kind without one), so a filter here
    would hide what it counts (red team 34: it hid a suppressed error)."""
    return True


def read(path, level_of, counted=spec_counts):
    with open(path, encoding="utf-8") as f:
        log = json.load(f)
    if not isinstance(log, dict) or log.get("version") != "2.1.0":
        raise ValueError("not SARIF 2.1.0")
    runs = log.get("runs")
    if not isinstance(runs, list):
        raise ValueError("no runs array")
    out = {"analysed": 0, "tool_failed": False, "levels": []}
    for run in runs:
        if not isinstance(run, dict):
            raise ValueError("a run is not an object")
        for inv in run.get("invocations") or []:
            if isinstance(inv, dict) and inv.get("executionSuccessful") is False:
                out["tool_failed"] = True
        results = run.get("results")
        if not isinstance(results, list):
            continue
        out["analysed"] += 1
        for result in results:
            if not isinstance(result, dict):
                raise ValueError("a result is not an object")
            if not counted(result):
                continue
            out["levels"].append(level_of(run, result))
    return out


def readers():
    yield "spec", spec_level, spec_counts
    try:
        from sarif import sarif_file_utils
    except ImportError:
        return

    def tools_level(run, result):
        # sarif-tools looks for rules in the driver only, by index or id,
        # whatever rule.toolComponent, rule.guid or a hierarchical id say: a
        # result pointing into tool.extensions can read as another rule of
        # the driver (red team 34). std/sarif counts the higher of its
        # reading and this one, so every log is compared with it.
        try:
            return level_word(sarif_file_utils.read_result_severity(result, run))
        except Exception:  # noqa: BLE001 - a reader that stops is unresolved
            return "unresolved"

    yield "sarif-tools", tools_level, every_result


def main():
    out = {}
    for path in sys.argv[1:]:
        seen = {}
        for name, level_of, counted in readers():
            try:
                seen[name] = read(path, level_of, counted)
            except NotRead as e:
                seen[name] = {"not_read": str(e)}
            except Exception as e:  # noqa: BLE001 - the reader's refusal
                seen[name] = {"error": f"{type(e).__name__}: {e}"}
        out[path] = seen
    json.dump(out, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
