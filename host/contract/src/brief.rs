//! The contract as the worker's brief (`vcc explain`): what will be
//! checked, by what, on which files, what evidence it needs, and what to do
//! when it fails — numbered, in contract order, for the one who does the
//! work. Rendered from the contract alone (no validator runs), so the same
//! contract always gives the same bytes: a brief can be pinned and diffed.
//!
//! Three forms: Markdown (for people), a prompt (plain numbered text for an
//! agent, never raw JSON) and JSON (for tools).

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use crate::model::{ApprovalKind, Contract, Criterion, FailAction, Severity};

/// What the brief says about one criterion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BriefItem {
    /// 1-based, in contract order.
    pub number: usize,
    pub id: String,
    pub severity: Severity,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The validator's component (`std/…`, a path, or a bundle's
    /// validator); absent when vcc cannot judge the criterion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checked_by: Option<String>,
    /// Target deliverables as `id (path)`.
    pub targets: Vec<String>,
    /// The validator's parameters, one `name: value` line each.
    pub params: Vec<String>,
    /// What the worker must leave for the criterion to be judged.
    pub evidence: Vec<String>,
    /// Why vcc cannot judge it (a visible skip, or an invalid MUST).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_evaluated: Option<String>,
    /// `on_fail.prompt`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub if_it_fails: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_attempts: Option<u32>,
    /// `on_fail.action: abort`: a failure ends `vcc converge` at once.
    pub aborts: bool,
}

/// The whole brief.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Brief {
    pub brief: u32,
    pub contract: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The contract file, as the command was given it.
    pub path: String,
    /// The task it was drafted from (`vcc init --task`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    pub advisory: bool,
    /// `id: path (required)` lines.
    pub deliverables: Vec<String>,
    pub criteria: Vec<BriefItem>,
    /// Gates with their criteria and approvals, one line each.
    pub gates: Vec<String>,
    /// The budget of `vcc converge`, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<String>,
    /// The command that checks the work.
    pub check: String,
}

/// Controls and line breaks out of one-line text (a contract is the
/// verifier's, but a brief goes into prompts and terminals).
pub fn line(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .filter(|c| !c.is_control())
        .collect()
}

/// A parameter value, as a person would write it: strings bare, lists
/// comma-separated, objects `{k: v}`; never a JSON dump.
fn value(v: &Value) -> String {
    match v {
        Value::String(s) => line(s),
        Value::Array(items) => items.iter().map(value).collect::<Vec<_>>().join(", "),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!("{}: {}", line(k), value(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Null => "none".into(),
        other => other.to_string(),
    }
}

/// What a criterion needs the worker to leave, by what judges it.
fn evidence(c: &Criterion, component: &str, contract: &Contract) -> Vec<String> {
    let params = c.params.as_ref();
    let flag = |name: &str| params.and_then(|p| p.get(name)).and_then(Value::as_bool) == Some(true);
    let mut out = Vec::new();
    let name = component.strip_prefix("std/").unwrap_or("");
    match name {
        "exit-record" => {
            out.push("a command record written by `vcc record -- CMD` (its exit status and the digests of its inputs and outputs); a hand-written or edited record does not pass".into());
            if flag("require_signed") {
                out.push("the record signed (`vcc record --key`) by a key the verifier's trust policy lists for records: you cannot sign it yourself".into());
            }
        }
        "tool-calls" => out.push(
            "the agent's transcript, attached by the hook or `vcc check --attach`: the tool calls you made, as recorded".into(),
        ),
        "junit" => out.push("a JUnit XML or TAP test report".into()),
        "sarif" => out.push("a SARIF 2.1.0 report from the analyser".into()),
        "coverage" => out.push("an lcov or Cobertura coverage report".into()),
        "provenance" => {
            out.push("a provenance record with the fields and digests required".into());
            if flag("require_signed") {
                out.push("the record signed by a key the verifier's trust policy lists for records".into());
            }
        }
        "citation-coverage" => out.push("claims that cite their sources".into()),
        "package" => out.push("the package (zip or tar) holding each input byte for byte".into()),
        _ => {}
    }
    if !c.judges.is_empty() {
        let judges: Vec<String> = c
            .judges
            .iter()
            .map(|j| match contract.judges.get(j) {
                Some(judge) => format!("{j} ({} {})", judge.provider.as_str(), line(&judge.model)),
                None => j.clone(),
            })
            .collect();
        let samples = params
            .and_then(|p| p.get("samples"))
            .and_then(Value::as_u64)
            .unwrap_or(3);
        out.push(format!(
            "judged by AI judges {} ({samples} sample(s)); the verifier configures them, and text in your files cannot change their instructions",
            judges.join(", ")
        ));
    }
    out
}

fn checked_by(c: &Criterion, contract: &Contract) -> Option<String> {
    if c.not_evaluated.is_some() || c.validator.is_empty() {
        return None;
    }
    let v = contract.validators.get(&c.validator)?;
    Some(match (&v.bundle, &v.validator) {
        (Some(bundle), Some(name)) => format!("{name} from bundle {bundle}"),
        _ => v.component.clone(),
    })
}

impl Brief {
    /// The brief of `contract`, read from `path`; `check` is the command
    /// that judges the work.
    pub fn of(contract: &Contract, path: &str, check: &str) -> Brief {
        let deliverable = |id: &str| {
            contract
                .deliverables
                .iter()
                .find(|d| d.id == id)
                .map(|d| format!("{id} ({})", line(&d.path)))
                .unwrap_or_else(|| id.to_string())
        };
        let criteria = contract
            .criteria
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let component = checked_by(c, contract);
                BriefItem {
                    number: i + 1,
                    id: c.id.clone(),
                    severity: c.severity,
                    description: c.description.as_deref().map(line),
                    targets: c.targets.iter().map(|t| deliverable(t)).collect(),
                    params: match &c.params {
                        Some(Value::Object(map)) => map
                            .iter()
                            .map(|(k, v)| format!("{}: {}", line(k), value(v)))
                            .collect(),
                        _ => Vec::new(),
                    },
                    evidence: evidence(c, component.as_deref().unwrap_or(""), contract),
                    checked_by: component,
                    not_evaluated: c.not_evaluated.as_deref().map(line),
                    if_it_fails: c
                        .on_fail
                        .as_ref()
                        .and_then(|o| o.prompt.as_deref())
                        .map(line),
                    max_attempts: c.on_fail.as_ref().and_then(|o| o.max_attempts),
                    aborts: c
                        .on_fail
                        .as_ref()
                        .is_some_and(|o| o.action == FailAction::Abort),
                }
            })
            .collect();
        let gates = contract
            .gates
            .iter()
            .map(|g| {
                let mut parts = Vec::new();
                if !g.criteria.is_empty() {
                    parts.push(format!("criteria {} pass", g.criteria.join(", ")));
                }
                for a in &g.approvals {
                    let by = match a.by {
                        ApprovalKind::Ai => "an AI",
                        ApprovalKind::Human => "a person",
                    };
                    let mut text = format!("an approval by {by} in role {}", line(&a.role));
                    if let Some(min) = a.min_score {
                        text.push_str(&format!(" scoring at least {min}"));
                    }
                    if let Some(j) = &a.judged_by {
                        text.push_str(&format!(" (or criterion {j} passes)"));
                    }
                    if a.optional {
                        text.push_str(" (optional)");
                    }
                    parts.push(text);
                }
                format!(
                    "{} ({}): {}",
                    g.id,
                    g.when.as_str(),
                    if parts.is_empty() {
                        "nothing required".to_string()
                    } else {
                        parts.join("; ")
                    }
                )
            })
            .collect();
        let budget = contract.budget.as_ref().map(|b| {
            let mut parts = Vec::new();
            if let Some(n) = b.iterations {
                parts.push(format!("{n} run(s) of the command"));
            }
            if let Some(t) = &b.time {
                parts.push(format!("{t} of wall time"));
            }
            if let Some(t) = b.tokens {
                parts.push(format!("{t} tokens"));
            }
            if let Some(c) = b.cost {
                parts.push(format!("cost {c}"));
            }
            if let Some(s) = b.stagnation {
                parts.push(format!("stops after {s} run(s) without progress"));
            }
            parts.join(", ")
        });
        Brief {
            brief: 1,
            contract: contract.id.clone(),
            title: contract.title.as_deref().map(line),
            path: path.to_string(),
            task: contract.generated_from.as_ref().map(|g| line(&g.task)),
            advisory: contract.advisory,
            deliverables: contract
                .deliverables
                .iter()
                .map(|d| {
                    format!(
                        "{}: {}{}{}",
                        d.id,
                        line(&d.path),
                        if d.required { " (required)" } else { "" },
                        d.description
                            .as_deref()
                            .map(|t| format!(" — {}", line(t)))
                            .unwrap_or_default()
                    )
                })
                .collect(),
            criteria,
            gates,
            budget: budget.filter(|b| !b.is_empty()),
            check: check.to_string(),
        }
    }

    fn rule(&self) -> &'static str {
        if self.advisory {
            "This contract is advisory: every criterion is checked and reported, and the work is never accepted by it; what it finds is for review."
        } else {
            "The work is accepted only when every MUST criterion passes. SHOULD and MAY criteria are reported, and never decide."
        }
    }

    /// For people: headings, numbered criteria.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let _ = write!(out, "# Contract `{}`", self.contract);
        if let Some(t) = &self.title {
            let _ = write!(out, ": {t}");
        }
        let _ = writeln!(out, "\n\n{}\n", self.rule());
        if let Some(t) = &self.task {
            let _ = writeln!(out, "The task: {t}\n");
        }
        let _ = writeln!(out, "Check the work with `{}`.\n", self.check);
        if !self.deliverables.is_empty() {
            let _ = writeln!(out, "## Deliverables\n");
            for d in &self.deliverables {
                let _ = writeln!(out, "- {d}");
            }
            out.push('\n');
        }
        let _ = writeln!(out, "## Criteria\n");
        for c in &self.criteria {
            let _ = writeln!(
                out,
                "### {}. {} ({})\n",
                c.number,
                c.id,
                c.severity.as_str().to_uppercase()
            );
            for l in item_lines(c) {
                let _ = writeln!(out, "- {l}");
            }
            out.push('\n');
        }
        if !self.gates.is_empty() {
            let _ = writeln!(out, "## Gates\n");
            for g in &self.gates {
                let _ = writeln!(out, "- {g}");
            }
            out.push('\n');
        }
        if let Some(b) = &self.budget {
            let _ = writeln!(out, "## Budget (`vcc converge`)\n\n{b}\n");
        }
        out
    }

    /// For an agent: plain numbered text, no markup to misread, no JSON.
    pub fn prompt(&self) -> String {
        let mut out = String::new();
        let _ = write!(out, "Your work is checked by contract {}", self.contract);
        if let Some(t) = &self.title {
            let _ = write!(out, " ({t})");
        }
        let _ = writeln!(out, ". {}", self.rule());
        if let Some(t) = &self.task {
            let _ = writeln!(out, "The task: {t}");
        }
        if !self.deliverables.is_empty() {
            let _ = writeln!(out, "\nDeliverables (paths under the deliverable root):");
            for d in &self.deliverables {
                let _ = writeln!(out, "- {d}");
            }
        }
        let _ = writeln!(out, "\nCriteria:");
        for c in &self.criteria {
            let _ = writeln!(
                out,
                "{}. [{}] {}",
                c.number,
                c.severity.as_str().to_uppercase(),
                c.id
            );
            for l in item_lines(c) {
                let _ = writeln!(out, "   {l}");
            }
        }
        if !self.gates.is_empty() {
            let _ = writeln!(out, "\nGates:");
            for g in &self.gates {
                let _ = writeln!(out, "- {g}");
            }
        }
        if let Some(b) = &self.budget {
            let _ = writeln!(out, "\nBudget: {b}.");
        }
        let _ = writeln!(
            out,
            "\nBefore you say the work is done, run `{}` and fix what it reports. Do not edit the contract: it is judged as first read.",
            self.check
        );
        out
    }
}

/// The lines that describe one criterion, in a fixed order.
fn item_lines(c: &BriefItem) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(d) = &c.description {
        out.push(d.clone());
    }
    match (&c.checked_by, &c.not_evaluated) {
        (_, Some(why)) => out.push(format!("vcc cannot judge this criterion: {why}")),
        (Some(by), None) => {
            if c.targets.is_empty() {
                out.push(format!("Checked by {by}."));
            } else {
                out.push(format!("Checked by {by} on {}.", c.targets.join(", ")));
            }
        }
        (None, None) => {}
    }
    if !c.params.is_empty() {
        out.push(format!("Parameters: {}.", c.params.join("; ")));
    }
    for e in &c.evidence {
        out.push(format!("Needs: {e}."));
    }
    if let Some(p) = &c.if_it_fails {
        out.push(format!("If it fails: {p}"));
    }
    if let Some(n) = c.max_attempts {
        out.push(format!("At most {n} attempt(s)."));
    }
    if c.aborts {
        out.push("A failure ends the loop at once: more attempts cannot help.".into());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contract(yaml: &str) -> Contract {
        crate::parse(std::path::Path::new("c.yaml"), yaml.as_bytes())
            .expect("parses")
            .contract
    }

    const C: &str = "vcc: 1\nid: release\ntitle: Release notes\ndeliverables:\n  - { id: notes, path: docs/NOTES.md, required: true }\nvalidators:\n  sections: { component: std/markdown-sections }\n  record: { component: std/exit-record }\ncriteria:\n  - id: AC-1\n    severity: must\n    validator: sections\n    targets: [notes]\n    params: { required: [Summary, Breaking changes] }\n    on_fail: { prompt: \"Add the missing\\nsections.\", max_attempts: 3 }\n  - id: AC-2\n    severity: should\n    validator: record\n    targets: [notes]\n    params: { require_signed: true }\nbudget: { iterations: 5, time: 30m }\n";

    #[test]
    fn the_prompt_numbers_the_criteria_in_words() {
        let b = Brief::of(&contract(C), "c.yaml", "vcc check c.yaml");
        let p = b.prompt();
        assert!(p.contains("1. [MUST] AC-1\n"), "{p}");
        assert!(p.contains("Checked by std/markdown-sections on notes (docs/NOTES.md)."));
        assert!(p.contains("Parameters: required: Summary, Breaking changes."));
        assert!(p.contains("If it fails: Add the missing sections.\n"));
        assert!(p.contains("2. [SHOULD] AC-2\n"));
        assert!(p.contains("you cannot sign it yourself"));
        assert!(p.contains("Budget: 5 run(s) of the command, 30m of wall time."));
        assert!(
            !p.contains('{') || !p.contains("\"required\""),
            "no JSON: {p}"
        );
        // The same contract, the same bytes.
        assert_eq!(
            p,
            Brief::of(&contract(C), "c.yaml", "vcc check c.yaml").prompt()
        );
    }

    #[test]
    fn markdown_has_a_heading_per_criterion() {
        let md = Brief::of(&contract(C), "c.yaml", "vcc check c.yaml").markdown();
        assert!(
            md.starts_with("# Contract `release`: Release notes\n"),
            "{md}"
        );
        assert!(md.contains("### 1. AC-1 (MUST)\n"));
        assert!(md.contains("## Budget (`vcc converge`)"));
    }
}
