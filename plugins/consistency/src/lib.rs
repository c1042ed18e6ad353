//! `std/consistency`: documents that do not contradict each other, and
//! (with `trace_matrix`) requirements traced to code and tests that exist.
//!
//! Three checks, each sound where the VCC v1 reference is a heuristic:
//! - **Trace matrix**: every requirement id the specification defines
//!   (`requirement_pattern`, default `REQ-1`, `AC-SW-1`, `FR-12`, `NFR-3`)
//!   has a row in a trace matrix (a Markdown table, CSV or JSON among the
//!   files read; see `trace.rs`) naming at least one implementation and one
//!   test, and every entry a row names resolves under the deliverable
//!   root: never into a trace matrix or a specification document, and with
//!   `::name` or `#anchor` only to a definition (a heading or explicit
//!   anchor, a function/test/class in code; see `tracer.rs`). Uncovered ids,
//!   rows for ids the specification does not define and dangling paths
//!   are findings with their lines. No matrix, or no requirement id, is a
//!   failure, never a pass.
//! - **Scope**: an item listed under "Out of Scope" / "Non-goals" in one
//!   document that is listed, after normalisation, under "In Scope" /
//!   "Scope" / "Objectives" / "Goals" in another. Items are compared
//!   whole, never by substring; titles without their number, with the
//!   items of sub-sections and of label paragraphs (`**Out of scope:**`).
//! - **Negated requirements**: a MUST/SHALL statement and a MUST NOT/SHALL
//!   NOT statement with the same subject and the same predicate. Two
//!   documents that both say different things "must not be logged" agree.
//!   Contractions (`mustn't`), each clause of a sentence and headings are
//!   read (`doc::statement`).
//!
//! Scope items and statements are read as rendered (CommonMark, HTML
//! blocks' prose, character references decoded, comments left out) and
//! their words compared as a reader tells them apart (`seen.rs`). A
//! document whose shown text cannot be told from its markup (a style that
//! hides only in some layouts, a hiding style sheet, generated text, or
//! hidden markup in plain text) is refused at its line (`shown.rs`), as
//! is reStructuredText vcc does not render (`rst.rs`). Requirement ids
//! are matched on the text as shown (`ids.rs`).
//!
//! Documents are the `.md`, `.markdown`, `.txt` and `.rst` files of the
//! targets (and of `specification`); code is never read as prose.

mod anchors;
mod defs;
mod discovery;
mod doc;
mod gfm;
mod html_ids;
mod ids;
mod js_match;
mod js_reg;
mod not_run;
mod py_around;
mod py_collect;
mod py_config;
mod py_defs;
mod rs_crate;
mod rs_defs;
mod rst;
mod runners;
mod seen;
mod shown;
mod trace;
mod tracer;

use std::collections::{BTreeMap, BTreeSet};

use vcc_plugin_common::bounded::{self, Findings};
use vcc_plugin_common::{allow_empty_schema, clip, nothing, regex};
use vcc_sdk::serde::Deserialize;
use vcc_sdk::serde_json::json;
use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator, relative};

use doc::Doc;
use trace::Matrix;
use tracer::{Tracer, bases};

struct Consistency;

const DEFAULT_REQUIREMENT: &str = r"\b(?:REQ|FR|NFR|AC)(?:-[A-Z0-9]+)*-[0-9]+\b";

#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde", deny_unknown_fields)]
struct Params {
    #[serde(default)]
    trace_matrix: bool,
    #[serde(default)]
    specification: Vec<String>,
    requirement_pattern: Option<String>,
    #[serde(default = "yes")]
    scope: bool,
    #[serde(default = "yes")]
    requirements: bool,
    #[serde(default)]
    allow_empty: bool,
}

fn yes() -> bool {
    true
}

const OUT_OF_SCOPE: &[&str] = &[
    "out of scope",
    "non goals",
    "non goal",
    "not in scope",
    "exclusions",
];
const IN_SCOPE: &[&str] = &["in scope", "scope", "objectives", "goals"];

pub(crate) fn is_document(path: &str) -> bool {
    let lower = path.to_lowercase();
    [".md", ".markdown", ".txt", ".rst"]
        .iter()
        .any(|e| lower.ends_with(e))
}

/// A document read: its guest path and parse.
pub(crate) struct Read {
    pub path: String,
    pub doc: Doc,
}

impl Validator for Consistency {
    fn describe() -> Description {
        Description::new(
            "std/consistency",
            env!("CARGO_PKG_VERSION"),
            "documents do not contradict each other (scope, MUST vs MUST NOT), and requirements trace to code and tests that exist",
        )
        .params_schema(json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "trace_matrix": { "type": "boolean", "default": false, "description": "every requirement id of the specification maps, in a trace matrix, to an implementation and a test that exist" },
                "specification": { "type": "array", "items": { "type": "string", "minLength": 1 }, "description": "deliverable ids whose documents define the requirement ids [default: the targets]", "x-vcc-deliverable": true },
                "requirement_pattern": { "type": "string", "description": "regex of a requirement id (default: REQ-1, AC-SW-1, FR-12, NFR-3)" },
                "scope": { "type": "boolean", "default": true, "description": "out-of-scope items of one document listed in scope in another are findings" },
                "requirements": { "type": "boolean", "default": true, "description": "a MUST and a MUST NOT with the same subject and predicate are findings" },
                "allow_empty": allow_empty_schema("no document and no trace matrix to check")
            }
        }))
    }

    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params: Params = criterion.params()?;
        let pattern = regex(
            params
                .requirement_pattern
                .as_deref()
                .unwrap_or(DEFAULT_REQUIREMENT),
            false,
        )
        .map_err(|e| vcc_sdk::invalid_params(format!("requirement_pattern: {e}")))?;
        let mut paths: BTreeSet<String> = criterion.paths().map(str::to_string).collect();
        let mut spec_paths = BTreeSet::new();
        for id in &params.specification {
            for f in vcc_sdk::files(id).map_err(|e| format!("params.specification: {e}"))? {
                spec_paths.insert(f.path.clone());
                paths.insert(f.path);
            }
        }
        let mut docs = Vec::new();
        let mut data = Vec::new();
        for path in &paths {
            if is_document(path) {
                let text = vcc_sdk::read_to_string(path)?;
                let mut doc = Doc::parse(&text);
                doc.unshown.extend(shown::in_plain_text(path, &text));
                doc.unshown.extend(rst::unrendered(path, &text));
                docs.push(Read {
                    path: path.clone(),
                    doc,
                });
            } else if params.trace_matrix {
                let lower = path.to_lowercase();
                if lower.ends_with(".csv") || lower.ends_with(".json") {
                    data.push(path.clone());
                }
            }
        }
        if docs.is_empty() && !params.trace_matrix {
            return Ok(nothing(params.allow_empty, "no document among the targets"));
        }
        let mut findings = Findings::default();
        // A document whose shown text is a guess (`shown.rs`) is refused,
        // whichever check reads it: a visible failure, never a quiet pass.
        for d in &docs {
            for u in &d.doc.unshown {
                findings.push(
                    Finding::new(u.message)
                        .path(&d.path)
                        .line(u.line)
                        .rule(u.rule),
                );
            }
        }
        if params.scope {
            scope(&docs, &mut findings);
        }
        if params.requirements {
            negations(&docs, &mut findings);
        }
        let mut evidence = Vec::new();
        let traced = if params.trace_matrix {
            let spec: Vec<&Read> = docs
                .iter()
                .filter(|d| spec_paths.is_empty() || spec_paths.contains(&d.path))
                .collect();
            let matrices = matrices(&docs, &data)?;
            let bases = bases(&criterion);
            let t = Tracer {
                pattern: &pattern,
                bases: &bases,
                spec_files: &spec_paths,
            };
            Some(t.check(&spec, &matrices, &mut findings, &mut evidence))
        } else {
            None
        };
        let evidence = bounded::evidence(
            json!({"documents": docs.iter().map(|d| relative(&d.path)).collect::<Vec<_>>()}),
            &evidence,
        );
        let traced_text = traced
            .map(|n| format!("; {n} requirement(s) traced to code and tests"))
            .unwrap_or_default();
        let outcome = if findings.is_empty() {
            Outcome::pass(format!(
                "{} document(s) cross-checked: no contradiction{traced_text}",
                docs.len()
            ))
        } else {
            Outcome::fail(format!(
                "{} consistency problem(s) in {} document(s)",
                findings.len(),
                docs.len()
            ))
            .findings(findings.into_vec())
        };
        Ok(outcome.evidence("consistency.json", "application/json", evidence))
    }
}

/// Items out of scope in one document and in scope in another (or the same).
fn scope(docs: &[Read], findings: &mut Findings) {
    let under = |d: &Read, headings: &[&str]| -> Vec<(u32, String, String)> {
        d.doc
            .sections
            .iter()
            .filter(|s| {
                let title = seen::key(unnumbered(&s.title));
                headings.iter().any(|h| seen::key(h) == title)
            })
            .flat_map(|s| s.items.iter())
            // Compared as a reader sees them (see `seen.rs`).
            .map(|(line, item)| (*line, item.clone(), seen::key(item)))
            .filter(|(_, _, n)| !n.is_empty())
            .collect()
    };
    for a in docs {
        let out = under(a, OUT_OF_SCOPE);
        if out.is_empty() {
            continue;
        }
        for b in docs {
            for (line, item, norm) in under(b, IN_SCOPE) {
                if let Some((out_line, _, _)) = out.iter().find(|(_, _, n)| *n == norm) {
                    findings.push(
                        Finding::new(format!(
                            "`{}` is in scope here, but out of scope in {} (line {out_line})",
                            clip(&item, 120),
                            relative(&a.path)
                        ))
                        .path(&b.path)
                        .line(line)
                        .rule("scope-contradiction"),
                    );
                }
            }
        }
    }
}

/// A section title without its number: `3. Out of Scope`, `2.1 Goals`,
/// `IV. Non-goals`, `B) Scope` name the section a reader looks for.
fn unnumbered(title: &str) -> &str {
    let t = title.trim_start();
    let first = t.split_whitespace().next().unwrap_or("");
    if first.len() == t.len() {
        return t;
    }
    let digits = first.chars().any(|c| c.is_ascii_digit())
        && first
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | ')'));
    let marked = first.strip_suffix(['.', ')']).is_some_and(|m| {
        let roman = !m.is_empty() && m.chars().all(|c| "IVXLCivxlc".contains(c));
        roman || (m.len() == 1 && m.chars().all(|c| c.is_ascii_alphabetic()))
    });
    if digits || marked {
        t[first.len()..].trim_start()
    } else {
        t
    }
}

/// A MUST and a MUST NOT on the same subject and predicate.
fn negations(docs: &[Read], findings: &mut Findings) {
    let mut positive: BTreeMap<&(String, String), (&Read, u32, &str)> = BTreeMap::new();
    for d in docs {
        for s in d.doc.statements.iter().filter(|s| !s.negated) {
            positive.entry(&s.key).or_insert((d, s.line, &s.text));
        }
    }
    // One finding a line: a sentence read whole and clause by clause
    // (`doc::statement`) may match twice.
    let mut seen_lines = BTreeSet::new();
    for d in docs {
        for s in d.doc.statements.iter().filter(|s| s.negated) {
            if let Some((other, line, text)) = positive.get(&s.key)
                && seen_lines.insert((&d.path, s.line))
            {
                findings.push(
                    Finding::new(format!(
                        "`{}` contradicts `{}` ({}:{line})",
                        clip(&s.text, 120),
                        clip(text, 120),
                        relative(&other.path)
                    ))
                    .path(&d.path)
                    .line(s.line)
                    .rule("negated-requirement"),
                );
            }
        }
    }
}

fn matrices(docs: &[Read], data: &[String]) -> Result<Vec<Matrix>, String> {
    let mut out: Vec<Matrix> = docs
        .iter()
        .flat_map(|d| {
            d.doc
                .tables
                .iter()
                .filter_map(|t| trace::from_table(&d.path, t))
        })
        .collect();
    for path in data {
        let text = vcc_sdk::read_to_string(path)?;
        let found = if path.to_lowercase().ends_with(".json") {
            vcc_sdk::serde_json::from_str(&text)
                .ok()
                .and_then(|v| trace::from_json(path, &v))
        } else {
            trace::from_csv(path, &text)
        };
        out.extend(found);
    }
    Ok(out)
}

vcc_sdk::export_validator!(Consistency);

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_ids;
#[cfg(test)]
mod tests_py;
#[cfg(test)]
mod tests_rgj;
#[cfg(test)]
mod tests_run;
