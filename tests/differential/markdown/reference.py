"""What a CommonMark renderer makes of each Markdown file.

Usage: python reference.py FILE...  (the venv python of
tests/install-tools.sh, `diff-md-py`: markdown-it-py in its "commonmark"
preset, and the standard library's html.parser). Prints one JSON object:
for each file,

  {"headings": [{"level", "text", "key", "hidden", "words"}],
   "paragraphs": [{"text", "in_list", "in_quote", "hidden"}],
   "html_blocks": [{"content", "hides"}],
   "uncited": [paragraph text, ...]}

read from the HTML markdown-it-py renders, as a browser shows it: text
inside <style>, <script>, <template> or an element with the `hidden`
attribute or a hiding inline style, or in an element a browser does not
show as text (NOT_SHOWN), is hidden. `key` is the title as std/markdown-sections compares
it (default-ignorable characters removed, NFKC, trimmed, a trailing `:`
dropped, spaces collapsed, lower case); `words` counts the visible words
of the section (to the next heading of the same or a higher level: text,
code and the titles of its subsections). Paragraphs are Markdown's own (tight list items included, as
<p> with their hidden flag undone), not <p> written in raw HTML.
`uncited` lists the visible Markdown paragraphs, outside reference
sections, pipe tables and footnote definitions, that hold a sentence of
four or more words and no citation anywhere: no link, no `[n]` or `[^x]`
marker, no URL, no UNSOURCED/INFERENCE label.
"""

import json
import re
import sys
import unicodedata
from html.parser import HTMLParser

from markdown_it import MarkdownIt

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr", "keygen"}
REFERENCE_SECTIONS = {"references", "reference list", "sources", "bibliography",
                      "citations", "works cited", "footnotes", "literature"}
# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt).
IGNORABLE = [(0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
             (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
             (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
             (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
             (0xE0000, 0xE0FFF)]
CITATION = re.compile(r"\[\d+(?:\s*[,–-]\s*\d+)*\]|\[\^[^\]]+\]|https?://\S+")
LABELS = re.compile(r"(?<![A-Za-z0-9_])(UNSOURCED|INFERENCE)(?![A-Za-z0-9_])")


# Elements a browser does not show as text: raw text and RCDATA, the
# rendering spec's display:none elements, fallback content, SVG metadata
# (a <dialog> or <details> with `open` is shown; a closed <details> shows
# its <summary>, hidden here too: vcc's stricter reading).
NOT_SHOWN = {"style", "script", "template", "noscript", "noembed", "noframes", "iframe",
             "title", "textarea", "datalist", "dialog", "details", "video", "audio", "object",
             "canvas", "desc", "metadata", "head", "rp"}


def style_hides(style):
    """An inline style that hides the element (the last declaration of a
    property wins)."""
    props = {}
    for decl in (style or "").split(";"):
        name, sep, value = decl.partition(":")
        if not sep:
            continue
        name = name.strip().lower()
        value = value.lower().replace("!important", "").strip()
        num = re.fullmatch(r"(-?[0-9.]+)[a-z%]*", value)
        if name == "display":
            props[name] = value == "none"
        elif name == "visibility":
            props[name] = value in ("hidden", "collapse")
        elif name == "content-visibility":
            props[name] = value == "hidden"
        elif name in ("line-height", "height", "max-height", "width", "max-width"):
            try:
                props[name] = bool(num) and float(num.group(1)) <= 0
            except ValueError:
                props[name] = False
        elif name == "opacity":
            props[name] = bool(num) and float(num.group(1)) < 0.1
        elif name == "filter":
            props[name] = "opacity(0" in value.replace(" ", "")
        elif name == "font-size":
            props[name] = tiny(value)
        elif name == "font":
            size = next((t for t in value.split() if re.match(r"[-0-9.]", t)), None)
            props[name] = size is not None and tiny(size.split("/")[0])
        elif name in ("color", "-webkit-text-fill-color"):
            props[name] = transparent(value)
        elif name in ("clip", "clip-path"):
            props[name] = value not in ("auto", "none")
        elif name in ("text-indent", "left", "top", "margin-left", "margin-top"):
            props[name] = value.startswith("-")
        elif name in ("right", "bottom"):
            props[name] = value != "auto" and not (num and float(num.group(1)) == 0)
        elif name == "transform":
            props[name] = value != "none"
    return any(props.values())


def tiny(value):
    """A font size no reader reads: under 4px, or a quarter of the parent's."""
    m = re.fullmatch(r"(-?[0-9.]+)([a-z%]*)", value.strip())
    if not m:
        return False
    try:
        n = float(m.group(1))
    except ValueError:
        return False
    unit = m.group(2)
    if unit == "px" or n <= 0:
        return n < 4
    if unit == "%":
        return n / 100 < 0.25
    if unit in ("em", "rem"):
        return n < 0.25
    return False


def transparent(value):
    """A colour with an alpha under 0.1, however written."""
    v = value.replace(" ", "")
    if v == "transparent":
        return True
    if v.startswith("#"):
        h = v[1:]
        return (len(h) == 4 and h.endswith("0")) or (len(h) == 8 and h.endswith("00"))
    m = re.fullmatch(r"[a-z]+\((.*)\)", v)
    if not m:
        return False
    args = m.group(1)
    if "/" in args:
        alpha = args.rsplit("/", 1)[1]
    elif args.count(",") == 3:
        alpha = args.rsplit(",", 1)[1]
    else:
        return False
    try:
        share = float(alpha[:-1]) / 100 if alpha.endswith("%") else float(alpha)
    except ValueError:
        return False
    return share < 0.1


def ignorable(c):
    o = ord(c)
    return any(a <= o <= b for a, b in IGNORABLE)


def key(title):
    t = unicodedata.normalize("NFKC", "".join(c for c in title if not ignorable(c)))
    t = t.strip().rstrip(":").strip()
    return " ".join(t.split()).lower()


# Where an HTML heading broke a Markdown paragraph: no sentence spans it.
BREAK = "\x00"


def words(text):
    return sum(1 for w in text.split() if any(c.isalnum() and not ignorable(c) for c in w))


def sentences(text):
    """Split at . ! ? followed by a space and a capital, digit, quote or bracket."""
    out, start = [], 0
    for m in re.finditer(r"[.!?](?=\s+[A-Z0-9\"'\[(“])", text):
        out.append(text[start:m.end()].strip())
        start = m.end()
    if text[start:].strip():
        out.append(text[start:].strip())
    return out


class Page(HTMLParser):
    """Walks the rendered HTML as a browser would show it."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.hiding = None  # (tag, depth)
        self.stack = []
        self.headings = []  # [level, text, hidden, own words]
        self.heading = None
        self.paragraphs = []
        self.para = None
        self.own = 0  # words before the first heading

    def hidden(self):
        return self.hiding is not None

    def handle_starttag(self, tag, attrs):
        names = {k.lower() for k, _ in attrs}
        if self.hiding:
            if tag == self.hiding[0]:
                self.hiding = (tag, self.hiding[1] + 1)
        elif (tag in NOT_SHOWN and not (tag in ("dialog", "details") and "open" in names)) or (
                tag not in VOID and ("hidden" in names or style_hides(dict(attrs).get("style")))):
            self.hiding = (tag, 1)
        if tag in VOID:
            return
        self.stack.append(tag)
        if re.fullmatch(r"h[1-6]", tag):
            # A heading start tag pops an open heading (the HTML tree
            # builder: `<h3>Plan<h2>FIXME</h2>` is two headings).
            if self.heading is not None:
                self.headings.append(self.heading)
            self.heading = [int(tag[1]), "", self.hidden(), 0]
            # Inside a Markdown paragraph (`Done. <h2>TODO</h2> more`): the
            # tree builder closes the <p> at the heading, so no sentence
            # runs across it.
            if self.para is not None:
                self.para["text"] += BREAK
        if tag == "p" and ("data-md", "1") in attrs and self.para is None:
            self.para = {"text": "", "in_list": "li" in self.stack[:-1],
                         "in_quote": "blockquote" in self.stack[:-1], "hidden": self.hidden(),
                         "links": 0}
        if tag == "a" and self.para is not None and not self.hidden():
            self.para["links"] += 1

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if self.hiding and tag == self.hiding[0]:
            depth = self.hiding[1] - 1
            self.hiding = None if depth == 0 else (tag, depth)
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass
        if re.fullmatch(r"h[1-6]", tag) and self.heading is not None:
            self.headings.append(self.heading)
            self.heading = None
        if tag == "p" and self.para is not None and "p" not in self.stack:
            self.paragraphs.append(self.para)
            self.para = None

    def handle_data(self, data):
        if self.heading is not None:
            # A title is not a word of its section. A hidden heading keeps
            # its title (it still counts as forbidden); a visible one loses
            # what is hidden inside it.
            if self.heading[2] or not self.hidden():
                self.heading[1] += data
            return
        if self.para is not None:
            self.para["text"] += data if not self.hidden() else " "
        if self.hidden():
            return
        n = words(data)
        if self.headings:
            self.headings[-1][3] += n
        else:
            self.own += n


def read(text):
    md = MarkdownIt("commonmark")
    tokens = md.parse(text)
    html_blocks = []
    for t in tokens:
        if t.type == "paragraph_open":
            t.hidden = False
            t.attrSet("data-md", "1")
        elif t.type == "paragraph_close":
            t.hidden = False
        elif t.type == "html_block":
            c = t.content.lower()
            hides = bool(re.search(r"<(style|script|template)\b|<[a-z][^>]*\shidden\b", c))
            html_blocks.append({"content": t.content, "hides": hides})
    page = Page()
    page.feed(md.renderer.render(tokens, md.options, {}))
    page.close()
    hs = page.headings
    headings = []
    for i, (level, title, hidden, _) in enumerate(hs):
        total = 0
        for j in range(i, len(hs)):
            if j > i and hs[j][0] <= level:
                break
            # A subsection's title is words of the sections around it.
            if j > i and not hs[j][2]:
                total += words(hs[j][1])
            total += hs[j][3]
        headings.append({"level": level, "text": title.strip(), "key": key(title),
                         "hidden": hidden, "words": total})
    # Which paragraphs sit in a reference section: walk again in order.
    uncited = []
    for p in page.paragraphs:
        p["text"] = " ".join(p["text"].split())
    order = reference_flags(md, tokens)
    for p, in_refs in zip(page.paragraphs, order):
        t = p["text"]
        if p["hidden"] or in_refs or t.startswith("|") or re.match(r"\[\^[^\]]+\]:", t):
            continue
        if not any(words(s) >= 4 for part in t.split(BREAK) for s in sentences(part)):
            continue
        if p["links"] or CITATION.search(t) or LABELS.search(t):
            continue
        uncited.append(t)
    paragraphs = [{k: p[k] for k in ("text", "in_list", "in_quote", "hidden")}
                  for p in page.paragraphs]
    uncited = [u.replace(BREAK, " ") for u in uncited]
    return {"headings": headings, "paragraphs": paragraphs, "html_blocks": html_blocks,
            "uncited": uncited}


def reference_flags(md, tokens):
    """For each Markdown paragraph in order: whether it is in a reference
    section (after a heading so titled, before the next heading of the
    same or a higher level)."""
    flags, refs, i = [], None, 0
    while i < len(tokens):
        t = tokens[i]
        if t.type == "heading_open":
            level = int(t.tag[1])
            title = tokens[i + 1].content if i + 1 < len(tokens) else ""
            if refs is None or level <= refs:
                refs = level if key(title) in REFERENCE_SECTIONS else None
        elif t.type == "paragraph_open":
            flags.append(refs is not None)
        i += 1
    return flags


def main():
    out = {}
    for path in sys.argv[1:]:
        try:
            with open(path, encoding="utf-8") as f:
                out[path] = read(f.read())
        except Exception as e:  # a file the reader cannot read is an error
            out[path] = {"error": f"{type(e).__name__}: {e}"}
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
