//! Anchors of a document: what `plan.md#T-1` may resolve to. A renderer
//! (GitHub, mdBook, Pandoc) jumps to `#T-1` only where the document
//! defines that anchor, so only these count:
//! - a heading whose slug is the anchor (GitHub's: lower case, spaces to
//!   `-`, punctuation other than `-` and `_` dropped), or whose first
//!   word is the id (`## T-1: page size` defines `T-1`);
//! - an explicit anchor: `{#T-1}` ending a heading (Pandoc, kramdown,
//!   mdBook heading attributes) or a span (`[text]{#T-1}`), `<a id="T-1">`,
//!   `<a name="T-1">`, or any element's `id="T-1"`, where a browser makes
//!   that element (see `html_ids.rs`);
//! - in reStructuredText, `.. _T-1:` and section titles.
//!
//! Text in a sentence ("tests T-1 will be written later", or a bare
//! `{#T-1}` in it), in a table, in a code block (fenced, or indented four
//! spaces: such a line is not read at all, which is stricter than
//! CommonMark inside list items), in inline code or in an HTML comment
//! defines nothing.

use vcc_plugin_common::regex;

use crate::doc::Doc;
use crate::html_ids;

pub fn defines(path: &str, text: &str, fragment: &str) -> bool {
    if path.to_lowercase().ends_with(".rst") {
        return rst_defines(text, fragment);
    }
    // A line indented four columns or more is an indented code block (or
    // a list item's continuation, read the strict way: as nothing).
    let read: String = text
        .lines()
        .map(|l| if indented(l) { "" } else { l })
        .collect::<Vec<_>>()
        .join("\n");
    let d = Doc::parse(&read);
    let heading = d
        .sections
        .iter()
        // A raw HTML heading gets no id from a renderer.
        .any(|s| !s.html && !s.label && heading_defines(&s.title, fragment));
    heading
        || html_ids::ids(&read).iter().any(|a| a == fragment)
        || d.lines.iter().any(|(_, line)| {
            explicit_anchors(&outside_code(line))
                .iter()
                .any(|a| a == fragment)
        })
}

/// Whether a line starts with four columns of white space (a tab is
/// four).
fn indented(line: &str) -> bool {
    let mut columns = 0;
    for c in line.chars() {
        match c {
            ' ' => columns += 1,
            '\t' => columns += 4 - columns % 4,
            _ => break,
        }
        if columns >= 4 {
            return !line.trim().is_empty();
        }
    }
    false
}

/// A heading (its text, attributes included) defines `fragment`.
fn heading_defines(title: &str, fragment: &str) -> bool {
    let title = outside_code_keep_text(title);
    let (bare, attribute) = match title.rfind("{#") {
        Some(i) if title.trim_end().ends_with('}') => (
            title[..i].trim_end().to_string(),
            title[i + 2..title.trim_end().len() - 1]
                .split_whitespace()
                .next()
                .map(str::to_string),
        ),
        _ => (title.clone(), None),
    };
    if attribute.as_deref() == Some(fragment) {
        return true;
    }
    let first = bare
        .split_whitespace()
        .next()
        .map(|w| w.trim_end_matches([':', '.', ',', ';', ')']))
        .unwrap_or_default();
    slug(&bare) == fragment.to_lowercase() || (!first.is_empty() && first == fragment)
}

/// GitHub's heading slug.
pub fn slug(title: &str) -> String {
    title
        .trim()
        .chars()
        .filter_map(|c| match c {
            c if c.is_alphanumeric() => Some(c.to_lowercase().next().unwrap_or(c)),
            ' ' | '-' => Some('-'),
            '_' => Some('_'),
            _ => None,
        })
        .collect()
}

/// `[text]{#id}` spans in a line (a heading's own `{#id}` is read with
/// the heading; HTML anchors are read as a browser reads them, in
/// `html_ids.rs`).
fn explicit_anchors(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for pattern in [r"\]\{#([^}\s]+)[^}]*\}"] {
        // Constant patterns: one that did not compile would find nothing
        // (and fail the unit tests).
        if let Ok(re) = regex(pattern, false) {
            out.extend(
                re.captures_iter(line)
                    .filter_map(|c| c.get(1))
                    .map(|g| g.as_str().to_string()),
            );
        }
    }
    out
}

/// A line without its inline code spans and HTML comments (blanked).
fn outside_code(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    loop {
        let tick = rest.find('`');
        let comment = rest.find("<!--");
        match (tick, comment) {
            (Some(t), c) if c.is_none_or(|c| t < c) => {
                out.push_str(&rest[..t]);
                let run = rest[t..].chars().take_while(|c| *c == '`').count();
                let fence = &rest[t..t + run];
                match rest[t + run..].find(fence) {
                    Some(end) => rest = &rest[t + run + end + run..],
                    None => {
                        out.push_str(&rest[t..]);
                        return out;
                    }
                }
                out.push(' ');
            }
            (_, Some(c)) => {
                out.push_str(&rest[..c]);
                match rest[c..].find("-->") {
                    Some(end) => rest = &rest[c + end + 3..],
                    None => return out,
                }
                out.push(' ');
            }
            _ => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

/// A heading's text: code spans keep their text (GitHub slugs it), HTML
/// comments go.
fn outside_code_keep_text(title: &str) -> String {
    let mut out = String::new();
    let mut rest = title;
    while let Some(c) = rest.find("<!--") {
        out.push_str(&rest[..c]);
        match rest[c..].find("-->") {
            Some(end) => rest = &rest[c + end + 3..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// reStructuredText: explicit targets (`.. _T-1:`) and section titles (a
/// line over an underline of one punctuation character at least as long).
fn rst_defines(text: &str, fragment: &str) -> bool {
    let lines: Vec<&str> = text.lines().collect();
    lines.iter().enumerate().any(|(i, line)| {
        if let Some(target) = line.trim().strip_prefix(".. _")
            && let Some(name) = target.strip_suffix(':')
        {
            return name == fragment;
        }
        let title = line.trim_end();
        let under = lines.get(i + 1).map(|u| u.trim_end()).unwrap_or_default();
        let mut chars = under.chars();
        let is_title = !title.trim().is_empty()
            && !line.starts_with(' ')
            && chars
                .next()
                .is_some_and(|c| c.is_ascii_punctuation() && chars.all(|d| d == c))
            && under.chars().count() >= title.chars().count();
        is_title && heading_defines(title, fragment)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_and_explicit_anchors_define_ids() {
        let doc = "# Test plan\n\n## T-1: page size\n\n### Last page {#T-2}\n\n<a id=\"T-3\"></a>\nText <span id='T-4'>four</span>.\n\n## Power supply\n";
        for id in [
            "T-1",
            "T-2",
            "T-3",
            "T-4",
            "power-supply",
            "t-1-page-size",
            "test-plan",
        ] {
            assert!(defines("plan.md", doc, id), "{id}");
        }
    }

    #[test]
    fn a_mention_defines_nothing() {
        let doc = "# Plan\n\nTests T-1 will be written later {#T-11}.\n\n    ## T-12\n\n\t<a id=\"T-13\">\n\n- T-5 someday\n\n`<a id=\"T-6\">`\n\n<!-- <a id=\"T-7\"> -->\n\n```\n<a id=\"T-8\"></a>\n## T-9\n```\n\n| T-10 | x |\n|---|---|\n";
        for id in [
            "T-1", "T-5", "T-6", "T-7", "T-8", "T-9", "T-10", "T-11", "T-12", "T-13", "plan-T",
        ] {
            assert!(!defines("plan.md", doc, id), "{id}");
        }
    }

    #[test]
    fn restructured_text_targets_and_titles() {
        let doc = ".. _T-1:\n\nPage size\n=========\n\nSee T-3 later.\n";
        assert!(defines("plan.rst", doc, "T-1"));
        assert!(defines("plan.rst", doc, "page-size"));
        assert!(!defines("plan.rst", doc, "T-3"));
    }

    #[test]
    fn slugs_like_github() {
        assert_eq!(slug("Power supply: 5 V!"), "power-supply-5-v");
        assert_eq!(slug("snake_case and `code`"), "snake_case-and-code");
    }
}
