//! Statements GitHub-flavoured readers see that the CommonMark reading of
//! `doc.rs` does not:
//! - a GFM table's cells: each cell is read like a paragraph, so `| The
//!   server must not log every token. |` is a statement (CommonMark reads
//!   the whole table as one paragraph of pipes).
//! - struck text (`~~always~~`, `<del>`, `<s>`, `<strike>`): a renderer
//!   shows it deleted, so a sentence that holds some is read again with it
//!   removed. The statement as written (struck words kept, as a plain-text
//!   reader sees it) stays too: a contradiction under either reading is a
//!   finding. That is the stricter choice: "must ~~not~~ log" says both
//!   things to two readers, and vcc cannot tell which one the author meant.
//!
//! Only blocks the shared reading shows are read (inside one of its
//! visible paragraphs): hidden HTML stays hidden.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use vcc_plugin_common::LineIndex;
use vcc_plugin_common::markdown::Reading;

use crate::doc::{Statement, sentences_over, statement};

/// A block read as GFM: where it starts and its rendered lines.
struct Block {
    start: usize,
    lines: Vec<String>,
    struck: bool,
    started: bool,
}

/// The statements of table cells and of struck paragraphs that `known`
/// (the CommonMark reading's) does not already hold.
pub fn statements(
    text: &str,
    reading: &Reading,
    lines: &LineIndex,
    known: &[Statement],
) -> Vec<Statement> {
    let visible = |at: usize| reading.paragraphs.iter().any(|p| p.range.contains(&at));
    let mut out: Vec<Statement> = Vec::new();
    for block in blocks(text) {
        if !visible(block.start) {
            continue;
        }
        // Struck words leave their spaces behind: collapsed, as shown.
        let shown: Vec<String> = block
            .lines
            .iter()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        let rendered: Vec<&str> = shown.iter().map(String::as_str).collect();
        let first = lines.line(block.start);
        for (line, sentence) in sentences_over(&rendered, |i| first + i as u32) {
            let Some(s) = statement(line, &sentence) else {
                continue;
            };
            let same = |o: &Statement| o.line == s.line && o.key == s.key && o.negated == s.negated;
            if !known.iter().any(same) && !out.iter().any(same) {
                out.push(s);
            }
        }
    }
    out
}

/// Table cells (always) and paragraphs that hold struck text, with the
/// struck text left out.
fn blocks(text: &str) -> Vec<Block> {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let mut out = Vec::new();
    let mut current: Option<Block> = None;
    let mut cell = false;
    let mut struck = 0usize;
    let mut html_struck = 0usize;
    let push_text = |current: &mut Option<Block>, t: &str| {
        if let Some(b) = current.as_mut() {
            match b.lines.last_mut() {
                Some(l) => l.push_str(t),
                None => b.lines.push(t.to_string()),
            }
        }
    };
    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        match event {
            Event::Start(Tag::TableCell) => {
                cell = true;
                current = Some(Block {
                    start: range.start,
                    lines: vec![String::new()],
                    struck: true,
                    started: false,
                });
            }
            // A tight list item's text is a paragraph without the tag.
            Event::Start(Tag::Item) if !cell && current.is_none() => {
                current = Some(Block {
                    start: range.start,
                    lines: vec![String::new()],
                    struck: false,
                    started: false,
                });
            }
            Event::End(TagEnd::Item) => {
                out.extend(current.take().filter(|b| b.struck));
            }
            Event::Start(Tag::Paragraph) if !cell => {
                current = Some(Block {
                    start: range.start,
                    lines: vec![String::new()],
                    struck: false,
                    started: false,
                });
            }
            Event::End(TagEnd::TableCell) => {
                cell = false;
                out.extend(current.take());
            }
            Event::End(TagEnd::Paragraph) => {
                out.extend(current.take().filter(|b| b.struck));
            }
            Event::Start(Tag::Strikethrough) => {
                struck += 1;
                if let Some(b) = current.as_mut() {
                    b.struck = true;
                }
            }
            Event::End(TagEnd::Strikethrough) => struck = struck.saturating_sub(1),
            Event::InlineHtml(h) | Event::Html(h) => {
                let tag: String = h
                    .trim()
                    .to_lowercase()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '<' || *c == '/')
                    .collect();
                match tag.as_str() {
                    "<del" | "<s" | "<strike" => {
                        html_struck += 1;
                        if let Some(b) = current.as_mut() {
                            b.struck = true;
                        }
                    }
                    "</del" | "</s" | "</strike" => html_struck = html_struck.saturating_sub(1),
                    _ => {}
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(b) = current.as_mut()
                    && !b.started
                {
                    // Where its text starts: the shared reading's paragraph
                    // of a list item starts there, not at the marker.
                    b.start = range.start;
                    b.started = true;
                }
                if struck == 0 && html_struck == 0 {
                    push_text(&mut current, &t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(b) = current.as_mut() {
                    b.lines.push(String::new());
                }
            }
            _ => {}
        }
    }
    out
}
