"""The C SDK's JSON reader against Python's json module (the reference):
`python3 reference.py HARNESS`. For each document and key, what Python
reads decides what the SDK must give: the member's value when it is of the
accessor's type, and nothing (the fallback) when the member is absent, of
another type, or the document is not one well-formed JSON object. Exit 1
on any disagreement, naming it."""

import json
import subprocess
import sys

harness = sys.argv[1]

DOCS = [
    ('{"n":1,"n":2}', "n"),
    ('{"n":1e2}', "n"),
    ('{"n":-0}', "n"),
    ('{"n":99999999999999999999}', "n"),
    ('{"n":-9223372036854775808}', "n"),
    ('{"n":012}', "n"),
    ('{"n":+5}', "n"),
    ('{"n":1.0}', "n"),
    ('{"n":-}', "n"),
    ('{"n":12e}', "n"),
    ('{"ok":truee}', "ok"),
    ('{"ok":tru}', "ok"),
    ('{"ok":true1}', "ok"),
    ('{"ok":false}', "ok"),
    ('{"ok":null}', "ok"),
    ('{"n":1,"\\u0000":2}', "n"),
    ('{"s":"a\\u0000b"}', "s"),
    ('{"s":"\\ud83d\\ude00"}', "s"),
    ('{"sc\\u006fre":5}', "score"),
    ('{"s":"a\tb"}', "s"),
    ('{"n":1,}', "n"),
    ('{"n":1} x', "n"),
    ('{"o":{"n":9},"n":1}', "n"),
    ('{"o":{"n":9}}', "n"),
    ('{"d":' + "[" * 300 + "]" * 300 + ',"n":1}', "n"),
    ('{"s":"\\x41"}', "s"),
    ('{"s":"a\\"b","n":3}', "n"),
    ('{"s":"\\",\\"n\\":7","n":3}', "n"),
    ('{"n":\x0b1}', "n"),
    ('{"n":5.}', "n"),
    ('[{"n":1}]', "n"),
    ('{"ok":"true"}', "ok"),
    ('{"n":"5"}', "n"),
    ('{"l":["a",1]}', "l"),
    ('{"l":["a","b\\n"]}', "l"),
    ('{"l":[]}', "l"),
    ('{"n":0x10}', "n"),
    ('{"n":100e-2}', "n"),
    ('{"":1}', ""),
    ('{"n":1 /*x*/}', "n"),
    ("{'n':1}", "n"),
    (' \n{ "word" : "caf\\u00e9" , "max" : 3 }\n ', "word"),
    ('{"word":"two words","mode":"check"}', "mode"),
]


def expected(text, key):
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if not isinstance(doc, dict) or key not in doc:
        return {"has": False, "int": None, "bool": None, "str": None, "list": []}
    v = doc[key]
    is_int = isinstance(v, int) and not isinstance(v, bool) and -(2**63) <= v < 2**63
    is_str = isinstance(v, str) and "\0" not in v
    is_list = isinstance(v, list) and all(isinstance(i, str) and "\0" not in i for i in v)
    return {
        "has": True,
        "int": v if is_int else None,
        "bool": v if isinstance(v, bool) else None,
        "str": v if is_str else None,
        "list": v if is_list else [],
    }


wrong = []
for text, key in DOCS:
    got = subprocess.run([harness, key], input=text.encode(), capture_output=True, check=True)
    got = json.loads(got.stdout)
    want = expected(text, key)
    if got != want:
        wrong.append(f"{text[:60]!r} [{key}]: the SDK gives {got}, Python's json {want}")
print(f"{len(DOCS) - len(wrong)} of {len(DOCS)} documents read as Python's json reads them")
for w in wrong:
    print("  " + w)
sys.exit(1 if wrong else 0)
