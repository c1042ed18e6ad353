"""What pandas and Python's csv read from each CSV dataset, judged by the
contract's two schemas.

Usage: python reference.py CSV...  (the `diff-data-py` venv of
tests/install-tools.sh: pandas). Prints one JSON object: for each file,
for each reader ("pandas": `read_csv` with its defaults but for missing
values, "csv": `csv.reader` over `utf-8-sig`, blank lines skipped as
`DictReader` does, a duplicate header keeping the last value as
`DictReader` does), {"columns": [...], "closed": bool, "open": bool} or
{"error": "..."} when the reader refuses the file.

A header naming a column twice never holds: pandas reads the first
column (renaming the second `x.1`), DictReader the last.

`open` holds when the rows the reader sees satisfy the open schema: the
columns `id` and `score` are there, every row has an `id` and an integer
`score` from 0 to 100 (pandas: the column's dtype is an integer); `closed`
also needs every column to be `id`, `score` or `note`
(additionalProperties: false). Only empty cells are missing values here
(`keep_default_na=False`): pandas' default reads `NA`, `null` and other
words as missing too, where vcc reads text (the book says so).
"""

import csv
import json
import sys

NAMED = {"id", "score", "note"}


def judge(columns, ids_present, scores_ok, duplicate):
    have = "id" in columns and "score" in columns
    # A header naming a column twice: pandas reads the first (and renames
    # the second `x.1`), DictReader the last; no one reading holds.
    base = have and ids_present and scores_ok and not duplicate
    return {"columns": columns, "duplicate_header": duplicate, "open": base, "closed": base and set(columns) <= NAMED}


def raw_header(path):
    """The header as Python's csv reads it (for duplicates), or []."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            return next((r for r in csv.reader(f) if r), [])
    except Exception:  # noqa: BLE001 - then pandas' own reading decides
        return []


def duplicated(path):
    header = raw_header(path)
    return len(set(header)) < len(header)


def with_pandas(path):
    import pandas as pd
    from pandas.api.types import is_integer_dtype

    df = pd.read_csv(path, keep_default_na=False, na_values=[""])
    columns = [str(c) for c in df.columns]
    if len(df) == 0:
        return judge(columns, True, True, duplicated(path))
    ids = "id" in df.columns and not df["id"].isna().any()
    scores = (
        "score" in df.columns
        and is_integer_dtype(df["score"])
        and bool(((df["score"] >= 0) & (df["score"] <= 100)).all())
    )
    return judge(columns, ids, scores, duplicated(path))


def with_csv(path):
    with open(path, encoding="utf-8-sig", newline="") as f:
        rows = [r for r in csv.reader(f, strict=True) if r]
    if not rows:
        raise ValueError("no header")
    header, rows = rows[0], rows[1:]
    ids = scores = True
    for r in rows:
        if len(r) != len(header):
            raise ValueError(f"a row of {len(r)} fields under {len(header)} headers")
        row = dict(zip(header, r))  # the last of a duplicate name, as DictReader
        ids = ids and row.get("id", "") != ""
        try:
            scores = scores and 0 <= int(row.get("score", "")) <= 100
        except ValueError:
            scores = False
    return judge(header, ids, scores, len(set(header)) < len(header))


def main():
    out = {}
    for path in sys.argv[1:]:
        seen = {}
        for name, reader in (("pandas", with_pandas), ("csv", with_csv)):
            try:
                seen[name] = reader(path)
            except Exception as e:  # noqa: BLE001 - the reader's refusal
                seen[name] = {"error": f"{type(e).__name__}: {e}"}
        out[path] = seen
    json.dump(out, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
