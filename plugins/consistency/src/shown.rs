//! Documents whose shown text cannot be told from the markup, so
//! consistency refuses them (issue 34). The prose checks read a document
//! as shown: hidden HTML left out (plugins/common `markdown`). Three
//! things make that reading a guess, and a guess either way hides
//! something from the reader or from vcc:
//! - an inline style that hides only in some layouts (`left:-1px` does
//!   nothing to a static span, `width:0` nothing to an inline one,
//!   `clip-path`, `transform: scale(0)`: `markdown::hidden(..).by_layout`).
//!   Read as hidden, `must <span style="left:-1px">not</span> log` was a
//!   MUST where a reader sees a MUST NOT; read as shown, a clause the
//!   reader does not see could make a sentence two claims;
//! - a style sheet that may hide by selector (`hiding_style`): a hidden
//!   `, and must` makes a sentence two claims, which is no statement;
//! - CSS that puts text on the page the markup does not hold
//!   (`::before { content: "not " }`: `generated_text`).
//!
//! - in a plain-text document (`.txt`, `.rst`), markup a Markdown renderer
//!   hides (a comment, `<span hidden>`): every plain-text reader sees it,
//!   the Markdown reading the checks share leaves it out
//!   (`markdown::hidden(..).ranges`), so `must <span hidden>not</span>
//!   log` in notes.txt was a MUST.
//!
//! Each is a finding at its line (rules `layout-hidden`, `hiding-style`,
//! `generated-content`, as citation-coverage, markdown-sections and
//! text-match name them), for whichever check reads the document: scope,
//! negations and the trace matrix's specification and tables alike.

use vcc_plugin_common::LineIndex;
use vcc_plugin_common::markdown::{self, Reading};

/// Why a document's shown text cannot be told, and where.
#[derive(Debug, PartialEq)]
pub struct Unshown {
    pub line: u32,
    pub rule: &'static str,
    pub message: &'static str,
}

const LAYOUT: &str = "an inline style that hides text only in some layouts (`left:-9999px`, `width:0`, `clip-path`, `transform: scale(0)`, …): whether a reader sees the statement or scope item in it cannot be told from the markup, so the document is refused";
const HIDING: &str = "a style sheet that may hide content by selector (a `<style>` rule with `display:none` or the like, `@import`, `<link rel=stylesheet>`): the statements and scope items a reader sees cannot be told from the markup, so the document is refused";
const GENERATED: &str = "CSS that puts text on the page the markup does not hold (`content` on `::before`/`::after`, `quotes`, a string list marker, `@counter-style`, `@font-face`), or reorders it (`unicode-bidi`, `direction` in a style sheet): the statements a reader sees cannot be told from the markup, so the document is refused";

const PLAIN: &str = "markup a Markdown renderer hides (an HTML comment, a hidden element), in a plain-text document: a plain-text reader sees it, read as Markdown it is left out, so the document is refused";

/// In a plain-text document (not `.md`/`.markdown`), the first markup the
/// Markdown reading hides: a plain-text reader sees it.
pub fn in_plain_text(path: &str, text: &str) -> Option<Unshown> {
    let lower = path.to_lowercase();
    if lower.ends_with(".md") || lower.ends_with(".markdown") {
        return None;
    }
    let first = markdown::hidden(text).ranges.first()?.start;
    Some(Unshown {
        line: LineIndex::new(text).line(first),
        rule: "hidden-in-plain-text",
        message: PLAIN,
    })
}

/// What makes `text`'s shown text a guess, in document order: the first
/// element hidden only by layout, the first hiding style sheet and the
/// first generated text (one finding each is enough to refuse).
pub fn unshown(text: &str, reading: &Reading, lines: &LineIndex) -> Vec<Unshown> {
    let layout = markdown::hidden(text).by_layout.first().copied();
    let mut out: Vec<(usize, &'static str, &'static str)> = [
        layout.map(|at| (at, "layout-hidden", LAYOUT)),
        reading.hiding_style.map(|at| (at, "hiding-style", HIDING)),
        reading
            .generated_text
            .map(|at| (at, "generated-content", GENERATED)),
    ]
    .into_iter()
    .flatten()
    .collect();
    out.sort_by_key(|(at, _, _)| *at);
    out.into_iter()
        .map(|(at, rule, message)| Unshown {
            line: lines.line(at),
            rule,
            message,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_a_renderer_hides_is_refused_in_plain_text_only() {
        let text = "Design\n\nThe server must <span hidden>not</span> log.\n";
        let u = in_plain_text("docs/b.txt", text).map(|u| (u.line, u.rule));
        assert_eq!(u, Some((3, "hidden-in-plain-text")));
        assert!(in_plain_text("docs/b.rst", "x\n<!-- not -->\n").is_some());
        assert!(in_plain_text("docs/b.md", text).is_none());
        assert!(in_plain_text("docs/b.MARKDOWN", text).is_none());
        assert!(in_plain_text("docs/b.txt", "a < b and c > d, <b>bold</b>\n").is_none());
    }

    fn rules(text: &str) -> Vec<(u32, &'static str)> {
        let reading = markdown::read(text);
        unshown(text, &reading, &LineIndex::new(text))
            .into_iter()
            .map(|u| (u.line, u.rule))
            .collect()
    }

    #[test]
    fn text_hidden_only_in_some_layouts_is_refused() {
        for style in [
            "position:relative;left:-1px",
            "width:0",
            "height:0;overflow:hidden",
            "clip-path:inset(50%)",
            "transform:scale(0)",
            "text-indent:-9999px",
            "right:-9999px",
            "le\\66t:-1px",
        ] {
            let text = format!("# D\n\nThe server must <span style=\"{style}\">not</span> log.\n");
            assert_eq!(rules(&text), vec![(3, "layout-hidden")], "{style}");
        }
        let block = "# In Scope\n\n<div style=\"width:0\">\n\n- Offline mode\n\n</div>\n";
        assert_eq!(rules(block), vec![(3, "layout-hidden")]);
    }

    #[test]
    fn text_hidden_in_every_layout_or_shown_is_read() {
        for text in [
            "The server must <span style=\"display:none\">not</span> log.\n",
            "The server must <span hidden>not</span> log.\n",
            "The server must <span style=\"color:red\">not</span> log.\n",
            "The server must <!-- not --> log.\n",
            "The server must not log.\n",
        ] {
            assert_eq!(rules(text), vec![], "{text}");
        }
    }

    #[test]
    fn style_sheets_that_hide_or_add_text_are_refused() {
        let hiding = "# D\n\n<style>.x { display: none }</style>\n\nThe server must not log<span class=x>, and must</span>.\n";
        assert_eq!(rules(hiding), vec![(3, "hiding-style")]);
        let generated = "# D\n\n<style>.n::before { content: \"not \" }</style>\n\nThe server must <span class=n></span>log.\n";
        assert!(rules(generated).contains(&(3, "generated-content")));
    }
}

#[cfg(test)]
mod checks {
    use crate::tests::{rules, run};
    use vcc_sdk::Status;

    #[test]
    fn a_negation_or_scope_item_hidden_by_layout_fails_the_check() {
        let plan = (
            "a",
            "a.md",
            "# Plan\n\nThe server must log every token.\n\n## Out of Scope\n\n- Offline mode\n",
        );
        for (design, line) in [
            (
                "# Design\n\nThe server must <span style=\"position:relative;left:-1px\">not</span> log every token.\n",
                3,
            ),
            (
                "# Design\n\n## In Scope\n\n- <span style=\"width:0\">Offline mode</span>\n",
                5,
            ),
        ] {
            let o = run(&[plan, ("b", "b.md", design)], "{}");
            assert_eq!(o.status, Status::Fail, "{design}");
            assert_eq!(rules(&o), ["layout-hidden"], "{design}");
            assert_eq!(o.findings[0].line, Some(line), "{design}");
        }
        // The same file with nothing to contradict is refused as well.
        let o = run(
            &[(
                "b",
                "b.md",
                "# D\n\nText <span style=\"width:0\">x</span>.\n",
            )],
            "{}",
        );
        assert_eq!(rules(&o), ["layout-hidden"]);
        // Hidden in every layout: read as hidden, no finding.
        let o = run(
            &[
                plan,
                (
                    "b",
                    "b.md",
                    "# D\n\nThe server must <span style=\"display:none\">not</span> log every token.\n",
                ),
            ],
            "{}",
        );
        assert_eq!(o.status, Status::Pass, "{:?}", o.findings);
    }
}

#[cfg(test)]
mod anchors {
    use crate::anchors::defines;

    #[test]
    fn anchors_under_a_layout_dependent_style_are_read_the_strict_way() {
        // A heading hidden by layout defines no anchor (a dangling entry,
        // the stricter reading) …
        let heading = "# Plan\n\n<div style=\"width:0\">\n\n## T-1: page size\n\n</div>\n";
        assert!(!defines("plan.md", heading, "T-1"));
        assert!(defines("plan.md", "# Plan\n\n## T-1: page size\n", "T-1"));
        // … while an element's id there is one: a browser makes the
        // element whatever its style.
        let id = "# Plan\n\n<span style=\"left:-1px\" id=\"T-1\">page size</span>\n";
        assert!(defines("plan.md", id, "T-1"));
    }
}
