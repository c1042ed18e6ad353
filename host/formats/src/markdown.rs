//! Markdown for people: the verdict, a table with every criterion, and the
//! findings of those that did not pass. Text from validators and files is
//! escaped for Markdown and HTML (a finding cannot add headings, links or
//! tags) and put on one line, capped.

use vcc_report::{Report, Status};

use crate::{at, contract_name, reason_word, severity_word, status_word, verdict_word};

/// Findings shown per criterion (the JSON report has them all).
const FINDINGS_SHOWN: usize = 20;
/// A text from a validator is cut to this many characters.
const TEXT_CAP: usize = 400;

pub fn write(reports: &[Report]) -> String {
    reports.iter().map(one).collect::<Vec<_>>().join("\n")
}

fn icon(s: Status) -> &'static str {
    match s {
        Status::Pass => "✅",
        Status::Fail => "❌",
        Status::Skip => "⏭️",
        Status::Error => "⚠️",
    }
}

fn one(r: &Report) -> String {
    let mut out = format!(
        "## vcc: {} — {}\n\n{}\n\n",
        text(contract_name(r)),
        verdict_word(r.verdict),
        text(&r.reason)
    );
    if !r.criteria.is_empty() {
        out.push_str("| | Criterion | Severity | Status | Summary |\n|---|---|---|---|---|\n");
        for c in &r.criteria {
            let evidence = c
                .produced_artifact
                .as_deref()
                .map(|e| format!(" (evidence `{}`)", code(e)))
                .unwrap_or_default();
            out.push_str(&format!(
                "| {} | `{}`{evidence} | {} | {} ({}) | {} |\n",
                icon(c.status),
                code(&c.id),
                severity_word(c.severity),
                status_word(c.status),
                reason_word(c.reason),
                text(&c.summary)
            ));
        }
        out.push('\n');
    }
    for c in r.criteria.iter().filter(|c| c.status != Status::Pass) {
        if c.findings.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "<details><summary><code>{}</code>: {} finding(s)</summary>\n\n",
            code(&c.id),
            c.findings.len()
        ));
        for f in c.findings.iter().take(FINDINGS_SHOWN) {
            let place = at(f)
                .map(|a| format!("`{}`: ", code(&a)))
                .unwrap_or_default();
            out.push_str(&format!("- {place}{}\n", text(&f.message)));
        }
        if c.findings.len() > FINDINGS_SHOWN {
            out.push_str(&format!(
                "- … and {} more (see the JSON report)\n",
                c.findings.len() - FINDINGS_SHOWN
            ));
        }
        out.push_str("\n</details>\n\n");
    }
    for c in r.criteria.iter().filter(|c| !c.judge_calls.is_empty()) {
        out.push_str(&format!(
            "<details><summary><code>{}</code>: {}</summary>\n\n",
            code(&c.id),
            text(&vcc_report::judge::calls_line(&c.judge_calls))
        ));
        out.push_str(
            "| Call | Judge | Model | Sample | Source | Tokens | Answer |\n|---|---|---|---|---|---|---|\n",
        );
        for call in &c.judge_calls {
            let answer = match (&call.answer, &call.error) {
                (_, Some(e)) => format!("error: {e}"),
                (Some(a), None) => a.to_string(),
                (None, None) => String::new(),
            };
            out.push_str(&format!(
                "| `{}` | `{}` | `{}` | {} | {} | {} | {} |\n",
                code(&call.id),
                code(&call.judge),
                code(call.reported_model.as_deref().unwrap_or(&call.model)),
                call.sample,
                call.source.as_str(),
                call.tokens.total(),
                text(&answer)
            ));
        }
        out.push_str("\n</details>\n\n");
    }
    let problems: Vec<_> = r.problems.iter().filter(|p| p.is_error()).collect();
    if !problems.is_empty() {
        out.push_str("**Problems**\n\n");
        for p in problems {
            out.push_str(&format!("- `{}` {}\n", p.code.as_str(), text(&p.message)));
        }
        out.push('\n');
    }
    let mut facts = vec![format!("run `{}`", code(&r.run.id))];
    if let Some(d) = &r.contract.digest {
        facts.push(format!("contract `{}`", code(d)));
    }
    if let Some(d) = &r.deliverables {
        facts.push(format!("root `{}`", code(&d.root_digest)));
    }
    if let Some(c) = &r.run.commit {
        facts.push(format!("commit `{}`", code(c)));
    }
    if let Some(reused) = &r.reused {
        facts.push(format!(
            "reused from ledger `{}` seq {}",
            code(&reused.ledger),
            reused.seq
        ));
    }
    if let Some(j) = &r.judging {
        facts.push(format!("judging: {}", text(&j.line())));
    }
    out.push_str(&format!("<sub>{}</sub>\n", facts.join(" · ")));
    out
}

/// Text for a table cell or a list item: one line, capped, with what
/// Markdown or HTML would interpret escaped.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.chars().enumerate() {
        if i >= TEXT_CAP {
            out.push('…');
            break;
        }
        match c {
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => {}
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '|' | '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '!' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Text inside backticks: one line, capped, no backtick to close it early.
fn code(s: &str) -> String {
    s.chars()
        .take(TEXT_CAP)
        .map(|c| match c {
            '`' => '\'',
            '|' => '¦',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect()
}
