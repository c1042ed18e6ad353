#!/usr/bin/env python3
"""The JSON-evidence reference (issue 34, class 9): each rule of rules.json
judged on each document by Python's json (strict: no NaN or Infinity, as
RFC 8259) with the wildcard semantics the book gives std/json-evidence,
written here independently: a wildcard judges every element it reaches,
and an element without the rest of the path is an absent value (like
null); a path that selects nothing is one absent value.

Usage: reference.py RULES_JSON DOC...
Prints {doc: ["pass" | "fail" | "error: ...", ...]} (one per rule).
"""

import json
import re
import sys


def tokens(path):
    if path.startswith("/"):
        return [t.replace("~1", "/").replace("~0", "~") for t in path[1:].split("/")]
    out = []
    for part in path.split("."):
        name, _, rest = part.partition("[")
        if name:
            out.append(name)
        if rest:
            out += [t for t in ("[" + rest).replace("]", "").split("[") if t]
    return out


MISSING = object()


def reach(value, toks):
    """Every value the path reaches; MISSING where an element lacks it."""
    if not toks:
        return [value]
    head, rest = toks[0], toks[1:]
    if value is MISSING:
        return [MISSING]
    if head == "*":
        if isinstance(value, list):
            items = value
        elif isinstance(value, dict):
            items = list(value.values())
        else:
            return [MISSING]
        return [v for item in items for v in reach(item, rest)]
    if isinstance(value, dict):
        return reach(value.get(head, MISSING), rest)
    if isinstance(value, list) and head.isdigit() and int(head) < len(value):
        return reach(value[int(head)], rest)
    return [MISSING]


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def holds(rule, v):
    absent = v is MISSING or v is None
    expect = rule.get("expect")
    if expect == "absent":
        return absent
    if absent:
        return False
    if expect == "non_empty" and (v == "" or (isinstance(v, str) and not v.strip()) or v == [] or v == {}):
        return False
    if expect is True or expect is False:
        if v is not expect:
            return False
    if "equals" in rule and not same(v, rule["equals"]):
        return False
    if "one_of" in rule and not any(same(v, o) for o in rule["one_of"]):
        return False
    if "matches" in rule and not (isinstance(v, str) and re.search(rule["matches"], v)):
        return False
    for op, test in (("gte", lambda a, b: a >= b), ("lte", lambda a, b: a <= b),
                     ("gt", lambda a, b: a > b), ("lt", lambda a, b: a < b)):
        if op in rule and not (number(v) and test(v, rule[op])):
            return False
    return True


def same(a, b):
    """JSON equality: 1 == 1.0, but true is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


def strict(text):
    def refuse(name):
        raise ValueError(f"{name} is not JSON")
    return json.loads(text, parse_constant=refuse)


def main():
    rules = json.load(open(sys.argv[1]))
    out = {}
    for doc in sys.argv[2:]:
        try:
            value = strict(open(doc, encoding="utf-8").read())
        except (ValueError, UnicodeDecodeError) as e:
            out[doc] = [f"error: {e}"] * len(rules)
            continue
        verdicts = []
        for rule in rules:
            found = reach(value, tokens(rule["path"]))
            verdicts.append("pass" if all(holds(rule, v) for v in (found or [MISSING])) else "fail")
        out[doc] = verdicts
    print(json.dumps(out))


if __name__ == "__main__":
    main()
