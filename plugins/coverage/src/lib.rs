//! `std/coverage`: line coverage from lcov or Cobertura reports is at least
//! a threshold, overall and/or per source file.
//!
//! Lines are counted from the per-line records (`DA:` in lcov, `<line>` in
//! Cobertura), merged when a file appears several times; lcov `LF:`/`LH:`
//! totals are used only for files without `DA:` lines. Source files can be
//! narrowed with `include` / `exclude` globs. With `sources` (deliverable
//! ids), every source file of those deliverables that no report names
//! counts as 0% covered (sources.rs). A file that is neither lcov
//! nor Cobertura is an error; reports that cover no source line are judged
//! as nothing (skip, unless `allow_empty`).

mod sources;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use vcc_plugin_common::bounded::{self, Findings};
use vcc_plugin_common::{GlobMatcher, allow_empty_schema, glob, nothing, parse_params, xml};
use vcc_sdk::serde::Deserialize;
use vcc_sdk::serde_json::json;
use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator, invalid_params, relative};

pub struct Coverage;

/// Files named when the overall coverage is too low.
const WORST_SHOWN: usize = 10;

#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde", deny_unknown_fields)]
struct Params {
    min: Option<f64>,
    per_file_min: Option<f64>,
    #[serde(default)]
    include: Vec<String>,
    #[serde(default)]
    exclude: Vec<String>,
    #[serde(default)]
    format: Format,
    #[serde(default)]
    allow_empty: bool,
    #[serde(default)]
    sources: Vec<String>,
}

/// Report names shown when none of them is a file of `sources`.
const SEEN_SHOWN: usize = 10;

/// The include and exclude globs, or each bad one with its pointer.
fn globs(params: &Params) -> Result<(Vec<GlobMatcher>, Vec<GlobMatcher>), Vec<Finding>> {
    let mut problems = Vec::new();
    let mut compile = |list: &[String], key: &str| -> Vec<GlobMatcher> {
        let mut out = Vec::new();
        for (i, g) in list.iter().enumerate() {
            match glob(g) {
                Ok(m) => out.push(m),
                Err(e) => problems.push(Finding::new(e).param(&format!("/{key}/{i}"))),
            }
        }
        out
    };
    let include = compile(&params.include, "include");
    let exclude = compile(&params.exclude, "exclude");
    if problems.is_empty() {
        Ok((include, exclude))
    } else {
        Err(problems)
    }
}

#[derive(Deserialize, Default, Clone, Copy, PartialEq)]
#[serde(crate = "vcc_sdk::serde", rename_all = "lowercase")]
enum Format {
    #[default]
    Auto,
    Lcov,
    Cobertura,
}

/// Per source file: line number → hits (or, for lcov totals, found/hit).
#[derive(Default, Debug)]
struct FileCoverage {
    lines: HashMap<u32, u64>,
    totals: Option<(u64, u64)>,
}

impl FileCoverage {
    fn found_hit(&self) -> (u64, u64) {
        if self.lines.is_empty() {
            return self.totals.unwrap_or((0, 0));
        }
        let found = self.lines.len() as u64;
        let hit = self.lines.values().filter(|&&h| h > 0).count() as u64;
        (found, hit)
    }
}

impl Validator for Coverage {
    fn describe() -> Description {
        Description::new(
            "std/coverage",
            env!("CARGO_PKG_VERSION"),
            "lcov or Cobertura line coverage is at least a threshold, overall or per file",
        )
        .params_schema(json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "min": { "type": "number", "minimum": 0, "maximum": 100, "description": "minimum overall line coverage, in percent" },
                "per_file_min": { "type": "number", "minimum": 0, "maximum": 100, "description": "minimum line coverage of every source file, in percent" },
                "include": { "type": "array", "items": { "type": "string" }, "description": "only source files matching these globs" },
                "exclude": { "type": "array", "items": { "type": "string" }, "description": "ignore source files matching these globs" },
                "format": { "enum": ["auto", "lcov", "cobertura"], "default": "auto" },
                "allow_empty": allow_empty_schema("no covered source line"),
                "sources": { "type": "array", "items": { "type": "string", "minLength": 1 }, "description": "deliverable ids whose every source file must be in a report; one that is not counts as 0% covered", "x-vcc-deliverable": true }
            },
            "anyOf": [{ "required": ["min"] }, { "required": ["per_file_min"] }]
        }))
    }

    fn check_params(params: &str) -> Result<(), Vec<Finding>> {
        let params: Params = parse_params(params)?;
        globs(&params).map(|_| ())
    }

    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params: Params = criterion.params()?;
        let (include, exclude) = globs(&params).map_err(|problems| {
            let words: Vec<String> = problems.iter().map(|f| f.message.clone()).collect();
            invalid_params(words.join("; "))
        })?;
        let paths: Vec<&str> = criterion.paths().collect();
        if paths.is_empty() {
            return Ok(nothing(params.allow_empty, "no coverage report"));
        }
        let mut findings = Findings::default();
        let mut files: BTreeMap<String, FileCoverage> = BTreeMap::new();
        let roots = source_files(&params.sources, &include, &exclude)?;
        // Report names (as written) that are no file of `sources`.
        let mut unmatched: BTreeSet<String> = BTreeSet::new();
        for path in &paths {
            let text = vcc_sdk::read_to_string(path)?;
            let cobertura = match params.format {
                Format::Cobertura => true,
                Format::Lcov => false,
                Format::Auto => text.trim_start().starts_with('<'),
            };
            let parsed = if cobertura {
                cobertura_files(&text)
            } else {
                lcov_files(&text)
            };
            let report = parsed.map_err(|(message, line)| {
                format!(
                    "{} is not a coverage report (line {line}: {message}); std/coverage reads lcov and Cobertura XML",
                    relative(path)
                )
            })?;
            for ((written, names), cov) in report {
                let source = match sources::root_path(&names, &roots) {
                    Some(root) => root.to_string(),
                    None => {
                        let written = sources::normalise(&written);
                        unmatched.insert(written.clone());
                        written
                    }
                };
                let merged = files.entry(source).or_default();
                for (line, hits) in cov.lines {
                    let h = merged.lines.entry(line).or_default();
                    *h = (*h).max(hits);
                }
                if let Some((f, h)) = cov.totals {
                    let (of, oh) = merged.totals.unwrap_or((0, 0));
                    merged.totals = Some((of.max(f), oh.max(h)));
                }
            }
        }
        files.retain(|source, _| {
            (include.is_empty() || include.iter().any(|g| g.is_match(source)))
                && !exclude.iter().any(|g| g.is_match(source))
        });
        // Sources no report names: 0% of their counted lines.
        let mut missing: BTreeSet<String> = BTreeSet::new();
        for (root, path) in &roots_by_path(&roots, &params.sources)? {
            if files.contains_key(root) {
                continue;
            }
            let text = vcc_sdk::read_to_string(path)?;
            let lines = sources::statements(root, &text);
            if lines > 0 {
                files.insert(
                    root.clone(),
                    FileCoverage {
                        totals: Some((lines, 0)),
                        ..FileCoverage::default()
                    },
                );
                missing.insert(root.clone());
            }
        }
        if !roots.is_empty()
            && roots
                .iter()
                .all(|r| !files.contains_key(r) || missing.contains(r))
        {
            let seen: Vec<&str> = unmatched
                .iter()
                .take(SEEN_SHOWN)
                .map(String::as_str)
                .collect();
            findings.push(
                Finding::new(format!(
                    "no report names a source file of `{}`; the reports name {}{}",
                    params.sources.join("`, `"),
                    if seen.is_empty() {
                        "no file".to_string()
                    } else {
                        format!("`{}`", seen.join("`, `"))
                    },
                    if unmatched.len() > SEEN_SHOWN {
                        format!(" and {} more", unmatched.len() - SEEN_SHOWN)
                    } else {
                        String::new()
                    }
                ))
                .rule("sources-unmatched"),
            );
        }
        let not_measured = |source: &str| {
            if missing.contains(source) {
                " (in no report: counted as 0% of its non-blank, non-comment lines)"
            } else {
                ""
            }
        };
        let (found, hit) = files
            .values()
            .map(FileCoverage::found_hit)
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        if found == 0 {
            return Ok(nothing(
                params.allow_empty,
                "the reports cover no source line (after include/exclude)",
            ));
        }
        let percent = |hit: u64, found: u64| {
            if found == 0 {
                100.0
            } else {
                hit as f64 * 100.0 / found as f64
            }
        };
        let overall = percent(hit, found);
        if let Some(min) = params.min
            && overall < min
        {
            // Which files pull it down, worst first: what to test next.
            let mut below: Vec<(f64, u64, &str, u64, u64)> = files
                .iter()
                .map(|(source, cov)| {
                    let (f, h) = cov.found_hit();
                    (percent(h, f), f - h, source.as_str(), h, f)
                })
                .filter(|(p, ..)| *p < min)
                .collect();
            below.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(b.2)));
            findings.push(
                Finding::new(format!(
                    "line coverage {overall:.1}% ({hit}/{found}) is below {min}%; {} file(s) below {min}%{}",
                    below.len(),
                    if below.len() > WORST_SHOWN {
                        format!(", the {WORST_SHOWN} least covered listed")
                    } else {
                        String::new()
                    }
                ))
                .rule("min"),
            );
            for (p, missed, source, h, f) in below.iter().take(WORST_SHOWN) {
                findings.push(
                    Finding::new(format!(
                        "line coverage {p:.1}% ({h}/{f}, {missed} line(s) not covered) pulls the total below {min}%{}",
                        not_measured(source)
                    ))
                    .path(source)
                    .rule("min-file"),
                );
            }
        }
        let mut table = Vec::new();
        for (source, cov) in &files {
            let (f, h) = cov.found_hit();
            let p = percent(h, f);
            let mut row = json!({"file": source, "lines": f, "covered": h, "percent": p});
            if missing.contains(source) {
                row["in_report"] = json!(false);
                row["counted"] = json!("non-blank, non-comment lines");
            }
            table.push(row);
            if let Some(min) = params.per_file_min
                && p < min
            {
                findings.push(
                    Finding::new(format!(
                        "line coverage {p:.1}% ({h}/{f}) is below {min}%{}",
                        not_measured(source)
                    ))
                    .path(source)
                    .rule("per-file-min"),
                );
            }
        }
        let evidence = bounded::evidence(
            json!({
                "reports": paths.iter().take(100).map(|p| relative(p)).collect::<Vec<_>>(),
                "overall": {"lines": found, "covered": hit, "percent": overall},
                "not_in_report": missing.iter().collect::<Vec<_>>(),
            }),
            &table,
        );
        let unmeasured = if missing.is_empty() {
            String::new()
        } else {
            format!(
                "; {} source file(s) in no report counted as 0%",
                missing.len()
            )
        };
        let outcome = if findings.is_empty() {
            Outcome::pass(format!(
                "line coverage {overall:.1}% ({hit}/{found}) across {} file(s){unmeasured}",
                files.len()
            ))
        } else {
            Outcome::fail(format!(
                "line coverage {overall:.1}% ({hit}/{found}); {} problem(s){unmeasured}",
                findings.len()
            ))
            .findings(findings.into_vec())
        };
        Ok(outcome.evidence("coverage.json", "application/json", evidence))
    }
}

/// The root paths of the source files of the `sources` deliverables that
/// `include`/`exclude` keep.
fn source_files(
    ids: &[String],
    include: &[GlobMatcher],
    exclude: &[GlobMatcher],
) -> Result<BTreeSet<String>, String> {
    Ok(roots_by_path(&BTreeSet::new(), ids)?
        .into_keys()
        .filter(|r| sources::is_source(r))
        .filter(|r| {
            (include.is_empty() || include.iter().any(|g| g.is_match(r)))
                && !exclude.iter().any(|g| g.is_match(r))
        })
        .collect())
}

/// Root path → readable path of the files of `ids`; only those in `keep`
/// unless it is empty.
fn roots_by_path(
    keep: &BTreeSet<String>,
    ids: &[String],
) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    for id in ids {
        let files = vcc_sdk::files(id).map_err(|e| invalid_params(format!("sources: {e}")))?;
        for f in files {
            let root = relative(&f.path).to_string();
            if keep.is_empty() || keep.contains(&root) {
                out.insert(root, f.path);
            }
        }
    }
    Ok(out)
}

fn clean_source(path: &str) -> String {
    path.trim().trim_start_matches("./").to_string()
}

/// A report entry: its path as written (cleaned) and the names it can
/// stand for, and its lines.
type Entry = ((String, Vec<sources::Candidate>), FileCoverage);

fn lcov_files(text: &str) -> Result<Vec<Entry>, (String, u32)> {
    let mut out = Vec::new();
    let mut current: Option<Entry> = None;
    let mut any = false;
    for (n, line) in text.lines().enumerate() {
        let line_no = n as u32 + 1;
        let line = line.trim();
        let number = |s: &str| {
            s.trim()
                .parse::<u64>()
                .map_err(|_| (format!("`{line}` has a bad number"), line_no))
        };
        if let Some(source) = line.strip_prefix("SF:") {
            let written = clean_source(source);
            let names = sources::candidates(&written, &[]);
            current = Some(((written, names), FileCoverage::default()));
            any = true;
        } else if line == "end_of_record" {
            out.extend(current.take());
        } else if let Some(rest) = line.strip_prefix("DA:") {
            let (_, cov) = current
                .as_mut()
                .ok_or((format!("`{line}` outside a record"), line_no))?;
            let mut parts = rest.split(',');
            let ln = number(parts.next().unwrap_or(""))? as u32;
            let hits = number(parts.next().unwrap_or(""))?;
            let h = cov.lines.entry(ln).or_default();
            *h = (*h).max(hits);
        } else if let Some(rest) = line.strip_prefix("LF:") {
            if let Some((_, cov)) = current.as_mut() {
                let found = number(rest)?;
                cov.totals = Some((found, cov.totals.map_or(0, |t| t.1)));
            }
        } else if let Some(rest) = line.strip_prefix("LH:")
            && let Some((_, cov)) = current.as_mut()
        {
            let hit = number(rest)?;
            cov.totals = Some((cov.totals.map_or(0, |t| t.0), hit));
        }
    }
    out.extend(current.take());
    if !any {
        return Err(("no `SF:` record (is it lcov?)".into(), 1));
    }
    Ok(out)
}

fn cobertura_files(text: &str) -> Result<Vec<Entry>, (String, u32)> {
    let root = xml::parse(text)?;
    if root.name != "coverage" {
        return Err((
            format!("the root element is <{}>, not <coverage>", root.name),
            root.line,
        ));
    }
    // Class filenames are relative to one of these (coverage.py writes the
    // absolute folder it measured).
    let folders: Vec<String> = root
        .child("sources")
        .map(|s| s.descendants("source"))
        .unwrap_or_default()
        .iter()
        .map(|s| s.text.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    let mut out = Vec::new();
    for class in root.descendants("class") {
        let written = clean_source(class.attr("filename").unwrap_or(""));
        let source = (written.clone(), sources::candidates(&written, &folders));
        let mut cov = FileCoverage::default();
        for line in class
            .child("lines")
            .map(|l| l.descendants("line"))
            .unwrap_or_default()
        {
            let number = line.attr("number").and_then(|n| n.parse::<u32>().ok());
            let hits = line.attr("hits").and_then(|h| h.parse::<u64>().ok());
            match (number, hits) {
                (Some(n), Some(h)) => {
                    let e = cov.lines.entry(n).or_default();
                    *e = (*e).max(h);
                }
                _ => return Err(("a <line> without a numeric number/hits".into(), line.line)),
            }
        }
        out.push((source, cov));
    }
    Ok(out)
}

vcc_sdk::export_validator!(Coverage);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lcov_lines_merge_and_totals_fall_back() {
        let text = "TN:\nSF:./src/a.rs\nDA:1,1\nDA:2,0\nDA:3,5\nend_of_record\nSF:src/a.rs\nDA:2,1\nend_of_record\nSF:src/b.rs\nLF:10\nLH:4\nend_of_record\n";
        let files = lcov_files(text).unwrap();
        let mut merged: BTreeMap<String, FileCoverage> = BTreeMap::new();
        for (s, c) in files {
            let m = merged.entry(sources::normalise(&s.0)).or_default();
            for (l, h) in c.lines {
                let e = m.lines.entry(l).or_default();
                *e = (*e).max(h);
            }
            if c.totals.is_some() {
                m.totals = c.totals;
            }
        }
        assert_eq!(merged["src/a.rs"].found_hit(), (3, 3));
        assert_eq!(merged["src/b.rs"].found_hit(), (10, 4));
        assert!(lcov_files("DA:1,1\n").is_err());
        assert!(lcov_files("hello").unwrap_err().0.contains("SF:"));
    }

    #[test]
    fn cobertura_classes() {
        let text = r#"<?xml version="1.0"?>
<coverage line-rate="0.5"><packages><package name="p"><classes>
  <class name="A" filename="src/a.py"><lines><line number="1" hits="3"/><line number="2" hits="0"/></lines></class>
</classes></package></packages></coverage>"#;
        let files = cobertura_files(text).unwrap();
        assert_eq!(files[0].0.0, "src/a.py");
        assert_eq!(files[0].1.found_hit(), (2, 1));
        assert!(cobertura_files("<testsuites/>").is_err());
    }

    const REPORT: &str = r#"<?xml version="1.0"?>
<coverage><sources><source>/home/ci/proj</source></sources><packages><package name="pkg"><classes>
  <class name="a.py" filename="pkg/a.py"><lines><line number="1" hits="1"/><line number="2" hits="1"/><line number="3" hits="1"/></lines></class>
</classes></package></packages></coverage>"#;

    fn run(params: &str, ns: &str) -> vcc_sdk::Outcome {
        let mut files = vcc_sdk::native::Files::default();
        files.add(
            "report",
            "/deliverables/coverage.xml",
            REPORT.as_bytes().to_vec(),
        );
        files.add(
            "src",
            "/deliverables/pkg/a.py",
            b"x = 1\ny = 2\nz = 3\n".to_vec(),
        );
        files.add("src", "/deliverables/pkg/__init__.py", b"".to_vec());
        files.add("src", "/deliverables/ns/b.py", ns.as_bytes().to_vec());
        files.add("src", "/deliverables/ns/data.json", b"{}".to_vec());
        let criterion = files.criterion("AC-1", params, &["report"]);
        files.run(|| Coverage::validate(criterion)).unwrap()
    }

    #[test]
    fn sources_no_report_names_count_as_uncovered() {
        let ns = "# helper\n\ndef f():\n    return 1\n";
        let before = run(r#"{"min": 90}"#, ns);
        assert_eq!(before.status, vcc_sdk::Status::Pass, "{}", before.summary);
        let after = run(r#"{"min": 90, "sources": ["src"]}"#, ns);
        assert_eq!(after.status, vcc_sdk::Status::Fail);
        assert!(after.summary.contains("(3/5)"), "{}", after.summary);
        assert!(after.summary.contains("1 source file(s) in no report"));
        let f = after
            .findings
            .iter()
            .find(|f| f.path.as_deref() == Some("ns/b.py"))
            .unwrap();
        assert!(f.message.contains("in no report"), "{}", f.message);
        // Nothing to count: a file of blank and comment lines only.
        let empty = run(r#"{"min": 90, "sources": ["src"]}"#, "# nothing\n");
        assert_eq!(empty.status, vcc_sdk::Status::Pass, "{}", empty.summary);
    }

    #[test]
    fn sources_the_report_never_names_are_said_with_what_it_names() {
        let mut files = vcc_sdk::native::Files::default();
        let other = REPORT.replace("pkg/a.py", "elsewhere/a.py");
        files.add("report", "/deliverables/coverage.xml", other.into_bytes());
        files.add("src", "/deliverables/pkg/a.py", b"x = 1\n".to_vec());
        let criterion = files.criterion("AC-1", r#"{"min": 0, "sources": ["src"]}"#, &["report"]);
        let out = files.run(|| Coverage::validate(criterion)).unwrap();
        assert_eq!(out.status, vcc_sdk::Status::Fail);
        let f = out
            .findings
            .iter()
            .find(|f| f.rule.as_deref() == Some("sources-unmatched"))
            .unwrap();
        assert!(f.message.contains("`elsewhere/a.py`"), "{}", f.message);
    }
}
