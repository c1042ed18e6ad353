//! vcc's reports in the formats other tools read: JUnit XML for test
//! dashboards, SARIF 2.1.0 for code scanning, GitLab Code Quality, Markdown
//! for people and job summaries, GitHub workflow commands, and one
//! self-contained HTML page.
//!
//! Every writer takes the reports of one run (several contracts give
//! several reports) and shows **every criterion**: a criterion vcc could
//! not judge is a visible `error` or `skip` in every format, and a
//! contract that could not be evaluated shows its problems. Nothing here
//! decides anything: the verdicts are the reports'.

use vcc_contract::Severity;
use vcc_report::{CriterionReport, Finding, Report, Status, Verdict};

pub mod attest;
pub mod github;
pub mod gitlab;
pub mod html;
pub mod junit;
pub mod markdown;
pub mod sarif;

/// The formats `vcc check --format` and `--report-FORMAT` write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Junit,
    Sarif,
    Markdown,
    Gitlab,
    Html,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Junit => "junit",
            Format::Sarif => "sarif",
            Format::Markdown => "markdown",
            Format::Gitlab => "gitlab",
            Format::Html => "html",
        }
    }
}

/// The reports of one run in `format`.
pub fn render(format: Format, reports: &[Report]) -> String {
    match format {
        Format::Json => {
            let text = if let [one] = reports {
                serde_json::to_string_pretty(one)
            } else {
                serde_json::to_string_pretty(reports)
            };
            text.map_or_else(|e| format!("{{\"error\": \"{e}\"}}\n"), |s| s + "\n")
        }
        Format::Junit => junit::write(reports),
        Format::Sarif => sarif::write(reports),
        Format::Markdown => markdown::write(reports),
        Format::Gitlab => gitlab::write(reports),
        Format::Html => html::write(reports, None),
    }
}

/// What a report is about, for titles: its contract id, else its path.
pub fn contract_name(r: &Report) -> &str {
    r.contract.id.as_deref().unwrap_or(&r.contract.path)
}

pub fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::Accepted => "ACCEPTED",
        Verdict::Rejected => "REJECTED",
        Verdict::Withheld => "WITHHELD",
        Verdict::Invalid => "INVALID",
        Verdict::Advisory => "ADVISORY",
    }
}

pub fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Must => "MUST",
        Severity::Should => "SHOULD",
        Severity::May => "MAY",
    }
}

pub fn status_word(s: Status) -> &'static str {
    match s {
        Status::Pass => "pass",
        Status::Fail => "fail",
        Status::Skip => "skip",
        Status::Error => "error",
    }
}

/// A reason's stable name (`missing_deliverable`).
pub fn reason_word(r: vcc_report::Reason) -> String {
    serde_json::to_value(r)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Where a finding points, as `path:line:column`.
pub fn at(f: &Finding) -> Option<String> {
    let path = f.path.as_deref()?;
    Some(match (f.line, f.column) {
        (Some(l), Some(c)) => format!("{path}:{l}:{c}"),
        (Some(l), None) => format!("{path}:{l}"),
        _ => path.to_string(),
    })
}

/// A criterion's findings as lines of text (for bodies of failures).
pub fn findings_text(c: &CriterionReport) -> String {
    let mut out = String::new();
    for f in &c.findings {
        if let Some(at) = at(f) {
            out.push_str(&at);
            out.push_str(": ");
        }
        out.push_str(&f.message);
        if let Some(rule) = &f.rule {
            out.push_str(&format!(" [{rule}]"));
        }
        out.push('\n');
    }
    out
}

/// A stable fingerprint of a finding: the contract, the criterion, where
/// and what (not when), so the same problem has the same fingerprint in
/// every run.
pub fn fingerprint(contract: &str, criterion: &str, f: Option<&Finding>) -> String {
    let mut h = blake3::Hasher::new();
    for part in [
        contract,
        criterion,
        f.and_then(|f| f.path.as_deref()).unwrap_or(""),
        f.and_then(|f| f.rule.as_deref()).unwrap_or(""),
        f.map_or("", |f| f.message.as_str()),
    ] {
        h.update(part.as_bytes());
        h.update(b"\0");
    }
    h.finalize().to_hex()[..32].to_string()
}
