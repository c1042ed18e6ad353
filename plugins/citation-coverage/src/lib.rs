//! `std/citation-coverage`: the share of claims that carry a citation, or an
//! explicit `UNSOURCED` / `INFERENCE` label, is at least a threshold.
//!
//! A claim is a sentence of a paragraph with at least `min_words` words,
//! paragraphs as a CommonMark renderer reads them (plugins/common
//! `markdown`): in list items and block quotes too, and those that begin
//! with inline HTML; headings, code blocks, GFM tables, text
//! a browser hides (`<style>`, `<script>`, `<template>`, `hidden`
//! elements, comments), link and footnote definitions and reference
//! sections (`## References`, `Sources`, `Bibliography`, …) are not
//! claims. The visible text of an HTML block is prose too (`<p>…</p>`),
//! its `<a href>` links citing as Markdown links do, text in `<pre>`,
//! `<code>` and `<table>` left out. What a browser hides is the reading
//! every Markdown validator shares (plugins/common
//! `markdown::hidden_ranges`: hiding inline styles, closed `<details>`,
//! `<noscript>`, media fallback, …): a citation there does not cite, nor
//! does a link with no visible text; a hidden heading starts no reference
//! section and a hidden definition resolves nothing (`seen`). A style
//! sheet that may hide by selector fails the file (`hiding-style`), and so
//! does an inline style that hides only in some layouts (`left:-9999px`,
//! `width:0`, `clip-path`, `scale(0)`: `layout-hidden`), since reading it
//! as hidden would drop a claim a reader may see. Words are counted as shown (references decoded, any blank
//! character a separator); pipe lines are a table only with a delimiter
//! row. A claim is cited when the
//! citation pattern matches it (default: a Markdown link, a `[12]`-style
//! marker, a footnote reference `[^a]`, or a bare URL) or it contains a
//! label as a whole, upper-case word. A numeric or footnote marker counts
//! only if it resolves, in the same file, to a reference entry (`[12] …`,
//! `[12]: …` or `12. …` in a reference section) or a footnote definition
//! (`[^a]: …`); an unresolved marker is a finding. Every uncited claim is a
//! finding with its line.

use std::collections::BTreeSet;
use std::ops::Range;

mod seen;

use seen::{Seen, SeenLine};
use vcc_plugin_common::bounded::{self, Findings};
use vcc_plugin_common::markdown::{self, title_key};
use vcc_plugin_common::{LineIndex, Regex, allow_empty_schema, clip, nothing, parse_params, regex};
use vcc_sdk::serde::Deserialize;
use vcc_sdk::serde_json::json;
use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator, invalid_params, relative};

struct CitationCoverage;

const DEFAULT_PATTERN: &str =
    r"\[[^\]]+\]\([^)\s]+\)|\[\d+(?:\s*[,–-]\s*\d+)*\]|\[\^[^\]]+\]|https?://\S+";

#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde", deny_unknown_fields)]
struct Params {
    min_coverage: f64,
    /// Share of claims with a (resolved) citation, labels not counting.
    min_sourced: Option<f64>,
    pattern: Option<String>,
    labels: Option<Vec<String>>,
    #[serde(default = "default_min_words")]
    min_words: usize,
    #[serde(default)]
    aggregate: bool,
    #[serde(default = "yes")]
    require_resolved: bool,
    #[serde(default)]
    allow_empty: bool,
}

fn yes() -> bool {
    true
}

/// The citation pattern, or the params problem with its pointer.
fn pattern(params: &Params) -> Result<Regex, Finding> {
    regex(params.pattern.as_deref().unwrap_or(DEFAULT_PATTERN), false)
        .map_err(|e| Finding::new(e).param("/pattern"))
}

fn default_min_words() -> usize {
    4
}

impl Validator for CitationCoverage {
    fn describe() -> Description {
        Description::new(
            "std/citation-coverage",
            env!("CARGO_PKG_VERSION"),
            "share of claims with a citation or an UNSOURCED/INFERENCE label is at least a threshold",
        )
        .params_schema(json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["min_coverage"],
            "properties": {
                "min_coverage": { "type": "number", "minimum": 0, "maximum": 1, "description": "required share of cited claims" },
                "min_sourced": { "type": "number", "minimum": 0, "maximum": 1, "description": "required share of claims with a real citation (labels do not count)" },
                "require_resolved": { "type": "boolean", "default": true, "description": "a [n] or [^n] marker counts only if the file defines it (a reference entry or footnote)" },
                "allow_empty": allow_empty_schema("no claim"),
                "pattern": { "type": "string", "description": "regex of a citation (default: Markdown link, [n] marker, [^note], URL)" },
                "labels": { "type": "array", "items": { "type": "string", "minLength": 1 }, "description": "words that mark a claim as explicitly unsourced (default UNSOURCED, INFERENCE)" },
                "min_words": { "type": "integer", "minimum": 1, "default": 4, "description": "shorter sentences are not claims" },
                "aggregate": { "type": "boolean", "default": false, "description": "judge all files together instead of each file" }
            }
        }))
    }

    fn check_params(params: &str) -> Result<(), Vec<Finding>> {
        let params: Params = parse_params(params)?;
        pattern(&params).map(|_| ()).map_err(|f| vec![f])
    }

    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params: Params = criterion.params()?;
        let pattern = pattern(&params).map_err(|f| invalid_params(f.message))?;
        let labels = params
            .labels
            .clone()
            .unwrap_or_else(|| vec!["UNSOURCED".into(), "INFERENCE".into()]);
        let paths: Vec<&str> = criterion.paths().collect();
        let mut findings = Findings::default();
        let mut report = Vec::new();
        let (mut all_claims, mut all_cited, mut all_sourced) = (0usize, 0usize, 0usize);
        let mut short_files = Vec::new();
        // Files with a style sheet that may hide by selector, or an inline
        // style that hides only in some layouts.
        let mut refused = Vec::new();
        for path in &paths {
            let text = vcc_sdk::read_to_string(path)?;
            let doc = read(&text, params.min_words);
            if let Some(line) = doc.hiding_style {
                // Rules by selector may hide any citation or claim: what a
                // reader sees cannot be told from the markup.
                refused.push(relative(path).to_string());
                findings.push(
                    Finding::new("a style sheet that may hide content by selector (a `<style>` rule with `display:none` or the like, `@import`, `<link rel=stylesheet>`): the claims and citations a reader sees cannot be told from the markup, so the file is refused")
                        .path(path)
                        .line(line)
                        .rule("hiding-style"),
                );
            }
            if let Some(line) = doc.layout_hidden {
                // Hidden or shown depending on the layout: counting it as
                // hidden would drop a claim a reader sees, counting it as
                // shown a citation a reader does not see.
                refused.push(relative(path).to_string());
                findings.push(
                    Finding::new("an inline style that hides text only in some layouts (`left:-9999px`, `width:0`, `clip-path`, `transform: scale(0)`, …): whether a reader sees the claim or citation in it cannot be told from the markup, so the file is refused")
                        .path(path)
                        .line(line)
                        .rule("layout-hidden"),
                );
            }
            let mut uncited = Vec::new();
            let mut unresolved = Vec::new();
            let (mut cited, mut sourced) = (0usize, 0usize);
            for claim in &doc.claims {
                let mut has_source = false;
                for m in pattern.find_iter(&claim.text) {
                    // A link to nowhere, or a URL with no host, cites nothing.
                    if points_nowhere(m.as_str()) {
                        continue;
                    }
                    match doc.resolves(m.as_str()) {
                        Some(false) if params.require_resolved => {
                            unresolved.push((claim.line, m.as_str().to_string()));
                        }
                        _ => has_source = true,
                    }
                }
                if has_source {
                    sourced += 1;
                }
                if has_source || has_label(&claim.text, &labels) {
                    cited += 1;
                } else {
                    uncited.push(claim);
                }
            }
            all_claims += doc.claims.len();
            all_cited += cited;
            all_sourced += sourced;
            let coverage = ratio(cited, doc.claims.len());
            let sourced_share = ratio(sourced, doc.claims.len());
            let short_of_sources = params.min_sourced.is_some_and(|min| sourced_share < min);
            if !doc.claims.is_empty() && (coverage < params.min_coverage || short_of_sources) {
                short_files.push(format!(
                    "{} {:.2} ({cited}/{})",
                    relative(path),
                    coverage,
                    doc.claims.len()
                ));
            }
            for (line, marker) in &unresolved {
                findings.push(
                    Finding::new(format!(
                        "citation {marker} resolves to no reference entry or footnote definition in this file"
                    ))
                    .path(path)
                    .line(*line)
                    .rule("unresolved-citation"),
                );
            }
            for c in &uncited {
                findings.push(
                    Finding::new(format!("uncited claim: {}", clip(&c.text, 100)))
                        .path(path)
                        .line(c.line)
                        .rule("uncited-claim"),
                );
            }
            report.push(json!({
                "file": relative(path), "claims": doc.claims.len(), "cited": cited, "sourced": sourced,
                "coverage": coverage,
                "unresolved": unresolved.iter().take(50).map(|(line, m)| json!({"line": line, "marker": m})).collect::<Vec<_>>(),
                "uncited": uncited.iter().take(50).map(|c| json!({"line": c.line, "text": clip(&c.text, 200)})).collect::<Vec<_>>(),
            }));
        }
        let evidence = bounded::evidence(json!({}), &report);
        if !refused.is_empty() {
            let outcome = Outcome::fail(format!(
                "what a reader sees cannot be told from the markup (a style sheet, or an inline style that hides only in some layouts) in {}",
                bounded::list(&refused, 10)
            ))
            .findings(findings.into_vec());
            return Ok(outcome.evidence("citation-coverage.json", "application/json", evidence));
        }
        if all_claims == 0 {
            let outcome = nothing(params.allow_empty, "no claims found to check for citations");
            return Ok(outcome.evidence("citation-coverage.json", "application/json", evidence));
        }
        let total = ratio(all_cited, all_claims);
        let total_sourced = ratio(all_sourced, all_claims);
        let pass = if params.aggregate {
            total >= params.min_coverage && params.min_sourced.is_none_or(|m| total_sourced >= m)
        } else {
            short_files.is_empty()
        };
        let outcome = if pass {
            // Passing with some uncited claims is fine; they are not failures.
            Outcome::pass(format!(
                "citation coverage {total:.2} ({all_cited}/{all_claims}) meets {:.2}",
                params.min_coverage
            ))
        } else {
            let which = if params.aggregate {
                format!("{total:.2} overall, {total_sourced:.2} with a source")
            } else {
                bounded::list(&short_files, 10)
            };
            let what = match params.min_sourced {
                Some(min) => format!("{:.2} (with sources {min:.2})", params.min_coverage),
                None => format!("{:.2}", params.min_coverage),
            };
            Outcome::fail(format!("citation coverage below {what}: {which}"))
                .findings(findings.into_vec())
        };
        Ok(outcome.evidence("citation-coverage.json", "application/json", evidence))
    }
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        1.0
    } else {
        part as f64 / whole as f64
    }
}

fn has_label(text: &str, labels: &[String]) -> bool {
    text.split(|c: char| !c.is_alphanumeric() && c != '_')
        .any(|word| labels.iter().any(|l| l == word))
}

#[derive(Debug, PartialEq)]
struct Claim {
    line: u32,
    text: String,
}

/// A Markdown document as this validator reads it.
struct Doc {
    claims: Vec<Claim>,
    /// Numbers of reference entries (`[12] …`, `[12]: …`, `12. …` in a
    /// reference section).
    entries: BTreeSet<u64>,
    /// Labels of footnote definitions (`[^a]: …`).
    footnotes: BTreeSet<String>,
    /// The line of a style sheet that may hide content by selector.
    hiding_style: Option<u32>,
    /// The line of the first element an inline style hides only in some
    /// layouts.
    layout_hidden: Option<u32>,
}

/// Headings whose section lists references, not claims ("Notes" is not
/// one: it is as often a document's title as its endnotes).
const REFERENCE_SECTIONS: [&str; 8] = [
    "references",
    "reference list",
    "sources",
    "bibliography",
    "citations",
    "works cited",
    "footnotes",
    "literature",
];

impl Doc {
    /// For a numeric (`[3]`, `[1, 2]`, `[1-3]`) or footnote (`[^a]`)
    /// marker: whether the file defines it. `None` for any other citation.
    fn resolves(&self, citation: &str) -> Option<bool> {
        let inner = citation.strip_prefix('[')?.strip_suffix(']')?;
        if let Some(label) = inner.strip_prefix('^') {
            return Some(self.footnotes.contains(label));
        }
        let numbers = marker_numbers(inner)?;
        Some(!numbers.is_empty() && numbers.iter().all(|n| self.entries.contains(n)))
    }
}

/// Whether a citation leads a reader nowhere: a Markdown link whose
/// destination is empty in any spelling (`()`, `(<>)`, `( <> "t")`), is
/// `#` alone or a `javascript:` URL, or a URL without a host
/// (`https://`, `[x](https://)`): no browser opens a source there.
fn points_nowhere(citation: &str) -> bool {
    let target = match citation.find("](") {
        Some(i) if citation.starts_with('[') && citation.ends_with(')') => {
            let inner = citation[i + 2..citation.len() - 1].trim();
            let dest = match inner.strip_prefix('<') {
                Some(rest) => rest.split('>').next().unwrap_or(""),
                None => inner.split_whitespace().next().unwrap_or(""),
            };
            let dest = dest.trim();
            if dest.is_empty()
                || dest.chars().all(|c| c == '#')
                || dest.to_ascii_lowercase().starts_with("javascript:")
            {
                return true;
            }
            dest
        }
        _ => citation,
    };
    let lower = target.to_ascii_lowercase();
    let after = ["https://", "http://"]
        .iter()
        .find_map(|s| lower.strip_prefix(s));
    match after {
        // The host runs to the first `/`, `?`, `#` or `:`; it must hold a
        // letter or digit (`https://)` has none).
        Some(rest) => !rest
            .split(['/', '?', '#', ':'])
            .next()
            .unwrap_or("")
            .split('@')
            .next_back()
            .unwrap_or("")
            .chars()
            .any(|c| c.is_alphanumeric()),
        None => false,
    }
}

/// The numbers of `1`, `1, 2`, `1-3` or `1–3`; `None` if it is not such a
/// list (a range may span at most 1,000 numbers).
fn marker_numbers(inner: &str) -> Option<Vec<u64>> {
    let mut out = Vec::new();
    for part in inner.split(',') {
        let part = part.trim();
        match part.split_once(['-', '–']) {
            Some((a, b)) => {
                let (a, b): (u64, u64) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
                if b < a || b - a > 1000 {
                    return None;
                }
                out.extend(a..=b);
            }
            None => out.push(part.parse().ok()?),
        }
    }
    Some(out)
}

/// A definition line: `[^a]: text` (a footnote) or `[12]: text`, both
/// with some text.
fn definition(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix('[')?;
    let (label, text) = rest.split_once("]:")?;
    (!text.trim().is_empty()).then_some((label, text))
}

/// A reference entry's number: `[12] text`, `12. text`, `12) text` (with
/// an optional list marker before), with some text.
fn entry_number(line: &str) -> Option<u64> {
    let line = line.trim_start_matches(['-', '*', '+']).trim_start();
    if let Some(rest) = line.strip_prefix('[') {
        let (n, text) = rest.split_once(']')?;
        let text = text.strip_prefix(':').unwrap_or(text);
        return (!text.trim().is_empty()).then(|| n.trim().parse().ok())?;
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    let text = line[digits..]
        .strip_prefix(". ")
        .or_else(|| line[digits..].strip_prefix(") "))?;
    (digits > 0 && !text.trim().is_empty()).then(|| line[..digits].parse().ok())?
}

/// Read a Markdown text: its claims (with the line each starts on), its
/// reference entries and its footnote definitions. Paragraphs come from
/// the shared CommonMark reading (plugins/common `markdown`), so a
/// paragraph inside a list item or a block quote, or one that begins with
/// inline HTML, holds claims; what a browser hides (`seen`) holds none and
/// neither cites, labels, defines nor heads a reference section.
fn read(text: &str, min_words: usize) -> Doc {
    let reading = markdown::read(text);
    let seen = Seen::read(text);
    let lines = LineIndex::new(text);
    // The bodies of reference sections: from a shown heading to the next
    // shown one of the same or a higher level. A hidden heading is none.
    let headings: Vec<_> = reading
        .headings
        .iter()
        .filter(|h| !h.hidden && !seen.is_hidden(h.range.start))
        .collect();
    let mut references: Vec<Range<usize>> = Vec::new();
    for (i, h) in headings.iter().enumerate() {
        let title = title_key(&h.title).to_lowercase();
        if REFERENCE_SECTIONS.contains(&title.as_str()) {
            let end = headings[i + 1..]
                .iter()
                .find(|next| next.level <= h.level)
                .map_or(text.len(), |next| next.range.start);
            references.push(h.range.end..end.max(h.range.end));
        }
    }
    let in_references = |at: usize| references.iter().any(|r| r.contains(&at));
    let mut doc = Doc {
        claims: Vec::new(),
        entries: BTreeSet::new(),
        footnotes: BTreeSet::new(),
        hiding_style: reading.hiding_style.map(|at| lines.line(at)),
        layout_hidden: seen.by_layout.first().map(|at| lines.line(*at)),
    };
    // Each shown paragraph's lines as a reader sees them (hidden ranges
    // cut), with the source offset of each character.
    let paragraphs: Vec<(usize, Vec<SeenLine>)> = reading
        .paragraphs
        .iter()
        .map(|p| (p.range.start, seen.lines(text, p.range.clone())))
        .filter(|(_, l)| !l.is_empty())
        .collect();
    // `[^a]: text` and `[12]: text` that are no link reference definition
    // (the text is no URL) are paragraphs; `[12]: url` is a definition,
    // which CommonMark shows nothing of: only one CommonMark makes (not
    // in a comment or code) outside hidden HTML defines.
    let paragraph_labels = paragraphs.iter().flat_map(|(_, p)| {
        p.iter().filter_map(|line| {
            let line: String = line.iter().map(|(_, c)| *c).collect();
            definition(&line).map(|(label, _)| label.to_string())
        })
    });
    let labels: Vec<String> = paragraph_labels
        .chain(seen.definitions.iter().map(|(label, _)| label.clone()))
        .collect();
    for label in labels {
        match label.strip_prefix('^') {
            Some(footnote) => {
                doc.footnotes.insert(footnote.to_string());
            }
            None => {
                if let Ok(n) = label.trim().parse() {
                    doc.entries.insert(n);
                }
            }
        }
    }
    // A reference entry's list marker (`1.`) is not in its paragraph: the
    // entry is read from the source line of a shown paragraph's line.
    for (_, p) in &paragraphs {
        for line in p {
            let Some(&(at, _)) = line.first() else {
                continue;
            };
            let from = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let to = text[at..].find('\n').map_or(text.len(), |i| at + i);
            let source = text[from..to].trim();
            if in_references(at)
                && !source.starts_with('#')
                && let Some(n) = entry_number(source)
            {
                doc.entries.insert(n);
            }
        }
    }
    // The visible prose of HTML blocks is prose to a reader too (`<p>…</p>`,
    // `<div>…</div>`); links in it are Markdown links, code and tables
    // are left out, and what is hidden (CSS too) is cut as in a paragraph.
    // Each claim points at the block's first line.
    for block in &seen.blocks {
        if in_references(block.start) {
            continue;
        }
        let mut chars: Vec<(usize, char)> = Vec::new();
        for line in seen.lines(text, block.clone()) {
            chars.push((line.first().map_or(block.start, |(at, _)| *at), ' '));
            chars.extend(line);
        }
        let (shown, _) = seen::visible(&chars, true);
        let joined = shown
            .split(seen::is_blank)
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        for (_, sentence) in sentences(&joined) {
            if seen::words(&sentence) >= min_words {
                doc.claims.push(Claim {
                    line: lines.line(block.start),
                    text: sentence,
                });
            }
        }
    }
    for (start, p) in &paragraphs {
        let sources: Vec<String> = p
            .iter()
            .map(|l| l.iter().map(|(_, c)| *c).collect())
            .collect();
        // Reference entries and footnote definitions are not claims; nor
        // is a GFM table (a header row, then a delimiter row), though
        // lines that merely start with `|` are a paragraph.
        let first = sources.first().map_or("", String::as_str);
        if in_references(*start)
            || definition(first).is_some_and(|(label, _)| label.starts_with('^'))
        {
            continue;
        }
        let kept = seen::table_start(&sources).unwrap_or(p.len());
        let mut chars: Vec<(usize, char)> = Vec::new();
        for line in &p[..kept] {
            if !chars.is_empty() {
                chars.push((line.first().map_or(0, |(at, _)| *at), ' '));
            }
            chars.extend_from_slice(line);
        }
        let (shown, map) = seen::visible(&chars, false);
        for (at, sentence) in sentences(&shown) {
            if seen::words(&sentence) < min_words {
                continue;
            }
            // The line the sentence starts on (leading spaces skipped).
            let lead = shown[at..].len() - shown[at..].trim_start().len();
            let source = map
                .get(at + lead)
                .and_then(|i| chars.get(*i))
                .map_or(*start, |(o, _)| *o);
            doc.claims.push(Claim {
                line: lines.line(source),
                text: sentence,
            });
        }
    }
    doc.claims.sort_by_key(|c| c.line);
    doc
}

/// Split a paragraph at `.`, `!` or `?` followed by a space and a capital
/// letter, digit, quote or bracket ("e.g. the" does not split).
fn sentences(text: &str) -> Vec<(usize, String)> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut start = 0;
    for w in 0..chars.len() {
        let (i, c) = chars[w];
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        let next_space = chars.get(w + 1).is_some_and(|(_, n)| n.is_whitespace());
        let next_word = chars[w + 1..]
            .iter()
            .map(|(_, c)| *c)
            .find(|c| !c.is_whitespace());
        if next_space
            && next_word
                .is_some_and(|n| n.is_uppercase() || n.is_ascii_digit() || "\"'[(“".contains(n))
        {
            let end = i + c.len_utf8();
            out.push((start, text[start..end].trim().to_string()));
            start = end;
        }
    }
    if start < text.len() && !text[start..].trim().is_empty() {
        out.push((start, text[start..].trim().to_string()));
    }
    out
}

vcc_sdk::export_validator!(CitationCoverage);

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = "# Findings\n\nPagination reduces export latency by half [1]. The team measured it twice in March.\nIt was confirmed by the vendor, see [docs](https://example.org/x).\n\n- Every customer asked for filtering UNSOURCED\n- Filtering by date is the most requested option\n- ok\n\n```\nCode blocks are never claims at all.\n```\n\n| a table row is not a claim either |\n|---|\n";

    #[test]
    fn claims_are_sentences_and_list_items_with_lines() {
        let c = read(REPORT, 4).claims;
        let found: Vec<(u32, &str)> = c.iter().map(|c| (c.line, c.text.as_str())).collect();
        assert_eq!(
            found,
            vec![
                (3, "Pagination reduces export latency by half [1]."),
                (3, "The team measured it twice in March."),
                (
                    4,
                    "It was confirmed by the vendor, see [docs](https://example.org/x)."
                ),
                (6, "Every customer asked for filtering UNSOURCED"),
                (7, "Filtering by date is the most requested option"),
            ]
        );
    }

    #[test]
    fn links_to_nowhere_and_hostless_urls_do_not_cite() {
        for c in [
            "[x](<>)",
            "[x](< >)",
            "[x](<> \"t\")",
            "[x](#)",
            "[x](JavaScript:void(0))",
            "[x](https://)",
            "https://).",
            "http://",
            "https://:80/x",
        ] {
            assert!(points_nowhere(c), "{c}");
        }
        for c in [
            "[x](https://x.org)",
            "https://x.org/a).",
            "[x](./refs.md)",
            "[1]",
        ] {
            assert!(!points_nowhere(c), "{c}");
        }
    }

    #[test]
    fn alt_text_and_captions_are_claims() {
        let doc = "# R\n\n<img src=\"m.png\" alt=\"The migration removed every legacy endpoint.\">\n\n<table><caption>Latency fell by half in March.</caption><tr><td>a b c d e</td></tr></table>\n";
        let claims: Vec<String> = read(doc, 4).claims.into_iter().map(|c| c.text).collect();
        assert_eq!(
            claims,
            vec![
                "The migration removed every legacy endpoint.",
                "Latency fell by half in March."
            ]
        );
    }

    #[test]
    fn citations_and_labels_count() {
        let re = regex(DEFAULT_PATTERN, false).unwrap();
        let labels = vec!["UNSOURCED".to_string(), "INFERENCE".to_string()];
        let cited: Vec<bool> = read(REPORT, 4)
            .claims
            .iter()
            .map(|c| re.is_match(&c.text) || has_label(&c.text, &labels))
            .collect();
        assert_eq!(cited, vec![true, false, true, true, false]);
        assert!(
            !has_label("an inference drawn", &labels),
            "labels are explicit, upper-case words"
        );
    }

    #[test]
    fn markers_resolve_to_entries_and_footnotes_only() {
        let text = "# Report\n\nLatency halved after the change [1]. The vendor confirmed it twice [42].\nUsers asked for filters in every interview [^survey]. Nobody measured the cost of it [^ghost].\n\n[^survey]: Interviews, March 2026.\n\n## References\n\n1. Smith, Export latency in practice, 2025.\n2.\n";
        let doc = read(text, 4);
        assert_eq!(doc.entries, BTreeSet::from([1]), "an entry needs text");
        assert_eq!(doc.footnotes, BTreeSet::from(["survey".to_string()]));
        assert_eq!(
            doc.claims.len(),
            4,
            "the reference list holds no claims: {:?}",
            doc.claims
        );
        assert_eq!(doc.resolves("[1]"), Some(true));
        assert_eq!(doc.resolves("[42]"), Some(false));
        assert_eq!(doc.resolves("[1, 2]"), Some(false));
        assert_eq!(doc.resolves("[^survey]"), Some(true));
        assert_eq!(doc.resolves("[^ghost]"), Some(false));
        assert_eq!(doc.resolves("https://example.org"), None);
        let bracketed = read(
            "A claim that cites a source here [3].\n\n[3] Jones 2024, the only source.\n",
            4,
        );
        assert_eq!(
            bracketed.entries,
            BTreeSet::new(),
            "outside a reference section, only `[3]:` defines"
        );
        let defined = read(
            "A claim that cites a source here [3].\n\n[3]: https://example.org/jones\n",
            4,
        );
        assert_eq!(defined.resolves("[3]"), Some(true));
    }

    #[test]
    fn a_bad_pattern_is_a_params_error() {
        let problems =
            CitationCoverage::check_params(r#"{"min_coverage": 0.9, "pattern": "\\[(?=\\d)"}"#)
                .unwrap_err();
        assert_eq!(problems[0].path.as_deref(), Some("/pattern"));
        assert!(CitationCoverage::check_params(r#"{"min_coverage": 0.9}"#).is_ok());
    }

    #[test]
    fn a_style_sheet_that_may_hide_is_noticed() {
        let text = "# Report\n\nA claim that cites a source [1].\n\n<style>.x { display: none }</style>\n\nAnother claim that is cited <span class=\"x\">[1]</span>.\n\n## References\n\n[1] Smith, 2024.\n";
        assert_eq!(read(text, 4).hiding_style, Some(5));
        let plain = "A claim that cites a source [1].\n\n<style>.x { color: red }</style>\n";
        assert_eq!(read(plain, 4).hiding_style, None);
    }

    #[test]
    fn text_hidden_only_in_some_layouts_is_noticed() {
        // An inline span ignores `left` and `width`: the claim is shown.
        let text = "# Report\n\nA claim that cites a source [1].\n\n<span style=\"left:-9999px\">An uncited claim a reader sees all the same.</span>\n\n## References\n\n[1] Smith, 2024.\n";
        assert_eq!(read(text, 4).layout_hidden, Some(5));
        let sure = "A claim that cites a source<span style=\"display:none\"> [1]</span>.\n";
        assert_eq!(read(sure, 4).layout_hidden, None);
    }

    #[test]
    fn abbreviations_do_not_split_sentences() {
        let s = sentences("Use a cache, e.g. the precompiled one. It is fast.");
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].1, "Use a cache, e.g. the precompiled one.");
    }

    #[test]
    fn list_item_paragraphs_and_html_led_paragraphs_are_claims() {
        let text = "# Report\n\n1. Latency halved after the change [1].\n\n    The vendor never confirmed any of these numbers.\n\n<b>Note</b> that nobody measured the cost at all.\n\n> Users asked for filters in every interview.\n\nCited here <span hidden>[1]</span> but not really visibly.\n\n<div hidden>\n\nA hidden paragraph with enough words.\n\n</div>\n\n## References\n\n1. Smith, Export latency in practice, 2025.\n";
        let doc = read(text, 4);
        let found: Vec<(u32, &str)> = doc
            .claims
            .iter()
            .map(|c| (c.line, c.text.as_str()))
            .collect();
        assert_eq!(
            found,
            vec![
                (3, "Latency halved after the change [1]."),
                (5, "The vendor never confirmed any of these numbers."),
                (7, "Note that nobody measured the cost at all."),
                (9, "Users asked for filters in every interview."),
                (11, "Cited here  but not really visibly."),
            ]
        );
        assert_eq!(doc.entries, BTreeSet::from([1]));
        let html = "<div>\n<p>Exports time out above a gigabyte.</p>\n<p>Latency fell by half <a href=\"https://x.org/a\">here</a>.</p>\n<pre>code is never a claim here</pre>\n</div>\n";
        let found: Vec<String> = read(html, 4).claims.into_iter().map(|c| c.text).collect();
        assert_eq!(
            found,
            vec![
                "Exports time out above a gigabyte.",
                "Latency fell by half [here](https://x.org/a)."
            ]
        );
    }
}
