//! `std/consistency`: documents that do not contradict each other, and
//! (with `trace_matrix`) requirements traced to code and tests that exist.
//!
//! Three checks, each sound where the VCC v1 reference is a heuristic:
//! - **Trace matrix**: every requirement id the specification defines
//!   (`requirement_pattern`, default `REQ-1`, `AC-SW-1`, `FR-12`, `NFR-3`)
//!   has a row in a trace matrix (a Markdown table, CSV or JSON among the
//!   files read; see `trace.rs`) naming at least one implementation and one
//!   test, and every path a row names exists under the deliverable root
//!   (with `::name` or `#anchor`, that text is in the file). Uncovered ids,
//!   rows for ids the specification does not define and dangling paths
//!   are findings with their lines. No matrix, or no requirement id, is a
//!   failure, never a pass.
//! - **Scope**: an item listed under "Out of Scope" / "Non-goals" in one
//!   document that is listed, after normalisation, under "In Scope" /
//!   "Scope" / "Objectives" / "Goals" in another. Items are compared
//!   whole, never by substring.
//! - **Negated requirements**: a MUST/SHALL statement and a MUST NOT/SHALL
//!   NOT statement with the same subject and the same predicate. Two
//!   documents that both say different things "must not be logged" agree.
//!
//! Documents are the `.md`, `.markdown`, `.txt` and `.rst` files of the
//! targets (and of `specification`); code is never read as prose.

mod doc;
mod trace;

use std::collections::{BTreeMap, BTreeSet};

use vcc_plugin_common::bounded::{self, Findings};
use vcc_plugin_common::{Regex, allow_empty_schema, clip, nothing, regex};
use vcc_sdk::serde::Deserialize;
use vcc_sdk::serde_json::json;
use vcc_sdk::{Criterion, Description, Finding, MOUNT, Outcome, Validator, relative};

use doc::Doc;
use trace::Matrix;

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

fn is_document(path: &str) -> bool {
    let lower = path.to_lowercase();
    [".md", ".markdown", ".txt", ".rst"]
        .iter()
        .any(|e| lower.ends_with(e))
}

/// A document read: its guest path and parse.
struct Read {
    path: String,
    doc: Doc,
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
                let doc = Doc::parse(&text);
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
            .filter(|s| headings.contains(&doc::normalize(&s.title).as_str()))
            .flat_map(|s| s.items.iter())
            .map(|(line, item)| (*line, item.clone(), doc::normalize(item)))
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

/// A MUST and a MUST NOT on the same subject and predicate.
fn negations(docs: &[Read], findings: &mut Findings) {
    let mut positive: BTreeMap<&(String, String), (&Read, u32, &str)> = BTreeMap::new();
    for d in docs {
        for s in d.doc.statements.iter().filter(|s| !s.negated) {
            positive.entry(&s.key).or_insert((d, s.line, &s.text));
        }
    }
    for d in docs {
        for s in d.doc.statements.iter().filter(|s| s.negated) {
            if let Some((other, line, text)) = positive.get(&s.key) {
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

/// Folders a matrix's relative paths may be written against: the root,
/// and the folder of each target deliverable (a mapped repository).
fn bases(criterion: &Criterion) -> Vec<String> {
    let mut out = vec![String::new()];
    for t in &criterion.targets {
        let dirs: Vec<&str> = t
            .paths
            .iter()
            .map(|p| relative(p).rsplit_once('/').map_or("", |(d, _)| d))
            .collect();
        if let Some(first) = dirs.first() {
            let mut common: &str = first;
            for d in &dirs[1..] {
                while !(d.starts_with(common)
                    && (d.len() == common.len() || d[common.len()..].starts_with('/')))
                {
                    common = common.rsplit_once('/').map_or("", |(c, _)| c);
                }
            }
            if !common.is_empty() && !out.iter().any(|o| o == common) {
                out.push(common.to_string());
            }
        }
    }
    out
}

struct Tracer<'a> {
    pattern: &'a Regex,
    bases: &'a [String],
}

impl Tracer<'_> {
    /// Check the matrices against the specification's ids; the number of
    /// requirements fully traced.
    fn check(
        &self,
        spec: &[&Read],
        matrices: &[Matrix],
        findings: &mut Findings,
        evidence: &mut Vec<vcc_sdk::serde_json::Value>,
    ) -> usize {
        // Ids the specification defines, outside trace matrices, first line.
        let mut ids: BTreeMap<String, (String, u32)> = BTreeMap::new();
        for d in spec {
            let text_lines = d.doc.lines.iter().map(|(l, t)| (*l, t.as_str()));
            let table_rows = d
                .doc
                .tables
                .iter()
                .filter(|t| trace::from_table(&d.path, t).is_none())
                .flat_map(|t| t.rows.iter().map(|(l, cells)| (*l, cells.join(" "))))
                .collect::<Vec<_>>();
            for (line, text) in text_lines.chain(table_rows.iter().map(|(l, t)| (*l, t.as_str()))) {
                for m in self.pattern.find_iter(text) {
                    ids.entry(m.as_str().to_string())
                        .or_insert((d.path.clone(), line));
                }
            }
        }
        if matrices.is_empty() {
            findings.push(
                Finding::new("no trace matrix: a table (Markdown, CSV or JSON) with a requirement column, an implementation column and a test column".to_string())
                    .rule("no-trace-matrix"),
            );
            return 0;
        }
        if ids.is_empty() {
            let mut f = Finding::new(format!(
                "the specification defines no requirement id (pattern `{}`)",
                self.pattern.as_str()
            ))
            .rule("no-requirements");
            if let Some(d) = spec.first() {
                f = f.path(&d.path);
            }
            findings.push(f);
            return 0;
        }
        for m in matrices.iter().filter(|m| !m.has_implementation) {
            findings.push(
                Finding::new("the trace matrix has no implementation column".to_string())
                    .path(&m.file)
                    .rule("no-implementation"),
            );
        }
        let rows: Vec<&trace::Row> = matrices.iter().flat_map(|m| m.rows.iter()).collect();
        for r in &rows {
            let named: Vec<&str> = self
                .pattern
                .find_iter(&r.requirement)
                .map(|m| m.as_str())
                .collect();
            if named.is_empty() || named.iter().any(|n| !ids.contains_key(*n)) {
                let mut f = Finding::new(format!(
                    "trace row `{}` names no requirement the specification defines",
                    clip(&r.requirement, 80)
                ))
                .path(&r.file)
                .rule("unknown-requirement");
                if r.line > 0 {
                    f = f.line(r.line);
                }
                findings.push(f);
            }
            for entry in r.implementation.iter().chain(&r.tests) {
                if let Err(why) = self.exists(entry) {
                    let mut f = Finding::new(format!("`{entry}` {why}"))
                        .path(&r.file)
                        .rule("dangling-path");
                    if r.line > 0 {
                        f = f.line(r.line);
                    }
                    findings.push(f);
                }
            }
        }
        let mut traced = 0;
        for (id, (path, line)) in &ids {
            let mine: Vec<&&trace::Row> = rows
                .iter()
                .filter(|r| {
                    self.pattern
                        .find_iter(&r.requirement)
                        .any(|m| m.as_str() == id)
                })
                .collect();
            let has_impl = mine.iter().any(|r| !r.implementation.is_empty());
            let has_test = mine.iter().any(|r| !r.tests.is_empty());
            let problem = match (mine.is_empty(), has_impl, has_test) {
                (true, _, _) => Some(("uncovered-requirement", "has no row in the trace matrix")),
                (_, false, _) => Some(("no-implementation", "maps to no implementation")),
                (_, _, false) => Some(("no-test", "maps to no test")),
                _ => None,
            };
            evidence.push(json!({"requirement": id, "rows": mine.len(), "implementation": has_impl, "test": has_test}));
            match problem {
                Some((rule, what)) => findings.push(
                    Finding::new(format!("requirement {id} {what}"))
                        .path(path)
                        .line(*line)
                        .rule(rule),
                ),
                None => traced += 1,
            }
        }
        traced
    }

    /// Whether a matrix entry names a file under the root (against each
    /// base folder), and its `::name` / `#anchor` is in that file.
    fn exists(&self, entry: &str) -> Result<(), String> {
        let (path, fragment) = trace::reference(entry);
        let path = path.trim_start_matches("./");
        if path.is_empty() || path.starts_with('/') || path.split('/').any(|c| c == "..") {
            return Err("is not a path under the deliverable root".into());
        }
        for base in self.bases {
            let full = if base.is_empty() {
                format!("{MOUNT}/{path}")
            } else {
                format!("{MOUNT}/{base}/{path}")
            };
            if vcc_sdk::stat(&full).is_err() {
                continue;
            }
            let Some(fragment) = &fragment else {
                return Ok(());
            };
            let text = vcc_sdk::read_to_string(&full)?;
            return if mentions(&full, &text, fragment) {
                Ok(())
            } else {
                Err(format!(
                    "names `{fragment}`, which is not in {}",
                    relative(&full)
                ))
            };
        }
        Err("does not exist under the deliverable root".into())
    }
}

/// Whether a file names `fragment` (a test, a heading, an id). In a
/// document, a trace matrix does not count: a row citing `plan.md#T-3`
/// must not be what makes `T-3` exist in `plan.md`. An anchor also names
/// a heading by its slug (`#power-supply`).
fn mentions(path: &str, text: &str, fragment: &str) -> bool {
    if !is_document(path) {
        return text.contains(fragment);
    }
    let d = Doc::parse(text);
    let slug = fragment.to_lowercase();
    d.sections
        .iter()
        .any(|s| doc::normalize(&s.title).replace(' ', "-") == slug)
        || d.lines.iter().any(|(_, l)| l.contains(fragment))
        || d.tables
            .iter()
            .filter(|t| trace::from_table(path, t).is_none())
            .any(|t| {
                t.header.iter().any(|c| c.contains(fragment))
                    || t.rows
                        .iter()
                        .any(|(_, cells)| cells.iter().any(|c| c.contains(fragment)))
            })
}

vcc_sdk::export_validator!(Consistency);

#[cfg(test)]
mod tests;
