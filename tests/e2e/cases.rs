//! The standard validators, case by case through the real CLI.
//!
//! Each folder `tests/cases/<validator>/<case>/` holds a `contract.yaml`,
//! its deliverables, and an `expect.yaml`:
//!
//! ```yaml
//! exit: 1
//! verdict: rejected
//! criteria:
//!   AC-1:
//!     status: fail
//!     reason: validator          # optional
//!     summary: "substring"       # optional
//!     finding_count: 2           # optional
//!     findings:                  # optional; each must match some finding
//!       - { message: "substring", path: "x.md", line: 3, rule: "missing-section" }
//!     evidence: [outline.json]   # optional; names that must be present
//! problem: INVALID_PARAMS        # optional: an integrity-pass problem code
//! ```
//!
//! Every std validator must have at least one passing and one failing case.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::{check_json, repo, vcc};

#[test]
fn every_case_of_every_std_validator() {
    let root = repo().join("tests/cases");
    let mut failures = Vec::new();
    // validator → statuses its cases produced
    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut count = 0;
    for validator in sorted_dirs(&root) {
        let name = validator.file_name().unwrap().to_string_lossy().to_string();
        for case in sorted_dirs(&validator) {
            count += 1;
            let label = format!("{name}/{}", case.file_name().unwrap().to_string_lossy());
            match run_case(&case) {
                Ok(statuses) => seen.entry(name.clone()).or_default().extend(statuses),
                Err(why) => failures.push(format!("{label}: {why}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );

    let listed = vcc(&["validator", "list", "--format", "json"]).json();
    for v in listed.as_array().unwrap() {
        let name = v["name"].as_str().unwrap().trim_start_matches("std/");
        let statuses = seen.get(name).cloned().unwrap_or_default();
        assert!(
            statuses.contains("pass") && statuses.contains("fail"),
            "std/{name} needs a passing and a failing case in tests/cases/{name}/ (has: {statuses:?})"
        );
    }
}

pub fn sorted_dirs(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut dirs: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// Run one case; the statuses of its criteria, or what did not match.
/// `problem: CODE` in expect.yaml asks for an integrity-pass problem.
pub fn run_case(case: &Path) -> Result<Vec<String>, String> {
    let expect: Value = serde_yaml::from_str(
        &fs::read_to_string(case.join("expect.yaml")).map_err(|e| format!("expect.yaml: {e}"))?,
    )
    .map_err(|e| format!("expect.yaml: {e}"))?;
    // `args:` in expect.yaml: more flags for `vcc check`; one that names a
    // file of the case folder (a judge session to replay) is that file.
    let args: Vec<String> = expect
        .get("args")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|a| {
            let file = case.join(a);
            if file.is_file() {
                file.display().to_string()
            } else {
                a.to_string()
            }
        })
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = check_json(&case.join("contract.yaml"), &args);
    let report: Value = serde_json::from_str(&run.stdout)
        .map_err(|e| format!("no JSON report ({e}): {}", run.stderr))?;
    let mut problems = Vec::new();
    if let Some(exit) = expect.get("exit").and_then(Value::as_i64)
        && i64::from(run.code) != exit
    {
        problems.push(format!("exit {} (expected {exit})", run.code));
    }
    if let Some(verdict) = expect.get("verdict")
        && &report["verdict"] != verdict
    {
        problems.push(format!(
            "verdict {} (expected {verdict}); reason: {}",
            report["verdict"], report["reason"]
        ));
    }
    if let Some(code) = expect.get("problem").and_then(Value::as_str) {
        let found = report["problems"]
            .as_array()
            .is_some_and(|p| p.iter().any(|p| p["code"] == code));
        if !found {
            problems.push(format!(
                "no problem {code} in the report: {}",
                report["problems"]
            ));
        }
    }
    let mut statuses = Vec::new();
    for (id, want) in expect
        .get("criteria")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let Some(got) = report["criteria"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["id"] == id.as_str()))
        else {
            problems.push(format!(
                "criterion {id} is not in the report: {}",
                report["problems"]
            ));
            continue;
        };
        statuses.push(got["status"].as_str().unwrap_or("").to_string());
        for key in ["status", "reason"] {
            if let Some(w) = want.get(key)
                && &got[key] != w
            {
                problems.push(format!(
                    "{id}.{key} is {} (expected {w}); summary: {}",
                    got[key], got["summary"]
                ));
            }
        }
        if let Some(s) = want.get("summary").and_then(Value::as_str)
            && !got["summary"].as_str().unwrap_or("").contains(s)
        {
            problems.push(format!(
                "{id}.summary {} does not contain {s:?}",
                got["summary"]
            ));
        }
        let findings = got["findings"].as_array().cloned().unwrap_or_default();
        if let Some(n) = want.get("finding_count").and_then(Value::as_u64)
            && findings.len() as u64 != n
        {
            problems.push(format!(
                "{id} has {} finding(s) (expected {n}): {findings:#?}",
                findings.len()
            ));
        }
        for w in want
            .get("findings")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !findings.iter().any(|f| finding_matches(f, w)) {
                problems.push(format!(
                    "{id}: no finding matches {w}; findings: {findings:#?}"
                ));
            }
        }
        for name in want
            .get("evidence")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let has = got["evidence"]
                .as_array()
                .is_some_and(|e| e.iter().any(|e| &e["name"] == name));
            if !has {
                problems.push(format!("{id}: no evidence named {name}"));
            }
        }
    }
    if problems.is_empty() {
        Ok(statuses)
    } else {
        Err(problems.join("\n  "))
    }
}

fn finding_matches(found: &Value, wanted: &Value) -> bool {
    wanted
        .as_object()
        .into_iter()
        .flatten()
        .all(|(key, w)| match key.as_str() {
            "message" => found["message"]
                .as_str()
                .is_some_and(|m| m.contains(w.as_str().unwrap_or("\u{0}"))),
            _ => &found[key] == w,
        })
}
