//! `std/text-match`: regexes that must match (with count bounds) and must
//! not match, in every target file, with a finding at each offending line.
//!
//! Patterns use the `regex` crate: linear time, so a hostile pattern or
//! file cannot stall the run. `^` and `$` match at line boundaries.
//!
//! Forbidden patterns are also tried on the text as a reader sees it:
//! default-ignorable code points removed (a zero-width space inside
//! `TODO`) and NFKC applied (`ＴＯＤＯ`), line by line; findings point at
//! the line and column as written. `normalize: false` turns this off.
//! They are also tried on the UTS #39 confusable skeleton of that text
//! (`TОDO` with a Cyrillic `О` reads `TODO`; see `skeleton.rs`);
//! `confusables: false` turns that off. Required patterns match the text
//! as written. In a Markdown file with forbidden patterns, CSS that puts
//! text on the page (`::before { content: "\54 ODO" }`) is refused
//! (`generated-content`), and CSS that may change the case of letters
//! (`text-transform`) makes forbidden patterns match whatever the case.
//! Files a reader sees rendered are also read rendered (`shown::reading`):
//! Markdown and its dialects and HTML pages as a browser shows them
//! (`page.rs`: attribute text, form controls, CDATA, ruby), `.rst` with its
//! escapes, notebooks by their cells (`dialects.rs`); CSS that draws
//! letters closer than written is refused (`closed-spacing`).

mod dialects;
mod page;
mod shown;
mod skeleton;

use shown::Rendered;
use skeleton::Skeleton;
use vcc_plugin_common::bounded::{self, Findings};
use vcc_plugin_common::text::Normalized;
use vcc_plugin_common::{
    GlobMatcher, LineIndex, Regex, allow_empty_schema, clip, glob, nothing, parse_params, quoted,
    regex,
};
use vcc_sdk::serde::Deserialize;
use vcc_sdk::serde_json::{self, json};
use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator, invalid_params, relative};

struct TextMatch;

#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde", deny_unknown_fields)]
struct Params {
    #[serde(default)]
    must_match: Vec<Pattern>,
    #[serde(default)]
    must_not_match: Vec<Pattern>,
    #[serde(default)]
    case_insensitive: bool,
    files: Option<String>,
    #[serde(default)]
    allow_empty: bool,
    #[serde(default = "yes")]
    normalize: bool,
    #[serde(default = "yes")]
    confusables: bool,
}

fn yes() -> bool {
    true
}

/// The params ready to use, or each problem with its JSON pointer.
struct Ready {
    must: Vec<Compiled>,
    must_not: Vec<Compiled>,
    /// `must_not` compiled to match whatever the case, for a file whose
    /// CSS may show letters in another case (`text-transform`); empty
    /// when `case_insensitive` already does.
    must_not_any_case: Vec<Compiled>,
    only: Option<GlobMatcher>,
}

fn prepare(params: &Params) -> Result<Ready, Vec<Finding>> {
    let mut problems = Vec::new();
    let mut compile_all = |list: &[Pattern], key: &str, default_min: usize| -> Vec<Compiled> {
        let mut out = Vec::new();
        for (i, p) in list.iter().enumerate() {
            match p.compile(params.case_insensitive, default_min) {
                Ok(c) => out.push(c),
                Err(e) => problems.push(Finding::new(e).param(&format!("/{key}/{i}"))),
            }
        }
        out
    };
    let must = compile_all(&params.must_match, "must_match", 1);
    let must_not = compile_all(&params.must_not_match, "must_not_match", 0);
    let only = match params.files.as_deref().map(glob).transpose() {
        Ok(m) => m,
        Err(e) => {
            problems.push(Finding::new(e).param("/files"));
            None
        }
    };
    let must_not_any_case = if params.case_insensitive {
        Vec::new()
    } else {
        // Each compiled above already; so it does case-insensitively.
        params
            .must_not_match
            .iter()
            .filter_map(|p| p.compile(true, 0).ok())
            .collect()
    };
    if problems.is_empty() {
        Ok(Ready {
            must,
            must_not,
            must_not_any_case,
            only,
        })
    } else {
        Err(problems)
    }
}

#[derive(Deserialize, Clone)]
#[serde(crate = "vcc_sdk::serde", untagged)]
enum Pattern {
    Plain(String),
    Spec {
        pattern: String,
        min: Option<usize>,
        max: Option<usize>,
        message: Option<String>,
    },
}

struct Compiled {
    source: String,
    re: Regex,
    min: usize,
    max: Option<usize>,
    message: Option<String>,
}

impl Pattern {
    fn compile(&self, case_insensitive: bool, default_min: usize) -> Result<Compiled, String> {
        let (source, min, max, message) = match self {
            Pattern::Plain(p) => (p.clone(), default_min, None, None),
            Pattern::Spec {
                pattern,
                min,
                max,
                message,
            } => (
                pattern.clone(),
                min.unwrap_or(default_min),
                *max,
                message.clone(),
            ),
        };
        if let Some(max) = max
            && max < min
        {
            return Err(format!("`{source}`: max ({max}) is below min ({min})"));
        }
        Ok(Compiled {
            re: regex(&source, case_insensitive)?,
            source,
            min,
            max,
            message,
        })
    }
}

/// At most this many findings per pattern and file.
const MAX_HITS: usize = 100;

impl Validator for TextMatch {
    fn describe() -> Description {
        let pattern = json!({
            "oneOf": [
                { "type": "string", "minLength": 1 },
                {
                    "type": "object", "additionalProperties": false, "required": ["pattern"],
                    "properties": {
                        "pattern": { "type": "string", "minLength": 1 },
                        "min": { "type": "integer", "minimum": 0 },
                        "max": { "type": "integer", "minimum": 0 },
                        "message": { "type": "string" }
                    }
                }
            ]
        });
        Description::new(
            "std/text-match",
            env!("CARGO_PKG_VERSION"),
            "regexes that must match (with counts) and must not match, per file, with line findings",
        )
        .params_schema(json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "must_match": { "type": "array", "items": pattern, "description": "each must match (default at least once) in every file" },
                "must_not_match": { "type": "array", "items": pattern, "description": "none may match in any file" },
                "case_insensitive": { "type": "boolean", "default": false },
                "files": { "type": "string", "description": "only check target files matching this glob" },
                "normalize": { "type": "boolean", "default": true, "description": "also try must_not_match on the text with invisible (default-ignorable) characters removed and NFKC applied; must_match always matches the text as written" },
                "confusables": { "type": "boolean", "default": true, "description": "also try must_not_match on the UTS #39 confusable skeleton of the text (a Cyrillic О in TОDO reads as O); findings point at the text as written" },
                "allow_empty": allow_empty_schema("no target file (after `files`)")
            },
            "anyOf": [{ "required": ["must_match"] }, { "required": ["must_not_match"] }]
        }))
    }

    fn check_params(params: &str) -> Result<(), Vec<Finding>> {
        let params: Params = parse_params(params)?;
        prepare(&params).map(|_| ())
    }

    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params: Params = criterion.params()?;
        let ready = prepare(&params).map_err(|problems| {
            let words: Vec<String> = problems.iter().map(|f| f.message.clone()).collect();
            invalid_params(words.join("; "))
        })?;
        let paths: Vec<&str> = criterion
            .paths()
            .filter(|p| ready.only.as_ref().is_none_or(|m| m.is_match(relative(p))))
            .collect();
        if paths.is_empty() {
            return Ok(nothing(params.allow_empty, "no target file to search"));
        }
        let mut findings = Findings::default();
        let mut counts = Vec::new();
        for path in &paths {
            let bytes = vcc_sdk::read(path)?;
            let Ok(text) = String::from_utf8(bytes) else {
                findings.push(
                    Finding::new("not UTF-8 text; cannot be searched")
                        .path(path)
                        .rule("not-text"),
                );
                continue;
            };
            // Rendered only when something must not be found in it.
            let rendered = if ready.must_not.is_empty() {
                None
            } else {
                shown::reading(path, &text)
            };
            if let Some(at) = rendered.as_ref().and_then(|r| r.spaced) {
                findings.push(
                    Finding::new("CSS that draws letters closer than written (a negative `word-spacing`, `letter-spacing`, margin, indent or offset): `TO DO` may be shown as `TODO`, so the words a reader sees cannot be told from the text to search it for forbidden text; refused")
                        .path(path)
                        .line(LineIndex::new(&text).line(at))
                        .rule("closed-spacing"),
                );
            }
            if let Some(at) = rendered.as_ref().and_then(|r| r.generated) {
                findings.push(
                    Finding::new("CSS that puts text on the page the markup does not hold (`content` on `::before`/`::after`, `quotes`, a string list marker, `@counter-style`, `@font-face`), or reorders it (`unicode-bidi`, `direction` in a style sheet): the text a reader sees cannot be told from the markup, so it cannot be searched for forbidden text; refused")
                        .path(path)
                        .line(LineIndex::new(&text).line(at))
                        .rule("generated-content"),
                );
            }
            // `text-transform: uppercase` shows `todo` as `TODO`: forbidden
            // text is found whatever its case.
            let recased = rendered
                .as_ref()
                .and_then(|r| r.recased)
                .filter(|_| !ready.must_not_any_case.is_empty());
            let must_not = if recased.is_some() {
                &ready.must_not_any_case
            } else {
                &ready.must_not
            };
            let (problems, file_counts) = check_with(
                &text,
                &ready.must,
                must_not,
                params.normalize,
                params.confusables,
                rendered.as_ref(),
            );
            for mut p in problems {
                if let Some(at) = recased
                    && p.rule == "must-not-match"
                {
                    p.message.push_str(&format!(
                        " (matched whatever its case: CSS on line {} may show letters in another case than written, `text-transform` or small capitals)",
                        LineIndex::new(&text).line(at)
                    ));
                }
                let mut f = Finding::new(p.message).path(path).rule(p.rule);
                if let Some(line) = p.line {
                    f = f.line(line);
                }
                if let Some(column) = p.column {
                    f = f.column(column);
                }
                findings.push(f);
            }
            counts.push(json!({"file": relative(path), "counts": file_counts}));
        }
        let evidence = bounded::evidence(json!({}), &counts);
        let outcome = if findings.is_empty() {
            Outcome::pass(format!("{} file(s) match every rule", paths.len()))
        } else {
            Outcome::fail(format!(
                "{} problem(s) in {} file(s)",
                findings.len(),
                paths.len()
            ))
            .findings(findings.into_vec())
        };
        Ok(outcome.evidence("match-counts.json", "application/json", evidence))
    }
}

struct Problem {
    message: String,
    line: Option<u32>,
    column: Option<u32>,
    rule: &'static str,
}

/// The text as a reader sees it, line by line, and where each part of it
/// is in the text as written.
struct Seen {
    text: String,
    /// Per line: (offset in `text`, offset as written, the line's map when
    /// normalising changed it).
    lines: Vec<(usize, usize, Option<Normalized>)>,
}

impl Seen {
    /// `None` when normalising changes nothing.
    fn of(text: &str) -> Option<Seen> {
        if text.is_ascii() {
            return None;
        }
        let mut seen = Seen {
            text: String::with_capacity(text.len()),
            lines: Vec::new(),
        };
        let mut changed = false;
        let mut start = 0;
        for line in text.split('\n') {
            if start > 0 {
                seen.text.push('\n');
            }
            let n = Normalized::of(line);
            seen.text
                .push_str(n.as_ref().map_or(line, |n| n.text.as_str()));
            changed |= n.is_some();
            let at = seen.text.len() - n.as_ref().map_or(line.len(), |n| n.text.len());
            seen.lines.push((at, start, n));
            start += line.len() + 1;
        }
        changed.then_some(seen)
    }

    /// The offset as written of `offset` in the normalised text.
    fn original(&self, offset: usize) -> usize {
        let i = self
            .lines
            .partition_point(|(at, ..)| *at <= offset)
            .saturating_sub(1);
        let (at, start, n) = &self.lines[i];
        let within = offset - at;
        start + n.as_ref().map_or(within, |n| n.original(within))
    }
}

#[cfg(test)]
fn check(
    text: &str,
    must: &[Compiled],
    must_not: &[Compiled],
    normalize: bool,
    confusables: bool,
) -> (Vec<Problem>, serde_json::Value) {
    check_with(text, must, must_not, normalize, confusables, None)
}

/// The text as `how` says it was seen, for a finding's message.
fn seen_as(how: u8) -> &'static str {
    match how {
        1 => " (once invisible characters are removed and NFKC applied)",
        2 => " (as its UTS #39 confusable skeleton: a look-alike character)",
        3 => {
            " (in the text as rendered: character references and escapes decoded, markup removed, the text of `alt`/`value`/`placeholder` attributes, form controls and CDATA read, ruby annotations left out)"
        }
        _ => "",
    }
}

/// Whether any form of `line` a reader may see (as written, normalised,
/// its skeletons) matches `re`.
fn matches_seen(re: &Regex, line: &str, normalize: bool, confusables: bool) -> bool {
    if re.is_match(line) {
        return true;
    }
    let normal = if normalize {
        Normalized::of(line)
    } else {
        None
    };
    let line = normal.as_ref().map_or(line, |n| n.text.as_str());
    if re.is_match(line) {
        return true;
    }
    confusables
        && [Skeleton::of(line), Skeleton::of_with_capital_i(line)]
            .iter()
            .flatten()
            .any(|s| re.is_match(&s.text))
}

fn check_with(
    text: &str,
    must: &[Compiled],
    must_not: &[Compiled],
    normalize: bool,
    confusables: bool,
    rendered: Option<&Rendered>,
) -> (Vec<Problem>, serde_json::Value) {
    let lines = LineIndex::new(text);
    let mut problems = Vec::new();
    let mut counts = serde_json::Map::new();
    // Lines a reader is shown otherwise than their bytes: refused where
    // something must not be found, and where a required match lies.
    let bidi = shown::bidi_offsets(text, rendered);
    let mut bidi_refused: std::collections::BTreeMap<u32, usize> = Default::default();
    if !must_not.is_empty() {
        for &at in &bidi {
            bidi_refused.entry(lines.line(at)).or_insert(at);
        }
    }
    for p in must {
        let hits: Vec<usize> = p.re.find_iter(text).map(|m| m.start()).collect();
        for &at in &bidi {
            if hits.iter().any(|h| lines.line(*h) == lines.line(at)) {
                bidi_refused.entry(lines.line(at)).or_insert(at);
            }
        }
        counts.insert(p.source.clone(), json!(hits.len()));
        let prefix = p
            .message
            .as_ref()
            .map(|m| format!("{m}: "))
            .unwrap_or_default();
        if hits.len() < p.min {
            problems.push(Problem {
                message: format!(
                    "{prefix}`{}` matched {} time(s); at least {} required",
                    p.source,
                    hits.len(),
                    p.min
                ),
                line: None,
                column: None,
                rule: "must-match",
            });
        }
        if let Some(max) = p.max
            && hits.len() > max
        {
            problems.push(Problem {
                message: format!(
                    "{prefix}`{}` matched {} time(s); at most {max} allowed",
                    p.source,
                    hits.len()
                ),
                line: hits.get(max).map(|&at| lines.line(at)),
                column: None,
                rule: "max-matches",
            });
        }
    }
    let seen = if normalize { Seen::of(text) } else { None };
    // The skeleton of the text the reader sees (normalised when asked).
    // Both skeletons: look-alikes of `I` read `l` in one and `I` in the
    // other, as a pattern's ASCII `I` or `l` expects.
    let skeletons: Vec<Skeleton> = if confusables {
        let seen_text = seen.as_ref().map_or(text, |s| s.text.as_str());
        [
            Skeleton::of(seen_text),
            Skeleton::of_with_capital_i(seen_text),
        ]
        .into_iter()
        .flatten()
        .collect()
    } else {
        Vec::new()
    };
    let as_written = |at: usize| seen.as_ref().map_or(at, |s| s.original(at));
    for p in must_not {
        // (offset as written, the text found, how it was seen: 0 as
        // written, 1 normalised, 2 as its skeleton)
        let mut hits: Vec<(usize, String, u8)> =
            p.re.find_iter(text)
                .map(|m| (m.start(), m.as_str().to_string(), 0))
                .collect();
        // A line already found as written (or normalised) is not found again.
        let mut found_lines: std::collections::BTreeSet<u32> =
            hits.iter().map(|(at, ..)| lines.line(*at)).collect();
        if let Some(seen) = &seen {
            for m in p.re.find_iter(&seen.text) {
                let at = seen.original(m.start());
                if !found_lines.contains(&lines.line(at)) {
                    hits.push((at, m.as_str().to_string(), 1));
                }
            }
            found_lines.extend(hits.iter().map(|(at, ..)| lines.line(*at)));
        }
        for skeleton in &skeletons {
            let before = hits.len();
            for m in p.re.find_iter(&skeleton.text) {
                let at = as_written(skeleton.original(m.start()));
                if !found_lines.contains(&lines.line(at)) {
                    hits.push((at, m.as_str().to_string(), 2));
                }
            }
            // The second skeleton finds only lines the first did not.
            found_lines.extend(hits[before..].iter().map(|(at, ..)| lines.line(*at)));
        }
        for (at, line) in rendered.map_or(&[][..], |r| &r.lines[..]) {
            if !found_lines.contains(&lines.line(*at))
                && matches_seen(&p.re, line, normalize, confusables)
            {
                found_lines.insert(lines.line(*at));
                hits.push((*at, clip(line, 60), 3));
            }
        }
        hits.sort_by_key(|(at, ..)| *at);
        counts.insert(p.source.clone(), json!(hits.len()));
        let what = p
            .message
            .clone()
            .unwrap_or_else(|| format!("`{}` must not match", p.source));
        for (at, found, how) in hits.iter().take(MAX_HITS) {
            let (line, column) = lines.line_col(*at);
            problems.push(Problem {
                message: format!(
                    "{what}: found {}{}",
                    quoted(&clip(found, 60)),
                    seen_as(*how)
                ),
                line: Some(line),
                column: Some(column),
                rule: "must-not-match",
            });
        }
        if hits.len() > MAX_HITS {
            problems.push(Problem {
                message: format!(
                    "{what}: {} more match(es) not listed",
                    hits.len() - MAX_HITS
                ),
                line: None,
                column: None,
                rule: "must-not-match",
            });
        }
    }
    for (line, at) in bidi_refused.iter().take(MAX_HITS) {
        let what = match text[*at..].chars().next() {
            Some(c) if shown::is_bidi_control_char(c) => {
                format!("a bidi control character U+{:04X}", c as u32)
            }
            _ => "a direction override (`<bdo>`, `dir=\"rtl\"`) or a bidi control written as a character reference (`&#x202E;`)".to_string(),
        };
        problems.push(Problem {
            message: format!(
                "this line holds {what}: a reader is shown other text, or another order, than its bytes (\"Trojan Source\"), so it cannot be matched as written; refused"
            ),
            line: Some(*line),
            column: Some(lines.line_col(*at).1),
            rule: "bidi-control",
        });
    }
    (problems, serde_json::Value::Object(counts))
}

vcc_sdk::export_validator!(TextMatch);

#[cfg(test)]
mod tests {
    use super::*;

    fn compile(patterns: &[&str], min: usize) -> Vec<Compiled> {
        patterns
            .iter()
            .map(|p| Pattern::Plain(p.to_string()).compile(false, min).unwrap())
            .collect()
    }

    #[test]
    fn must_match_counts_and_must_not_match_lines() {
        let text = "fn main() {}\n// TODO: fix\nlet x = 1; // TODO again\n";
        let (problems, counts) = check(
            text,
            &compile(&["^fn main"], 1),
            &compile(&["TODO"], 0),
            true,
            true,
        );
        let lines: Vec<Option<u32>> = problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, vec![Some(2), Some(3)]);
        assert_eq!(counts["TODO"], 2);
        let (problems, _) = check(text, &compile(&["unsafe"], 1), &[], true, true);
        assert_eq!(problems[0].rule, "must-match");
        assert!(problems[0].message.contains("matched 0 time(s)"));
    }

    #[test]
    fn max_counts_point_at_the_first_extra_match() {
        let spec = Pattern::Spec {
            pattern: "x".into(),
            min: Some(1),
            max: Some(1),
            message: Some("one x".into()),
        };
        let (problems, _) = check(
            "x\nx\n",
            &[spec.compile(false, 1).unwrap()],
            &[],
            true,
            true,
        );
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].line, Some(2));
        assert!(problems[0].message.starts_with("one x: "));
    }

    #[test]
    fn case_insensitive_and_bad_patterns() {
        let p = Pattern::Plain("todo".into());
        let (problems, _) = check("TODO", &[], &[p.compile(true, 0).unwrap()], true, true);
        assert_eq!(problems.len(), 1);
        assert!(Pattern::Plain("(".into()).compile(false, 1).is_err());
    }

    #[test]
    fn params_problems_name_the_pattern() {
        let problems = TextMatch::check_params(
            r#"{"must_match": ["ok", "(?=lookahead)"], "must_not_match": [{"pattern": "x", "min": 2, "max": 1}], "files": "[unclosed"}"#,
        )
        .unwrap_err();
        let pointers: Vec<&str> = problems.iter().filter_map(|f| f.path.as_deref()).collect();
        assert_eq!(
            pointers,
            vec!["/must_match/1", "/must_not_match/0", "/files"]
        );
    }

    #[test]
    fn a_forbidden_word_hidden_by_an_invisible_character_is_found_where_written() {
        let text = "ok\nTO\u{200b}DO: finish this\nand ＴＯＤＯ again\nTODO plain\n";
        let (problems, counts) = check(text, &[], &compile(&["TODO"], 0), true, true);
        let at: Vec<(Option<u32>, Option<u32>)> =
            problems.iter().map(|p| (p.line, p.column)).collect();
        assert_eq!(
            at,
            vec![(Some(2), Some(1)), (Some(3), Some(5)), (Some(4), Some(1))]
        );
        assert!(
            problems[0]
                .message
                .contains("once invisible characters are removed")
        );
        assert_eq!(counts["TODO"], 3);
        let (problems, _) = check(text, &[], &compile(&["TODO"], 0), false, false);
        assert_eq!(
            problems.len(),
            1,
            "normalize: false with confusables: false matches the bytes as written"
        );
        let (problems, _) = check("TO\u{200b}DO", &compile(&["TODO"], 1), &[], true, true);
        assert_eq!(
            problems[0].rule, "must-match",
            "required patterns match as written"
        );
    }

    #[test]
    fn a_look_alike_of_a_forbidden_word_is_found_where_written() {
        // Cyrillic О (U+041E) in line 2; full-width and Cyrillic in line 3.
        let text = "ok\nT\u{41e}DO: finish this\nand \u{ff34}\u{41e}DO again\n";
        let (problems, counts) = check(text, &[], &compile(&["TODO"], 0), true, true);
        let at: Vec<(Option<u32>, Option<u32>)> =
            problems.iter().map(|p| (p.line, p.column)).collect();
        assert_eq!(at, vec![(Some(2), Some(1)), (Some(3), Some(5))]);
        assert!(problems[0].message.contains("confusable skeleton"));
        assert_eq!(counts["TODO"], 2);
        let (problems, _) = check(text, &[], &compile(&["TODO"], 0), true, false);
        assert!(problems.is_empty(), "confusables: false");
        let (problems, _) = check("T\u{41e}DO", &compile(&["TODO"], 1), &[], true, true);
        assert_eq!(
            problems[0].rule, "must-match",
            "required patterns match as written"
        );
    }

    #[test]
    fn look_alikes_of_capital_i_bidi_lines_and_rendered_markdown() {
        let text = "// F\u{399}XME one\n// F\u{406}XME two\n";
        let (problems, counts) = check(text, &[], &compile(&["TODO|FIXME"], 0), true, true);
        let lines: Vec<Option<u32>> = problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, vec![Some(1), Some(2)]);
        assert_eq!(counts["TODO|FIXME"], 2);
        let text = "Done.\n\u{202e}ODOT\u{202c}: finish\n";
        let (problems, _) = check(text, &[], &compile(&["TODO"], 0), true, true);
        assert_eq!(problems.len(), 1);
        assert_eq!(
            (problems[0].rule, problems[0].line),
            ("bidi-control", Some(2))
        );
        assert!(problems[0].message.contains("U+202E"));
        let (problems, _) = check(text, &compile(&["finish"], 1), &[], true, true);
        assert_eq!(
            problems[0].rule, "bidi-control",
            "a required match on such a line"
        );
        let (problems, _) = check(text, &compile(&["Done"], 1), &[], true, true);
        assert!(
            problems.is_empty(),
            "must_match alone, elsewhere: nothing refused"
        );
        let doc = "Done.\n\nT&#79;DO: finish\n\n<bdo dir=\"rtl\">ODOT</bdo>\n";
        let r = Rendered::of(doc);
        let (problems, _) =
            check_with(doc, &[], &compile(&["\\bTODO\\b"], 0), true, true, Some(&r));
        let got: Vec<(&str, Option<u32>)> = problems.iter().map(|p| (p.rule, p.line)).collect();
        assert_eq!(
            got,
            vec![("must-not-match", Some(3)), ("bidi-control", Some(5))]
        );
        assert!(problems[0].message.contains("as rendered"));
    }

    #[test]
    fn forbidden_text_any_case_when_css_may_recase_it() {
        let params: Params = serde_json::from_value(json!({"must_not_match": ["\\bTODO\\b"]}))
            .unwrap_or_else(|e| panic!("{e}"));
        let ready = prepare(&params).unwrap_or_else(|_| panic!("params"));
        let text = "Done.\n\n<span style=\"text-transform:uppercase\">todo</span>: finish\n";
        let (p, _) = check(text, &[], &ready.must_not, true, true);
        assert!(p.is_empty(), "as written: no TODO");
        let (p, _) = check(text, &[], &ready.must_not_any_case, true, true);
        assert_eq!(p.len(), 1);
        assert_eq!((p[0].rule, p[0].line), ("must-not-match", Some(3)));
        let params: Params =
            serde_json::from_value(json!({"must_not_match": ["TODO"], "case_insensitive": true}))
                .unwrap_or_else(|e| panic!("{e}"));
        let ready = prepare(&params).unwrap_or_else(|_| panic!("params"));
        assert!(ready.must_not_any_case.is_empty(), "already any case");
    }
}
