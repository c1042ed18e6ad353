//! A Markdown document as the consistency checks read it: headings, list
//! items under each heading, MUST/SHALL statements and pipe tables, each
//! with its line. Fenced code blocks and HTML comments are not text.

use vcc_plugin_common::LineIndex;
use vcc_plugin_common::markdown::{self, title_key};

/// One heading's list items, by line.
pub struct Section {
    pub title: String,
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
}

impl Doc {
    pub fn parse(text: &str) -> Doc {
        let mut doc = Doc {
            sections: Vec::new(),
            statements: Vec::new(),
            tables: Vec::new(),
            lines: Vec::new(),
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
            if heading(trimmed).is_some() {
                continue;
            }
            for sentence in sentences(trimmed) {
                if let Some(s) = statement(line, sentence) {
                    doc.statements.push(s);
                }
            }
        }
        if let Some(t) = table.take() {
            doc.tables.push(t);
        }
        doc.sections = sections(text);
        doc
    }
}

/// Headings and the list items under each, from the CommonMark reading
/// the Markdown validators share (plugins/common `markdown`): setext
/// headings count, `# x` in a code or HTML block does not, every paragraph
/// of a list item is an item, hidden HTML holds none, and titles are
/// normalised as text-match reads text (invisible characters removed,
/// NFKC).
fn sections(text: &str) -> Vec<Section> {
    let reading = markdown::read(text);
    let lines = LineIndex::new(text);
    let visible: Vec<_> = reading.headings.iter().filter(|h| !h.hidden).collect();
    visible
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let end = visible.get(i + 1).map_or(text.len(), |n| n.range.start);
            let items = reading
                .paragraphs
                .iter()
                .filter(|p| p.in_list && (h.range.end..end).contains(&p.range.start))
                .map(|p| (lines.line(p.range.start), p.joined().0))
                .collect();
            Section {
                title: title_key(&h.title),
                items,
            }
        })
        .collect()
}

fn heading(line: &str) -> Option<String> {
    let hashes = line.chars().take_while(|c| *c == '#').count();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    let rest = &line[hashes..];
    if !rest.is_empty() && !rest.starts_with(' ') {
        return None;
    }
    Some(rest.trim().trim_end_matches('#').trim().to_string())
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

fn sentences(line: &str) -> impl Iterator<Item = &str> {
    line.split(". ").map(str::trim).filter(|s| !s.is_empty())
}

/// `The API must not return 500` → subject `api`, predicate `return 500`,
/// negated. Only a sentence with exactly one modal is a statement: two
/// modals are two claims vcc would have to tell apart.
fn statement(line: u32, sentence: &str) -> Option<Statement> {
    let words: Vec<&str> = sentence.split_whitespace().collect();
    let modal = |w: &str| {
        let w = bare(w);
        w == "must" || w == "shall"
    };
    let positions: Vec<usize> = (0..words.len()).filter(|&i| modal(words[i])).collect();
    let [at] = positions[..] else { return None };
    let negation = words.get(at + 1).map(|w| bare(w));
    let negated = matches!(negation.as_deref(), Some("not" | "never"));
    let rest = if negated { at + 2 } else { at + 1 };
    let subject = normalize(&words[..at].join(" "));
    let predicate = normalize(&words[rest.min(words.len())..].join(" "));
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

fn bare(word: &str) -> String {
    word.trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
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
            vec![(3, "Export *pagination*".into()), (4, "Tests".into())]
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
}
