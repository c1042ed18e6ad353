//! `std/citation-coverage`: the share of claims that carry a citation, or an
//! explicit `UNSOURCED` / `INFERENCE` label, is at least a threshold.
//!
//! A claim is a sentence of a paragraph or a whole list item with at least
//! `min_words` words; headings, code blocks, tables, HTML and link
//! definitions are not claims. A claim is cited when the citation pattern
//! matches it (default: a Markdown link, a `[12]`-style marker, a footnote
//! reference `[^a]`, or a bare URL) or it contains a label as a whole,
//! upper-case word. Every uncited claim is a finding with its line.

use vcc_plugin_common::{clip, regex};
use vcc_sdk::serde::Deserialize;
use vcc_sdk::serde_json::{self, json};
use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator, relative};

struct CitationCoverage;

const DEFAULT_PATTERN: &str =
    r"\[[^\]]+\]\([^)\s]+\)|\[\d+(?:\s*[,–-]\s*\d+)*\]|\[\^[^\]]+\]|https?://\S+";

#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde", deny_unknown_fields)]
struct Params {
    min_coverage: f64,
    pattern: Option<String>,
    labels: Option<Vec<String>>,
    #[serde(default = "default_min_words")]
    min_words: usize,
    #[serde(default)]
    aggregate: bool,
}

fn default_min_words() -> usize {
    4
}

/// At most this many uncited claims are listed per file.
const MAX_LISTED: usize = 200;

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
                "pattern": { "type": "string", "description": "regex of a citation (default: Markdown link, [n] marker, [^note], URL)" },
                "labels": { "type": "array", "items": { "type": "string", "minLength": 1 }, "description": "words that mark a claim as explicitly unsourced (default UNSOURCED, INFERENCE)" },
                "min_words": { "type": "integer", "minimum": 1, "default": 4, "description": "shorter sentences are not claims" },
                "aggregate": { "type": "boolean", "default": false, "description": "judge all files together instead of each file" }
            }
        }))
    }

    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params: Params = criterion.params()?;
        let pattern = regex(params.pattern.as_deref().unwrap_or(DEFAULT_PATTERN), false)
            .map_err(|e| format!("params.pattern: {e}"))?;
        let labels = params
            .labels
            .clone()
            .unwrap_or_else(|| vec!["UNSOURCED".into(), "INFERENCE".into()]);
        let paths: Vec<&str> = criterion.paths().collect();
        let mut findings = Vec::new();
        let mut report = Vec::new();
        let (mut all_claims, mut all_cited) = (0usize, 0usize);
        let mut short_files = Vec::new();
        for path in &paths {
            let text = vcc_sdk::read_to_string(path)?;
            let claims = claims(&text, params.min_words);
            let uncited: Vec<&Claim> = claims
                .iter()
                .filter(|c| !pattern.is_match(&c.text) && !has_label(&c.text, &labels))
                .collect();
            let cited = claims.len() - uncited.len();
            all_claims += claims.len();
            all_cited += cited;
            let coverage = ratio(cited, claims.len());
            if !claims.is_empty() && coverage < params.min_coverage {
                short_files.push(format!(
                    "{} {:.2} ({cited}/{})",
                    relative(path),
                    coverage,
                    claims.len()
                ));
            }
            for c in uncited.iter().take(MAX_LISTED) {
                findings.push(
                    Finding::new(format!("uncited claim: {}", clip(&c.text, 100)))
                        .path(path)
                        .line(c.line)
                        .rule("uncited-claim"),
                );
            }
            if uncited.len() > MAX_LISTED {
                findings.push(
                    Finding::new(format!(
                        "{} more uncited claim(s)",
                        uncited.len() - MAX_LISTED
                    ))
                    .path(path),
                );
            }
            report.push(json!({
                "file": relative(path), "claims": claims.len(), "cited": cited, "coverage": coverage,
                "uncited": uncited.iter().map(|c| json!({"line": c.line, "text": c.text})).collect::<Vec<_>>(),
            }));
        }
        let evidence = serde_json::to_vec_pretty(&report).map_err(|e| e.to_string())?;
        if all_claims == 0 {
            return Ok(Outcome::skip("no claims found to check for citations"));
        }
        let total = ratio(all_cited, all_claims);
        let pass = if params.aggregate {
            total >= params.min_coverage
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
                format!("{total:.2} overall")
            } else {
                short_files.join(", ")
            };
            Outcome::fail(format!(
                "citation coverage below {:.2}: {which}",
                params.min_coverage
            ))
            .findings(findings)
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

/// The claims of a Markdown text, with the line each starts on.
fn claims(text: &str, min_words: usize) -> Vec<Claim> {
    let mut out = Vec::new();
    // The block being collected: (start line, text, is a list item).
    let mut block: Option<(u32, String, bool)> = None;
    let mut fence: Option<&str> = None;
    let flush = |block: &mut Option<(u32, String, bool)>, out: &mut Vec<Claim>| {
        if let Some((line, body, is_item)) = block.take() {
            let parts = if is_item {
                vec![(0, body.trim().to_string())]
            } else {
                sentences(&body)
            };
            for (_, sentence) in parts {
                let words = sentence
                    .split_whitespace()
                    .filter(|w| w.chars().any(char::is_alphanumeric))
                    .count();
                if words >= min_words {
                    out.push(Claim {
                        line,
                        text: sentence,
                    });
                }
            }
        }
    };
    for (n, raw) in text.lines().enumerate() {
        let line_no = n as u32 + 1;
        let line = raw.trim();
        if let Some(marker) = fence {
            if line.starts_with(marker) {
                fence = None;
            }
            continue;
        }
        if line.starts_with("```") || line.starts_with("~~~") {
            flush(&mut block, &mut out);
            fence = Some(&line[..3]);
            continue;
        }
        let skip = line.is_empty()
            || line.starts_with('#')
            || line.starts_with('|')
            || line.starts_with('<')
            || is_rule(line)
            || is_link_definition(line)
            || raw.starts_with("    ")
            || raw.starts_with('\t');
        if skip {
            flush(&mut block, &mut out);
            continue;
        }
        let unquoted = line.trim_start_matches('>').trim();
        if let Some(item) = list_item(unquoted) {
            flush(&mut block, &mut out);
            block = Some((line_no, item.to_string(), true));
        } else if let Some((_, body, _)) = block.as_mut() {
            body.push(' ');
            body.push_str(unquoted);
        } else {
            block = Some((line_no, unquoted.to_string(), false));
        }
    }
    flush(&mut block, &mut out);
    // Sentences of a paragraph report the paragraph's first line; refine:
    // find each sentence's own line in the source.
    let mut from = 0;
    let lines: Vec<&str> = text.lines().collect();
    for claim in &mut out {
        let probe: String = claim
            .text
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ");
        let start = (claim.line as usize).saturating_sub(1).max(from);
        if let Some(i) = (start..lines.len()).find(|&i| normalize_ws(lines[i]).contains(&probe)) {
            claim.line = i as u32 + 1;
            from = i;
        }
    }
    out
}

fn normalize_ws(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn list_item(line: &str) -> Option<&str> {
    for marker in ["- ", "* ", "+ "] {
        if let Some(rest) = line.strip_prefix(marker) {
            return Some(rest);
        }
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 {
        let rest = &line[digits..];
        if let Some(item) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return Some(item);
        }
    }
    None
}

fn is_rule(line: &str) -> bool {
    let compact: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    compact.len() >= 3
        && (compact.chars().all(|c| c == '-')
            || compact.chars().all(|c| c == '*')
            || compact.chars().all(|c| c == '_'))
}

fn is_link_definition(line: &str) -> bool {
    line.starts_with('[') && line.contains("]:")
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

    const REPORT: &str = "# Findings\n\nPagination reduces export latency by half [1]. The team measured it twice in March.\nIt was confirmed by the vendor, see [docs](https://example.org/x).\n\n- Every customer asked for filtering UNSOURCED\n- Filtering by date is the most requested option\n- ok\n\n```\nCode blocks are never claims at all.\n```\n\n| a table row is not a claim either |\n";

    #[test]
    fn claims_are_sentences_and_list_items_with_lines() {
        let c = claims(REPORT, 4);
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
    fn citations_and_labels_count() {
        let re = regex(DEFAULT_PATTERN, false).unwrap();
        let labels = vec!["UNSOURCED".to_string(), "INFERENCE".to_string()];
        let cited: Vec<bool> = claims(REPORT, 4)
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
    fn abbreviations_do_not_split_sentences() {
        let s = sentences("Use a cache, e.g. the precompiled one. It is fast.");
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].1, "Use a cache, e.g. the precompiled one.");
    }
}
