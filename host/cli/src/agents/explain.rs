//! `vcc explain CONTRACT`: the contract as the worker's brief (numbered
//! criteria, what checks each, the evidence it needs, what to do when it
//! fails, the budget), as Markdown, a prompt, or JSON. Nothing runs: the
//! brief comes from the contract as `vcc check` would read it (bases,
//! locks and VCC v1 mappings applied), so it is the same bytes every time.
//! With `--results REPORT` (a converge or check report), it adds what
//! failed, how often and what was tried, for whoever takes the task next.

use std::path::Path;

use vcc_contract::brief::Brief;
use vcc_report::law::exit;

use crate::args::{BriefFormat, ExplainArgs};
use crate::output::print_stdout;
use crate::render::{self, Style};
use crate::settings::runtime;

pub fn run(cli: &crate::args::Cli, args: &ExplainArgs, style: &Style) -> i32 {
    let runtime = match runtime(cli) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let results = match args.results.as_deref().map(results).transpose() {
        Ok(r) => r,
        Err(why) => {
            eprintln!("vcc explain --results: {why}");
            return exit::INVALID;
        }
    };
    match brief(&runtime, &args.contract, args.dir.as_deref(), &args.binding) {
        Ok(brief) => {
            let text = match (&results, args.format) {
                (Some(r), BriefFormat::Json) => {
                    let mut doc = serde_json::to_value(&brief).unwrap_or_default();
                    doc["results"] = serde_json::to_value(r).unwrap_or_default();
                    format!(
                        "{}\n",
                        serde_json::to_string_pretty(&doc).unwrap_or_default()
                    )
                }
                (Some(r), format) => format!("{}{}", render_as(&brief, format), r.render(format)),
                (None, format) => render_as(&brief, format),
            };
            print_stdout(&text);
            exit::ACCEPTED
        }
        Err(problems) => {
            let mut out = String::new();
            for p in problems.iter().filter(|p| p.is_error()) {
                out.push_str(&render::problem(p, style));
            }
            eprint!("{out}");
            eprintln!(
                "vcc explain: {} fails lint, so it has no brief: fix the error(s) above (`vcc lint {}` shows them all)",
                render::clean(&args.contract.display().to_string()),
                render::clean(&args.contract.display().to_string())
            );
            exit::INVALID
        }
    }
}

pub fn render_as(brief: &Brief, format: BriefFormat) -> String {
    match format {
        BriefFormat::Markdown => brief.markdown(),
        BriefFormat::Prompt => brief.prompt(),
        BriefFormat::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(brief).unwrap_or_default()
        ),
    }
}

/// The brief of the contract at `path`, read as `vcc check` reads it.
pub fn brief(
    runtime: &vcc_runtime::Runtime,
    path: &Path,
    dir: Option<&Path>,
    binding: &crate::args::BindingArgs,
) -> Result<Brief, Vec<vcc_contract::Problem>> {
    let mapping = binding.mapping().map_err(|why| {
        vec![vcc_contract::Problem {
            code: vcc_contract::Code::InvalidValue,
            level: vcc_contract::Level::Error,
            message: why,
            file: path.display().to_string(),
            field: None,
            line: None,
            column: None,
            help: None,
        }]
    })?;
    // A contract that fails lint gets no brief: a usable-looking brief of
    // a contract `vcc check` refuses would send the worker off to do work
    // nothing can accept.
    let (_, problems) = crate::checking::evaluate::lint_problems(runtime, path, dir, binding);
    if problems.iter().any(|p| p.is_error()) {
        return Err(problems);
    }
    let (sources, doc) = vcc_contract::Sources::read_mapped(path, mapping)?;
    let prepared = crate::trust::binding::prepare(runtime, doc, &sources, dir, binding)?;
    let mut check = format!("vcc check {}", path.display());
    if let Some(d) = dir {
        check.push_str(&format!(" --dir {}", d.display()));
    }
    Ok(Brief::of(
        &prepared.doc.contract,
        &path.display().to_string(),
        &check,
    ))
}

/// "What failed, how often, what was tried", from a converge (or check)
/// report, for whoever picks the task up next (`--results REPORT`).
pub fn results(path: &Path) -> Result<Results, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not a vcc report: {e}", path.display()))?;
    if value.get("termination").is_some() {
        let report: vcc_report::converge::ConvergeReport = serde_json::from_value(value)
            .map_err(|e| format!("{} is not a vcc converge report: {e}", path.display()))?;
        Ok(Results::of_loop(&report))
    } else {
        let report: vcc_report::Report = serde_json::from_value(value)
            .map_err(|e| format!("{} is not a vcc report: {e}", path.display()))?;
        Ok(Results::of_check(&report))
    }
}

/// One line per criterion, and a headline.
#[derive(Debug, serde::Serialize)]
pub struct Results {
    pub headline: String,
    pub criteria: Vec<String>,
}

/// Text from a report on one line, without control characters, capped.
fn flat(text: &str) -> String {
    vcc_contract::brief::line(text).chars().take(300).collect()
}

fn findings(c: &vcc_report::CriterionReport) -> String {
    if c.findings.is_empty() {
        return String::new();
    }
    let shown: Vec<String> = c
        .findings
        .iter()
        .take(3)
        .map(|f| {
            let at = match (&f.path, f.line) {
                (Some(p), Some(l)) => format!("{}:{l} ", flat(p)),
                (Some(p), None) => format!("{} ", flat(p)),
                _ => String::new(),
            };
            format!("{at}{}", flat(&f.message))
        })
        .collect();
    let more = c.findings.len().saturating_sub(3);
    format!(
        " Findings: {}{}.",
        shown.join("; "),
        if more > 0 {
            format!("; and {more} more")
        } else {
            String::new()
        }
    )
}

fn word<T: serde::Serialize>(value: T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

impl Results {
    fn of_loop(r: &vcc_report::converge::ConvergeReport) -> Results {
        let runs = r.iterations.iter().filter(|i| i.command.is_some()).count();
        let began = r
            .iterations
            .first()
            .and_then(|i| i.started_at.clone())
            .map(|t| format!(", begun {t}"))
            .unwrap_or_default();
        let headline = format!(
            "The last loop ended {} ({}: {}) after {runs} run(s) of the command{began}.",
            if r.lifecycle.is_empty() {
                r.termination.reason.lifecycle()
            } else {
                r.lifecycle.as_str()
            },
            r.termination.reason.as_str(),
            flat(&r.termination.detail)
        );
        let checks: Vec<&vcc_report::converge::CheckSummary> = r
            .iterations
            .iter()
            .filter_map(|i| i.check.as_ref())
            .collect();
        let criteria = r
            .criteria
            .iter()
            .map(|p| {
                let failed = checks
                    .iter()
                    .filter(|c| {
                        c.criteria
                            .get(&p.id)
                            .is_some_and(|s| *s != vcc_report::Status::Pass)
                    })
                    .count();
                let mut line = format!(
                    "{} ({}): {} in the last check; not passing in {failed} of {} check(s); handed over {} time(s)",
                    p.id,
                    p.severity.as_str().to_uppercase(),
                    word(p.status),
                    checks.len(),
                    p.attempts
                );
                match p.passed_at {
                    Some(0) => line.push_str("; passed from the first check"),
                    Some(at) => line.push_str(&format!(
                        "; first passed after run {at} ({} attempt(s))",
                        p.attempts_until_pass.unwrap_or(0)
                    )),
                    None => line.push_str("; never passed"),
                }
                line.push('.');
                if let Some(c) = r
                    .last_check
                    .as_ref()
                    .and_then(|l| l.criteria.iter().find(|c| c.id == p.id))
                    .filter(|c| c.status != vcc_report::Status::Pass)
                {
                    line.push_str(&format!(" Last: {}.", flat(&c.summary)));
                    line.push_str(&findings(c));
                }
                line
            })
            .collect();
        Results { headline, criteria }
    }

    fn of_check(r: &vcc_report::Report) -> Results {
        Results {
            headline: format!(
                "The last check was {}: {}",
                r.verdict.as_str(),
                flat(&r.reason)
            ),
            criteria: r
                .criteria
                .iter()
                .map(|c| {
                    let mut line = format!(
                        "{} ({}): {}. {}.",
                        c.id,
                        c.severity.as_str().to_uppercase(),
                        word(c.status),
                        flat(&c.summary)
                    );
                    if c.status != vcc_report::Status::Pass {
                        line.push_str(&findings(c));
                    }
                    line
                })
                .collect(),
        }
    }

    pub fn render(&self, format: BriefFormat) -> String {
        match format {
            BriefFormat::Markdown => {
                let mut out = format!("## Results so far\n\n{}\n\n", self.headline);
                for c in &self.criteria {
                    out.push_str(&format!("- {c}\n"));
                }
                out
            }
            BriefFormat::Prompt => {
                let mut out = format!("\nResults so far: {}\n", self.headline);
                for c in &self.criteria {
                    out.push_str(&format!("- {c}\n"));
                }
                out
            }
            BriefFormat::Json => String::new(),
        }
    }
}
