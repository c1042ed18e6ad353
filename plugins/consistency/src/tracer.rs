//! Trace matrices against the specification: every requirement id has a
//! row naming an implementation and a test, and every entry resolves.
//!
//! An entry resolves only to a definition (see `resolve`): a file under
//! the root, and with `::name` or `#anchor` a definition of that name —
//! a heading or an explicit anchor in a document (`anchors.rs`), a
//! function, test or class outside comments and strings in code
//! (`defs.rs`). Never into a trace matrix (a CSV or JSON matrix file; a
//! document holding a matrix table cited whole — its table defines no
//! anchor), nor into a specification document: a matrix citing itself, or
//! the requirement it traces, proves nothing.

use std::collections::{BTreeMap, BTreeSet};

use vcc_plugin_common::bounded::Findings;
use vcc_plugin_common::{Regex, clip};
use vcc_sdk::serde_json::json;
use vcc_sdk::{Criterion, Finding, MOUNT, relative};

use crate::defs::{self, Lang};
use crate::trace::{self, Matrix};
use crate::{Read, anchors, discovery, ids, is_document};

/// Folders a matrix's relative paths may be written against: the root,
/// and the folder of each target deliverable (a mapped repository).
pub fn bases(criterion: &Criterion) -> Vec<String> {
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

pub struct Tracer<'a> {
    pub pattern: &'a Regex,
    pub bases: &'a [String],
    /// The files of the deliverables `specification` names: the
    /// specification. When it names none, the documents that define a
    /// requirement id are.
    pub spec_files: &'a BTreeSet<String>,
}

/// Files an entry must not point into: by root-relative path and by
/// digest (a copy or a link to the same bytes is the same file), with
/// what each is.
#[derive(Default)]
struct Forbidden {
    paths: BTreeMap<String, &'static str>,
    digests: BTreeMap<String, &'static str>,
    /// Documents holding a matrix table: an entry naming one whole (no
    /// `#anchor`) names the matrix.
    documents: BTreeSet<String>,
}

impl Forbidden {
    fn add(&mut self, guest_path: &str, what: &'static str) {
        self.paths.insert(normal(relative(guest_path)), what);
        if let Ok(info) = vcc_sdk::stat(guest_path)
            && !info.digest.is_empty()
        {
            self.digests.insert(info.digest, what);
        }
    }

    fn get(&self, guest_path: &str, digest: &str) -> Option<&'static str> {
        self.paths
            .get(&normal(relative(guest_path)))
            .or_else(|| self.digests.get(digest).filter(|_| !digest.is_empty()))
            .copied()
    }
}

/// A relative path with `.` and empty segments dropped (`a/./b`, `a//b`).
fn normal(path: &str) -> String {
    path.split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect::<Vec<_>>()
        .join("/")
}

impl Tracer<'_> {
    /// Check the matrices against the specification's ids; the number of
    /// requirements fully traced.
    pub fn check(
        &self,
        spec: &[&Read],
        matrices: &[Matrix],
        findings: &mut Findings,
        evidence: &mut Vec<vcc_sdk::serde_json::Value>,
    ) -> usize {
        // Ids the specification defines, outside trace matrices, first line.
        let mut ids: BTreeMap<String, (String, u32)> = BTreeMap::new();
        let mut forbidden = Forbidden::default();
        for d in spec {
            let text_lines = d.doc.lines.iter().map(|(l, t)| (*l, t.as_str()));
            let table_rows = d
                .doc
                .tables
                .iter()
                .filter(|t| trace::from_table(&d.path, t).is_none())
                .flat_map(|t| t.rows.iter().map(|(l, cells)| (*l, cells.join(" "))))
                .collect::<Vec<_>>();
            // Each source line as written and folded, then the rendered
            // text (`ids.rs`): an id a reader sees is an id.
            let folded: Vec<(u32, String)> = text_lines
                .chain(table_rows.iter().map(|(l, t)| (*l, t.as_str())))
                .flat_map(|(l, t)| [(l, t.to_string()), (l, ids::fold(t))])
                .chain(d.doc.shown.iter().cloned())
                .collect();
            for (line, text) in folded.iter().map(|(l, t)| (*l, t.as_str())) {
                for m in self.pattern.find_iter(text) {
                    ids.entry(m.as_str().to_string())
                        .or_insert((d.path.clone(), line));
                    // Once per document: `add` asks the host for its digest.
                    if self.spec_files.is_empty()
                        && !forbidden.paths.contains_key(&normal(relative(&d.path)))
                    {
                        forbidden.add(&d.path, "a specification document");
                    }
                }
            }
        }
        for path in self.spec_files {
            forbidden.add(path, "a specification document");
        }
        // A CSV or JSON matrix is the whole file; a document holding a
        // matrix table is the matrix only when cited whole (its table
        // defines no anchor, its headings do).
        for m in matrices {
            if is_document(&m.file) {
                forbidden.documents.insert(normal(relative(&m.file)));
            } else {
                forbidden.add(&m.file, "a trace matrix");
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
            // Folded as the specification's ids are (`ids.rs`).
            let requirement = ids::fold(&r.requirement);
            let named: Vec<&str> = self
                .pattern
                .find_iter(&requirement)
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
            let entries = r.implementation.iter().map(|e| (e, false));
            for (entry, test) in entries.chain(r.tests.iter().map(|e| (e, true))) {
                if let Err(why) = self.resolve(entry, &forbidden, test) {
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
                        .find_iter(&ids::fold(&r.requirement))
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

    /// Whether a matrix entry resolves: a file under the root (against
    /// each base folder) that is neither a trace matrix nor a
    /// specification document, and with a `::name` / `#anchor`, a
    /// definition of that name in it.
    fn resolve(&self, entry: &str, forbidden: &Forbidden, test: bool) -> Result<(), String> {
        let (path, fragment) = trace::reference(entry);
        if path.is_empty() || path.starts_with('/') || path.split('/').any(|c| c == "..") {
            return Err("is not a path under the deliverable root".into());
        }
        let path = normal(&path);
        if path.is_empty() {
            return Err("is not a path under the deliverable root".into());
        }
        for base in self.bases {
            let full = if base.is_empty() {
                format!("{MOUNT}/{path}")
            } else {
                format!("{MOUNT}/{base}/{path}")
            };
            let Ok(info) = vcc_sdk::stat(&full) else {
                continue;
            };
            if let Some(what) = forbidden.get(&full, &info.digest) {
                return Err(format!(
                    "points into {what} ({}): an entry must name code or a document that defines what it cites, never the matrix or the specification",
                    relative(&full)
                ));
            }
            // An empty implementation (no bytes, or white space only)
            // implements nothing.
            let blank = info.size == 0
                || (info.size < 64
                    && vcc_sdk::read_to_string(&full).is_ok_and(|t| t.trim().is_empty()));
            if !test && blank {
                return Err(format!(
                    "is an empty file ({}): an implementation entry must name a file that holds code",
                    relative(&full)
                ));
            }
            // A test counts only in a file its runner builds and runs.
            if test
                && !is_document(&full)
                && let Some(lang) = Lang::of(&full)
            {
                discovery::runs(lang, &full, &path, &discovery::Guest::listed()).map_err(
                    |why| {
                        format!(
                            "is in no test file its runner runs ({}): {why}",
                            relative(&full)
                        )
                    },
                )?;
            }
            let Some(fragment) = &fragment else {
                if forbidden.documents.contains(&normal(relative(&full))) {
                    return Err(format!(
                        "points into a trace matrix ({}): an entry must name code or a document that defines what it cites, never the matrix or the specification",
                        relative(&full)
                    ));
                }
                // A Python test file cited whole: every test it holds runs.
                if test && Lang::of(&full) == Some(Lang::Python) {
                    let text = vcc_sdk::read_to_string(&full)?;
                    return crate::py_around::whole_file(&full, &text).map_err(|why| {
                        format!(
                            "names the Python test file {} whole, and pytest does not run every test in it: {why}",
                            relative(&full)
                        )
                    });
                }
                return Ok(());
            };
            let text = vcc_sdk::read_to_string(&full)?;
            return defined(&full, &text, fragment, test);
        }
        Err("does not exist under the deliverable root".into())
    }
}

/// Whether `fragment` is defined in the file: a heading or explicit anchor
/// of a document; a line anchor (`#L12`, `#L3-L9`) within a code file, or
/// a definition in code of a language vcc reads.
fn defined(path: &str, text: &str, fragment: &str, test: bool) -> Result<(), String> {
    let shown = relative(path);
    if is_document(path) {
        return if anchors::defines(path, text, fragment) {
            Ok(())
        } else {
            Err(format!(
                "names `{fragment}`, which is no heading or anchor of {shown} (a mention in a sentence, a table or a comment defines nothing)"
            ))
        };
    }
    if let Some(last) = line_anchor(fragment) {
        return if last as usize <= text.lines().count() {
            Ok(())
        } else {
            Err(format!("names line {last}, past the end of {shown}"))
        };
    }
    match Lang::of(path) {
        Some(lang) => defs::resolve(lang, path, text, fragment, test).map_err(|why| {
            let what = if test {
                "a test its runner collects and runs"
            } else {
                "a function, test or class outside comments and strings"
            };
            format!("names `{fragment}`, which {shown} does not define as {what}: {why}")
        }),
        None => Err(format!(
            "names `{fragment}` in {shown}, where vcc reads no definitions (it reads Python, Rust, JavaScript/TypeScript, Go and Markdown): cite the file alone, or a file it can read"
        )),
    }
}

/// The last line of a GitHub-style line anchor: `L12` → 12, `L3-L9` → 9.
fn line_anchor(fragment: &str) -> Option<u32> {
    let number = |s: &str| s.strip_prefix('L')?.parse::<u32>().ok().filter(|n| *n > 0);
    match fragment.split_once('-') {
        Some((a, b)) => number(a).and(number(b)),
        None => number(fragment),
    }
}
