//! Feedback as Markdown, to paste into an agent's prompt: validator and
//! contract text on one line, capped, so a deliverable cannot write
//! headings into it.

use std::fmt::Write as _;

use super::*;

impl Feedback {
    /// A rendering meant to be pasted into an agent's prompt, inside
    /// `vcc converge` (whose `$VCC_FEEDBACK` holds every finding).
    pub fn markdown(&self) -> String {
        self.markdown_where("$VCC_FEEDBACK")
    }

    /// [`Feedback::markdown`], naming `all` as where every finding is
    /// (a file the hook wrote, the tool result's structured content).
    pub fn markdown_where(&self, all: &str) -> String {
        let mut out = String::new();
        let name = self.contract.id.as_deref().unwrap_or(&self.contract.path);
        let _ = writeln!(
            out,
            "# vcc: contract `{}` is {}\n",
            shown(name),
            match self.verdict {
                Verdict::Accepted => "accepted".to_string(),
                v => format!("not accepted ({})", v.as_str()),
            }
        );
        let _ = writeln!(out, "{}\n", shown(&self.reason));
        if let (Some(left), Some(total)) = (&self.budget_left, &self.budget) {
            let _ = writeln!(out, "{}\n", budget_line(self.iteration, left, total));
        } else if let Some(left) = &self.budget_left {
            let mut parts = vec![format!("{} run(s)", left.iterations)];
            if let Some(ms) = left.time_ms {
                parts.push(format!("{:.0} s", ms as f64 / 1000.0));
            }
            if let Some(cost) = left.cost {
                parts.push(format!("cost {cost:.4}"));
            }
            if let Some(tokens) = left.tokens {
                parts.push(format!("{tokens} tokens"));
            }
            let _ = writeln!(
                out,
                "Iteration {} · budget left: {}\n",
                self.iteration,
                parts.join(", ")
            );
        }
        section(
            &mut out,
            "MUST: the work is not accepted until each of these passes",
            &self.must,
            all,
        );
        section(
            &mut out,
            "SHOULD: fix these too if you can",
            &self.should,
            all,
        );
        section(
            &mut out,
            "Warnings: reported, no fix asked",
            &self.warnings,
            all,
        );
        out
    }
}

/// "Budget: run 3 of 5, 41,000 of 100,000 tokens, …": what is used of
/// each limit in force, counting the run about to start.
fn budget_line(run: u32, left: &BudgetLeft, total: &Limits) -> String {
    let mut parts = vec![format!("run {run} of {}", total.iterations)];
    if let (Some(t), Some(l)) = (total.time_ms, left.time_ms) {
        parts.push(format!(
            "{:.0} s of {:.0} s",
            t.saturating_sub(l) as f64 / 1000.0,
            t as f64 / 1000.0
        ));
    }
    if let (Some(t), Some(l)) = (total.tokens, left.tokens) {
        parts.push(format!(
            "{} of {} tokens",
            grouped(t.saturating_sub(l)),
            grouped(t)
        ));
    }
    if let (Some(t), Some(l)) = (total.cost, left.cost) {
        parts.push(format!("cost {:.4} of {t:.4}", (t - l).max(0.0)));
    }
    format!("Budget: {}", parts.join(", "))
}

/// 41000 → "41,000".
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn section(out: &mut String, title: &str, items: &[FeedbackItem], all: &str) {
    if items.is_empty() {
        return;
    }
    let _ = writeln!(out, "## {title}\n");
    for item in items {
        let _ = writeln!(
            out,
            "### {} ({}, {})\n",
            shown(&item.id),
            item.severity.as_str().to_uppercase(),
            match item.status {
                Status::Pass => "pass",
                Status::Fail => "fail",
                Status::Skip => "could not be judged",
                Status::Error => "error",
            }
        );
        let _ = writeln!(out, "{}\n", shown(&item.summary));
        if let Some(d) = &item.description {
            let _ = writeln!(out, "Criterion: {}\n", shown(d));
        }
        for f in item.findings.iter().take(SHOWN_FINDINGS) {
            let place = match (&f.path, f.line, f.column) {
                (Some(p), Some(l), Some(c)) => format!("`{}:{l}:{c}` ", shown(p)),
                (Some(p), Some(l), None) => format!("`{}:{l}` ", shown(p)),
                (Some(p), None, _) => format!("`{}` ", shown(p)),
                _ => String::new(),
            };
            let rule = f
                .rule
                .as_deref()
                .map(|r| format!(" ({})", shown(r)))
                .unwrap_or_default();
            let _ = writeln!(out, "- {place}{}{rule}", shown(&f.message));
        }
        if item.findings.len() > SHOWN_FINDINGS {
            let _ = writeln!(
                out,
                "- … and {} more finding(s) (all of them are in {all})",
                item.findings.len() - SHOWN_FINDINGS
            );
        }
        if !item.findings.is_empty() {
            out.push('\n');
        }
        if let Some(p) = &item.prompt {
            let _ = writeln!(out, "What to do: {}\n", shown(p));
        }
        if let Some(max) = item.max_attempts {
            let _ = writeln!(out, "Attempt {} of {max}.\n", item.attempts.max(1));
        }
    }
}

/// One line of validator- or contract-written text, safe to paste: no
/// control characters, no line breaks that could start a heading, capped.
fn shown(text: &str) -> String {
    let one_line = text.replace(['\n', '\r'], " ");
    let cleaned = clean(&one_line);
    if cleaned.chars().count() <= SHOWN_CHARS {
        return cleaned.into_owned();
    }
    let cut: String = cleaned.chars().take(SHOWN_CHARS).collect();
    format!("{cut}…")
}
