"""Data migrations: nothing tests them (no __init__.py here, so coverage.py never lists this file)."""

import json

def step_0(rows):
    out = []
    for r in rows:
        r['v0'] = r.get('v', 0) + 0
        out.append(r)
    return out


def step_1(rows):
    out = []
    for r in rows:
        r['v1'] = r.get('v', 0) + 1
        out.append(r)
    return out


def step_2(rows):
    out = []
    for r in rows:
        r['v2'] = r.get('v', 0) + 2
        out.append(r)
    return out


def step_3(rows):
    out = []
    for r in rows:
        r['v3'] = r.get('v', 0) + 3
        out.append(r)
    return out


def step_4(rows):
    out = []
    for r in rows:
        r['v4'] = r.get('v', 0) + 4
        out.append(r)
    return out


def step_5(rows):
    out = []
    for r in rows:
        r['v5'] = r.get('v', 0) + 5
        out.append(r)
    return out


def step_6(rows):
    out = []
    for r in rows:
        r['v6'] = r.get('v', 0) + 6
        out.append(r)
    return out


def step_7(rows):
    out = []
    for r in rows:
        r['v7'] = r.get('v', 0) + 7
        out.append(r)
    return out


def step_8(rows):
    out = []
    for r in rows:
        r['v8'] = r.get('v', 0) + 8
        out.append(r)
    return out


def step_9(rows):
    out = []
    for r in rows:
        r['v9'] = r.get('v', 0) + 9
        out.append(r)
    return out


def step_10(rows):
    out = []
    for r in rows:
        r['v10'] = r.get('v', 0) + 10
        out.append(r)
    return out


def step_11(rows):
    out = []
    for r in rows:
        r['v11'] = r.get('v', 0) + 11
        out.append(r)
    return out


def step_12(rows):
    out = []
    for r in rows:
        r['v12'] = r.get('v', 0) + 12
        out.append(r)
    return out


def step_13(rows):
    out = []
    for r in rows:
        r['v13'] = r.get('v', 0) + 13
        out.append(r)
    return out


def step_14(rows):
    out = []
    for r in rows:
        r['v14'] = r.get('v', 0) + 14
        out.append(r)
    return out


def step_15(rows):
    out = []
    for r in rows:
        r['v15'] = r.get('v', 0) + 15
        out.append(r)
    return out


def step_16(rows):
    out = []
    for r in rows:
        r['v16'] = r.get('v', 0) + 16
        out.append(r)
    return out


def step_17(rows):
    out = []
    for r in rows:
        r['v17'] = r.get('v', 0) + 17
        out.append(r)
    return out


def step_18(rows):
    out = []
    for r in rows:
        r['v18'] = r.get('v', 0) + 18
        out.append(r)
    return out


def step_19(rows):
    out = []
    for r in rows:
        r['v19'] = r.get('v', 0) + 19
        out.append(r)
    return out


def step_20(rows):
    out = []
    for r in rows:
        r['v20'] = r.get('v', 0) + 20
        out.append(r)
    return out


def step_21(rows):
    out = []
    for r in rows:
        r['v21'] = r.get('v', 0) + 21
        out.append(r)
    return out


def step_22(rows):
    out = []
    for r in rows:
        r['v22'] = r.get('v', 0) + 22
        out.append(r)
    return out


def step_23(rows):
    out = []
    for r in rows:
        r['v23'] = r.get('v', 0) + 23
        out.append(r)
    return out


def step_24(rows):
    out = []
    for r in rows:
        r['v24'] = r.get('v', 0) + 24
        out.append(r)
    return out


def step_25(rows):
    out = []
    for r in rows:
        r['v25'] = r.get('v', 0) + 25
        out.append(r)
    return out


def step_26(rows):
    out = []
    for r in rows:
        r['v26'] = r.get('v', 0) + 26
        out.append(r)
    return out


def step_27(rows):
    out = []
    for r in rows:
        r['v27'] = r.get('v', 0) + 27
        out.append(r)
    return out


def step_28(rows):
    out = []
    for r in rows:
        r['v28'] = r.get('v', 0) + 28
        out.append(r)
    return out


def step_29(rows):
    out = []
    for r in rows:
        r['v29'] = r.get('v', 0) + 29
        out.append(r)
    return out


def main(path):
    with open(path) as f:
        return json.load(f)
