//! What a browser hides in the raw HTML of a Markdown document: the text
//! inside `<style>`, `<script>` and `<template>`, inside any element with
//! the `hidden` attribute, and inside comments. The state runs across the
//! whole document, as in the rendered page: `<div hidden>`, a blank line,
//! a paragraph, `</div>` hides the paragraph.

/// Elements without content: a `hidden` one hides nothing after it.
const VOID: [&str; 14] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr", "keygen",
];

/// Elements whose content is raw text up to their closing tag.
const RAW_TEXT: [&str; 2] = ["script", "style"];

#[derive(Default)]
pub struct Hider {
    /// The element hiding everything now, and how deeply elements of that
    /// name are nested inside it.
    hiding: Option<(String, usize)>,
}

impl Hider {
    /// Whether text at this point of the document is hidden.
    pub fn hidden(&self) -> bool {
        self.hiding.is_some()
    }

    /// Read a piece of raw HTML (an HTML block, or one inline tag or
    /// comment) and return its text a reader sees. An unclosed tag or
    /// comment hides the rest of the piece.
    pub fn feed(&mut self, html: &str) -> String {
        let mut out = String::new();
        let mut rest = html;
        loop {
            if let Some((name, _)) = &self.hiding
                && RAW_TEXT.contains(&name.as_str())
            {
                // Nothing inside is markup until the closing tag.
                let close = format!("</{name}");
                match find_ascii_ci(rest, &close) {
                    Some(i) => {
                        self.hiding = None;
                        rest = &rest[i..];
                    }
                    None => return out,
                }
            }
            let Some(i) = rest.find('<') else {
                if !self.hidden() {
                    out.push_str(rest);
                }
                return out;
            };
            if !self.hidden() {
                out.push_str(&rest[..i]);
            }
            out.push(' ');
            let tail = &rest[i..];
            let end = if tail.starts_with("<!--") {
                tail.find("-->").map(|e| e + 3)
            } else {
                tag_end(tail)
            };
            let Some(end) = end else { return out };
            self.tag(&tail[..end]);
            rest = &tail[end..];
        }
    }

    /// Track one tag (`<…>`): open or close what hides.
    fn tag(&mut self, tag: &str) {
        let Some((closing, name, attrs)) = parse_tag(tag) else {
            return;
        };
        match &mut self.hiding {
            Some((hiding, depth)) => {
                if *hiding == name {
                    if closing {
                        *depth -= 1;
                        if *depth == 0 {
                            self.hiding = None;
                        }
                    } else {
                        *depth += 1;
                    }
                }
            }
            None => {
                let hides = RAW_TEXT.contains(&name.as_str())
                    || name == "template"
                    || (has_hidden(attrs) && !VOID.contains(&name.as_str()));
                if !closing && hides {
                    self.hiding = Some((name, 1));
                }
            }
        }
    }
}

/// Where the tag that `s` starts with ends (after its `>`), quotes
/// respected.
fn tag_end(s: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    for (i, c) in s.char_indices().skip(1) {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '>' => return Some(i + 1),
            None => {}
        }
    }
    None
}

/// (closing, lower-case name, attributes) of `<name …>` or `</name>`;
/// `None` for anything else (`<!DOCTYPE>`, `<?…?>`, a stray `<`).
fn parse_tag(tag: &str) -> Option<(bool, String, &str)> {
    let inner = tag.strip_prefix('<')?.strip_suffix('>')?;
    let (closing, inner) = match inner.strip_prefix('/') {
        Some(rest) => (true, rest),
        None => (false, inner),
    };
    let len = inner
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(inner.len());
    let name = &inner[..len];
    if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    Some((closing, name.to_ascii_lowercase(), &inner[len..]))
}

/// Whether the attributes hold `hidden` (with or without a value).
fn has_hidden(attrs: &str) -> bool {
    let mut rest = attrs;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '/');
        if rest.is_empty() {
            return false;
        }
        let len = rest
            .find(|c: char| c.is_whitespace() || c == '=' || c == '/' || c == '>')
            .unwrap_or(rest.len())
            .max(1);
        if rest[..len].eq_ignore_ascii_case("hidden") {
            return true;
        }
        rest = rest[len..].trim_start();
        if let Some(value) = rest.strip_prefix('=') {
            let value = value.trim_start();
            rest = match value.chars().next() {
                Some(q @ ('"' | '\'')) => value[1..].find(q).map_or("", |e| &value[e + 2..]),
                _ => value.find(char::is_whitespace).map_or("", |e| &value[e..]),
            };
        }
    }
}

fn find_ascii_ci(haystack: &str, needle: &str) -> Option<usize> {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    (0..=h.len().checked_sub(n.len())?).find(|&i| h[i..i + n.len()].eq_ignore_ascii_case(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn visible(pieces: &[&str]) -> String {
        let mut h = Hider::default();
        let text: Vec<String> = pieces.iter().map(|p| h.feed(p)).collect();
        text.join("|")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn style_script_template_and_hidden_hide_their_text() {
        assert_eq!(visible(&["<style>p { a b c }</style>shown"]), "shown");
        assert_eq!(visible(&["<script>if (a < b) { x() }</script> ok"]), "ok");
        assert_eq!(
            visible(&["<template><p>in</p><p>ert</p></template>out"]),
            "out"
        );
        assert_eq!(
            visible(&["<div hidden><div>deep</div>still</div>after"]),
            "after"
        );
        assert_eq!(
            visible(&["<p data-x=\"hidden\" title='a > b'>seen</p>"]),
            "seen"
        );
        assert_eq!(
            visible(&["<input hidden> next"]),
            "next",
            "a void element hides nothing"
        );
        assert_eq!(visible(&["<SPAN HIDDEN=until-found>x</span>y"]), "y");
        assert_eq!(visible(&["a <!-- b --> c"]), "a c");
        assert_eq!(visible(&["a <div unclosed"]), "a");
    }

    #[test]
    fn hiding_runs_across_pieces() {
        let mut h = Hider::default();
        assert_eq!(h.feed("<div hidden>").trim(), "");
        assert!(h.hidden());
        assert_eq!(h.feed("<b>").trim(), "");
        h.feed("</b>");
        assert!(h.hidden());
        h.feed("</div>");
        assert!(!h.hidden());
    }
}
