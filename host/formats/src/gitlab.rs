//! GitLab Code Quality (a JSON array of issues): one issue per finding of
//! a criterion that did not pass, or one per such criterion without
//! findings, with `description`, `check_name` (the criterion), a unique
//! `fingerprint`, `severity` (MUST `critical`, SHOULD `major`, MAY
//! `minor`; a criterion vcc could not judge is one step up, `blocker` for
//! a MUST), `location.path` and `location.lines.begin`. A contract that
//! could not be evaluated gives one `blocker` per problem, at the contract.
//! The description of a criterion that asked AI judges names its calls.

use std::collections::HashMap;

use serde_json::{Value, json};
use vcc_contract::Severity;
use vcc_report::{Report, Status};

use crate::{
    at, contract_name, contract_place, fingerprint, outside, reason_word, severity_word,
    status_word,
};

pub fn write(reports: &[Report]) -> String {
    let mut issues = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    // A fingerprint must be unique: the same problem twice gets a counter.
    let mut unique = |base: String| {
        let n = seen.entry(base.clone()).or_insert(0);
        *n += 1;
        if *n == 1 { base } else { format!("{base}-{n}") }
    };
    for r in reports {
        let name = contract_name(r);
        let contract = contract_place(r);
        for c in r.criteria.iter().filter(|c| c.status != Status::Pass) {
            let severity = match (c.severity, c.status) {
                (Severity::Must, Status::Error | Status::Skip) => "blocker",
                (Severity::Must, _) => "critical",
                (Severity::Should, Status::Error | Status::Skip) => "critical",
                (Severity::Should, _) => "major",
                (Severity::May, Status::Error | Status::Skip) => "major",
                (Severity::May, _) => "minor",
            };
            let evidence = c
                .produced_artifact
                .as_deref()
                .map(|e| format!(" (evidence {e})"))
                .unwrap_or_default();
            let mut head = format!(
                "{}{evidence} {} {} ({}): {}",
                c.id,
                severity_word(c.severity),
                status_word(c.status),
                reason_word(c.reason),
                c.summary
            );
            // The judge calls behind the outcome, by id (the JSON report
            // has each one whole).
            if !c.judge_calls.is_empty() {
                let ids: Vec<&str> = c.judge_calls.iter().map(|j| j.id.as_str()).collect();
                head.push_str(&format!(
                    " [{}: {}]",
                    vcc_report::judge::calls_line(&c.judge_calls),
                    ids.join(", ")
                ));
            }
            let mut add = |description: String, path: &str, line: u32, fp: String| {
                issues.push(json!({
                    "description": description,
                    "check_name": format!("vcc/{name}/{}", c.id),
                    "fingerprint": unique(fp),
                    "severity": severity,
                    "location": { "path": path, "lines": { "begin": line.max(1) } },
                }));
            };
            if c.findings.is_empty() {
                add(
                    head.clone(),
                    &contract,
                    c.line.unwrap_or(1),
                    fingerprint(name, &c.id, None),
                );
            }
            for f in &c.findings {
                // GitLab shows `location.path` as a file of the
                // repository: a finding outside the deliverable root is
                // placed at the contract, and its message says where it is.
                match f.path.as_deref() {
                    Some(p) if outside(p) => add(
                        format!(
                            "{head} — {} (at {}, outside the deliverable root)",
                            f.message,
                            at(f).unwrap_or_default()
                        ),
                        &contract,
                        1,
                        fingerprint(name, &c.id, Some(f)),
                    ),
                    path => add(
                        format!("{head} — {}", f.message),
                        path.unwrap_or(&contract),
                        f.line.unwrap_or(1),
                        fingerprint(name, &c.id, Some(f)),
                    ),
                }
            }
        }
        if r.criteria.is_empty() {
            for p in r.problems.iter().filter(|p| p.is_error()) {
                issues.push(json!({
                    "description": format!("{}: {}", p.code.as_str(), p.message),
                    "check_name": format!("vcc/{name}/{}", p.code.as_str()),
                    "fingerprint": unique(fingerprint(name, p.code.as_str(), None)),
                    "severity": "blocker",
                    "location": { "path": if p.file == r.contract.path { &contract } else { &p.file }, "lines": { "begin": p.line.unwrap_or(1) } },
                }));
            }
        }
    }
    serde_json::to_string_pretty(&Value::Array(issues)).unwrap_or_default() + "\n"
}
