//! `vcc converge`: when the loop stops, what it hands the command, and what
//! it records. Nothing here runs a process or reads a clock: the CLI runs
//! and measures, this decides, so the order of the stop rules can be read
//! in one place and tested on made-up reports.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use vcc_contract::{FailAction, Severity};

pub use crate::budget::{BudgetLeft, Limits, Termination, Usage};
use crate::text::clean;
use crate::{CriterionReport, Finding, Report, Status, Verdict};

/// Bumped on any incompatible change to the converge report or feedback.
pub const SCHEMA_VERSION: u32 = 1;
/// Runs of the command when neither the contract nor a flag says: a loop
/// nobody bounded must still end.
pub const DEFAULT_ITERATIONS: u32 = 10;
pub const DEFAULT_STAGNATION: u32 = 2;

/// What to do after a check.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Stop(Termination, String),
    Run,
}

/// The state of the loop between checks.
#[derive(Debug, Clone)]
pub struct Loop {
    pub limits: Limits,
    /// Runs of the command so far.
    pub runs: u32,
    pub usage: Usage,
    /// Per criterion: runs of the command it was handed to.
    pub attempts: BTreeMap<String, u32>,
    /// Per criterion: the first iteration after which it passed.
    pub passed_at: BTreeMap<String, u32>,
    /// Per criterion: the runs it had been handed to when it first passed.
    pub attempts_to_pass: BTreeMap<String, u32>,
    /// The criteria the current run was asked to fix.
    pub handed: Vec<String>,
    last: Option<blake3::Hash>,
    unchanged: u32,
}

impl Loop {
    pub fn new(limits: Limits) -> Loop {
        Loop {
            limits,
            runs: 0,
            usage: Usage::default(),
            attempts: BTreeMap::new(),
            passed_at: BTreeMap::new(),
            attempts_to_pass: BTreeMap::new(),
            handed: Vec::new(),
            last: None,
            unchanged: 0,
        }
    }

    /// After the check that followed run `self.runs` (0: the first
    /// check), in this order: accepted; the contract could not be
    /// evaluated; a budget is spent; stagnation; abort; attempts; else run
    /// the command again.
    pub fn after_check(&mut self, report: &Report, elapsed: Duration) -> Step {
        for c in report.criteria.iter().filter(|c| c.status == Status::Pass) {
            if !self.passed_at.contains_key(&c.id) {
                self.passed_at.insert(c.id.clone(), self.runs);
                self.attempts_to_pass
                    .insert(c.id.clone(), self.attempts(&c.id));
            }
        }
        let print = fingerprint(report);
        self.unchanged = match self.last {
            Some(last) if last == print => self.unchanged + 1,
            _ => 0,
        };
        self.last = Some(print);

        match report.verdict {
            Verdict::Accepted => return Step::Stop(Termination::Accepted, report.reason.clone()),
            Verdict::Invalid => return Step::Stop(Termination::Invalid, report.reason.clone()),
            Verdict::Advisory => {
                return Step::Stop(
                    Termination::Advisory,
                    format!(
                        "{}; the loop stops here, with the report{}",
                        crate::law::ADVISORY,
                        if self.runs == 0 {
                            " (the command did not run)"
                        } else {
                            ""
                        }
                    ),
                );
            }
            Verdict::Rejected | Verdict::Withheld => {}
        }
        if let Some((why, detail)) = self.spent(elapsed) {
            return Step::Stop(why, detail);
        }
        if self.unchanged >= self.limits.stagnation {
            return Step::Stop(
                Termination::Stagnation,
                format!(
                    "the failing MUST criteria ({}) and their findings are unchanged after {} run(s) in a row",
                    blocking(report)
                        .map(|c| c.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    self.unchanged
                ),
            );
        }
        if let Some(c) = report
            .criteria
            .iter()
            .find(|c| c.status == Status::Fail && action(c) == FailAction::Abort)
        {
            // Before the first run the work has not started: say so, since
            // the command never ran (abort means stop, whenever it fails).
            let when = if self.runs == 0 {
                " on the first check, before the command ever ran (abort stops the loop whenever the criterion fails, the starting point included: keep it for what must never fail, and fix the starting point or the contract)"
            } else {
                ""
            };
            return Step::Stop(
                Termination::Abort,
                format!(
                    "criterion {} failed{when}, and its on_fail action is abort: {}",
                    c.id, c.summary
                ),
            );
        }
        if let Some((c, max)) = blocking(report).find_map(|c| {
            let max = c.on_fail.as_ref()?.max_attempts?;
            (self.attempts(&c.id) >= max).then_some((c, max))
        }) {
            return Step::Stop(
                Termination::Attempts,
                format!(
                    "MUST {} still fails after {max} attempt(s) (its on_fail.max_attempts): {}",
                    c.id, c.summary
                ),
            );
        }
        Step::Run
    }

    /// The first budget that is spent, if any.
    pub fn spent(&self, elapsed: Duration) -> Option<(Termination, String)> {
        let l = &self.limits;
        if self.runs >= l.iterations {
            return Some((
                Termination::BudgetIterations,
                format!(
                    "the command ran {} time(s), the budget's iterations",
                    self.runs
                ),
            ));
        }
        if let Some(ms) = l.time_ms
            && elapsed >= Duration::from_millis(ms)
        {
            return Some((
                Termination::BudgetTime,
                format!(
                    "{:.1} s passed, over the budget's time of {:.1} s",
                    elapsed.as_secs_f64(),
                    ms as f64 / 1000.0
                ),
            ));
        }
        if let Some(cost) = l.cost
            && self.usage.cost >= cost
        {
            return Some((
                Termination::BudgetCost,
                format!(
                    "the command (through $VCC_USAGE) and the AI judges spent a cost of {}, the budget is {cost}",
                    self.usage.cost
                ),
            ));
        }
        if let Some(tokens) = l.tokens
            && self.usage.tokens >= tokens
        {
            return Some((
                Termination::BudgetTokens,
                format!(
                    "the command (through $VCC_USAGE) and the AI judges spent {} tokens, the budget is {tokens}",
                    self.usage.tokens
                ),
            ));
        }
        None
    }

    pub fn attempts(&self, id: &str) -> u32 {
        self.attempts.get(id).copied().unwrap_or(0)
    }

    /// Start a run of the command: it is handed the criteria the feedback
    /// asks it to fix, and each of them counts an attempt.
    pub fn start_run(&mut self, report: &Report) {
        self.runs += 1;
        self.handed = report
            .criteria
            .iter()
            .filter(|c| self.asks_to_fix(c))
            .map(|c| c.id.clone())
            .collect();
        for id in &self.handed {
            *self.attempts.entry(id.clone()).or_default() += 1;
        }
    }

    /// Whether the feedback asks the command to fix `c`: a MUST that did
    /// not pass, or a failed SHOULD whose action is `retry` and that has
    /// attempts left.
    fn asks_to_fix(&self, c: &CriterionReport) -> bool {
        match c.severity {
            Severity::Must => c.status != Status::Pass,
            Severity::Should => {
                c.status == Status::Fail
                    && action(c) != FailAction::Warn
                    && max_attempts(c).is_none_or(|m| self.attempts(&c.id) < m)
            }
            Severity::May => false,
        }
    }

    /// What is left for the run about to start (call after `start_run`).
    pub fn left(&self, elapsed: Duration) -> BudgetLeft {
        let l = &self.limits;
        BudgetLeft {
            iterations: l.iterations.saturating_sub(self.runs.saturating_sub(1)),
            time_ms: l
                .time_ms
                .map(|ms| ms.saturating_sub(elapsed.as_millis() as u64)),
            cost: l.cost.map(|c| (c - self.usage.cost).max(0.0)),
            tokens: l.tokens.map(|t| t.saturating_sub(self.usage.tokens)),
        }
    }

    /// The feedback for the run about to start (call after `start_run`):
    /// a failed SHOULD it is not asked to fix any more is a warning.
    pub fn feedback(&self, report: &Report, elapsed: Duration) -> Feedback {
        let mut fb = Feedback::of(report, Some(self.left(elapsed)), self.runs);
        fb.budget = Some(self.limits);
        let (should, past): (Vec<_>, Vec<_>) = std::mem::take(&mut fb.should)
            .into_iter()
            .partition(|item| self.handed.contains(&item.id));
        fb.should = should;
        fb.warnings.extend(past);
        for item in fb.must.iter_mut().chain(fb.should.iter_mut()) {
            item.attempts = self.attempts(&item.id);
        }
        fb
    }
}

fn action(c: &CriterionReport) -> FailAction {
    c.on_fail.as_ref().map(|o| o.action).unwrap_or_default()
}

fn max_attempts(c: &CriterionReport) -> Option<u32> {
    c.on_fail.as_ref()?.max_attempts
}

/// MUST criteria that did not pass: they keep the loop going.
pub fn blocking(report: &Report) -> impl Iterator<Item = &CriterionReport> {
    report
        .criteria
        .iter()
        .filter(|c| c.severity == Severity::Must && c.status != Status::Pass)
}

/// The failing MUST criteria, their statuses and their findings: when this
/// does not change, the command is not getting anywhere.
pub fn fingerprint(report: &Report) -> blake3::Hash {
    let mut failing: Vec<(&str, Status, &[Finding])> = blocking(report)
        .map(|c| (c.id.as_str(), c.status, c.findings.as_slice()))
        .collect();
    failing.sort_by(|a, b| a.0.cmp(b.0));
    let bytes = serde_json::to_vec(&failing).unwrap_or_default();
    blake3::hash(&bytes)
}

/// What the command is handed before a run (`$VCC_FEEDBACK`), and what
/// `vcc hook` and `vcc mcp` say about a check.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Feedback {
    pub schema_version: u32,
    /// The run of the command this is for (1: the first); 0 outside a loop.
    pub iteration: u32,
    pub contract: FeedbackContract,
    pub verdict: Verdict,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_left: Option<BudgetLeft>,
    /// The loop's whole budget, so the worker sees used of total.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<Limits>,
    /// MUST criteria that did not pass: the verdict waits on these.
    pub must: Vec<FeedbackItem>,
    /// SHOULD criteria that failed, to fix if possible.
    pub should: Vec<FeedbackItem>,
    /// Failures reported without asking for a fix (`on_fail.action: warn`,
    /// or a SHOULD past its `max_attempts`).
    pub warnings: Vec<FeedbackItem>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FeedbackContract {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FeedbackItem {
    pub id: String,
    pub severity: Severity,
    pub status: Status,
    pub summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub findings: Vec<Finding>,
    /// The criterion's `on_fail.prompt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Runs of the command this criterion was handed to, this one included.
    pub attempts: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_attempts: Option<u32>,
}

impl FeedbackItem {
    fn of(c: &CriterionReport) -> FeedbackItem {
        FeedbackItem {
            id: c.id.clone(),
            severity: c.severity,
            status: c.status,
            summary: c.summary.clone(),
            description: c.description.clone(),
            findings: c.findings.clone(),
            prompt: c.on_fail.as_ref().and_then(|o| o.prompt.clone()),
            attempts: 0,
            max_attempts: max_attempts(c),
        }
    }
}

/// Findings shown per criterion in Markdown; the JSON has them all.
const SHOWN_FINDINGS: usize = 20;
/// Characters of one validator-written text shown in Markdown.
const SHOWN_CHARS: usize = 600;

impl Feedback {
    /// The feedback of one check.
    pub fn of(report: &Report, budget_left: Option<BudgetLeft>, iteration: u32) -> Feedback {
        let mut fb = Feedback {
            schema_version: SCHEMA_VERSION,
            iteration,
            contract: FeedbackContract {
                path: report.contract.path.clone(),
                id: report.contract.id.clone(),
                title: report.contract.title.clone(),
            },
            verdict: report.verdict,
            reason: report.reason.clone(),
            budget_left,
            budget: None,
            must: Vec::new(),
            should: Vec::new(),
            warnings: Vec::new(),
        };
        for c in &report.criteria {
            match (c.severity, c.status) {
                (_, Status::Pass) => {}
                (Severity::Must, _) => fb.must.push(FeedbackItem::of(c)),
                (Severity::Should, Status::Fail) if action(c) != FailAction::Warn => {
                    fb.should.push(FeedbackItem::of(c))
                }
                (_, Status::Fail) if action(c) == FailAction::Warn => {
                    fb.warnings.push(FeedbackItem::of(c))
                }
                _ => {}
            }
        }
        fb
    }
}

/// How much of the budget was used by the end of each iteration: the
/// largest of runs used / runs allowed, time / time budget, tokens /
/// token budget and cost / cost budget (time as the sum of the checks'
/// and the command's durations so far).
pub fn utilisation(limits: &Limits, iterations: &[Iteration]) -> Vec<f64> {
    let (mut ms, mut tokens, mut cost) = (0u64, 0u64, 0.0f64);
    iterations
        .iter()
        .map(|it| {
            if let Some(c) = &it.command {
                ms += c.duration_ms;
                tokens += c.usage.tokens;
                cost += c.usage.cost;
            }
            if let Some(check) = &it.check {
                ms += check.duration_ms;
                if let Some(j) = &check.judge_usage {
                    tokens += j.tokens;
                    cost += j.cost;
                }
            }
            let mut u = f64::from(it.index) / f64::from(limits.iterations.max(1));
            if let Some(t) = limits.time_ms.filter(|t| *t > 0) {
                u = u.max(ms as f64 / t as f64);
            }
            if let Some(t) = limits.tokens.filter(|t| *t > 0) {
                u = u.max(tokens as f64 / t as f64);
            }
            if let Some(t) = limits.cost.filter(|t| *t > 0.0) {
                u = u.max(cost / t);
            }
            (u * 1000.0).round() / 1000.0
        })
        .collect()
}

/// The converge report (`--report FILE`, `--format json`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConvergeReport {
    pub schema_version: u32,
    pub termination: TerminationInfo,
    /// The Agent Contracts state the loop ended in
    /// ([`Termination::lifecycle`]).
    #[serde(default)]
    pub lifecycle: String,
    /// Whether the last check accepted the deliverables.
    pub accepted: bool,
    pub contract: FeedbackContract,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract_digest: Option<String>,
    pub command: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<Limits>,
    /// Iteration 0 is the first check; each later one is a run of the
    /// command and the check after it.
    pub iterations: Vec<Iteration>,
    /// Per criterion: runs it was handed to, and when it first passed.
    pub criteria: Vec<CriterionProgress>,
    pub usage: Usage,
    /// Children started inside the command, each with a share of this
    /// loop's budget (their spending is in `usage` and in the iteration
    /// that started them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub delegations: Vec<crate::delegation::Delegation>,
    /// When this loop ran inside another's command: what its parent
    /// granted it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granted: Option<crate::delegation::Grant>,
    pub metrics: Metrics,
    pub duration_ms: u64,
    /// The last check's full report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_check: Option<Report>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TerminationInfo {
    pub reason: Termination,
    pub detail: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Iteration {
    pub index: u32,
    /// When it started (RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// The budget used by its end ([`utilisation`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utilisation: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<CommandRun>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<CheckSummary>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CommandRun {
    /// Absent when the command was killed by a signal or not started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Why vcc stopped it, or why it did not start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    pub duration_ms: u64,
    /// What it reported through `$VCC_USAGE` in this run, and what the
    /// child loops it started were charged (`delegated`).
    pub usage: Usage,
    /// The part of `usage` charged for child loops started in this run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegated: Option<Usage>,
    /// The first `$VCC_USAGE` line that could not be read (with a cost or
    /// token budget, it ends the loop: `usage_invalid`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_error: Option<String>,
    /// Criteria the feedback asked it to fix.
    pub handed: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CheckSummary {
    pub verdict: Verdict,
    pub reason: String,
    pub duration_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_digest: Option<String>,
    /// Every criterion's status.
    pub criteria: BTreeMap<String, Status>,
    /// MUST criteria that did not pass.
    pub failing: Vec<String>,
    /// blake3 of the failing MUST criteria and their findings.
    pub fingerprint: String,
    /// What the check's AI judges spent (live calls): it counts against
    /// the loop's token and cost budgets, as the command's usage does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_usage: Option<Usage>,
}

impl CheckSummary {
    pub fn of(report: &Report, duration: Duration) -> CheckSummary {
        CheckSummary {
            verdict: report.verdict,
            reason: report.reason.clone(),
            duration_ms: duration.as_millis() as u64,
            root_digest: report.deliverables.as_ref().map(|d| d.root_digest.clone()),
            criteria: report
                .criteria
                .iter()
                .map(|c| (c.id.clone(), c.status))
                .collect(),
            failing: blocking(report).map(|c| c.id.clone()).collect(),
            fingerprint: format!("blake3:{}", fingerprint(report).to_hex()),
            judge_usage: report.judging.as_ref().map(|j| Usage {
                tokens: j.usage.tokens,
                cost: j.usage.cost,
            }),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CriterionProgress {
    pub id: String,
    pub severity: Severity,
    /// In the last check.
    pub status: Status,
    /// Runs of the command it was handed to.
    pub attempts: u32,
    /// The iteration after which it first passed (0: it passed at once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passed_at: Option<u32>,
    /// The runs it had been handed to when it first passed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempts_until_pass: Option<u32>,
}

/// The four summary metrics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// The loop ended accepted.
    pub validity: bool,
    /// Runs of the command.
    pub remediation_iterations: u32,
    pub validation_overhead: Overhead,
    /// Of the failed criteria over all checks, the share that carried
    /// findings and evidence (an evidence item, or files read with their
    /// digests); absent when nothing failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_transparency: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Overhead {
    /// Time in vcc's checks.
    pub check_ms: u64,
    /// Time in the command.
    pub command_ms: u64,
    /// check / (check + command); absent when both are 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share: Option<f64>,
}

impl Metrics {
    /// From the iterations and every check's report.
    pub fn of(accepted: bool, iterations: &[Iteration], checks: &[&Report]) -> Metrics {
        let check_ms = iterations
            .iter()
            .filter_map(|i| i.check.as_ref())
            .map(|c| c.duration_ms)
            .sum();
        let command_ms = iterations
            .iter()
            .filter_map(|i| i.command.as_ref())
            .map(|c| c.duration_ms)
            .sum();
        let total = check_ms + command_ms;
        let failed: Vec<&CriterionReport> = checks
            .iter()
            .flat_map(|r| r.criteria.iter())
            .filter(|c| c.status == Status::Fail)
            .collect();
        let transparent = failed
            .iter()
            .filter(|c| {
                !c.findings.is_empty() && (!c.evidence.is_empty() || !c.files_read.is_empty())
            })
            .count();
        Metrics {
            validity: accepted,
            remediation_iterations: iterations.iter().filter(|i| i.command.is_some()).count()
                as u32,
            validation_overhead: Overhead {
                check_ms,
                command_ms,
                share: (total > 0).then(|| check_ms as f64 / total as f64),
            },
            failure_transparency: (!failed.is_empty())
                .then(|| transparent as f64 / failed.len() as f64),
        }
    }
}

mod markdown;
#[cfg(test)]
mod tests;
