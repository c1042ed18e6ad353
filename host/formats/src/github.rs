//! GitHub Actions: workflow-command annotations (`::error file=…,line=…::…`)
//! and the job summary (`$GITHUB_STEP_SUMMARY`).
//!
//! GitHub shows at most 10 error, 10 warning and 10 notice annotations per
//! step (50 per job): vcc writes at most that many of each, worst first,
//! and one notice that says how many more the reports hold. A MUST that did
//! not pass is an error, a SHOULD a warning, a MAY a notice. The summary is
//! the Markdown report, cut to fit under GitHub's 1 MiB limit.

use vcc_contract::Severity;
use vcc_report::{Report, Status};

use crate::{at, contract_name, outside, severity_word, status_word};

/// Annotations of one kind GitHub shows per step.
pub const PER_KIND: usize = 10;
/// `$GITHUB_STEP_SUMMARY` is refused past 1 MiB; stay under it.
pub const SUMMARY_CAP: usize = (1 << 20) - 4096;

/// Where an annotation points (file, line, column) and what it says.
type Located<'a> = (Option<&'a str>, Option<u32>, Option<u32>, String);

/// The workflow commands for `reports`, one per line.
pub fn annotations(reports: &[Report]) -> String {
    // Files are named relative to the checkout, as GitHub places them.
    let reports = &crate::rooted(reports)[..];
    let mut by_kind: [(&str, Vec<String>); 3] = [
        ("error", Vec::new()),
        ("warning", Vec::new()),
        ("notice", Vec::new()),
    ];
    let mut total = 0;
    for r in reports {
        let name = contract_name(r);
        for c in r.criteria.iter().filter(|c| c.status != Status::Pass) {
            let kind = match c.severity {
                Severity::Must => 0,
                Severity::Should => 1,
                Severity::May => 2,
            };
            let evidence = c
                .produced_artifact
                .as_deref()
                .map(|e| format!(" (evidence {e})"))
                .unwrap_or_default();
            let title = format!(
                "vcc {name}: {}{evidence} {} {}",
                c.id,
                severity_word(c.severity),
                status_word(c.status)
            );
            let mut findings: Vec<Located> = c
                .findings
                .iter()
                .map(|f| match f.path.as_deref() {
                    // GitHub places `file=` in the repository: a file
                    // outside the deliverable root is named in the text.
                    Some(p) if outside(p) => (
                        None,
                        None,
                        None,
                        format!(
                            "{} — {} (at {}, outside the deliverable root)",
                            c.summary,
                            f.message,
                            at(f).unwrap_or_default()
                        ),
                    ),
                    path => (
                        path,
                        f.line,
                        f.column,
                        format!("{} — {}", c.summary, f.message),
                    ),
                })
                .collect();
            if findings.is_empty() {
                findings.push((None, None, None, c.summary.clone()));
            }
            for (path, line, col, message) in findings {
                total += 1;
                let mut props = Vec::new();
                if let Some(p) = path {
                    props.push(format!("file={}", property(p)));
                }
                if let Some(l) = line {
                    props.push(format!("line={l}"));
                }
                if let Some(c) = col {
                    props.push(format!("col={c}"));
                }
                props.push(format!("title={}", property(&title)));
                by_kind[kind].1.push(format!(
                    "{} {}::{}",
                    by_kind[kind].0,
                    props.join(","),
                    data(&message)
                ));
            }
        }
        if r.criteria.is_empty() && r.verdict == vcc_report::Verdict::Invalid {
            total += 1;
            by_kind[0].1.push(format!(
                "error title={}::{}",
                property(&format!("vcc {name}: invalid")),
                data(&r.reason)
            ));
        }
    }
    let mut out = String::new();
    let mut shown = 0;
    for (_, lines) in &by_kind {
        for line in lines.iter().take(PER_KIND) {
            out.push_str("::");
            out.push_str(line);
            out.push('\n');
            shown += 1;
        }
    }
    if total > shown {
        out.push_str(&format!(
            "::notice title=vcc::{}\n",
            data(&format!(
                "{} more annotation(s) not shown (GitHub shows {PER_KIND} of each kind per step); the job summary and the reports list them all",
                total - shown
            ))
        ));
    }
    out
}

/// The Markdown summary, cut to fit `$GITHUB_STEP_SUMMARY`'s limit.
pub fn summary(reports: &[Report]) -> String {
    let mut text = crate::markdown::write(reports);
    if text.len() > SUMMARY_CAP {
        let mut cut = SUMMARY_CAP;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str(
            "\n\n… cut to fit GitHub's 1 MiB job summary; the reports have everything.\n",
        );
    }
    text
}

/// A workflow command's message: `%`, CR and LF escaped.
fn data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property: also `:` and `,`.
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}
