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

/// The formats `vcc check --format` and `--report-FORMAT` write. This is
/// the one table of them: the command line's `--format` values and its
/// `--report-NAME` flags with their help are made from [`Format::ALL`] and
/// the metadata below, so a new format is a variant, its arms here and its
/// writer.
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
    /// Every format, in the order help lists them.
    pub const ALL: [Format; 6] = [
        Format::Json,
        Format::Junit,
        Format::Sarif,
        Format::Markdown,
        Format::Gitlab,
        Format::Html,
    ];

    /// Its name on the command line: `--format NAME`, `--report-NAME`.
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

    /// The format named `name`, if any.
    pub fn named(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }

    /// What a file in it is, for help: "a JUnit XML report".
    pub fn help(self) -> &'static str {
        match self {
            Format::Json => "the JSON report",
            Format::Junit => "a JUnit XML report",
            Format::Sarif => "a SARIF 2.1.0 log",
            Format::Markdown => "a Markdown report",
            Format::Gitlab => "a GitLab Code Quality report",
            Format::Html => "a self-contained HTML page",
        }
    }

    /// What help adds in parentheses, if anything.
    pub fn detail(self) -> Option<&'static str> {
        match self {
            Format::Junit => Some("a test case per criterion"),
            Format::Sarif => Some("a rule per criterion"),
            Format::Json | Format::Markdown | Format::Gitlab | Format::Html => None,
        }
    }

    /// The extension a file in it usually has.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Json | Format::Gitlab => "json",
            Format::Junit => "xml",
            Format::Sarif => "sarif",
            Format::Markdown => "md",
            Format::Html => "html",
        }
    }

    /// Whether `--format` may print it on stdout. A page is for a file or
    /// a browser, not a terminal or a pipe.
    pub fn prints(self) -> bool {
        self != Format::Html
    }
}

/// Choices of the writers beyond the format.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// SARIF: send criteria that passed as `kind: pass` results
    /// (`--sarif-passes`). Off by default: code scanning may show every
    /// result as an alert, and a pass is not one.
    pub sarif_passes: bool,
}

/// The reports of one run in `format`.
pub fn render(format: Format, reports: &[Report]) -> String {
    render_with(format, reports, Options::default())
}

/// The reports of one run in `format`, with `options`. Every format but
/// JSON (the record, kept as the validators said it) shows finding paths
/// relative to the deliverable root ([`rooted`]).
pub fn render_with(format: Format, reports: &[Report], options: Options) -> String {
    if format == Format::Json {
        return render_json(reports);
    }
    let reports = rooted(reports);
    let reports = &reports[..];
    match format {
        Format::Json => render_json(reports),
        Format::Junit => junit::write(reports),
        Format::Sarif => sarif::write_with(reports, options),
        Format::Markdown => markdown::write(reports),
        Format::Gitlab => gitlab::write(reports),
        Format::Html => html::write(reports, None),
    }
}

fn render_json(reports: &[Report]) -> String {
    let text = if let [one] = reports {
        serde_json::to_string_pretty(one)
    } else {
        serde_json::to_string_pretty(reports)
    };
    text.map_or_else(|e| format!("{{\"error\": \"{e}\"}}\n"), |s| s + "\n")
}

/// The reports with every finding path that names a file under the
/// deliverable root made relative to it. Validators mostly report paths
/// relative to the root already, but some pass on what a producer wrote:
/// ruff's SARIF names files by absolute `file://` URI, which `std/sarif`
/// reports as `/abs/path`. A CI platform reads paths relative to its
/// checkout, so `/tmp/ws/src/a.py` under the root `/tmp/ws` becomes
/// `src/a.py`.
///
/// A path that is not under the root stays absolute, exactly as it was:
/// it must never be shown as a file of the deliverables (`/etc/passwd`
/// is not `etc/passwd` of the root), and each writer presents it plainly
/// as outside (see [`outside`]). The comparison is textual and made
/// against the canonical root: a path with `.` or `..` parts, or through
/// another name of the root, is not claimed to be inside.
pub fn rooted(reports: &[Report]) -> Vec<Report> {
    let mut out = reports.to_vec();
    for r in &mut out {
        let Some(root) = r.deliverables.as_ref().map(|d| d.root_absolute.clone()) else {
            continue;
        };
        for c in &mut r.criteria {
            for f in &mut c.findings {
                if let Some(p) = &f.path
                    && let Some(rel) = under_root(p, &root)
                {
                    f.path = Some(rel);
                }
            }
        }
    }
    out
}

/// `path` relative to `root` when it is an absolute path of a file under
/// it written plainly (no empty, `.` or `..` part).
pub fn under_root(path: &str, root: &str) -> Option<String> {
    if !path.starts_with('/') || !root.starts_with('/') {
        return None;
    }
    let rest = path.strip_prefix(root.trim_end_matches('/'))?;
    let rest = rest.strip_prefix('/')?;
    let plain = !rest.is_empty()
        && rest
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..");
    plain.then(|| rest.to_string())
}

/// Where the contract is, for formats that place issues in the checkout:
/// relative to the deliverable root when it is under it, else as given.
pub fn contract_place(r: &Report) -> String {
    let root = r.deliverables.as_ref().map(|d| d.root_absolute.as_str());
    r.contract
        .absolute_path
        .as_deref()
        .zip(root)
        .and_then(|(path, root)| under_root(path, root))
        .unwrap_or_else(|| r.contract.path.clone())
}

/// Whether a finding path (after [`rooted`]) is not a path of the
/// deliverable root: absolute, or climbing out of it with `..`.
pub fn outside(path: &str) -> bool {
    path.starts_with('/') || path.split('/').any(|p| p == "..")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_paths_under_the_root_are_made_relative() {
        assert_eq!(
            under_root("/ws/src/a.py", "/ws"),
            Some("src/a.py".to_string())
        );
        assert_eq!(under_root("/ws/src/a.py", "/ws/"), Some("src/a.py".into()));
        // Another folder that starts like the root is not under it.
        assert_eq!(under_root("/wsx/a.py", "/ws"), None);
        // A path climbing out, or written oddly, is not claimed as inside.
        assert_eq!(under_root("/ws/../etc/passwd", "/ws"), None);
        assert_eq!(under_root("/ws/./a.py", "/ws"), None);
        assert_eq!(under_root("/ws", "/ws"), None);
        assert_eq!(under_root("src/a.py", "/ws"), None);
        assert!(outside("/etc/passwd") && outside("../x.py") && !outside("src/a.py"));
    }
}
