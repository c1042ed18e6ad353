"""CSV datasets where readers may see other rows or columns.

Usage: python generate.py OUT_DIR [COUNT] [SEED]  (defaults 300, 34).
Each file is a table of `id`, `score` (sometimes `note`) in random column
order with 0-5 rows, written with 0-3 quirks from the shapes where CSV
readers differ: a UTF-8 BOM, CRLF, blank and whitespace-only lines,
trailing empty lines, quoted fields, quoted newlines and escaped quotes,
ragged rows, another delimiter (`;`, tab), a duplicate header, padded
headers, an extra or missing column, empty cells, a quote inside an
unquoted field, text after a closing quote, an unclosed quote, a lone CR,
a trailing comma, a `score.1` column, and number spellings (`+5`, `05`,
` 5`, `5.0`, `1e2`, `1_0`, 20 digits).
"""

import os
import random
import sys

WORDS = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "NA", "null", "x y", "a,b"]
NUMBERS = ["+5", "05", " 5", "5 ", "5.0", "1e2", "1_0", "99999999999999999999", "-0", "0x10"]


def quote(cell, rng, force=False):
    if force or any(c in cell for c in ',"\r\n') or rng.random() < 0.1:
        return '"' + cell.replace('"', '""') + '"'
    return cell


def table(rng):
    header = ["id", "score"] + (["note"] if rng.random() < 0.4 else [])
    rng.shuffle(header)
    rows = []
    for _ in range(rng.randint(0, 5)):
        row = {
            "id": rng.choice(WORDS),
            "score": str(rng.choice([rng.randint(0, 100)] * 4 + [rng.randint(-50, 200)])),
            "note": rng.choice(["", "fine", "two\nlines", 'say "hi"']),
        }
        rows.append([row[h] for h in header])
    return header, rows


def render(header, rows, rng, quirks):
    sep = ";" if "semicolon" in quirks else "\t" if "tab" in quirks else ","
    nl = "\r\n" if "crlf" in quirks else "\n"
    lines = [sep.join(quote(h, rng) for h in header)]
    for row in rows:
        lines.append(sep.join(quote(c, rng, "quote-all" in quirks) for c in row))
    text = nl.join(lines) + nl
    return text


def apply(rng, header, rows, quirk):
    score = header.index("score") if "score" in header else 0
    if quirk == "duplicate-header":
        h = rng.choice(["score", "id"])
        header.append(h)
        for r in rows:
            r.append(str(rng.randint(0, 100)) if h == "score" else rng.choice(WORDS))
    elif quirk == "padded-header":
        i = rng.randrange(len(header))
        header[i] = rng.choice([" ", "", "  "]) + header[i] + rng.choice([" ", ""])
    elif quirk == "extra-column":
        header.append(rng.choice(["waiver", "score.1", "Score", ""]))
        for r in rows:
            r.append(rng.choice(["", "", "yes", "200"]))
    elif quirk == "missing-column" and len(header) > 1:
        i = rng.randrange(len(header))
        del header[i]
        for r in rows:
            if i < len(r):
                del r[i]
    elif quirk == "empty-cell" and rows and header:
        r = rng.choice(rows)
        r[rng.randrange(len(r))] = ""
    elif quirk == "ragged" and rows:
        r = rng.choice(rows)
        if rng.random() < 0.5:
            r.append("extra")
        else:
            r.pop()
    elif quirk == "number" and rows:
        r = rng.choice(rows)
        if score < len(r):
            r[score] = rng.choice(NUMBERS)


RAW = ["bom", "blank-lines", "whitespace-line", "trailing-empty", "quote-inside",
       "after-quote", "unclosed", "lone-cr", "trailing-comma", "empty-file", "header-only"]
TABLE = ["duplicate-header", "padded-header", "extra-column", "missing-column",
         "empty-cell", "ragged", "number", "number"]
RENDER = ["crlf", "semicolon", "tab", "quote-all"]


def raw(rng, text, quirk):
    lines = text.split("\n")
    if quirk == "bom":
        return "\ufeff" + text
    if quirk == "blank-lines":
        lines.insert(rng.randint(1, len(lines)), "")
    elif quirk == "whitespace-line":
        lines.insert(rng.randint(1, len(lines)), rng.choice([" ", "\t", " , "]))
    elif quirk == "trailing-empty":
        return text + rng.choice(["\n", "\n\n", ",\n"])
    elif quirk == "quote-inside":
        i = rng.randrange(len(lines))
        lines[i] = lines[i].replace("a", 'a"', 1)
    elif quirk == "after-quote":
        return text.replace('",', '"x,', 1) if '",' in text else '"id"x,' + text
    elif quirk == "unclosed":
        return text.rstrip("\n") + ',"open\n'
    elif quirk == "lone-cr":
        return text.replace("\n", "\r", 1)
    elif quirk == "trailing-comma":
        lines[0] = lines[0] + ","
    elif quirk == "empty-file":
        return rng.choice(["", "\n", "\ufeff"])
    elif quirk == "header-only":
        return lines[0] + "\n"
    return "\n".join(lines)


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 34)
    os.makedirs(out, exist_ok=True)
    for n in range(count):
        header, rows = table(rng)
        quirks = [rng.choice(RAW + TABLE + RENDER) for _ in range(rng.choice([0, 1, 1, 2, 3]))]
        for q in quirks:
            if q in TABLE:
                apply(rng, header, rows, q)
        text = render(header, rows, rng, quirks)
        for q in quirks:
            if q in RAW:
                text = raw(rng, text, q)
        with open(os.path.join(out, f"gen-{n:04}.csv"), "w", encoding="utf-8", newline="") as f:
            f.write(text)


if __name__ == "__main__":
    main()
