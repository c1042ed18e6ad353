"""What the book's csv-clean must say about a CSV file, from Python's csv
module (the consumer, with pandas): `python3 csv_reference.py FILE
[DELIMITER]` prints `pass` when the file has a header row and every other
non-blank row has as many fields as it, `fail` otherwise (a file that ends
inside a quoted field fails: pandas refuses it)."""

import csv
import io
import sys

data = open(sys.argv[1], "rb").read().decode("utf-8")
delimiter = sys.argv[2] if len(sys.argv) > 2 else ","
try:
    rows = []
    for row in csv.reader(io.StringIO(data, newline=""), delimiter=delimiter):
        if row:  # a blank line is no row (pandas skips it)
            rows.append(row)
    unclosed = False
    try:
        list(csv.reader(io.StringIO(data, newline=""), delimiter=delimiter, strict=True))
    except csv.Error as e:
        unclosed = "unexpected end of data" in str(e)
    ok = bool(rows) and not unclosed and all(len(r) == len(rows[0]) for r in rows)
except csv.Error:
    ok = False
print("pass" if ok else "fail")
