//! SARIF 2.1.0: one `run` per contract. Each criterion is a rule (its id
//! the `ruleId`, stable across runs; its severity gives the default level:
//! MUST `error`, SHOULD `warning`, MAY `note`). Rules have no `name`: a
//! criterion's id is already the word its author chose, and SARIF1001
//! asks that a `name` differ from the id (compared without case) or be
//! left out when both would be human-readable. Each finding of a
//! criterion that did not pass is a result with its location, relative to
//! the deliverable root (`uriBaseId: ROOT`, which `originalUriBaseIds`
//! names as the root's `file://` URI); a failing criterion without
//! findings is one result at the criterion's line in the contract.
//! `partialFingerprints` hash the contract, criterion, path, rule and
//! message — never the line or the run — so the same problem keeps its
//! fingerprint. Skipped SHOULD/MAY criteria are `kind: review` (level
//! `none`, as the specification requires of a result that is not a
//! `fail`), a skipped MUST a `fail` at `error`. Criteria that passed are
//! `kind: pass` results only when asked (`--sarif-passes`): code scanning
//! platforms may show every result as an alert. The invocation carries the
//! exit code. A criterion's judge calls are in its results' properties
//! (`vcc.judgeCalls`), the run's use of judges in the run's
//! (`vcc.judging`).
//!
//! A finding outside the deliverable root (a producer's log may name any
//! file) keeps its absolute `file://` URI and no `uriBaseId`: it is never
//! presented as a file of the root, and its message says where it is.

use serde_json::{Map, Value, json};
use vcc_contract::Severity;
use vcc_report::{CriterionReport, Finding, Report, Status};

use crate::{
    Options, contract_name, fingerprint, outside, reason_word, severity_word, status_word,
    under_root, verdict_word,
};

/// Where SARIF 2.1.0 documents point for their schema.
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The log of `reports` (finding paths made relative to the root first:
/// [`crate::rooted`]).
pub fn write_with(reports: &[Report], options: Options) -> String {
    let runs: Vec<Value> = reports.iter().map(|r| run(r, options)).collect();
    let doc = json!({ "version": "2.1.0", "$schema": SCHEMA, "runs": runs });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Must => "error",
        Severity::Should => "warning",
        Severity::May => "note",
    }
}

/// Where the contract is, as a SARIF artifact location: relative to the
/// root when it is inside it, else its absolute `file://` URI; `None`
/// when vcc does not know its absolute path.
fn contract_at(r: &Report, file: &str) -> Option<Value> {
    let absolute = if file.starts_with('/') {
        Some(file)
    } else if file == r.contract.path {
        r.contract.absolute_path.as_deref()
    } else {
        None
    }?;
    let root = r.deliverables.as_ref().map(|d| d.root_absolute.as_str());
    Some(match root.and_then(|root| under_root(absolute, root)) {
        Some(rel) => json!({ "uri": percent(&rel), "uriBaseId": "ROOT" }),
        None => json!({ "uri": uri(absolute) }),
    })
}

fn run(r: &Report, options: Options) -> Value {
    let name = contract_name(r);
    let rules: Vec<Value> = r.criteria.iter().map(rule).collect();
    let contract = contract_at(r, &r.contract.path);
    let mut results = Vec::new();
    for (i, c) in r.criteria.iter().enumerate() {
        if c.status == Status::Pass && !options.sarif_passes {
            continue;
        }
        results.extend(criterion_results(name, i, c, contract.as_ref()));
    }
    // A contract that could not be evaluated: its problems are the results.
    let mut problem_rules = Vec::new();
    if r.criteria.is_empty() {
        for p in r.problems.iter().filter(|p| p.is_error()) {
            let id = p.code.as_str();
            if !problem_rules.iter().any(|v: &Value| v["id"] == id) {
                problem_rules.push(json!({
                    "id": id,
                    "shortDescription": { "text": format!("vcc integrity problem {id}") },
                    "defaultConfiguration": { "level": "error" }
                }));
            }
            let mut region = Map::new();
            if let Some(l) = p.line {
                region.insert("startLine".into(), json!(l));
            }
            if let Some(c) = p.column {
                region.insert("startColumn".into(), json!(c));
            }
            let mut result = json!({
                "ruleId": id,
                "kind": "fail",
                "level": "error",
                "message": { "text": p.message },
                "partialFingerprints": { "vcc/v1": fingerprint(name, id, None) }
            });
            if let Some(artifact) = contract_at(r, &p.file) {
                let mut physical = json!({ "artifactLocation": artifact });
                if !region.is_empty() {
                    physical["region"] = Value::Object(region);
                }
                result["locations"] = json!([{ "physicalLocation": physical }]);
            }
            results.push(result);
        }
    }
    let mut all_rules = rules;
    all_rules.extend(problem_rules);
    let code = r.exit_code(false);
    let mut run = json!({
        "tool": { "driver": {
            "name": "vcc",
            "version": r.runtime.vcc_version,
            "semanticVersion": r.runtime.vcc_version,
            "informationUri": "https://github.com/vcc-project/vcc",
            "rules": all_rules
        } },
        "automationDetails": { "id": format!("vcc/{name}/{}", r.run.id) },
        "invocations": [{
            "executionSuccessful": code != vcc_report::law::exit::INVALID,
            "exitCode": code,
            "startTimeUtc": r.run.started_at,
        }],
        "results": results,
        "properties": {
            "vcc.verdict": verdict_word(r.verdict),
            "vcc.reason": r.reason,
            "vcc.contract": r.contract.path,
            "vcc.contractDigest": r.contract.digest,
            "vcc.rootDigest": r.deliverables.as_ref().map(|d| d.root_digest.clone()),
            "vcc.runId": r.run.id,
        }
    });
    if let Some(d) = &r.deliverables {
        let mut root = d.root_absolute.clone();
        if !root.ends_with('/') {
            root.push('/');
        }
        run["originalUriBaseIds"] =
            json!({ "ROOT": { "uri": format!("file://{}", percent(&root)) } });
    }
    // SARIF's versionControlProvenance needs a repository URI, which a
    // work tree does not always have: the commit is a property.
    if let Some(commit) = &r.run.commit {
        run["properties"]["vcc.commit"] = json!(commit);
    }
    if let Some(j) = &r.judging {
        run["properties"]["vcc.judging"] = json!(j);
    }
    run
}

fn rule(c: &CriterionReport) -> Value {
    let mut text = c
        .description
        .clone()
        .unwrap_or_else(|| format!("{} criterion {}", severity_word(c.severity), c.id));
    if text.is_empty() {
        text = c.id.clone();
    }
    let mut rule = json!({
        "id": c.id,
        "shortDescription": { "text": text },
        "defaultConfiguration": { "level": level(c.severity) },
        "properties": {
            "vcc.severity": severity_word(c.severity),
            "vcc.validator": c.validator.component,
        }
    });
    if let Some(e) = &c.produced_artifact {
        rule["properties"]["vcc.producedArtifact"] = json!(e);
    }
    rule
}

fn criterion_results(
    contract: &str,
    index: usize,
    c: &CriterionReport,
    file: Option<&Value>,
) -> Vec<Value> {
    let (kind, lvl) = match c.status {
        Status::Pass => ("pass", "none"),
        // SARIF 2.1.0 (3.27.10): a result whose kind is not `fail` has
        // level `none`. A skipped MUST withholds the verdict, so it is a
        // `fail` at `error` (a consumer gating on errors must not pass
        // it); a skipped SHOULD or MAY is a `review` at `none`.
        Status::Skip if c.severity == Severity::Must => ("fail", "error"),
        Status::Skip => ("review", "none"),
        Status::Fail | Status::Error => ("fail", level(c.severity)),
    };
    let head = format!(
        "{} {} ({}): {}",
        severity_word(c.severity),
        status_word(c.status),
        reason_word(c.reason),
        c.summary
    );
    let result = |message: String, f: Option<&Finding>| {
        let mut v = json!({
            "ruleId": c.id,
            "ruleIndex": index,
            "kind": kind,
            "level": lvl,
            "message": { "text": message },
            "partialFingerprints": { "vcc/v1": fingerprint(contract, &c.id, f) },
        });
        let location = match f {
            // A relative path that climbs out of the root has no URI to
            // give: the message names it.
            Some(f) => f
                .path
                .as_deref()
                .filter(|p| !outside(p) || p.starts_with('/'))
                .map(|p| {
                    // Inside the root: relative to ROOT. Outside (an
                    // absolute path no longer under the root after
                    // `rooted`): the absolute URI alone, never a base.
                    let artifact = if outside(p) {
                        json!({ "uri": uri(p) })
                    } else {
                        json!({ "uri": percent(p), "uriBaseId": "ROOT" })
                    };
                    location(artifact, f.line, f.column)
                }),
            None => file.map(|artifact| location(artifact.clone(), c.line, None)),
        };
        if let Some(loc) = location {
            v["locations"] = json!([loc]);
        }
        // Every judge call of the criterion, with its digests.
        if !c.judge_calls.is_empty() {
            v["properties"]["vcc.judgeCalls"] = json!(c.judge_calls);
        }
        if let Some(e) = &c.produced_artifact {
            v["properties"]["vcc.producedArtifact"] = json!(e);
        }
        v
    };
    if c.status == Status::Pass || c.findings.is_empty() {
        return vec![result(head, None)];
    }
    c.findings
        .iter()
        .map(|f| {
            let outside_note = match f.path.as_deref() {
                Some(p) if outside(p) => format!(" (at {p}, outside the deliverable root)"),
                _ => String::new(),
            };
            result(format!("{head} — {}{outside_note}", f.message), Some(f))
        })
        .collect()
}

fn location(artifact: Value, line: Option<u32>, column: Option<u32>) -> Value {
    let mut physical = json!({ "artifactLocation": artifact });
    if let Some(l) = line.filter(|l| *l > 0) {
        let mut region = json!({ "startLine": l });
        if let Some(c) = column.filter(|c| *c > 0) {
            region["startColumn"] = json!(c);
        }
        physical["region"] = region;
    }
    json!({ "physicalLocation": physical })
}

/// A path as a URI reference: absolute paths become `file://` URIs,
/// relative ones stay relative; unsafe characters are percent-encoded.
fn uri(path: &str) -> String {
    if path.starts_with('/') {
        format!("file://{}", percent(path))
    } else {
        percent(path)
    }
}

fn percent(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
