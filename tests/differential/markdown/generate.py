"""Adversarial Markdown for the markdown differential, from a fixed seed.

Usage: python generate.py OUT_DIR [COUNT [SEED]]  (standard library only).
Writes COUNT (default 300, seed 34) files `gen-NNN.md`: documents
assembled from the shapes where Markdown readers differ — ATX and setext headings, headings
in list items, block quotes, fenced and indented code, lazy continuation
lines, the seven kinds of HTML block, hidden HTML (<style>, <script>,
<template>, `hidden`), paragraphs led by inline HTML, list items with
several paragraphs, cited and uncited claims, reference sections, and
titles disguised with zero-width or full-width characters, images,
character references, HTML <p> and <img alt>, pipe lines without a
delimiter row, CSS-hidden citations and labels, a closed <dialog>'s
heading, a definition in a comment, links with blank text, claims spaced
by &#32; or blank characters, HTML <h1>-<h6>, closed and open <dialog>,
inline styles that hide (and one that does not), the elements a browser
does not show, inline HTML headings (after text, in a link's text, in a
table row, one start tag ending another), citations hidden by faint, tiny
or transparent styles, in closed <details>, <noscript> or media fallback,
or by a style that hides only in some layouts, a `<` that starts no tag —
and one file per shape
alone (`shape-*.md`).
"""

import os
import random
import sys

TITLES = ["Summary", "Risks", "TODO", "Testing", "Findings", "Scope"]
CLAIMS = [
    "Cursor pagination keeps pages stable under inserts",
    "Offset pagination skips rows when the data changes",
    "Most clients read only the first page of results",
    "Exports larger than a gigabyte time out today",
    "Latency halved after the change last week",
]
# Link texts a reader does not see.
BLANK_LINKS = ["[ ]", "[&nbsp;]", "[\u200b]", "[<!-- -->]"]
# Inline styles that hide text whatever the layout, and some that hide it
# only in some layouts (std/citation-coverage refuses those).
FAINT = ["color:transparent", "opacity:0.01", "font:0/0 a", "color:rgba(0,0,0,0.0)",
         "font-size:1px", "filter:opacity(0)"]
LAYOUT = ["position:absolute;left:-9999px", "display:inline-block;transform:scale(0)",
          "position:absolute;clip-path:inset(50%)",
          "display:inline-block;width:0;height:0;overflow:hidden"]
WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa".split()


def title(r):
    t = r.choice(TITLES)
    k = r.random()
    if k < 0.12:
        i = r.randrange(1, len(t))
        return t[:i] + "\u200b" + t[i:]
    if k < 0.22:
        return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in t)
    if k < 0.3:
        return t + ":"
    return t


def claim(r):
    c = r.choice(CLAIMS)
    k = r.random()
    if k < 0.45:
        return c + " [1]."
    if k < 0.55:
        return c + " UNSOURCED."
    if k < 0.65:
        return c + " <span hidden>[1]</span>."
    if k < 0.72:
        return c + " <!-- [1] -->."
    return c + "."


def words(r, n=None):
    return " ".join(r.choice(WORDS) for _ in range(n or r.randint(1, 8)))


def block(r, k=None):
    t = title(r)
    k = r.randrange(SHAPES) if k is None else k
    shapes = [
        lambda: f"{'#' * r.randint(1, 6)} {t}",
        lambda: f"{t}\n{r.choice(['=', '-']) * r.randint(1, 8)}",
        lambda: f"{' ' * r.randint(1, 3)}## {t}",
        lambda: f"    ## {t}",
        lambda: f"```\n## {t}\n{words(r)}\n```",
        lambda: f"~~~~\n# {t}\n~~~",
        lambda: f"- ## {t}\n- {words(r)}",
        lambda: f"> ## {t}\n> {words(r)}",
        lambda: f"#{t}",
        lambda: f"## {t} ##",
        lambda: f"{words(r)}\n## {t}",
        lambda: f"{words(r)}\n{'=' * 3}",
        lambda: f"- {claim(r)}\n\n    {claim(r)}",
        lambda: f"1. {claim(r)}\n\n   {claim(r)}",
        lambda: f"- {claim(r)}\n{claim(r)}",
        lambda: f"> {claim(r)}\n{claim(r)}",
        lambda: f"<b>Note:</b> {claim(r)}",
        lambda: f"<span>{claim(r)}</span>",
        lambda: claim(r) + " " + claim(r),
        lambda: f"<script>\n{words(r, 12)}\n</script>",
        lambda: f"<style>\n.x {{ {words(r, 12)} }}\n</style>",
        lambda: f"<pre>\n## {t}\n{words(r)}\n</pre>",
        lambda: f"<!--\n## {t}\n{words(r, 10)}\n-->",
        lambda: f"<?php {words(r)} ?>",
        lambda: f"<!DOCTYPE html>",
        lambda: f"<![CDATA[ {words(r)} ]]>",
        lambda: f"<div>\n{words(r, 10)}\n</div>",
        lambda: f"<custom-tag>\n{words(r, 10)}\n</custom-tag>",
        lambda: f"<template>\n{words(r, 10)}\n\n## {t}\n</template>",
        lambda: f"<div hidden>\n\n{claim(r)}\n\n## {t}\n\n{words(r, 10)}\n\n</div>",
        lambda: f"<section hidden=\"until-found\">\n{words(r, 10)}\n</section>",
        lambda: f"<details><summary>{t}</summary>\n\n{words(r, 6)}\n\n</details>",
        lambda: f"## References\n\n1. Smith, Export latency, 2025.\n\n{claim(r)}",
        lambda: f"| {t} | {words(r, 2)} |\n|---|---|\n| {claim(r)} | x |",
        lambda: f"![{words(r, 6)}](figure.png) {words(r, 2)}",
        lambda: f"<div>\n&nbsp; &nbsp; &#8203; &amp; &copy;\n</div>",
        lambda: f"{words(r, 2)} &nbsp; &#x200B; &lt;b&gt; {words(r, 2)}",
        lambda: f"<p>{claim(r)}</p>",
        lambda: f"<div style=\"display:none\">\n{words(r, 8)}\n</div>",
        lambda: f"Text <img alt=\"{words(r, 5)}\" src=x.png> {claim(r)}",
        lambda: f"| {claim(r)} |\n| {claim(r)} |",
        lambda: f"{r.choice(CLAIMS)}<span style=\"display:none\"> [1]</span>.",
        lambda: f"{r.choice(CLAIMS)} <span style=\"visibility: hidden\">UNSOURCED</span>.",
        lambda: f"<dialog>\n\n## Sources\n\n</dialog>\n\n{claim(r)}",
        lambda: f"{r.choice(CLAIMS)} [2].\n\n<!--\n[2]: https://example.org/b\n-->",
        lambda: r.choice(CLAIMS) + " " + r.choice(BLANK_LINKS) + "(https://example.org/a).",
        lambda: f"{r.choice(CLAIMS)} <a href=\"https://example.org/a\"></a>.",
        lambda: r.choice(CLAIMS).replace(" ", r.choice(["&#32;", "\u2800", "\u3164"])) + ".",
        lambda: (lambda n: f"<h{n}>{t}</h{n}>")(r.randint(1, 6)),
        lambda: f"<dialog>\n\n## {t}\n\n{words(r, 10)}\n\n</dialog>",
        lambda: f"<dialog open>\n{words(r, 8)}\n</dialog>",
        lambda: f"<p>{words(r, 2)} <span style=\"Visibility : hidden\">{words(r, 8)}</span></p>",
        lambda: f"## {t[:2]}<span style=\"display:none\">{words(r, 1)}</span>{t[2:]}",
        lambda: f"<noscript>\n{words(r, 8)}\n</noscript>",
        lambda: f"<div style=\"opacity: 0.5\">\n{words(r, 8)}\n</div>",
        lambda: f"<datalist>\n{words(r, 8)}\n</datalist>\n\n<title>{words(r, 4)}</title>",
        # Inline HTML headings: after text, as a link's text, in a table
        # row, one start tag ending another (a browser shows each).
        lambda: (lambda n: f"{words(r, 2)}. <h{n}>{t}</h{n}> {words(r, 2)}")(r.randint(1, 6)),
        lambda: (lambda n: f"[<h{n}>{t}</h{n}>](#x) {words(r, 2)}")(r.randint(1, 6)),
        lambda: f"| <h2>{t}</h2> |\n|---|\n| {words(r, 2)} |",
        lambda: f"<h3>{words(r, 1)}<h2>{t}</h2>",
        # Issue 34, round 3: citations a reader does not see, by the shared
        # reading's styles and elements; a style that hides only in some
        # layouts; a `<` that starts no tag.
        lambda: f"{r.choice(CLAIMS)}<span style=\"{r.choice(FAINT)}\"> [1]</span>.",
        lambda: (lambda e: f"{r.choice(CLAIMS)}<{e}><summary></summary> [1]</{e}>.")(
            r.choice(["details", "noscript", "video", "iframe", "audio", "object"])
        ),
        lambda: f"{r.choice(CLAIMS)}<span style=\"{r.choice(LAYOUT)}\"> [1]</span>.",
        lambda: f"<p>Latency < 5 ms {words(r, 8)}.</p>",
        lambda: f"<div>\nLatency < 5 ms.\n<h2>{t}</h2>\n</div>",
    ]
    return shapes[k % len(shapes)]()


# How many shapes `block` has (one `shape-*.md` file each).
SHAPES = 65


def document(r):
    parts = [f"# {title(r)}"]
    for _ in range(r.randint(2, 9)):
        parts.append(block(r))
        if r.random() < 0.5:
            parts.append(words(r, r.randint(1, 12)))
    parts.append("[1]: https://example.org/a")
    sep = "\n\n" if r.random() < 0.8 else "\n"
    return sep.join(parts) + "\n"


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    os.makedirs(out, exist_ok=True)
    r = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 34)
    for i in range(count):
        with open(os.path.join(out, f"gen-{i:03}.md"), "w", encoding="utf-8") as f:
            f.write(document(r))
    # Each shape alone under a heading of its own, cited claims around it.
    for i in range(SHAPES):
        r2 = random.Random(1000 + i)
        body = ["# Findings", "Exports larger than a gigabyte time out today [1].",
                block(r2, i), "[1]: https://example.org/a"]
        with open(os.path.join(out, f"shape-{i:02}.md"), "w", encoding="utf-8") as f:
            f.write("\n\n".join(body) + "\n")


if __name__ == "__main__":
    main()
