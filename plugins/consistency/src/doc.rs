//! A Markdown document as the consistency checks read it: headings, list
//! items under each heading, MUST/SHALL statements and pipe tables, each
//! with its line. Fenced code blocks and HTML comments are not text.

use vcc_plugin_common::LineIndex;
use vcc_plugin_common::markdown::{self, title_key};

use crate::seen;
use crate::shown::{self, Unshown};

/// One heading's list items, by line.
pub struct Section {
    pub title: String,
    /// An HTML heading (`<h2>`): a section to a reader, but no anchor
    /// (renderers give raw HTML headings no id).
    pub html: bool,
    /// A label paragraph (`**Out of scope:**`), not a heading: no anchor.
    pub label: bool,
    pub items: Vec<(u32, String)>,
}

/// A normative statement: `SUBJECT must|shall [not|never] PREDICATE`.
pub struct Statement {
    pub line: u32,
    pub text: String,
    /// Normalised subject and predicate: the claim without its modal.
    pub key: (String, String),
    pub negated: bool,
}

/// A pipe table: its header cells and rows (line, cells).
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<(u32, Vec<String>)>,
}

pub struct Doc {
    pub sections: Vec<Section>,
    pub statements: Vec<Statement>,
    pub tables: Vec<Table>,
    /// Text lines outside code and comments, by line.
    pub lines: Vec<(u32, String)>,
    /// The rendered text of paragraphs, headings and HTML blocks, folded
    /// for requirement ids (`ids.rs`), by line.
    pub shown: Vec<(u32, String)>,
    /// What makes the shown text a guess (`shown.rs`): the document is
    /// refused.
    pub unshown: Vec<Unshown>,
}

impl Doc {
    pub fn parse(text: &str) -> Doc {
        let mut doc = Doc {
            sections: Vec::new(),
            statements: Vec::new(),
            tables: Vec::new(),
            lines: Vec::new(),
            shown: Vec::new(),
            unshown: Vec::new(),
        };
        let mut fence: Option<&str> = None;
        let mut comment = false;
        let mut table: Option<Table> = None;
        for (i, raw) in text.lines().enumerate() {
            let line = (i + 1) as u32;
            let trimmed = raw.trim();
            if let Some(f) = fence {
                if trimmed.starts_with(f) {
                    fence = None;
                }
                continue;
            }
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                fence = Some(&trimmed[..3]);
                continue;
            }
            if comment {
                comment = !trimmed.contains("-->");
                continue;
            }
            if trimmed.starts_with("<!--") {
                comment = !trimmed.contains("-->");
                continue;
            }
            if trimmed.starts_with('|') {
                let cells = cells(trimmed);
                match &mut table {
                    None => {
                        table = Some(Table {
                            header: cells,
                            rows: Vec::new(),
                        })
                    }
                    Some(t) if is_rule(&cells) => {
                        let _ = t;
                    }
                    Some(t) => t.rows.push((line, cells)),
                }
                continue;
            }
            if let Some(t) = table.take() {
                doc.tables.push(t);
            }
            doc.lines.push((line, trimmed.to_string()));
        }
        if let Some(t) = table.take() {
            doc.tables.push(t);
        }
        let reading = markdown::read(text);
        let lines = LineIndex::new(text);
        doc.unshown = shown::unshown(text, &reading, &lines);
        doc.sections = sections(text, &reading, &lines);
        doc.shown = crate::ids::shown(text, &reading, &lines);
        doc.statements = statements(&reading, &lines);
        // GFM table cells and struck text, as GitHub shows them (`gfm.rs`).
        let more = crate::gfm::statements(text, &reading, &lines, &doc.statements);
        doc.statements.extend(more);
        doc
    }
}

/// MUST/SHALL statements as a reader reads them: each visible paragraph's
/// rendered text (character references decoded, comments and hidden HTML
/// left out, a sentence running over lines read whole) and each HTML
/// block's prose (`<p>The API must not …</p>` is a paragraph to a
/// reader), and each heading. A sentence's line is the line it starts on.
pub(crate) fn statements(reading: &markdown::Reading, lines: &LineIndex) -> Vec<Statement> {
    let mut out = Vec::new();
    for p in &reading.paragraphs {
        // Rendered lines are the source lines (one soft break each); when
        // they are not (a hard break in a code span…), the paragraph's
        // first line.
        let rendered: Vec<&str> = p.text.split('\n').collect();
        let line_of = |i: usize| {
            let at = if rendered.len() == p.lines.len() {
                p.lines.get(i).map_or(p.range.start, |(at, _)| *at)
            } else {
                p.range.start
            };
            lines.line(at)
        };
        for (line, sentence) in sentences_over(&rendered, line_of) {
            out.extend(statement(line, &sentence));
        }
    }
    // A heading is read as a claim too: `## The server must not log every
    // token.` says so to a reader.
    for h in reading.headings.iter().filter(|h| !h.hidden) {
        let line = lines.line(h.range.start);
        for (line, sentence) in sentences_over(&[h.title.as_str()], |_| line) {
            out.extend(statement(line, &sentence));
        }
    }
    for (at, prose) in &reading.html_prose {
        let block: Vec<&str> = prose.lines().collect();
        let first = lines.line(*at);
        for (line, sentence) in sentences_over(&block, |_| first) {
            out.extend(statement(line, &sentence));
        }
    }
    out
}

/// The sentences of lines read as one text (`. ` ends a sentence), each
/// with the line (from `line_of`, by index) it starts on.
pub(crate) fn sentences_over(lines: &[&str], line_of: impl Fn(usize) -> u32) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut start = 0;
    for (i, l) in lines.iter().enumerate() {
        for (k, part) in l.split(". ").enumerate() {
            if k > 0 {
                let s = current.trim().to_string();
                if !s.is_empty() {
                    out.push((line_of(start), s));
                }
                current.clear();
            }
            if current.trim().is_empty() {
                start = i;
            }
            if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(part);
        }
    }
    let s = current.trim().to_string();
    if !s.is_empty() {
        out.push((line_of(start), s));
    }
    out
}

/// Headings and the list items under each, from the CommonMark reading
/// the Markdown validators share (plugins/common `markdown`): setext
/// headings count, `# x` in a code or HTML block does not, every paragraph
/// of a list item is an item, hidden HTML holds none. An HTML block that
/// opens with `<h1>`…`<h6>` is a heading too: every renderer shows it as
/// one. Items are their rendered text (character references decoded,
/// comments left out); titles are normalised as text-match reads text
/// (invisible characters removed, NFKC).
///
/// A section holds the items of its sub-sections too (`### Features`
/// under `## Out of Scope` is out of scope to a reader), and a paragraph
/// that is only a short label ending in `:` (`**Out of scope:**`) opens
/// a section below every heading: it introduces the list after it as a
/// heading would. Such a label is no anchor.
fn sections(text: &str, reading: &markdown::Reading, lines: &LineIndex) -> Vec<Section> {
    // (title, start, end of the heading, from HTML, level) in document
    // order; a label is level 7.
    let mut heads: Vec<(String, usize, usize, bool, u8)> = reading
        .headings
        .iter()
        .filter(|h| !h.hidden)
        .map(|h| {
            let html = html_heading(&text[h.range.start..]);
            (h.title.clone(), h.range.start, h.range.end, html, h.level)
        })
        .collect();
    // The shared reading finds HTML headings too; one it did not (an
    // HTML block it read as prose) is added here, never twice.
    for (at, prose) in &reading.html_prose {
        let line_end = text[*at..].find('\n').map_or(text.len(), |n| at + n);
        let known = heads.iter().any(|h| (*at..=line_end).contains(&h.1));
        if html_heading(&text[*at..]) && !known {
            let level = text[*at..].trim_start().as_bytes()[2] - b'0';
            heads.push((prose.trim().to_string(), *at, *at + 1, true, level));
        }
    }
    for p in reading.paragraphs.iter().filter(|p| !p.in_list) {
        if let Some(label) = label(&p.text) {
            heads.push((label.to_string(), p.range.start, p.range.end, true, LABEL));
        }
    }
    heads.sort_by_key(|h| h.1);
    heads
        .iter()
        .enumerate()
        .map(|(i, (title, _, head_end, html, level))| {
            // Up to the next heading of the same level or above.
            let end = heads[i + 1..]
                .iter()
                .find(|n| n.4 <= *level)
                .map_or(text.len(), |n| n.1);
            let items = reading
                .paragraphs
                .iter()
                .filter(|p| p.in_list && (*head_end..end).contains(&p.range.start))
                .map(|p| {
                    let shown = p.text.split_whitespace().collect::<Vec<_>>().join(" ");
                    (lines.line(p.range.start), shown)
                })
                .collect();
            Section {
                title: title_key(title),
                html: *html,
                label: *level == LABEL,
                items,
            }
        })
        .collect()
}

/// The level of a label paragraph: below every heading.
const LABEL: u8 = 7;

/// A paragraph that only labels what follows: one line of at most six
/// words ending in `:` (`**Out of scope:**`, `Non-goals:`), the label
/// without it.
fn label(rendered: &str) -> Option<&str> {
    let t = rendered.trim();
    let body = t.strip_suffix(':')?.trim_end();
    let short = !body.is_empty() && !body.contains('\n') && body.split_whitespace().count() <= 6;
    short.then_some(body)
}

/// An HTML block that opens with a heading element (`<h2>`, `<H3 id=x>`).
fn html_heading(block: &str) -> bool {
    let b = block.trim_start().as_bytes();
    b.len() > 3
        && b[0] == b'<'
        && matches!(b[1], b'h' | b'H')
        && (b'1'..=b'6').contains(&b[2])
        && (b[3] == b'>' || b[3].is_ascii_whitespace() || b[3] == b'/')
}

fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split('|').map(|c| c.trim().to_string()).collect()
}

/// `|---|:---:|`: the line under a table's header.
fn is_rule(cells: &[String]) -> bool {
    !cells.is_empty()
        && cells
            .iter()
            .all(|c| !c.is_empty() && c.chars().all(|ch| "-: ".contains(ch)))
}

/// `The API must not return 500` → subject `api`, predicate `return 500`,
/// negated. Only a sentence or clause with exactly one modal is a
/// statement: two modals are two claims vcc would have to tell apart.
/// The whole sentence is read, and so is each of its clauses
/// (`clauses`): `Also, the server must not log` and `The client must
/// retry and the server must not log` state `server must not log` to a
/// reader, whatever comes before it.
pub(crate) fn statement(line: u32, sentence: &str) -> Vec<Statement> {
    let mut out: Vec<Statement> = Vec::new();
    let parts = clauses(sentence);
    let first = parts.first().copied().unwrap_or("");
    let found = std::iter::once(one(line, sentence, sentence, ""))
        .chain(parts.iter().map(|c| one(line, sentence, c, first)));
    for s in found.flatten() {
        if !out.iter().any(|o| o.key == s.key && o.negated == s.negated) {
            out.push(s);
        }
    }
    out
}

/// The statement of one clause of `sentence`; a clause with no subject
/// (`The server, when idle, must not log`) takes `fallback`'s words (the
/// sentence's first clause) when that holds no modal.
fn one(line: u32, sentence: &str, clause: &str, fallback: &str) -> Option<Statement> {
    // Words as compared: invisible characters removed, NFKC, each word its
    // UTS #39 skeleton (`mսst nоt` with an Armenian and a Cyrillic letter
    // reads `must not`); contractions spelled out (`mustn't`).
    let words = modal_words(clause);
    let (must, shall) = (seen::word("must"), seen::word("shall"));
    let (not, never) = (seen::word("not"), seen::word("never"));
    let modal = |w: &String| *w == must || *w == shall;
    let positions: Vec<usize> = (0..words.len()).filter(|&i| modal(&words[i])).collect();
    let [at] = positions[..] else { return None };
    let negated = words.get(at + 1).is_some_and(|w| *w == not || *w == never);
    let rest = if negated { at + 2 } else { at + 1 };
    let mut subject = words[..at].join(" ");
    if subject.is_empty() && !fallback.is_empty() {
        let before = modal_words(fallback);
        if !before.iter().any(modal) {
            subject = before.join(" ");
        }
    }
    let predicate = words[rest.min(words.len())..].join(" ");
    if subject.is_empty() || predicate.is_empty() {
        return None;
    }
    Some(Statement {
        line,
        text: sentence.to_string(),
        key: (subject, predicate),
        negated,
    })
}

/// The compared words of `text` (`seen::words`) with the negative
/// contractions of the modals spelled out: `mustn't`, `mustn’t`, `shan't`
/// (split at the apostrophe into `mustn` `t`) read `must not`, `shall
/// not`, as every reader reads them.
fn modal_words(text: &str) -> Vec<String> {
    let words = seen::words(text);
    let t = seen::word("t");
    let spelled = [
        (seen::word("mustn"), "must"),
        (seen::word("mustnt"), "must"),
        (seen::word("shan"), "shall"),
        (seen::word("shant"), "shall"),
    ];
    let mut out = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        let apostrophe = words.get(i + 1) == Some(&t);
        match spelled.iter().find(|(c, _)| c == w) {
            Some((c, modal)) if apostrophe || !c.ends_with('n') => {
                out.push(seen::word(modal));
                out.push(seen::word("not"));
                i += if apostrophe { 2 } else { 1 };
            }
            _ => {
                out.push(w.clone());
                i += 1;
            }
        }
    }
    out
}

/// A sentence's clauses: split at `,` `;` `:` dashes and brackets, and
/// before `and`, `but`, `or`, `while`, `whereas`, `so`, `then`.
fn clauses(sentence: &str) -> Vec<&str> {
    const JOINS: [&str; 7] = ["and", "but", "or", "while", "whereas", "so", "then"];
    let mut out = Vec::new();
    for part in sentence.split([',', ';', ':', '\u{2014}', '\u{2013}', '(', ')']) {
        let mut start = 0;
        let mut at = 0;
        for w in part.split(' ') {
            if at > 0 && JOINS.iter().any(|j| w.eq_ignore_ascii_case(j)) {
                out.push(&part[start..at]);
                // The joining word belongs to neither clause.
                start = at + w.len() + 1;
            }
            at += w.len() + 1;
        }
        out.push(&part[start.min(part.len())..]);
    }
    out.retain(|c| !c.trim().is_empty());
    out
}

/// Lower case, Markdown emphasis, code and links reduced to their text,
/// punctuation to spaces, articles dropped, spaces collapsed.
pub fn normalize(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            // `[text](target)`: the text.
            ']' if chars.peek() == Some(&'(') => {
                for d in chars.by_ref() {
                    if d == ')' {
                        break;
                    }
                }
                out.push(' ');
            }
            c if c.is_alphanumeric() => out.extend(c.to_lowercase()),
            _ => out.push(' '),
        }
    }
    out.split_whitespace()
        .filter(|w| !matches!(*w, "the" | "a" | "an"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_statements_and_tables() {
        let text = "# Scope\n\n- Export *pagination*\n1. Tests\n\n```\n# not a heading\n- not an item\n```\n<!-- The API must not fail -->\n## Rules\n\nThe API must return a cursor. Tokens must not be logged.\n\n| Req | Test |\n|---|---|\n| REQ-1 | `t.py` |\n";
        let doc = Doc::parse(text);
        let titles: Vec<&str> = doc.sections.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(titles, ["Scope", "Rules"]);
        assert_eq!(
            doc.sections[0].items,
            vec![(3, "Export pagination".into()), (4, "Tests".into())]
        );
        let keys: Vec<(&str, &str, bool)> = doc
            .statements
            .iter()
            .map(|s| (s.key.0.as_str(), s.key.1.as_str(), s.negated))
            .collect();
        assert_eq!(
            keys,
            [
                ("api", "return cursor", false),
                ("tokens", "be logged", true)
            ]
        );
        assert_eq!(doc.tables.len(), 1);
        assert_eq!(
            doc.tables[0].rows,
            vec![(17, vec!["REQ-1".into(), "`t.py`".into()])]
        );
        assert_eq!(normalize("See [the docs](x.md), **now**!"), "see docs now");
    }

    #[test]
    fn sections_are_read_as_commonmark() {
        let text = "Out of scope\n------------\n\n- Billing\n\n  second paragraph of the item\n\n<div hidden>\n\n- Exports\n\n</div>\n\n## TO\u{200b}DO\n";
        let doc = Doc::parse(text);
        let titles: Vec<&str> = doc.sections.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(titles, ["Out of scope", "TODO"]);
        assert_eq!(
            doc.sections[0].items,
            vec![
                (4, "Billing".into()),
                (6, "second paragraph of the item".into())
            ]
        );
    }

    #[test]
    fn statements_are_read_as_rendered() {
        let negated = |text: &str| -> Vec<(String, String, bool)> {
            Doc::parse(text)
                .statements
                .iter()
                .map(|s| (s.key.0.clone(), s.key.1.clone(), s.negated))
                .collect()
        };
        let server = (seen::key("server"), seen::key("log every token"), true);
        for text in [
            "The server must <!-- x -->not log every token.\n",
            "The server must&#32;not log every token.\n",
            "<p>The server must not log every token.</p>\n",
            "The server must n\u{200b}ot log every token.\n",
            "The s\u{435}rver must not log every token.\n",
            "The server\nmust not log every token.\n",
        ] {
            assert_eq!(negated(text), vec![server.clone()], "{text:?}");
        }
        assert_eq!(
            Doc::parse("x\n\nThe server\nmust not log.\n").statements[0].line,
            3
        );
        assert!(negated("```\nThe server must not log.\n```\n").is_empty());
        assert_eq!(
            negated("# The server must not log every token\n"),
            vec![server.clone()],
            "a heading states it too"
        );
    }

    #[test]
    fn html_headings_open_sections_and_items_are_rendered() {
        let doc = Doc::parse("# Design\n\n<h2>Out of Scope</h2>\n\n- Off&#108;ine mode\n");
        let titles: Vec<(&str, bool)> = doc
            .sections
            .iter()
            .map(|s| (s.title.as_str(), s.html))
            .collect();
        assert_eq!(titles, [("Design", false), ("Out of Scope", true)]);
        assert_eq!(doc.sections[1].items, vec![(5, "Offline mode".into())]);
    }
}
