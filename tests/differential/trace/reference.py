#!/usr/bin/env python3
"""The trace-matrix reference (issue 34, class 4): does each entry of a
trace matrix resolve to a definition, as a person or a tool following it
would find one?

Usage: reference.py CASE_DIR...   (each holds a contract.yaml)

For every std/consistency criterion with `trace_matrix: true`, the entries
of every matrix among its targets, each judged independently of vcc:
- the file: under the root, tried against the root and each target's
  folder; never a CSV/JSON trace matrix or a specification document (by
  path or by bytes), nor a document holding a matrix table cited whole;
- `#anchor` in a document: a CommonMark heading (markdown-it-py) whose
  GitHub slug is the anchor or whose first word is it, a heading's
  trailing `{#id}`, a `[text]{#id}` span, or an HTML tag's `id` (`name` on
  `<a>`) parsed by html.parser from HTML blocks and inline HTML;
- `::name` in code: Python definitions from Python's own `ast`
  (FunctionDef, AsyncFunctionDef, ClassDef); Rust, JavaScript/TypeScript
  and Go definitions from tree-sitter's grammars;
- `#L12` in code: a line of the file.

Prints one JSON object: {case: {criterion: [{"entry", "resolves", "why"}]}};
`resolves` is null where the reference has no reader (reStructuredText).
"""

import ast
import csv
import hashlib
import html.parser
import io
import json
import os
import re
import sys

import yaml
from markdown_it import MarkdownIt

DEFAULT_REQUIREMENT = r"\b(?:REQ|FR|NFR|AC)(?:-[A-Z0-9]+)*-[0-9]+\b"
DOCUMENT = (".md", ".markdown", ".txt", ".rst")
REQUIREMENT = ["requirement", "req", "id", "ac", "criterion"]
TEST = ["test", "verification", "verified"]
IMPLEMENTATION = ["implementation", "impl", "code", "source", "file", "design", "component", "module"]


def is_document(path):
    return path.lower().endswith(DOCUMENT)


def column(header, words):
    for i, h in enumerate(header):
        tokens = re.split(r"[^0-9A-Za-z]+", h.lower())
        if any(t.startswith(w) for t in tokens for w in words if t):
            return i
    return None


def split(cell):
    out = []
    for e in re.split(r"[,;]", cell.replace("<br>", ",").replace("<br/>", ",")):
        e = e.strip()
        m = re.search(r"\]\((.*)\)$", e)
        if m:
            e = m.group(1)
        e = e.strip("`").strip()
        if e and e != "-" and e.lower() != "n/a":
            out.append(e)
    return out


def matrix_rows(header, rows):
    req = column(header, REQUIREMENT)
    test = column(header, TEST)
    if req is None or test is None or test == req:
        return None
    impl = column(header, IMPLEMENTATION)
    if impl in (req, test):
        impl = None
    entries = []
    for cells in rows:
        get = lambda i: cells[i] if i is not None and i < len(cells) else ""
        entries += split(get(impl)) + split(get(test))
    return entries


def md():
    return MarkdownIt("commonmark").enable("table")


def markdown_matrices(text):
    """The tables of a CommonMark document (with GFM tables), as rows."""
    tokens = md().parse(text)
    tables, current, row = [], None, None
    for t in tokens:
        if t.type == "table_open":
            current = []
        elif t.type == "tr_open":
            row = []
        elif t.type == "inline" and row is not None and current is not None:
            row.append(t.content.strip())
        elif t.type == "tr_close":
            current.append(row)
            row = None
        elif t.type == "table_close":
            tables.append(current)
            current = None
    return [m for m in (matrix_rows(t[0], t[1:]) for t in tables if t) if m is not None]


def matrices(path, text):
    """Every matrix in a file: a list of entry lists."""
    lower = path.lower()
    if lower.endswith(".csv"):
        rows = list(csv.reader(io.StringIO(text)))
        if not rows:
            return []
        m = matrix_rows(rows[0], rows[1:])
        return [m] if m is not None else []
    if lower.endswith(".json"):
        try:
            value = json.loads(text)
        except ValueError:
            return []
        items = value if isinstance(value, list) else (
            value.get("rows") or value.get("matrix") if isinstance(value, dict) else None)
        if not isinstance(items, list) or not items or not isinstance(items[0], dict):
            return []
        keys = list(items[0].keys())
        req, test, impl = column(keys, REQUIREMENT), column(keys, TEST), column(keys, IMPLEMENTATION)
        if req is None or test is None or test == req:
            return []
        if impl in (req, test):
            impl = None
        entries = []
        for row in items:
            for k in [keys[impl]] if impl is not None else []:
                entries += strings(row.get(k))
            entries += strings(row.get(keys[test]))
        return [entries]
    if is_document(path):
        return markdown_matrices(text)
    return []


def strings(v):
    if isinstance(v, str):
        return split(v)
    if isinstance(v, list):
        return [e for s in v if isinstance(s, str) for e in split(s)]
    return []


def reference(entry):
    if "::" in entry:
        path, name = entry.split("::", 1)
        return path, name
    if "#" in entry:
        path, anchor = entry.split("#", 1)
        return path, anchor or None
    m = re.match(r"^(.*):(\d+)$", entry)
    if m:
        return m.group(1), None
    return entry, None


def slug(title):
    out = []
    for c in title.strip():
        if c.isalnum():
            out.append(c.lower())
        elif c in " -":
            out.append("-")
        elif c == "_":
            out.append("_")
    return "".join(out)


class Anchors(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.found = set()

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if v and (k == "id" or (k == "name" and tag == "a")):
                self.found.add(v)

    handle_startendtag = handle_starttag


def inline_text(token):
    """A heading's text as a renderer shows it (code spans keep their text,
    inline HTML goes)."""
    return "".join(c.content for c in token.children or [] if c.type in ("text", "code_inline"))


def document_anchors(text):
    anchors, slugs = set(), set()
    tokens = md().parse(text)
    html_parts = []
    for i, t in enumerate(tokens):
        if t.type == "html_block":
            html_parts.append(t.content)
        if t.type != "inline":
            continue
        for c in t.children or []:
            if c.type == "html_inline":
                html_parts.append(c.content)
        in_heading = i > 0 and tokens[i - 1].type == "heading_open"
        plain = inline_text(t)
        if in_heading:
            m = re.search(r"\{#([^}\s]+)[^}]*\}\s*$", plain)
            if m:
                anchors.add(m.group(1))
                plain = plain[: m.start()].rstrip()
            slugs.add(slug(plain))
            words = plain.split()
            if words:
                anchors.add(words[0].rstrip(":.,;)"))
        else:
            for m in re.finditer(r"\]\{#([^}\s]+)[^}]*\}", "".join(
                    c.content for c in t.children or [] if c.type == "text")):
                anchors.add(m.group(1))
    parser = Anchors()
    for part in html_parts:
        # An HTML comment is no anchor.
        parser.feed(re.sub(r"<!--.*?-->", "", part, flags=re.S))
    anchors |= parser.found
    return anchors, slugs


def python_names(text):
    tree = ast.parse(text)
    return {n.name for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def tree_sitter_names(path, text):
    from tree_sitter import Language, Parser
    lower = path.lower()
    if lower.endswith(".rs"):
        import tree_sitter_rust as g
        lang = Language(g.language())
    elif lower.endswith(".go"):
        import tree_sitter_go as g
        lang = Language(g.language())
    elif lower.endswith((".ts", ".mts", ".cts")):
        import tree_sitter_typescript as g
        lang = Language(g.language_typescript())
    elif lower.endswith(".tsx"):
        import tree_sitter_typescript as g
        lang = Language(g.language_tsx())
    else:
        import tree_sitter_javascript as g
        lang = Language(g.language())
    tree = Parser(lang).parse(text.encode())
    if tree.root_node.has_error:
        raise SyntaxError("the grammar does not parse the file")
    names = set()

    def name_of(node, field="name"):
        n = node.child_by_field_name(field)
        return n.text.decode() if n is not None else None

    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        t = node.type
        if t in ("function_item", "function_signature_item", "mod_item", "struct_item", "enum_item",
                 "trait_item", "union_item", "function_declaration", "method_declaration",
                 "generator_function_declaration", "class_declaration", "type_spec"):
            n = name_of(node)
            if n:
                names.add(n)
        elif t == "impl_item":
            n = name_of(node, "type")
            if n:
                names.add(re.sub(r"<.*", "", n))
        elif t == "variable_declarator":
            value = node.child_by_field_name("value")
            if value is not None and value.type in ("arrow_function", "function_expression", "function"):
                n = name_of(node)
                if n:
                    names.add(n)
        elif t == "call_expression" and not lower.endswith((".rs", ".go")):
            fn = node.child_by_field_name("function")
            args = node.child_by_field_name("arguments")
            if fn is not None and fn.type == "identifier" and fn.text.decode() in ("test", "it", "describe") \
                    and args is not None and args.named_child_count > 0:
                first = args.named_children[0]
                if first.type == "string":
                    names.add(first.text.decode()[1:-1])
                elif first.type == "template_string" and not any(
                        c.type == "template_substitution" for c in first.children):
                    names.add(first.text.decode()[1:-1])
    return names


CODE = {".py": "python", ".pyi": "python", ".rs": "ts", ".go": "ts", ".js": "ts", ".jsx": "ts",
        ".mjs": "ts", ".cjs": "ts", ".ts": "ts", ".tsx": "ts", ".mts": "ts", ".cts": "ts"}


def defined(path, text, fragment):
    """(resolves, why) for `fragment` in the file."""
    lower = path.lower()
    if lower.endswith(".rst"):
        return None, "no reStructuredText reader"
    if is_document(path):
        anchors, slugs = document_anchors(text)
        ok = fragment in anchors or fragment.lower() in slugs
        return ok, "anchor" if ok else "no heading or anchor"
    m = re.fullmatch(r"L(\d+)(?:-L(\d+))?", fragment)
    if m:
        last = int(m.group(2) or m.group(1))
        ok = 0 < last <= len(text.splitlines()) and int(m.group(1)) > 0
        return ok, "line" if ok else "past the end"
    kind = next((v for k, v in CODE.items() if lower.endswith(k)), None)
    if kind is None:
        return False, "no reader for this language"
    try:
        names = python_names(text) if kind == "python" else tree_sitter_names(path, text)
    except (SyntaxError, ValueError) as e:
        return False, f"does not parse: {e}"
    segments = [s.strip() for s in fragment.split("::")]
    if kind == "python":
        segments = [re.sub(r"\[.*\]$", "", s) for s in segments]
    ok = all(s and s in names for s in segments)
    return ok, "defined" if ok else "not defined"


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def files_of(root, rel):
    full = os.path.join(root, rel)
    if os.path.isfile(full):
        return [rel]
    out = []
    for d, _, names in os.walk(full):
        for n in names:
            out.append(os.path.relpath(os.path.join(d, n), root))
    return sorted(out)


def judge_case(case):
    with open(os.path.join(case, "contract.yaml")) as f:
        contract = yaml.safe_load(f)
    root = os.path.normpath(os.path.join(case, contract.get("root", ".")))
    deliverables = {d["id"]: d["path"] for d in contract.get("deliverables", [])}
    components = {k: v.get("component", "") for k, v in (contract.get("validators") or {}).items()}
    out = {}
    for c in contract.get("criteria", []):
        params = c.get("params") or {}
        if not components.get(c["validator"], "").endswith("consistency") or not params.get("trace_matrix"):
            continue
        pattern = re.compile(params.get("requirement_pattern") or DEFAULT_REQUIREMENT)
        targets = [files_of(root, deliverables[t]) for t in c.get("targets", [])]
        spec_ids = params.get("specification") or []
        spec_files = [f for s in spec_ids for f in files_of(root, deliverables[s])]
        read = sorted({f for t in targets for f in t} | set(spec_files))
        bases = [""]
        for files in targets:
            dirs = [os.path.dirname(f) for f in files]
            if dirs:
                common = os.path.commonpath(dirs) if all(dirs) else ""
                if common and common not in bases:
                    bases.append(common)
        texts = {}
        for f in read:
            try:
                with open(os.path.join(root, f), encoding="utf-8") as h:
                    texts[f] = h.read()
            except (UnicodeDecodeError, OSError):
                texts[f] = ""
        entries, matrix_files = [], set()
        for f in read:
            if is_document(f) or f.lower().endswith((".csv", ".json")):
                found = matrices(f, texts[f])
                if found:
                    matrix_files.add(f)
                    entries += [e for m in found for e in m]
        if spec_ids:
            spec = set(spec_files)
        else:
            spec = {f for f in read if is_document(f) and f not in matrix_files and pattern.search(texts[f])}
        # A CSV or JSON matrix is the whole file; a document holding a
        # matrix table is the matrix when cited whole (its headings and
        # anchors outside the table are still anchors).
        whole = {f for f in matrix_files if not is_document(f)}
        matrix_documents = {os.path.normpath(f) for f in matrix_files if is_document(f)}
        forbidden = {os.path.normpath(f) for f in spec | whole}
        forbidden_bytes = {digest(os.path.join(root, f)) for f in spec | whole}
        judged = []
        for entry in entries:
            path, fragment = reference(entry)
            if not path or path.startswith("/") or ".." in path.split("/"):
                judged.append({"entry": entry, "resolves": False, "why": "not under the root"})
                continue
            verdict = (False, "no such file")
            for base in bases:
                rel = os.path.normpath(os.path.join(base, path))
                full = os.path.join(root, rel)
                if not os.path.isfile(full):
                    continue
                if rel in forbidden or digest(full) in forbidden_bytes:
                    verdict = (False, "a matrix or the specification")
                elif fragment is None and rel in matrix_documents:
                    verdict = (False, "the document holding the matrix, cited whole")
                elif fragment is None:
                    verdict = (True, "file")
                else:
                    try:
                        with open(full, encoding="utf-8") as h:
                            verdict = defined(rel, h.read(), fragment)
                    except UnicodeDecodeError:
                        verdict = (False, "not UTF-8")
                break
            judged.append({"entry": entry, "resolves": verdict[0], "why": verdict[1]})
        out[c["id"]] = judged
    return out


def main():
    print(json.dumps({case: judge_case(case) for case in sys.argv[1:]}))


if __name__ == "__main__":
    main()
