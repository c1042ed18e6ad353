//! One criterion's evaluation (`Ctx`): its targets, its validator run in
//! the sandbox, what the run returned made into the report's row, and its
//! evidence stored.

use super::*;
use crate::guard::Call;

/// A guest call's outcome and how long it ran.
pub(super) type Ran = (RunOutput, Duration);

/// A criterion decided by the host, or waiting for its validator's call.
pub(super) enum Step {
    Done(Evaluated),
    Call(CriterionReport, Call<Ran>),
}

/// What the host decided for a criterion, or the call that decides it.
enum Prepared {
    Decided(RunOutput),
    Run(Call<Ran>),
}

/// The row of a criterion whose validator ran (or was stopped).
pub(super) fn finish(mut report: CriterionReport, out: RunOutput, took: Duration) -> Evaluated {
    report.status = out.status;
    report.reason = out.reason;
    report.summary = out.summary;
    report.findings = out.findings;
    report.files_read = out.files_read;
    report.judge_calls = out.judge_calls;
    report.duration_ms = took.as_millis() as u64;
    (report, out.evidence, out.saw_change)
}

/// A call's outcome, or the error row of a stopped one; a timeout says
/// where the budget is set (the usual fix is a limit).
pub(super) fn outcome(ran: Result<Ran, Stopped>, timeout: Duration) -> Ran {
    let (mut out, took) = ran.unwrap_or_else(|stopped| {
        let out = match stopped {
            Stopped::TimedOut => RunOutput::error(
                Reason::Timeout,
                format!(
                    "the validator did not return within its {timeout:?} budget (+{:?} grace) and was abandoned while blocked in a host call",
                    grace(timeout)
                ),
            ),
            Stopped::Failed => {
                RunOutput::error(Reason::Internal, "the run failed inside the host")
            }
        };
        (out, timeout + grace(timeout))
    });
    if out.reason == Reason::Timeout {
        out.summary = format!(
            "{} (its budget is {timeout:?}; raise it with `limits: {{ timeout: 30s }}` on the criterion or the contract, at most 1h)",
            out.summary
        );
    }
    (out, took)
}

/// What every criterion's evaluation shares.
pub(super) struct Ctx<'a> {
    pub(super) loader: &'a Loader,
    pub(super) contract: &'a Contract,
    pub(super) validators: &'a HashMap<String, LoadResult>,
    pub(super) snapshot: &'a Arc<Snapshot>,
    /// Deliverable id → (files, entries that could not be read).
    pub(super) resolved: &'a HashMap<&'a str, (Vec<String>, Vec<String>)>,
    pub(super) listing: &'a Arc<HashMap<String, Vec<String>>>,
    pub(super) tree: &'a Arc<OnceLock<Tree>>,
    /// Criterion id → the base it was taken from unchanged.
    pub(super) origins: HashMap<&'a str, &'a str>,
    pub(super) signers: Option<Arc<RecordSigners>>,
    pub(super) judges: Option<Arc<vcc_judge::Run>>,
    /// This evaluation, among the process's: what a kept instance may
    /// serve (`sandbox/warm.rs`).
    pub(super) run: u64,
    /// Every file a run looked up, for the second look.
    pub(super) consulted: Arc<std::sync::Mutex<HashSet<String>>>,
}

/// Each criterion's line in the contract file, when it is written there
/// (one taken from a base is written in the base's file): where a report
/// format points a result that has no finding of its own.
pub(super) fn contract_lines(doc: &Document, rows: &mut [CriterionReport]) {
    let file = doc.path.display().to_string();
    for row in rows {
        let Some(i) = doc.contract.criteria.iter().position(|c| c.id == row.id) else {
            continue;
        };
        let field = vcc_contract::FieldPath::root().key("criteria").index(i);
        if let (written, Some(line)) = doc.written_at(&field)
            && written == file
        {
            row.line = u32::try_from(line).ok();
        }
    }
}

impl Ctx<'_> {
    /// The host's own MUST row for a required deliverable that no MUST
    /// criterion targets: pass when it has files, fail when it is
    /// missing, error when it holds what vcc does not read.
    pub(super) fn presence(&self, d: &Deliverable) -> CriterionReport {
        let (files, blocked) = self
            .resolved
            .get(d.id.as_str())
            .cloned()
            .unwrap_or_default();
        let (status, reason, summary, findings) = if let Some(why) = &self.snapshot.truncated {
            (
                Status::Error,
                Reason::UnreadableDeliverable,
                format!("{why}; nothing is judged on a partial tree"),
                Vec::new(),
            )
        } else if !blocked.is_empty() {
            (
                Status::Error,
                Reason::UnreadableDeliverable,
                format!(
                    "required deliverable `{}` includes entries vcc does not read: {}",
                    d.id,
                    blocked.join(", ")
                ),
                Vec::new(),
            )
        } else if files.is_empty() {
            let missing = self.missing(d);
            (
                missing.status,
                missing.reason,
                missing.summary,
                missing.findings,
            )
        } else {
            (
                Status::Pass,
                Reason::DeliverablePresent,
                format!(
                    "required deliverable `{}` ({}) is present: {} file(s)",
                    d.id,
                    d.path,
                    files.len()
                ),
                Vec::new(),
            )
        };
        CriterionReport {
            id: vcc_contract::model::presence_id(&d.id),
            severity: Severity::Must,
            status,
            reason,
            summary,
            description: Some(format!(
                "vcc checks that the required deliverable `{}` exists: no MUST criterion of the contract targets it",
                d.id
            )),
            targets: vec![TargetReport {
                id: d.id.clone(),
                files: files.len() as u64,
            }],
            findings,
            evidence: Vec::new(),
            files_read: Vec::new(),
            judge_calls: Vec::new(),
            validator: crate::host_rows::host_validator("vcc: required deliverable present"),
            origin: None,
            suspect_inputs: Vec::new(),
            on_fail: None,
            produced_artifact: None,
            line: None,
            duration_ms: 0,
        }
    }

    /// What a missing required deliverable is: a failure, saying which
    /// exclude rule hid it when one did.
    pub(super) fn missing(&self, d: &Deliverable) -> RunOutput {
        let hidden = paths::check(&d.path)
            .ok()
            .and_then(|spec| self.snapshot.hidden_by(&spec).cloned())
            .map(|e| format!("; `{}` was excluded ({})", e.path, e.rule))
            .unwrap_or_default();
        RunOutput {
            status: Status::Fail,
            reason: Reason::MissingDeliverable,
            summary: format!(
                "required deliverable `{}` ({}) is missing{hidden}",
                d.id, d.path
            ),
            findings: vec![vcc_report::Finding {
                message: format!("required deliverable `{}` matched no file", d.id),
                path: Some(normal_path(&d.path)),
                line: None,
                column: None,
                rule: Some("missing_deliverable".into()),
            }],
            evidence: Vec::new(),
            files_read: Vec::new(),
            saw_change: false,
            judge_calls: Vec::new(),
        }
    }

    /// A criterion's outcome as an earlier run computed it for the same
    /// reuse key; a criterion that run did not have is an error.
    pub(super) fn reused_row(&self, c: &Criterion, prior: &PriorVerdict) -> Evaluated {
        let mut report = self.base_report(c);
        match prior.criteria.iter().find(|p| p.id == c.id) {
            Some(p) => {
                report.status = p.status;
                report.reason = p.reason;
                report.summary = format!(
                    "{} (reused from ledger seq {})",
                    p.summary, prior.reused.seq
                );
            }
            None => {
                report.summary = format!(
                    "the reused verdict (ledger seq {}) has no row for this criterion",
                    prior.reused.seq
                );
            }
        }
        (report, Vec::new(), false)
    }

    /// Start a criterion: decided by the host at once, or a guest call to
    /// run (`Step::Call`), finished by `finish` with the call's outcome.
    pub(super) fn start(&self, c: &Criterion) -> Step {
        let mut report = self.base_report(c);
        if let Some(why) = &c.not_evaluated {
            // Never run, never hidden: a row that says why. On a MUST it
            // cannot pass (lint refuses such a contract before this).
            report.status = Status::Skip;
            report.reason = Reason::NotEvaluated;
            report.summary = format!("not evaluated: {why}");
            report.validator.name = "(none)".into();
            report.validator.component = "vcc".into();
            return Step::Done((report, Vec::new(), false));
        }
        let loaded = self.validators.get(&c.validator);
        match self.prepare(c, loaded) {
            Prepared::Run(call) => Step::Call(report, call),
            Prepared::Decided(out) => Step::Done(finish(report, out, Duration::ZERO)),
        }
    }

    /// The report of a criterion before it ran: status error until decided.
    pub(super) fn base_report(&self, c: &Criterion) -> CriterionReport {
        let binding = self.contract.validators.get(&c.validator);
        let mut report = CriterionReport {
            id: c.id.clone(),
            severity: c.severity,
            status: Status::Error,
            reason: Reason::Internal,
            summary: String::new(),
            description: c.description.clone(),
            targets: c
                .targets
                .iter()
                .map(|t| TargetReport {
                    id: t.clone(),
                    files: self
                        .resolved
                        .get(t.as_str())
                        .map_or(0, |r| r.0.len() as u64),
                })
                .collect(),
            findings: Vec::new(),
            evidence: Vec::new(),
            files_read: Vec::new(),
            judge_calls: Vec::new(),
            validator: ValidatorReport {
                name: c.validator.clone(),
                component: binding.map(|b| b.shown()).unwrap_or_default(),
                digest: None,
                wit_version: None,
                describes_as: None,
                version: None,
                bundle: None,
            },
            origin: self.origins.get(c.id.as_str()).map(|o| o.to_string()),
            suspect_inputs: Vec::new(),
            on_fail: c.on_fail.clone(),
            produced_artifact: c
                .extensions
                .get(vcc_contract::vcc1::PRODUCED_KEY)
                .and_then(serde_json::Value::as_str)
                .map(str::to_string),
            line: None,
            duration_ms: 0,
        };
        if let Some(Ok(l)) = self.validators.get(&c.validator) {
            report.validator.digest = Some(l.digest.clone());
            report.validator.wit_version = Some(l.wit_version.clone());
            report.validator.describes_as = Some(l.description.name.clone());
            report.validator.version = Some(l.description.version.clone());
            report.validator.bundle = l.bundle.clone();
        }
        report
    }

    /// Decide what the host can decide itself; otherwise the validator's
    /// call, to run on a worker thread.
    fn prepare(&self, c: &Criterion, loaded: Option<&LoadResult>) -> Prepared {
        let loaded = match loaded {
            Some(Ok(l)) => l.clone(),
            Some(Err(cause)) => {
                return Prepared::Decided(RunOutput::error(
                    Reason::ValidatorUnavailable,
                    format!("validator `{}` cannot be used: {cause}", c.validator),
                ));
            }
            None => {
                return Prepared::Decided(RunOutput::error(
                    Reason::ValidatorUnavailable,
                    format!("validator `{}` was not loaded", c.validator),
                ));
            }
        };
        if let Some(why) = &self.snapshot.truncated {
            return Prepared::Decided(RunOutput::error(
                Reason::UnreadableDeliverable,
                format!("{why}; nothing is judged on a partial tree"),
            ));
        }
        let mut targets = Vec::new();
        for t in &c.targets {
            let Some((files, blocked)) = self.resolved.get(t.as_str()) else {
                return Prepared::Decided(RunOutput::error(
                    Reason::Internal,
                    format!("target `{t}` was not resolved"),
                ));
            };
            if !blocked.is_empty() {
                return Prepared::Decided(RunOutput::error(
                    Reason::UnreadableDeliverable,
                    format!(
                        "target `{t}` includes entries vcc does not read: {}",
                        blocked.join(", ")
                    ),
                ));
            }
            let deliverable = self.contract.deliverables.iter().find(|d| &d.id == t);
            if files.is_empty()
                && let Some(d) = deliverable.filter(|d| d.required)
            {
                return Prepared::Decided(self.missing(d));
            }
            targets.push((t.clone(), files.clone()));
        }
        let limits = self.limits(c);
        let timeout = limits.timeout;
        let reuse = loaded.stateless.then(|| crate::sandbox::Reuse {
            run: self.run,
            validator: loaded.digest.clone(),
            memory: limits.memory,
        });
        let request = Request {
            criterion_id: c.id.clone(),
            params: c
                .params
                .as_ref()
                .map_or_else(|| "{}".to_string(), |p| p.to_string()),
            targets,
            snapshot: self.snapshot.clone(),
            deliverables: self.listing.clone(),
            order: self
                .contract
                .deliverables
                .iter()
                .map(|d| d.id.clone())
                .collect(),
            tree: self.tree.clone(),
            limits,
            signers: self.signers.clone(),
            judge: match (&self.judges, c.judges.is_empty()) {
                (Some(run), false) => Some(crate::judging::JudgeGrant {
                    run: run.clone(),
                    granted: c.judges.clone(),
                }),
                _ => None,
            },
            reuse,
            consulted: Some(self.consulted.clone()),
        };
        let sandbox = self.loader.sandbox().clone();
        let pre = loaded.pre.clone();
        let progress = self.loader.progress().clone();
        let what = format!("judging {}", c.id);
        Prepared::Run(Call {
            budget: timeout,
            run: Box::new(move || {
                let _judging = progress.start(what);
                let started = Instant::now();
                (sandbox.validate(&pre, request), started.elapsed())
            }),
        })
    }

    pub(super) fn limits(&self, c: &Criterion) -> RunLimits {
        let own = c.limits.as_ref();
        let shared = self.contract.limits.as_ref();
        RunLimits {
            timeout: own
                .and_then(|l| l.timeout)
                .or_else(|| shared.and_then(|l| l.timeout))
                .map_or(
                    if c.judges.is_empty() {
                        DEFAULT_TIMEOUT
                    } else {
                        JUDGED_TIMEOUT
                    },
                    |t| t.0,
                ),
            memory: own
                .and_then(|l| l.memory)
                .or_else(|| shared.and_then(|l| l.memory))
                .map_or(DEFAULT_MEMORY, |m| m.0),
        }
    }
}
