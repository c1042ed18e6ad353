//! `std/markdown-sections`: required headings (optionally with level, order
//! and a minimum number of words), and forbidden headings.
//!
//! Headings come from a CommonMark parser (ATX `#` and setext underlines),
//! so a `# Title` inside a code block never counts. Titles are compared
//! after trimming, collapsing spaces and dropping a trailing `:`;
//! case-insensitively unless `case_sensitive` is set. With `labels`, a
//! paragraph that is just `Title:` also counts as a section (the VCC v1
//! reference validator accepts those).
//!
//! Words are what a reader sees: text, code and the text of HTML blocks,
//! never an HTML comment, a tag, a link reference definition, a token
//! made of invisible characters, an image's alt text, a character
//! reference that shows no letter (`&nbsp;`), or text inside `<style>`,
//! `<script>`, `<template>` or an element with `hidden` (`min_words`
//! cannot be met with hidden words). Titles are compared as text-match reads text:
//! invisible characters removed and NFKC applied (`TO\u{200b}DO` and
//! `ＴＯＤＯ` are `TODO`); a forbidden title also matches a heading with the
//! same UTS #39 confusable skeleton (`TОDO` with a Cyrillic `О`; off with
//! `confusables: false`, text-match's name). An HTML `<h1>`–`<h6>` is a
//! heading wherever a browser shows it, inline too (`Done. <h2>TODO</h2>`,
//! a link's text, a table row: see plugins/common's `html/headings.rs`).
//! CSS that puts text on the page the markup does not hold (`content` on
//! `::before`, `quotes`, string markers, web fonts) is refused
//! (`generated-content`); where CSS may change the case of letters
//! (`text-transform`), forbidden titles match whatever their case. A heading holding a bidi control or a direction override
//! (`<bdo>`, `dir="rtl"`) is refused (`bidi-heading`): what a reader is
//! shown is not its bytes. Inline styles and elements a browser does not
//! show hide their text (see plugins/common's `markdown/html.rs`). The
//! reading is plugins/common's `markdown`, shared with citation-coverage
//! and consistency.

use vcc_plugin_common::bounded::{self, Findings};
use vcc_plugin_common::markdown::{self, title_key};
use vcc_plugin_common::text::is_bidi_control;
use vcc_plugin_common::{LineIndex, allow_empty_schema, nothing};
use vcc_sdk::serde::Deserialize;
use vcc_sdk::serde_json::json;
use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator, relative};

pub struct MarkdownSections;

#[derive(Deserialize, Default)]
#[serde(crate = "vcc_sdk::serde", deny_unknown_fields)]
struct Params {
    #[serde(default)]
    required: Vec<Required>,
    #[serde(default)]
    ordered: bool,
    #[serde(default)]
    forbidden: Vec<String>,
    #[serde(default)]
    min_words: usize,
    #[serde(default)]
    case_sensitive: bool,
    #[serde(default)]
    labels: bool,
    #[serde(default)]
    allow_empty: bool,
    #[serde(default = "yes")]
    confusables: bool,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde", untagged)]
enum Required {
    Title(String),
    Spec {
        title: String,
        level: Option<u8>,
        min_words: Option<usize>,
    },
}

impl Required {
    fn title(&self) -> &str {
        match self {
            Required::Title(t) | Required::Spec { title: t, .. } => t,
        }
    }
}

/// A heading as found in the document.
#[derive(Debug, Clone, PartialEq)]
struct Heading {
    /// 1–6; labels (`Title:`) are 7.
    level: u8,
    title: String,
    line: u32,
    /// Words in the section body, subsections included.
    words: usize,
    /// Inside an element a browser hides: it meets no requirement (it
    /// still counts as forbidden).
    hidden: bool,
    /// Holds a bidi control or override: shown otherwise than its bytes.
    bidi: bool,
    /// The title with the text a browser may also show in it (an image's
    /// alt, an `<input>`'s value, fallback content): a forbidden title is
    /// looked for in it too.
    maybe_title: Option<String>,
}

const LABEL_LEVEL: u8 = 7;

impl Validator for MarkdownSections {
    fn describe() -> Description {
        Description::new(
            "std/markdown-sections",
            env!("CARGO_PKG_VERSION"),
            "Markdown has required headings (level, order, minimum words) and no forbidden ones",
        )
        .params_schema(json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "required": {
                    "type": "array",
                    "description": "headings that must be present: a title, or {title, level, min_words}",
                    "items": {
                        "oneOf": [
                            { "type": "string", "minLength": 1 },
                            {
                                "type": "object", "additionalProperties": false, "required": ["title"],
                                "properties": {
                                    "title": { "type": "string", "minLength": 1 },
                                    "level": { "type": "integer", "minimum": 1, "maximum": 6 },
                                    "min_words": { "type": "integer", "minimum": 0 }
                                }
                            }
                        ]
                    }
                },
                "ordered": { "type": "boolean", "default": false, "description": "required headings appear in the given order" },
                "forbidden": { "type": "array", "items": { "type": "string", "minLength": 1 }, "description": "headings that must not appear" },
                "min_words": { "type": "integer", "minimum": 0, "default": 0, "description": "minimum words in every required section" },
                "case_sensitive": { "type": "boolean", "default": false },
                "labels": { "type": "boolean", "default": false, "description": "also accept `Title:` lines as sections" },
                "confusables": { "type": "boolean", "default": true, "description": "a heading whose UTS #39 confusable skeleton is a forbidden title's (TОDO with a Cyrillic О) is forbidden too" },
                "allow_empty": allow_empty_schema("no Markdown file")
            },
            "anyOf": [{ "required": ["required"] }, { "required": ["forbidden"] }]
        }))
    }

    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params: Params = criterion.params()?;
        let paths: Vec<&str> = criterion.paths().collect();
        if paths.is_empty() {
            return Ok(nothing(params.allow_empty, "no Markdown file to check"));
        }
        let mut findings = Findings::default();
        let mut outline = Vec::new();
        for path in &paths {
            let text = vcc_sdk::read_to_string(path)?;
            let reading = markdown::read(&text);
            if let Some(at) = reading.generated_text {
                // `h2::before { content: "\54 ODO" }` shows a heading
                // `TODO` the markup does not hold.
                findings.push(
                    Finding::new("CSS that puts text on the page the markup does not hold (`content` on `::before`/`::after`, `quotes`, a string list marker, `@counter-style`, `@font-face`), or reorders it (`unicode-bidi`, `direction` in a style sheet): the headings and words a reader sees cannot be told from the markup, so the file is refused")
                        .path(path)
                        .line(LineIndex::new(&text).line(at))
                        .rule("generated-content"),
                );
            }
            if let Some(at) = reading.hiding_style {
                // Rules by selector may hide any heading or word: what a
                // reader sees cannot be told from the markup.
                findings.push(
                    Finding::new("a style sheet that may hide content by selector (a `<style>` rule with `display:none` or the like, `@import`, `<link rel=stylesheet>`): the sections a reader sees cannot be told from the markup, so the file is refused")
                        .path(path)
                        .line(LineIndex::new(&text).line(at))
                        .rule("hiding-style"),
                );
            }
            if let Some(at) = reading.reordered.filter(|_| params.ordered) {
                // `order:2` on the first section shows it second.
                findings.push(
                    Finding::new("CSS that may show boxes in another order than the markup (`order`, a reversed `flex-direction`, grid placement, `float:right`) with `ordered: true`: the order of the sections a reader sees cannot be told from the markup, so the file is refused")
                        .path(path)
                        .line(LineIndex::new(&text).line(at))
                        .rule("reordered-layout"),
                );
            }
            let headings = headings_of(&text, &reading, params.labels);
            // Letters may be shown in another case than written: a
            // forbidden title is found whatever its case.
            let recased = reading.case_transform.is_some();
            for problem in check_shown(&headings, &params, recased) {
                let mut f = Finding::new(problem.message).path(path).rule(problem.rule);
                if let Some(line) = problem.line {
                    f = f.line(line);
                }
                findings.push(f);
            }
            let listed: Vec<_> = headings
                .iter()
                .map(|h| json!({"level": h.level, "title": h.title, "line": h.line, "words": h.words}))
                .collect();
            outline.push(json!({"file": relative(path), "headings": listed}));
        }
        let evidence = bounded::evidence(json!({}), &outline);
        let outcome = if findings.is_empty() {
            Outcome::pass(format!(
                "{} file(s) have every required section",
                paths.len()
            ))
        } else {
            Outcome::fail(format!(
                "{} section problem(s) in {} file(s)",
                findings.len(),
                paths.len()
            ))
            .findings(findings.into_vec())
        };
        Ok(outcome.evidence("outline.json", "application/json", evidence))
    }
}

struct Problem {
    message: String,
    line: Option<u32>,
    rule: &'static str,
}

/// A title as compared: as text-match normalises (invisible characters
/// removed, NFKC), trimmed, spaces collapsed, a trailing `:` dropped.
fn normalize(title: &str, case_sensitive: bool) -> String {
    let joined = title_key(title);
    if case_sensitive {
        joined
    } else {
        joined.to_lowercase()
    }
}

/// A title's UTS #39 confusable skeleton (`TОDO` with a Cyrillic `О`, or
/// Greek `ΤΟDΟ`, is `TODO`), of the normalised title; case folded after
/// the skeleton (whose prototypes are case-sensitive) unless asked not to.
fn skeleton_key(title: &str, case_sensitive: bool) -> String {
    let skel: String = unicode_security::skeleton(&normalize(title, true)).collect();
    if case_sensitive {
        skel
    } else {
        skel.to_lowercase()
    }
}

#[cfg(test)]
fn check(headings: &[Heading], params: &Params) -> Vec<Problem> {
    check_shown(headings, params, false)
}

/// The problems with `headings`; `recased` when CSS may show letters in
/// another case than written (`text-transform`): forbidden titles are
/// then compared whatever the case, even with `case_sensitive`.
fn check_shown(headings: &[Heading], params: &Params, recased: bool) -> Vec<Problem> {
    let mut problems = Vec::new();
    for h in headings.iter().filter(|h| h.bidi) {
        problems.push(Problem {
            message: format!(
                "heading `{}` holds a bidi control character (U+202A–U+202E, U+2066–U+2069) or a direction override (`<bdo>`, `dir=\"rtl\"`): a reader is shown other letters or another order than its bytes, so it is refused",
                h.title.escape_debug()
            ),
            line: Some(h.line),
            rule: "bidi-heading",
        });
    }
    // Required sections must be seen; a forbidden one counts even hidden.
    let find = |title: &str| {
        let want = normalize(title, params.case_sensitive);
        headings
            .iter()
            .position(|h| !h.hidden && normalize(&h.title, params.case_sensitive) == want)
    };
    let mut last: Option<(usize, &str)> = None;
    for req in &params.required {
        let title = req.title();
        let Some(i) = find(title) else {
            problems.push(Problem {
                message: format!("missing section `{title}`"),
                line: None,
                rule: "missing-section",
            });
            continue;
        };
        let h = &headings[i];
        if let Required::Spec {
            level: Some(level), ..
        } = req
            && h.level != *level
        {
            let found = if h.level == LABEL_LEVEL {
                "a label".to_string()
            } else {
                format!("a level-{} heading", h.level)
            };
            problems.push(Problem {
                message: format!("section `{title}` is {found}; level {level} is required"),
                line: Some(h.line),
                rule: "section-level",
            });
        }
        let min = match req {
            Required::Spec {
                min_words: Some(n), ..
            } => *n,
            _ => params.min_words,
        };
        if h.words < min {
            problems.push(Problem {
                message: format!(
                    "section `{title}` has {} word(s); at least {min} required",
                    h.words
                ),
                line: Some(h.line),
                rule: "section-words",
            });
        }
        if params.ordered {
            if let Some((prev, prev_title)) = last
                && i < prev
            {
                problems.push(Problem {
                    message: format!("section `{title}` comes before `{prev_title}`; the required order puts it after"),
                    line: Some(h.line),
                    rule: "section-order",
                });
            }
            last = Some((i, title));
        }
    }
    let forbid_case = params.case_sensitive && !recased;
    // The title as written, and with what a browser may show besides.
    let titles = |h: &Heading| {
        let maybe = h.maybe_title.clone();
        std::iter::once(h.title.clone()).chain(maybe)
    };
    let find_look_alike = |title: &str| {
        let want = skeleton_key(title, forbid_case);
        headings
            .iter()
            .position(|h| titles(h).any(|t| skeleton_key(&t, forbid_case) == want))
    };
    let find_forbidden = |title: &str| {
        let want = normalize(title, forbid_case);
        headings
            .iter()
            .position(|h| titles(h).any(|t| normalize(&t, forbid_case) == want))
    };
    for title in &params.forbidden {
        // Hidden ones too.
        let found = find_forbidden(title)
            .or_else(|| params.confusables.then(|| find_look_alike(title)).flatten());
        if let Some(i) = found {
            problems.push(Problem {
                message: format!("forbidden section `{title}` is present"),
                line: Some(headings[i].line),
                rule: "forbidden-section",
            });
        }
    }
    problems
}

/// `headings_of` a text read here (the tests' shorthand).
#[cfg(test)]
fn headings(text: &str, labels: bool) -> Vec<Heading> {
    headings_of(text, &markdown::read(text), labels)
}

/// Every heading (and, with `labels`, every `Title:` paragraph) in order,
/// from the shared CommonMark reading of `text` (made once per file).
fn headings_of(text: &str, reading: &markdown::Reading, labels: bool) -> Vec<Heading> {
    let lines = LineIndex::new(text);
    // (level, title, source range, hidden, bidi, maybe title)
    type Found = (
        u8,
        String,
        std::ops::Range<usize>,
        bool,
        bool,
        Option<String>,
    );
    let mut found: Vec<Found> = reading
        .headings
        .iter()
        .map(|h| {
            let maybe = h.maybe_title.clone();
            (
                h.level,
                h.title.clone(),
                h.range.clone(),
                h.hidden,
                h.bidi,
                maybe,
            )
        })
        .collect();
    if labels {
        for p in &reading.paragraphs {
            let trimmed = p.text.trim();
            if trimmed.ends_with(':') && !trimmed.contains('\n') && trimmed.len() > 1 {
                found.push((
                    LABEL_LEVEL,
                    trimmed.to_string(),
                    p.range.clone(),
                    false,
                    trimmed.chars().any(is_bidi_control),
                    None,
                ));
            }
        }
        found.sort_by_key(|(_, _, r, ..)| r.start);
    }
    (0..found.len())
        .map(|i| {
            let (level, title, range, hidden, bidi, maybe) = &found[i];
            // The body runs to the next heading of the same or a higher level.
            let body_end = found[i + 1..]
                .iter()
                .find(|(l, ..)| l <= level)
                .map_or(text.len(), |(_, _, r, ..)| r.start);
            let body_start = range.end.min(body_end);
            Heading {
                level: *level,
                title: title.trim().to_string(),
                line: lines.line(range.start),
                words: reading.words_in(body_start..body_end),
                hidden: *hidden,
                bidi: *bidi,
                maybe_title: maybe.clone(),
            }
        })
        .collect()
}

vcc_sdk::export_validator!(MarkdownSections);

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "# Release\n\n## Summary\n\nThe export API gains pagination.\n\n```\n# Not a heading\n```\n\nRisks\n-----\n\nNone known.\n\n### Details\n\nmore words here\n";

    fn params(v: vcc_sdk::serde_json::Value) -> Params {
        vcc_sdk::serde_json::from_value(v).unwrap()
    }

    fn rules(problems: &[Problem]) -> Vec<&str> {
        problems.iter().map(|p| p.rule).collect()
    }

    #[test]
    fn finds_atx_and_setext_headings_but_not_code() {
        let h = headings(DOC, false);
        let titles: Vec<(&str, u8, u32)> = h
            .iter()
            .map(|h| (h.title.as_str(), h.level, h.line))
            .collect();
        assert_eq!(
            titles,
            vec![
                ("Release", 1, 1),
                ("Summary", 2, 3),
                ("Risks", 2, 11),
                ("Details", 3, 16)
            ]
        );
        assert_eq!(h[1].words, 8, "code-block text counts as body words");
        assert_eq!(h[2].words, 6, "subsections count toward their parent");
    }

    #[test]
    fn required_present_missing_level_order_and_words() {
        let h = headings(DOC, false);
        assert!(check(&h, &params(json!({"required": ["summary", "RISKS:"]}))).is_empty());
        let p = check(&h, &params(json!({"required": ["Scope"]})));
        assert_eq!(rules(&p), vec!["missing-section"]);
        let p = check(
            &h,
            &params(json!({"required": [{"title": "Details", "level": 2}]})),
        );
        assert_eq!(rules(&p), vec!["section-level"]);
        assert_eq!(p[0].line, Some(16));
        let p = check(
            &h,
            &params(json!({"required": ["Risks", "Summary"], "ordered": true})),
        );
        assert_eq!(rules(&p), vec!["section-order"]);
        let p = check(
            &h,
            &params(json!({"required": ["Summary"], "min_words": 10})),
        );
        assert_eq!(rules(&p), vec!["section-words"]);
        assert!(
            check(
                &h,
                &params(json!({"required": ["summary"], "case_sensitive": true}))
            )
            .len()
                == 1
        );
    }

    #[test]
    fn forbidden_headings_and_labels() {
        let doc = "# Plan\n\nScope:\n\nall of it\n\n## TODO\n";
        let p = check(
            &headings(doc, false),
            &params(json!({"required": ["Scope"], "forbidden": ["todo"]})),
        );
        assert_eq!(rules(&p), vec!["missing-section", "forbidden-section"]);
        let p = check(
            &headings(doc, true),
            &params(json!({"required": ["Scope"]})),
        );
        assert!(p.is_empty());
    }

    #[test]
    fn hidden_words_do_not_count() {
        let doc = "# Testing\n\n<!-- lots of words hidden in a comment here -->\n\n[ref]: https://example.com/x \"a title of many words\"\n\n\u{3164} \u{3164} \u{200b}\u{200b}\n\n<div>\n<!-- and\nmore hidden -->\nshown text\n</div>\n\nok <!-- inline hidden words --> done\n";
        let h = headings(doc, false);
        assert_eq!(h[0].words, 4, "shown text, ok, done: {:?}", h[0]);
        let doc = "# Testing\n\n<style>\nbody { words words words }\n</style>\n\n<script>var many = words;</script>\n\n<template>\nmore words here\n</template>\n\n<div hidden>\n\nhidden paragraph words\n\n</div>\n\nseen\n";
        assert_eq!(headings(doc, false)[0].words, 1, "only `seen`");
    }

    #[test]
    fn disguised_forbidden_titles_are_found_and_hidden_required_ones_are_not() {
        for doc in [
            "# Plan\n\n## TO\u{200b}DO\n",
            "# Plan\n\n## \u{ff34}\u{ff2f}\u{ff24}\u{ff2f}\n",
        ] {
            let p = check(
                &headings(doc, false),
                &params(json!({"forbidden": ["todo"]})),
            );
            assert_eq!(rules(&p), vec!["forbidden-section"], "{doc:?}");
        }
        let doc = "# Plan\n\n<div hidden>\n\n## Risks\n\n</div>\n";
        let p = check(
            &headings(doc, false),
            &params(json!({"required": ["Risks"], "forbidden": ["Risks"]})),
        );
        assert_eq!(rules(&p), vec!["missing-section", "forbidden-section"]);
    }

    #[test]
    fn look_alike_forbidden_titles_are_found_unless_confusables_is_off() {
        for doc in [
            "# Plan\n\n## T\u{41e}DO\n",
            "# Plan\n\n## \u{3a4}\u{39f}D\u{39f}\n",
            "# Plan\n\n<h2>TODO</h2>\n",
        ] {
            let p = check(
                &headings(doc, false),
                &params(json!({"forbidden": ["todo"]})),
            );
            assert_eq!(rules(&p), vec!["forbidden-section"], "{doc:?}");
        }
        let doc = "# Plan\n\n## T\u{41e}DO\n";
        let p = check(
            &headings(doc, false),
            &params(json!({"forbidden": ["todo"], "confusables": false})),
        );
        assert!(p.is_empty());
        let p = check(
            &headings("# Plan\n\n## Todos\n", false),
            &params(json!({"forbidden": ["todo"]})),
        );
        assert!(p.is_empty(), "a skeleton compares whole titles");
    }

    #[test]
    fn bidi_headings_are_refused_and_css_hidden_words_do_not_count() {
        for doc in [
            "# Plan\n\n## \u{202e}ODOT\u{202c}\n",
            "# Plan\n\n## <bdo dir=\"rtl\">ODOT</bdo>\n",
        ] {
            let p = check(
                &headings(doc, false),
                &params(json!({"required": ["Plan"]})),
            );
            assert_eq!(rules(&p), vec!["bidi-heading"], "{doc:?}");
            assert_eq!(p[0].line, Some(3));
        }
        let doc = "# Testing\n\nDone.\n\n<div style=\"display:none\">\nmany hidden words here\n</div>\n\n<dialog>\nmore hidden words\n</dialog>\n\n<p>Done <span style=\"visibility: hidden\">and these</span>.</p>\n";
        assert_eq!(headings(doc, false)[0].words, 2, "`Done.` twice");
    }

    #[test]
    fn titles_a_browser_may_show_are_forbidden_but_meet_nothing() {
        for doc in [
            "# Notes\n\n<h2><input value=\"TODO\"></h2>\n",
            "# Notes\n\n<h2><img src=\"missing.png\" alt=\"TODO\"></h2>\n",
            "# Notes\n\n<h2><textarea>TODO</textarea></h2>\n",
            "# Notes\n\n<h2><object data=\"m.png\">TODO</object></h2>\n",
            "# Notes\n\n<h2><iframe srcdoc=\"TODO\"></iframe></h2>\n",
            "# Notes\n\n<h2><svg><text><![CDATA[TODO]]></text></svg></h2>\n",
            "# Notes\n\n## ![TODO](missing.png)\n",
        ] {
            let p = check(
                &headings(doc, false),
                &params(json!({"forbidden": ["TODO"]})),
            );
            assert_eq!(rules(&p), vec!["forbidden-section"], "{doc:?}");
        }
        let p = check(
            &headings("<h2><input value=\"Testing\"></h2>\n", false),
            &params(json!({"required": ["Testing"]})),
        );
        assert_eq!(rules(&p), vec!["missing-section"]);
        let p = check(
            &headings("---\nTesting:\n---\n\nsome words\n", false),
            &params(json!({"required": ["Testing"]})),
        );
        assert_eq!(rules(&p), vec!["missing-section"], "front matter");
    }

    #[test]
    fn inline_html_headings_are_forbidden_and_recased_titles_too() {
        for doc in [
            "# Notes\n\nDone here. <h2>TODO</h2>\n",
            "# Notes\n\n[<h2>TODO</h2>](#x)\n",
            "# Notes\n\n| <h2>TODO</h2> |\n|---|\n",
        ] {
            let p = check(
                &headings(doc, false),
                &params(json!({"forbidden": ["TODO"]})),
            );
            assert_eq!(rules(&p), vec!["forbidden-section"], "{doc:?}");
            assert_eq!(p[0].line, Some(3), "{doc:?}");
        }
        let h = headings("# Plan\n\n## todo\n", false);
        let strict = params(json!({"forbidden": ["TODO"], "case_sensitive": true}));
        assert!(check_shown(&h, &strict, false).is_empty());
        assert_eq!(
            rules(&check_shown(&h, &strict, true)),
            vec!["forbidden-section"],
            "`text-transform: uppercase` may show `todo` as `TODO`"
        );
    }
}
