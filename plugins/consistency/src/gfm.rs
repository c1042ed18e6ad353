//! Statements GitHub-flavoured readers see that the CommonMark reading of
//! `doc.rs` does not:
//! - a GFM table's cells: each cell is read like a paragraph, so `| The
//!   server must not log every token. |` is a statement (CommonMark reads
//!   the whole table as one paragraph of pipes).
//! - struck text (`~~always~~`, `<del>`, `<s>`, `<strike>`, an element
//!   styled `text-decoration: line-through`, in a
//!   paragraph, a list item, a table cell or an HTML block): a renderer
//!   shows it deleted, so the document is read again with it blanked out
//!   (same offsets, same lines). The statement as written (struck words kept, as a plain-text
//!   reader sees it) stays too: a contradiction under either reading is a
//!   finding. That is the stricter choice: "must ~~not~~ log" says both
//!   things to two readers, and vcc cannot tell which one the author meant.
//!
//! Only cells the shared reading shows are read (inside one of its visible
//! paragraphs): hidden HTML stays hidden; the struck-out reading is the
//! shared reading itself, of the blanked text.

use std::ops::Range;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use vcc_plugin_common::markdown::{self, Reading};
use vcc_plugin_common::{LineIndex, regex};

use crate::doc::{self, Statement, sentences_over, statement};

/// The statements of table cells, and of the document read with struck
/// text removed, that `known` (the CommonMark reading's) does not hold.
pub fn statements(
    text: &str,
    reading: &Reading,
    lines: &LineIndex,
    known: &[Statement],
) -> Vec<Statement> {
    let mut found = cells(text, reading, lines);
    let struck = struck(text);
    if !struck.is_empty() {
        let mut bytes = text.as_bytes().to_vec();
        for r in struck {
            for b in &mut bytes[r] {
                if *b != b'\n' {
                    *b = b' ';
                }
            }
        }
        // Whole spans of UTF-8 were blanked: still UTF-8.
        let removed = String::from_utf8_lossy(&bytes).into_owned();
        let again = markdown::read(&removed);
        for mut s in doc::statements(&again, lines)
            .into_iter()
            .chain(cells(&removed, &again, lines))
        {
            // The blanked words leave their spaces: shown collapsed.
            s.text = s.text.split_whitespace().collect::<Vec<_>>().join(" ");
            found.push(s);
        }
    }
    let mut out: Vec<Statement> = Vec::new();
    for s in found {
        let same = |o: &Statement| o.line == s.line && o.key == s.key && o.negated == s.negated;
        if !known.iter().any(same) && !out.iter().any(same) {
            out.push(s);
        }
    }
    out
}

/// The statements of the GFM table cells the shared reading shows.
fn cells(text: &str, reading: &Reading, lines: &LineIndex) -> Vec<Statement> {
    let visible = |at: usize| reading.paragraphs.iter().any(|p| p.range.contains(&at));
    let mut out = Vec::new();
    let mut cell: Option<(usize, String)> = None;
    for (event, range) in Parser::new_ext(text, Options::ENABLE_TABLES).into_offset_iter() {
        match event {
            Event::Start(Tag::TableCell) => cell = Some((range.start, String::new())),
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, c)) = cell.as_mut() {
                    c.push_str(&t);
                }
            }
            Event::End(TagEnd::TableCell) => {
                let Some((at, c)) = cell.take() else { continue };
                if !visible(at) {
                    continue;
                }
                let shown = c.split_whitespace().collect::<Vec<_>>().join(" ");
                for (line, sentence) in sentences_over(&[shown.as_str()], |_| lines.line(at)) {
                    out.extend(statement(line, &sentence));
                }
            }
            _ => {}
        }
    }
    out
}

/// Byte ranges of struck text: GFM `~~…~~` spans (as pulldown-cmark
/// reads them, so not in code) and `<del>`, `<s>`, `<strike>` elements.
fn struck(text: &str) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Parser::new_ext(text, Options::ENABLE_STRIKETHROUGH)
        .into_offset_iter()
        .filter(|(e, _)| matches!(e, Event::Start(Tag::Strikethrough)))
        .map(|(_, r)| r)
        .collect();
    for tag in ["del", "s", "strike"] {
        // The patterns are constants: one that does not compile finds
        // nothing, and the unit tests catch it.
        if let Ok(re) = regex(&format!(r"(?is)<{tag}(?:\s[^>]*)?>.*?</{tag}\s*>"), false) {
            out.extend(re.find_iter(text).map(|m| m.range()));
        }
    }
    // An element styled `text-decoration: line-through` shows struck out
    // exactly as `<del>` does.
    for tag in STYLED {
        if let Ok(re) = regex(
            &format!(r"(?is)<{tag}\s[^>]*line-through[^>]*>.*?</{tag}\s*>"),
            false,
        ) {
            out.extend(re.find_iter(text).map(|m| m.range()));
        }
    }
    out
}

/// Elements whose inline style may strike their text out.
const STYLED: [&str; 18] = [
    "span", "div", "p", "em", "strong", "b", "i", "u", "font", "a", "code", "mark", "small", "q",
    "cite", "label", "li", "td",
];
