//! `vcc validator test [DIR|COMPONENT]`: run golden cases through the real
//! host sandbox.
//!
//! A case is a folder with `case.yaml` and `files/` (the deliverables):
//!
//! ```yaml
//! params: { word: TODO }            # the criterion's params (default {})
//! deliverables: { notes: notes.md } # id → file, folder or glob in files/ (default: files: "**")
//! expect:
//!   status: fail                    # pass | fail | skip | error | invalid
//!   reason: validator_error         # optional
//!   summary: "2 TODO(s)"            # optional; a substring
//!   finding_count: 2                # optional
//!   findings:                       # optional; each must match some finding
//!     - { message: TODO left in, path: notes.md, line: 3, rule: word }
//!   evidence:                       # optional; a name, or a name and digest
//!     - counts.json
//!     - { name: counts.json, digest: "blake3:…" }
//!   problem: INVALID_PARAMS         # with `invalid`: the integrity-pass code
//! judges:                           # optional: AI judges granted to the criterion
//!   grader: { provider: openai-compatible, model: m, params: { temperature: 0, seed: 7 } }
//! replay: session.json              # with judges: the recorded answers (in the case folder)
//! trust: trust.yaml                 # optional: the trust policy whose record signers
//!                                   # `signatures` checks against (in the case folder)
//! ```
//!
//! A case with judges is answered only from its replayed session, so it
//! runs offline and gives the same result every time; `--record-judges
//! CONFIG` asks the judges live instead and writes the session.
//!
//! Each case becomes a one-criterion contract (MUST, every deliverable a
//! target) checked exactly as `vcc check` would: integrity pass (params
//! against the validator's schema), snapshot, sandbox, report.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};
use vcc_report::{CriterionReport, Verdict};
use vcc_runtime::{CheckOptions, Runtime};

use crate::args::Format;
use crate::render::clean;
use crate::validator::author::Project;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    /// For readers of case.yaml; not used by the runner.
    #[serde(default)]
    #[allow(dead_code)]
    description: Option<String>,
    #[serde(default)]
    params: Option<Value>,
    #[serde(default)]
    deliverables: Option<BTreeMap<String, String>>,
    /// The contract's `judges:`, all granted to the criterion.
    #[serde(default)]
    judges: Option<BTreeMap<String, Value>>,
    /// The judge session, relative to the case folder.
    #[serde(default)]
    replay: Option<PathBuf>,
    /// The trust policy, relative to the case folder.
    #[serde(default)]
    trust: Option<PathBuf>,
    expect: Expect,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    status: String,
    reason: Option<String>,
    summary: Option<String>,
    finding_count: Option<usize>,
    #[serde(default)]
    findings: Vec<ExpectedFinding>,
    #[serde(default)]
    evidence: Vec<ExpectedEvidence>,
    problem: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectedFinding {
    message: Option<String>,
    path: Option<String>,
    line: Option<u32>,
    column: Option<u32>,
    rule: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ExpectedEvidence {
    Name(String),
    Spec {
        name: String,
        digest: Option<String>,
        media_type: Option<String>,
    },
}

/// One case's outcome.
struct Checked {
    name: String,
    expected: String,
    got: String,
    problems: Vec<String>,
}

pub fn test(
    runtime: &Runtime,
    target: &Path,
    cases: Option<&Path>,
    record_judges: Option<&Path>,
    format: Format,
) -> i32 {
    let record = match record_judges.map(vcc_judge::Config::read).transpose() {
        Ok(config) => config,
        Err(e) => {
            eprintln!("vcc validator test: {e}");
            return 2;
        }
    };
    let (component, default_cases) = match locate(target) {
        Ok(found) => found,
        Err(e) => {
            eprintln!("vcc validator test: {e}");
            return 2;
        }
    };
    let Some(cases_dir) = cases.map(Path::to_path_buf).or(default_cases) else {
        eprintln!(
            "vcc validator test: a built-in validator has no cases of its own: give them with `--cases DIR`"
        );
        return 2;
    };
    let mut dirs: Vec<PathBuf> = match std::fs::read_dir(&cases_dir) {
        Ok(entries) => entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join("case.yaml").is_file())
            .collect(),
        Err(e) => {
            eprintln!(
                "vcc validator test: cannot read the cases in {}: {e}",
                cases_dir.display()
            );
            return 2;
        }
    };
    dirs.sort();
    if dirs.is_empty() {
        eprintln!(
            "vcc validator test: no golden cases (folders with case.yaml) in {}",
            cases_dir.display()
        );
        return 2;
    }
    // A built-in is bound by name; a file by its full path.
    let component = if is_builtin(&component) {
        component
    } else {
        component.canonicalize().unwrap_or(component)
    };
    let mut results = Vec::new();
    for dir in &dirs {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        results.push(match run_case(runtime, &component, dir, record.as_ref()) {
            Ok(mut checked) => {
                checked.name = name;
                checked
            }
            Err(e) => Checked {
                name,
                expected: "?".into(),
                got: "-".into(),
                problems: vec![e],
            },
        });
    }
    let failed = results.iter().filter(|r| !r.problems.is_empty()).count();
    match format {
        Format::Json => {
            let doc = json!({
                "component": component.display().to_string(),
                "cases": results.iter().map(|r| json!({
                    "case": r.name, "expected": r.expected, "got": r.got,
                    "ok": r.problems.is_empty(), "problems": r.problems,
                })).collect::<Vec<_>>(),
                "passed": results.len() - failed,
                "failed": failed,
            });
            crate::output::print_stdout(&format!(
                "{}\n",
                serde_json::to_string_pretty(&doc).unwrap_or_default()
            ));
        }
        Format::Human => {
            let width = results
                .iter()
                .map(|r| r.name.len())
                .max()
                .unwrap_or(4)
                .max(4);
            let mut out = format!(
                "{:<width$}  {:<9} {:<9} RESULT\n",
                "CASE", "EXPECTED", "GOT"
            );
            for r in &results {
                let verdict = if r.problems.is_empty() {
                    "ok"
                } else {
                    "MISMATCH"
                };
                out.push_str(&format!(
                    "{:<width$}  {:<9} {:<9} {verdict}\n",
                    clean(&r.name),
                    r.expected,
                    r.got
                ));
            }
            for r in results.iter().filter(|r| !r.problems.is_empty()) {
                out.push_str(&format!("\n{}:\n", clean(&r.name)));
                for p in &r.problems {
                    out.push_str(&format!("  - {}\n", clean(p)));
                }
            }
            out.push_str(&format!(
                "\n{} of {} case(s) match ({})\n",
                results.len() - failed,
                results.len(),
                clean(&component.display().to_string())
            ));
            crate::output::print_stdout(&out);
        }
    }
    if failed == 0 { 0 } else { 1 }
}

fn is_builtin(target: &Path) -> bool {
    target
        .to_str()
        .is_some_and(|t| t.starts_with(vcc_contract::BUILTIN_PREFIX))
}

/// The component and its default cases folder, for a project, a `.wasm`
/// or a built-in (`std/NAME`, which has no cases folder of its own). A
/// project whose `build/` is older than its sources is built again first.
fn locate(target: &Path) -> Result<(PathBuf, Option<PathBuf>), String> {
    if is_builtin(target) {
        return Ok((target.to_path_buf(), None));
    }
    if target.is_dir() {
        let project = Project::load(target)?;
        let component = project.component(target);
        if !component.is_file() {
            return Err(format!(
                "{} does not exist: run `vcc validator build {}` first",
                component.display(),
                target.display()
            ));
        }
        if let Some(source) = newer_source(target, &component) {
            eprintln!(
                "vcc validator test: {} is older than {}: building it again",
                component.display(),
                source.display()
            );
            crate::validator::author::build_project(target)?;
        }
        return Ok((component, Some(target.join("cases"))));
    }
    if target.is_file() {
        let dir = target
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        return Ok((target.to_path_buf(), Some(dir.join("cases"))));
    }
    Err(format!(
        "{} is neither a validator project, a component nor std/NAME",
        target.display()
    ))
}

/// A source file of the project modified after `built` was, if any:
/// everything but what builds write (`build/`, `.vcc/`, `target/`,
/// `node_modules/`, the SDK files written next to a JavaScript validator)
/// and the golden cases, which are data, not code.
fn newer_source(project: &Path, built: &Path) -> Option<PathBuf> {
    const SKIP: [&str; 7] = [
        "build",
        ".vcc",
        "target",
        "node_modules",
        "cases",
        "vcc-sdk.js",
        "vcc-entry.js",
    ];
    let built_at = std::fs::metadata(built).and_then(|m| m.modified()).ok()?;
    let mut todo = vec![project.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).ok()?.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if (dir == project && SKIP.contains(&name.as_ref())) || name.starts_with('.') {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                todo.push(entry.path());
            } else if meta.modified().is_ok_and(|m| m > built_at) {
                return Some(entry.path());
            }
        }
    }
    None
}

fn run_case(
    runtime: &Runtime,
    component: &Path,
    dir: &Path,
    record: Option<&vcc_judge::Config>,
) -> Result<Checked, String> {
    let case_file = dir.join("case.yaml");
    let text =
        std::fs::read_to_string(&case_file).map_err(|e| format!("{}: {e}", case_file.display()))?;
    let case: Case =
        serde_yaml::from_str(&text).map_err(|e| format!("{}: {e}", case_file.display()))?;
    let deliverables = case
        .deliverables
        .clone()
        .unwrap_or_else(|| BTreeMap::from([("files".to_string(), "**".to_string())]));
    let mut contract = json!({
        "vcc": 1,
        "id": "golden-case",
        "deliverables": deliverables.iter().map(|(id, path)| json!({"id": id, "path": path, "required": false})).collect::<Vec<_>>(),
        "validators": { "subject": { "component": component.display().to_string() } },
        "criteria": [{
            "id": "CASE",
            "severity": "must",
            "validator": "subject",
            "targets": deliverables.keys().collect::<Vec<_>>(),
            "params": case.params.clone().unwrap_or_else(|| json!({})),
        }],
    });
    let mut options = CheckOptions::default();
    if let Some(judges) = &case.judges {
        contract["judges"] = json!(judges);
        contract["criteria"][0]["judges"] = json!(judges.keys().collect::<Vec<_>>());
        options.judging = Some(Arc::new(judging(dir, &case, record)?));
    }
    if let Some(trust) = &case.trust {
        let policy = vcc_trust::policy::Policy::read(&dir.join(trust))
            .map_err(|r| format!("case.yaml: trust: {}", r.message))?;
        options.record_signers = Some(vcc_runtime::signatures::RecordSigners::of_policy(&policy));
    }
    let doc = vcc_contract::parse(&dir.join("case.json"), contract.to_string().as_bytes())
        .map_err(|p| format!("case.yaml: {}", p.message))?;
    let files = dir.join("files");
    std::fs::create_dir_all(&files).map_err(|e| format!("{}: {e}", files.display()))?;
    let report = vcc_runtime::check(runtime.loader(), &doc, &files, &options);

    let expect = &case.expect;
    let mut problems = Vec::new();
    let (got, criterion) = if report.verdict == Verdict::Invalid && report.criteria.is_empty() {
        let codes: Vec<String> = report
            .problems
            .iter()
            .filter(|p| p.is_error())
            .map(|p| p.code.to_string())
            .collect();
        if let Some(code) = &expect.problem
            && !codes.contains(code)
        {
            problems.push(format!("expected problem {code}, got {}", codes.join(", ")));
        }
        if expect.status != "invalid" {
            let messages: Vec<&str> = report
                .problems
                .iter()
                .filter(|p| p.is_error())
                .map(|p| p.message.as_str())
                .collect();
            problems.push(format!("the case could not run: {}", messages.join("; ")));
        }
        ("invalid".to_string(), None)
    } else {
        let c = report
            .criteria
            .first()
            .ok_or("the report has no criterion")?;
        (
            serde_json::to_value(c.status)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            Some(c),
        )
    };
    if got != expect.status {
        let why = criterion
            .map(|c| format!(": {}", c.summary))
            .unwrap_or_default();
        problems.push(format!("status is {got}, expected {}{why}", expect.status));
    }
    if let Some(c) = criterion {
        compare(c, expect, &mut problems);
    }
    Ok(Checked {
        name: String::new(),
        expected: expect.status.clone(),
        got,
        problems,
    })
}

/// Where a case's judges are answered from: its session, or (recording)
/// the live endpoints of `record`, writing the session.
fn judging(
    dir: &Path,
    case: &Case,
    record: Option<&vcc_judge::Config>,
) -> Result<vcc_judge::Setup, String> {
    let Some(session) = case.replay.as_ref().map(|r| dir.join(r)) else {
        return Err(
            "case.yaml: a case with `judges:` needs `replay: SESSION` (its recorded answers; write it with --record-judges CONFIG)".into(),
        );
    };
    Ok(match record {
        Some(config) => vcc_judge::Setup {
            config: Some(config.clone()),
            record: Some(session),
            ..Default::default()
        },
        None => vcc_judge::Setup {
            replay: Some(vcc_judge::Session::read(&session)?),
            ..Default::default()
        },
    })
}

/// A string as it would be written in expect.yaml (JSON quoting is valid
/// YAML), never Rust's debug text.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| text.to_string())
}

/// An expected finding as the case wrote it: only the fields it gave.
fn as_written(want: &ExpectedFinding) -> String {
    let mut fields = Vec::new();
    if let Some(m) = &want.message {
        fields.push(format!("message: {}", quoted(m)));
    }
    if let Some(p) = &want.path {
        fields.push(format!("path: {}", quoted(p)));
    }
    if let Some(l) = want.line {
        fields.push(format!("line: {l}"));
    }
    if let Some(c) = want.column {
        fields.push(format!("column: {c}"));
    }
    if let Some(r) = &want.rule {
        fields.push(format!("rule: {}", quoted(r)));
    }
    format!("{{ {} }}", fields.join(", "))
}

/// A reported finding with every field it has, as a case would write it.
fn as_reported(f: &vcc_report::Finding) -> String {
    as_written(&ExpectedFinding {
        message: Some(f.message.clone()),
        path: f.path.clone(),
        line: f.line,
        column: f.column,
        rule: f.rule.clone(),
    })
}

/// The fields of `want` that `f` does not match: `line 3 (expected 4)`.
fn differences(want: &ExpectedFinding, f: &vcc_report::Finding) -> Vec<String> {
    let shown = |v: Option<String>| v.unwrap_or_else(|| "none".into());
    let mut out = Vec::new();
    if let Some(m) = &want.message
        && !f.message.contains(m.as_str())
    {
        out.push(format!(
            "message {} (expected one containing {})",
            quoted(&f.message),
            quoted(m)
        ));
    }
    if let Some(p) = &want.path
        && f.path.as_ref() != Some(p)
    {
        out.push(format!(
            "path {} (expected {})",
            shown(f.path.as_deref().map(quoted)),
            quoted(p)
        ));
    }
    if let Some(l) = want.line
        && f.line != Some(l)
    {
        out.push(format!(
            "line {} (expected {l})",
            shown(f.line.map(|v| v.to_string()))
        ));
    }
    if let Some(col) = want.column
        && f.column != Some(col)
    {
        out.push(format!(
            "column {} (expected {col})",
            shown(f.column.map(|v| v.to_string()))
        ));
    }
    if let Some(r) = &want.rule
        && f.rule.as_ref() != Some(r)
    {
        out.push(format!(
            "rule {} (expected {})",
            shown(f.rule.as_deref().map(quoted)),
            quoted(r)
        ));
    }
    out
}

fn compare(c: &CriterionReport, expect: &Expect, problems: &mut Vec<String>) {
    if let Some(reason) = &expect.reason {
        let got = serde_json::to_value(c.reason)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        if &got != reason {
            problems.push(format!("reason is {got}, expected {reason}"));
        }
    }
    if let Some(s) = &expect.summary
        && !c.summary.contains(s.as_str())
    {
        problems.push(format!(
            "summary {} does not contain {}",
            quoted(&c.summary),
            quoted(s)
        ));
    }
    if let Some(n) = expect.finding_count
        && c.findings.len() != n
    {
        problems.push(format!("{} finding(s), expected {n}", c.findings.len()));
    }
    for want in &expect.findings {
        let found = c.findings.iter().any(|f| differences(want, f).is_empty());
        if !found {
            // The finding closest to what the case wrote, and each field
            // where it differs: a wrong column is named, not left to guess.
            let nearest = c
                .findings
                .iter()
                .map(|f| (differences(want, f), f))
                .min_by_key(|(d, _)| d.len());
            let listed: Vec<String> = c.findings.iter().map(as_reported).collect();
            let nearest = nearest.map_or(String::new(), |(d, f)| {
                format!(
                    "; the nearest, {}, differs in {}",
                    as_reported(f),
                    d.join(", ")
                )
            });
            problems.push(format!(
                "no finding matches {}{nearest}; findings: [{}]",
                as_written(want),
                listed.join("; ")
            ));
        }
    }
    for want in &expect.evidence {
        let (name, digest, media) = match want {
            ExpectedEvidence::Name(n) => (n, None, None),
            ExpectedEvidence::Spec {
                name,
                digest,
                media_type,
            } => (name, digest.as_ref(), media_type.as_ref()),
        };
        match c.evidence.iter().find(|e| &e.name == name) {
            None => problems.push(format!("no evidence named {name}")),
            Some(e) => {
                if let Some(d) = digest
                    && &e.digest != d
                {
                    problems.push(format!("evidence {name} is {}, expected {d}", e.digest));
                }
                if let Some(m) = media
                    && &e.media_type != m
                {
                    problems.push(format!("evidence {name} is {}, expected {m}", e.media_type));
                }
            }
        }
    }
}
