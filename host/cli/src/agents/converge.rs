//! `vcc converge`: check; while not accepted and no stop rule applies, hand
//! the failures to CMD and run it; check again. The stop rules live in
//! `vcc_report::converge`; this module runs the command, measures, and
//! writes the report.

mod command;
mod delegating;
mod guard;
mod pool;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use vcc_report::converge::{
    CheckSummary, CommandRun, ConvergeReport, CriterionProgress, DEFAULT_ITERATIONS,
    DEFAULT_STAGNATION, FeedbackContract, Iteration, Limits, Loop, Metrics, SCHEMA_VERSION, Step,
    Termination, TerminationInfo, Usage,
};
use vcc_report::delegation::{Delegation, Grant, Pool};
use vcc_report::law::exit;
use vcc_report::{Report, Verdict};
use vcc_runtime::{CheckOptions, Runtime};

use crate::args::{ConvergeArgs, Format};
use crate::checking::evaluate::{Evaluation, Ready};
use crate::output::{print_stdout, write_atomically};
use crate::trust::ledger::Recorder;
use guard::Guard;
use pool::PoolFile;
use vcc_ledger::{Entry, Kind};

pub use guard::serve as serve_guard;

/// How often a running command is looked at (exit, interrupt, budgets).
const POLL: Duration = Duration::from_millis(50);
/// How long a command asked to stop may take before it is killed.
const GRACE: Duration = Duration::from_secs(5);
/// `$VCC_USAGE` is read at most this often while the command runs.
const USAGE_POLL: Duration = Duration::from_millis(250);
/// A usage file larger than this is not read (its lines are tiny).
const MAX_USAGE_FILE: u64 = 16 << 20;
/// The environment variable naming a loop's budget pool; inherited by a
/// nested `vcc converge`, it makes that loop a child.
const BUDGET_FILE: &str = "VCC_BUDGET_FILE";

pub fn run(rt: &Runtime, args: &ConvergeArgs) -> i32 {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // The first signal asks for a clean stop; a second one exits at
        // once (the report then says `unfinished`).
        let registered = signal_hook::flag::register_conditional_shutdown(
            signal,
            exit::NOT_ACCEPTED,
            stop.clone(),
        )
        .and_then(|_| signal_hook::flag::register(signal, stop.clone()));
        if let Err(e) = registered {
            eprintln!("vcc converge: cannot handle signal {signal}: {e}");
            return exit::INVALID;
        }
    }
    let recorder = match args.ledger.recorder() {
        Ok(r) => r,
        Err(why) => {
            eprintln!("vcc converge: {why}");
            return exit::INVALID;
        }
    };
    let work = match tempfile::Builder::new().prefix("vcc-converge-").tempdir() {
        Ok(dir) => dir,
        Err(e) => {
            eprintln!("vcc converge: cannot create a folder for the feedback: {e}");
            return exit::INVALID;
        }
    };
    let mut c = Converge {
        rt,
        args,
        stop,
        started: Instant::now(),
        work: work.path().to_path_buf(),
        iterations: Vec::new(),
        checks: Vec::new(),
        lp: None,
        ready: None,
        recorder,
        pool: PoolFile::at(&work.path().join("budget.json")),
        delegations: BTreeMap::new(),
        own: Usage::default(),
        parent: None,
        published: None,
        guard: None,
    };
    let unfinished = c.report(
        Termination::Unfinished,
        "the loop did not finish: vcc was stopped before it could say why".into(),
    );
    for (path, text) in report_files(args, &unfinished) {
        if let Err(e) = write_atomically(&path, text.as_bytes()) {
            eprintln!(
                "vcc converge: the report cannot be written to {}: {e}",
                path.display()
            );
            return exit::INVALID;
        }
    }
    let (why, detail) = c.converge();
    c.finish(why, detail)
}

struct Converge<'a> {
    rt: &'a Runtime,
    args: &'a ConvergeArgs,
    stop: Arc<AtomicBool>,
    started: Instant,
    /// Feedback and usage files: outside the deliverable root.
    work: PathBuf,
    iterations: Vec<Iteration>,
    /// Every check's report, in order.
    checks: Vec<Report>,
    lp: Option<Loop>,
    /// The contract as it was read before the first check: every check of
    /// the loop judges these bytes, whatever the command writes.
    ready: Option<Ready>,
    /// `--ledger`: every check and the end are logged.
    recorder: Option<Recorder>,
    /// This loop's budget, published to the command (`$VCC_BUDGET_FILE`)
    /// and to any child loop it starts.
    pool: PoolFile,
    /// Every child seen in the pool, as this loop keeps them: the pool is
    /// in a folder the command can write, so a child's spending here only
    /// grows and a child, once seen, never disappears.
    delegations: BTreeMap<u32, Delegation>,
    /// What this loop spent itself (its command's `$VCC_USAGE`, its
    /// judges), its children aside.
    own: Usage,
    /// When this loop runs inside another's command: its entry there.
    parent: Option<Parent>,
    /// The pool as this loop last wrote it, and when: what a child that
    /// joined since could have been granted is decided from this, never
    /// from what the pool file says (the command can write it).
    published: Option<(Pool, u64)>,
    /// Kills the command's process group if vcc dies while it runs.
    guard: Option<Guard>,
}

/// A child loop's place in its parent's pool.
struct Parent {
    file: PoolFile,
    id: u32,
    granted: Grant,
}

/// How one run of the command went.
struct Ran {
    run: CommandRun,
    not_started: Option<String>,
    usage_error: Option<String>,
    /// A budget pool (this loop's or its parent's) could not be read or
    /// written: what is spent cannot be known, the loop ends.
    pool_error: Option<String>,
}

impl Converge<'_> {
    /// The loop; why it stopped.
    fn converge(&mut self) -> (Termination, String) {
        match Ready::read(
            self.rt,
            &self.args.contract,
            self.args.dir.as_deref(),
            &self.args.binding,
        ) {
            Ok(mut ready) => {
                // The root is resolved once, as the contract is read once:
                // the command may turn a folder on the way to it into a
                // link to a decoy between checks.
                if let Ok(real) = std::fs::canonicalize(&ready.root) {
                    ready.root = real;
                }
                self.ready = Some(ready)
            }
            Err(report) => {
                let reason = report.reason.clone();
                self.record_check(*report, std::time::Duration::ZERO);
                return (Termination::Invalid, reason);
            }
        }
        let budget = self
            .ready
            .as_ref()
            .and_then(|r| r.prepared.doc.contract.budget.clone());
        let mut limits = match limits(budget.as_ref(), self.args) {
            Ok(l) => l,
            Err(why) => return (Termination::Invalid, why),
        };
        // Inside another loop's command: a share of that loop's budget,
        // or nothing at all.
        if let Some(path) = std::env::var_os(BUDGET_FILE).filter(|p| !p.is_empty()) {
            match self.join_parent(Path::new(&path), limits) {
                Ok(grant) => limits = limits.within(grant),
                Err(end) => return end,
            }
        }
        // Before the first check: its judges spend from the budget too.
        self.lp = Some(Loop::new(limits));
        let first = self.check();
        if first.report.verdict == Verdict::Invalid {
            return (Termination::Invalid, first.report.reason.clone());
        }
        let digest = first.report.contract.digest.clone();
        loop {
            if self.interrupted() {
                return (Termination::Interrupted, "stopped by a signal".into());
            }
            // The check's judges spent too: the parent learns it now.
            if let Err(why) = self.charge_parent(None) {
                return (Termination::UsageInvalid, why);
            }
            let elapsed = self.started.elapsed();
            let (Some(lp), Some(report)) = (self.lp.as_mut(), self.checks.last()) else {
                return (Termination::Invalid, "internal: no check to go on".into());
            };
            if let Step::Stop(why, detail) = lp.after_check(report, elapsed) {
                return (why, detail);
            }
            lp.start_run(report);
            let feedback = lp.feedback(report, elapsed);
            let handed = lp.handed.clone();
            let left = lp.left(elapsed);
            let run = lp.runs;
            self.progress(&format!(
                "run {run} of at most {}: {} criteria handed over ({})",
                limits.iterations,
                handed.len(),
                handed.join(", ")
            ));
            let files = match self.write_feedback(run, &feedback) {
                Ok(files) => files,
                Err(e) => {
                    return (
                        Termination::Invalid,
                        format!("the feedback cannot be written: {e}"),
                    );
                }
            };
            let started_at = vcc_report::now_rfc3339();
            let ran = self.run_command(run, &files, &left, limits);
            let mut command = ran.run;
            command.handed = handed;
            let (exit_code, stopped) = (command.exit_code, command.stopped.clone());
            if let Some(lp) = self.lp.as_mut() {
                lp.usage.add(command.usage);
            }
            let charged = self.charge_parent(None).err();
            self.progress(&format!(
                "run {run}: {} in {:.1} s",
                match (exit_code, &stopped) {
                    (Some(code), None) => format!("exit {code}"),
                    (Some(code), Some(why)) => format!("exit {code} ({why})"),
                    (None, Some(why)) => why.clone(),
                    (None, None) => "ended".into(),
                },
                command.duration_ms as f64 / 1000.0
            ));
            self.iterations.push(Iteration {
                index: run,
                started_at: Some(started_at),
                utilisation: None,
                command: Some(command),
                check: None,
            });
            if let Some(why) = ran.not_started {
                return (Termination::CommandNotStarted, why);
            }
            if let Some(why) = ran.pool_error.or(charged) {
                return (Termination::UsageInvalid, why);
            }
            if self.interrupted() {
                return (Termination::Interrupted, "stopped by a signal".into());
            }
            if let Some(why) = ran.usage_error {
                if limits.cost.is_some() || limits.tokens.is_some() {
                    return (Termination::UsageInvalid, why);
                }
                // Without a budget it decides nothing, but is not hidden.
                self.progress(&format!("  {why} (ignored: no cost or token budget)"));
            }
            if self.args.stop_on_command_error && exit_code != Some(0) {
                return (
                    Termination::CommandError,
                    format!(
                        "the command {} (--stop-on-command-error)",
                        exit_code.map_or_else(
                            || stopped.unwrap_or_else(|| "was stopped".into()),
                            |c| format!("exited {c}")
                        )
                    ),
                );
            }
            // Whatever the command wrote to the contract, the check after it
            // judges the contract the loop started with; an edit ends the
            // loop, never in an acceptance.
            let changed = self
                .ready
                .as_ref()
                .and_then(|r| r.sources.unchanged_on_disk().err());
            self.check();
            if let Some(what) = changed {
                return (
                    Termination::ContractChanged,
                    format!(
                        "the contract changed during the loop ({what}); every check judged the contract as it was read first ({}), and a loop whose contract was edited is not accepted",
                        digest.as_deref().unwrap_or("?"),
                    ),
                );
            }
        }
    }

    /// One check; its summary joins the current iteration.
    fn check(&mut self) -> Evaluation {
        let started = Instant::now();
        let defaults = CheckOptions::default();
        // Read for this check: what the command wrote to it so far.
        let attached: Result<Vec<_>, String> = self
            .args
            .attach
            .iter()
            .map(|spec| crate::attach::parse(spec))
            .collect();
        let spinner = crate::progress::spinner(
            self.rt.loader().progress(),
            self.args.format == Format::Human,
        );
        let contract = self.args.contract.display().to_string();
        let mut evaluation = match (&self.ready, attached) {
            (Some(ready), Ok(attached)) => {
                let options = CheckOptions {
                    jobs: self.args.jobs.unwrap_or(defaults.jobs),
                    exclude: self.args.exclude.clone(),
                    judging: self.judging(),
                    attached,
                    ..defaults
                };
                ready.check(self.rt, options)
            }
            // Never a check without what the verifier attached.
            (Some(_), Err(why)) => {
                let mut report = Report::unfinished(&contract);
                report.reason = why;
                Evaluation { report }
            }
            (None, _) => Evaluation {
                report: Report::unfinished(&contract),
            },
        };
        drop(spinner);
        if let Some(recorder) = &self.recorder {
            let iteration = self.iterations.last().map_or(0, |it| {
                if it.check.is_none() {
                    it.index
                } else {
                    it.index + 1
                }
            });
            recorder.check_at(Kind::ConvergeCheck, &mut evaluation.report, Some(iteration));
        }
        self.record_check(evaluation.report.clone(), started.elapsed());
        evaluation
    }

    /// The check's judges may spend what is left of the loop's token and
    /// cost budgets, at most.
    fn judging(&self) -> Option<Arc<vcc_judge::Setup>> {
        let ready = self.ready.as_ref()?;
        let left = match &self.lp {
            Some(lp) => lp.left(self.started.elapsed()),
            None => {
                let budget = ready.prepared.doc.contract.budget.as_ref();
                Loop::new(limits(budget, self.args).ok()?).left(self.started.elapsed())
            }
        };
        let mut setup = (*ready.prepared.judging).clone();
        setup.flags = setup.flags.tightest(vcc_judge::RunLimits {
            tokens: left.tokens,
            cost: left.cost,
            ..Default::default()
        });
        Some(Arc::new(setup))
    }

    /// A check's summary joins the current iteration (or starts the first).
    fn record_check(&mut self, report: Report, took: Duration) {
        let summary = CheckSummary::of(&report, took);
        // What the judges spent counts against the loop's budgets.
        if let (Some(lp), Some(used)) = (self.lp.as_mut(), summary.judge_usage) {
            lp.usage.add(used);
            self.own.add(used);
        }
        let failing = if summary.failing.is_empty() {
            String::new()
        } else {
            format!(
                " ({} MUST not passed: {})",
                summary.failing.len(),
                summary.failing.join(", ")
            )
        };
        let verdict = summary.verdict;
        let index = match self.iterations.last_mut() {
            Some(it) if it.check.is_none() => {
                it.check = Some(summary);
                it.index
            }
            _ => {
                // The first check: it began as long ago as it took.
                let began = std::time::SystemTime::now()
                    .checked_sub(std::time::Duration::from_millis(summary.duration_ms))
                    .unwrap_or_else(std::time::SystemTime::now);
                self.iterations.push(Iteration {
                    index: 0,
                    started_at: Some(humantime::format_rfc3339_millis(began).to_string()),
                    utilisation: None,
                    command: None,
                    check: Some(summary),
                });
                0
            }
        };
        self.progress(&format!("check {index}: {}{failing}", verdict.as_str()));
        self.checks.push(report);
    }

    /// The deliverable root the checks walked (`--dir`, else the
    /// contract's `root:`, else its folder).
    fn root(&self) -> PathBuf {
        match (&self.ready, &self.args.dir) {
            (Some(ready), _) => ready.root.clone(),
            (None, Some(dir)) => dir.clone(),
            (None, None) => PathBuf::from("."),
        }
    }

    fn interrupted(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    fn progress(&self, line: &str) {
        if self.args.format == Format::Human {
            eprintln!("{}: {line}", self.who());
        }
    }

    /// `vcc converge`, or for a loop started inside another's command
    /// `vcc converge [child 2 CONTRACT]`: whose progress a line is, when
    /// nested loops write to the same terminal.
    fn who(&self) -> String {
        match &self.parent {
            Some(parent) => format!(
                "vcc converge [child {} {}]",
                parent.id,
                self.args.contract.display()
            ),
            None => "vcc converge".into(),
        }
    }

    fn write_feedback(
        &self,
        run: u32,
        feedback: &vcc_report::converge::Feedback,
    ) -> std::io::Result<[PathBuf; 3]> {
        let json_path = self.work.join(format!("feedback-{run}.json"));
        let md_path = self.work.join(format!("feedback-{run}.md"));
        let usage_path = self.work.join(format!("usage-{run}.jsonl"));
        let text = serde_json::to_string_pretty(feedback).map_err(std::io::Error::other)?;
        write_atomically(&json_path, format!("{text}\n").as_bytes())?;
        let mut md = String::new();
        // The first run gets the whole brief before what failed: the
        // worker learns every criterion, not only the failing ones.
        if run == 1
            && let Some(brief) = self.brief()
        {
            md.push_str(&brief.markdown());
            md.push_str("---\n\n");
        }
        md.push_str(&feedback.markdown());
        write_atomically(&md_path, md.as_bytes())?;
        std::fs::write(&usage_path, b"")?;
        Ok([json_path, md_path, usage_path])
    }

    /// The contract as the worker's brief (`vcc explain`), as first read.
    fn brief(&self) -> Option<vcc_contract::brief::Brief> {
        let ready = self.ready.as_ref()?;
        let mut check = format!("vcc check {}", self.args.contract.display());
        if let Some(d) = &self.args.dir {
            check.push_str(&format!(" --dir {}", d.display()));
        }
        Some(vcc_contract::brief::Brief::of(
            &ready.prepared.doc.contract,
            &self.args.contract.display().to_string(),
            &check,
        ))
    }

    /// The brief in prompt form, written once, for `$VCC_BRIEF`.
    fn write_brief(&self) -> Option<PathBuf> {
        let path = self.work.join("brief.txt");
        if !path.exists() {
            let brief = self.brief()?;
            write_atomically(&path, brief.prompt().as_bytes()).ok()?;
        }
        Some(path)
    }

    fn report(&self, why: Termination, detail: String) -> ConvergeReport {
        let last = self.checks.last();
        let lp = self.lp.as_ref();
        // Only the loop's own end says accepted: a last check that passed
        // under an edited contract, or after an interrupt, does not.
        let accepted =
            why == Termination::Accepted && last.is_some_and(|r| r.verdict == Verdict::Accepted);
        let checks: Vec<&Report> = self.checks.iter().collect();
        let mut iterations = self.iterations.clone();
        if let Some(l) = lp {
            let used = vcc_report::converge::utilisation(&l.limits, &iterations);
            for (it, u) in iterations.iter_mut().zip(used) {
                it.utilisation = Some(u);
            }
        }
        ConvergeReport {
            schema_version: SCHEMA_VERSION,
            lifecycle: why.lifecycle().to_string(),
            termination: TerminationInfo {
                reason: why,
                detail,
            },
            accepted,
            contract: FeedbackContract {
                path: self.args.contract.display().to_string(),
                id: last.and_then(|r| r.contract.id.clone()),
                title: last.and_then(|r| r.contract.title.clone()),
            },
            contract_digest: self.checks.first().and_then(|r| r.contract.digest.clone()),
            command: self.args.command.clone(),
            limits: lp.map(|l| l.limits),
            iterations,
            criteria: last
                .map(|r| {
                    r.criteria
                        .iter()
                        .map(|c| CriterionProgress {
                            id: c.id.clone(),
                            severity: c.severity,
                            status: c.status,
                            attempts: lp.map_or(0, |l| l.attempts(&c.id)),
                            passed_at: lp.and_then(|l| l.passed_at.get(&c.id).copied()),
                            attempts_until_pass: lp
                                .and_then(|l| l.attempts_to_pass.get(&c.id).copied()),
                        })
                        .collect()
                })
                .unwrap_or_default(),
            usage: lp.map(|l| l.usage).unwrap_or_default(),
            delegations: self.delegations.values().cloned().collect(),
            granted: self.parent.as_ref().map(|p| p.granted),
            metrics: Metrics::of(accepted, &self.iterations, &checks),
            duration_ms: self.started.elapsed().as_millis() as u64,
            last_check: last.cloned(),
        }
    }

    fn finish(&self, why: Termination, detail: String) -> i32 {
        let mut report = self.report(why, detail);
        let mut code = match why {
            Termination::Advisory if self.args.allow_advisory => exit::ACCEPTED,
            _ => why.exit_code(),
        };
        if let Err(e) = self.charge_parent(Some(why)) {
            eprintln!(
                "{}: the parent loop cannot be told how this one ended: {e}",
                self.who()
            );
        }
        if let Some(recorder) = &self.recorder {
            let digest = format!("blake3:{}", blake3::hash(json(&report).as_bytes()).to_hex());
            if let Err(e) = recorder.append_plain(Entry::of_loop(&report, Some(digest))) {
                eprintln!("{}: {e}", self.who());
                report.accepted = false;
                code = exit::INVALID;
            }
        }
        for (path, text) in report_files(self.args, &report) {
            if let Err(e) = write_atomically(&path, text.as_bytes()) {
                eprintln!(
                    "vcc converge: the report cannot be written to {}: {e}",
                    path.display()
                );
                report.accepted = false;
                code = exit::INVALID;
            }
        }
        match self.args.format {
            Format::Json => print_stdout(&json(&report)),
            Format::Human => {
                let runs = report.metrics.remediation_iterations;
                eprintln!(
                    "vcc converge: {} after {runs} run(s) of the command: {}",
                    if report.accepted {
                        "ACCEPTED".to_string()
                    } else {
                        format!("STOPPED, NOT accepted ({})", why.as_str())
                    },
                    vcc_report::text::clean(&report.termination.detail)
                );
            }
        }
        code
    }
}

/// The contract's budget, lowered by the flags (which may not raise it).
fn limits(budget: Option<&vcc_contract::Budget>, args: &ConvergeArgs) -> Result<Limits, String> {
    let b = budget.cloned().unwrap_or_default();
    fn lower<T: PartialOrd + std::fmt::Display + Copy>(
        flag: Option<T>,
        contract: Option<T>,
        name: &str,
    ) -> Result<Option<T>, String> {
        match (flag, contract) {
            (Some(f), Some(c)) if f > c => Err(format!(
                "--max-{name} {f} is above the contract's budget ({name}: {c}): flags may lower the budget, never raise it"
            )),
            (Some(f), _) => Ok(Some(f)),
            (None, c) => Ok(c),
        }
    }
    if args.max_iterations == Some(0) || args.stagnation == Some(0) {
        return Err("--max-iterations and --stagnation must be 1 or more".into());
    }
    if args.max_cost.is_some_and(|c| !(c.is_finite() && c >= 0.0)) {
        return Err("--max-cost must be a number of 0 or more".into());
    }
    let stagnation = match (args.stagnation, b.stagnation) {
        (Some(f), Some(c)) if f > c => {
            return Err(format!(
                "--stagnation {f} is above the contract's budget (stagnation: {c}): flags may lower the budget, never raise it"
            ));
        }
        (f, c) => f.or(c).unwrap_or(DEFAULT_STAGNATION),
    };
    let ms = |d: vcc_contract::DurationSpec| d.0.as_millis() as u64;
    Ok(Limits {
        iterations: lower(args.max_iterations, b.iterations, "iterations")?
            .unwrap_or(DEFAULT_ITERATIONS),
        time_ms: lower(args.max_time.map(ms), b.time.map(ms), "time")?,
        cost: lower(args.max_cost, b.cost, "cost")?,
        tokens: lower(args.max_tokens, b.tokens, "tokens")?,
        stagnation,
    })
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The report files asked for, with their text.
fn report_files(args: &ConvergeArgs, report: &ConvergeReport) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    if let Some(path) = &args.report {
        files.push((path.clone(), json(report)));
    }
    if let Some(path) = &args.report_html {
        let last: Vec<Report> = report.last_check.iter().cloned().collect();
        files.push((path.clone(), vcc_formats::html::write(&last, Some(report))));
    }
    files
}

fn json(report: &ConvergeReport) -> String {
    serde_json::to_string_pretty(report)
        .map_or_else(|e| format!("{{\"error\": \"{e}\"}}\n"), |s| s + "\n")
}
