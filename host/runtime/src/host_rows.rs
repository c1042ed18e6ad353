//! Rows the host judges itself, after every criterion ran: the contract's
//! provenance policy (against what vcc knows of its own run) and gates
//! (their criteria, and the signed approvals the caller verified).
//!
//! An approval counts only when its signature verified against a key the
//! trust policy gives the role, and it is bound to this contract's digest
//! and to the root digest of the very bytes this run judged: an approval
//! of other deliverables, or of an earlier version of them, is stale. It
//! counts once: each approval a gate needs is its own statement, for that
//! gate by name, from a signer no other approval of the gate counted.

use vcc_contract::Severity;
use vcc_contract::model::{Gate, GateWhen, ProvenancePolicy, gate_id, provenance_id};
use vcc_report::{CriterionReport, Finding, Reason, Status, TargetReport, ValidatorReport};

/// A signed approval statement, as the caller read and verified it.
#[derive(Debug, Clone, Default)]
pub struct Approval {
    /// Where it was read from, for messages.
    pub file: String,
    /// Trust-policy key ids whose signature over it verified.
    pub signers: Vec<String>,
    /// The roles the trust policy gives those signers.
    pub roles: Vec<String>,
    pub gate: String,
    pub role: String,
    pub score: Option<f64>,
    pub contract_digest: String,
    pub root_digest: String,
    /// Why it cannot count at all (unsigned, untrusted, not a statement).
    pub problem: Option<String>,
}

/// The agent's actions, as std/tool-calls read them from the transcript
/// attached to the run (`agentActions.logged`).
#[derive(Debug, Clone)]
pub enum Actions {
    /// At least one action, in a transcript std/tool-calls reads: how.
    Logged(String),
    /// No transcript, one without an action, or a file std/tool-calls
    /// does not read: why.
    Missing(String),
    /// std/tool-calls could not say (it could not run, or stopped): why.
    Unknown(String),
}

/// What the provenance row can see of the run.
pub struct RunFacts<'a> {
    /// Files of the root judged (the report's `deliverables.files`).
    pub files: usize,
    /// Paths of the files attached from outside the root.
    pub attached: Vec<String>,
    pub root_digest: &'a str,
    pub contract_digest: &'a str,
    /// What the agent's transcript, attached from outside the root, shows
    /// of its actions (when the policy requires `agentActions.logged`).
    pub actions: Option<&'a Actions>,
    /// The run signs an attestation of itself (`--attest`).
    pub signs: bool,
}

fn row(id: String, severity: Severity, description: String) -> CriterionReport {
    CriterionReport {
        id,
        severity,
        status: Status::Error,
        reason: Reason::Host,
        summary: String::new(),
        description: Some(description),
        targets: Vec::<TargetReport>::new(),
        findings: Vec::new(),
        evidence: Vec::new(),
        files_read: Vec::new(),
        judge_calls: Vec::new(),
        validator: host_validator(""),
        origin: None,
        suspect_inputs: Vec::new(),
        on_fail: None,
        produced_artifact: None,
        line: None,
        duration_ms: 0,
    }
}

/// The validator of a row the host judges itself.
pub fn host_validator(describes_as: &str) -> ValidatorReport {
    ValidatorReport {
        name: "(host)".into(),
        component: "vcc".into(),
        digest: None,
        wit_version: None,
        describes_as: (!describes_as.is_empty()).then(|| describes_as.to_string()),
        version: Some(env!("CARGO_PKG_VERSION").into()),
        bundle: None,
    }
}

fn finding(message: String, rule: &str) -> Finding {
    Finding {
        message,
        path: None,
        line: None,
        column: None,
        rule: Some(rule.into()),
    }
}

/// The run's own provenance against the policy.
pub fn provenance(policy: &ProvenancePolicy, facts: &RunFacts) -> CriterionReport {
    let mut r = row(
        provenance_id(&policy.id),
        Severity::Must,
        format!(
            "vcc checks its own record of this run against provenance policy `{}`",
            policy.id
        ),
    );
    r.validator.describes_as = Some("vcc: the run's own provenance".into());
    let mut held = Vec::new();
    // Requirements vcc could not judge in this run: the row is `error`
    // (withheld) unless another is plainly not met.
    let mut unknown = 0;
    for req in &policy.require {
        let outcome: Result<String, String> = match req.as_str() {
            "inputs.enumerated" | "artifactHashes.recorded" => Ok(format!(
                "the report lists the {} file(s) of the root judged, each with its blake3 and sha256 (root {}, the report's `deliverables.root_digest`){}",
                facts.files,
                facts.root_digest,
                match facts.attached.len() {
                    0 => String::new(),
                    n => format!(
                        "; and {n} file(s) attached from outside the root, each with its blake3 under `deliverables.attached`: {}",
                        facts.attached.join(", ")
                    ),
                }
            )),
            "tooling.recorded" => Ok("the report names vcc's version, its executable's digest and each validator's digest".into()),
            "parameters.recorded" | "dependencies.recorded" => Ok(format!(
                "the criteria's params and the deliverables' dependencies are the contract's ({})",
                facts.contract_digest
            )),
            "agentActions.logged" => match facts.actions {
                Some(Actions::Logged(how)) => Ok(how.clone()),
                Some(Actions::Missing(why)) => Err(why.clone()),
                Some(Actions::Unknown(why)) => {
                    unknown += 1;
                    Err(why.clone())
                }
                None => {
                    unknown += 1;
                    Err("the agent's transcript was not read in this run".into())
                }
            },
            "attestation.signed" if !facts.signs => Err(
                "the run signs no attestation: give `--attest FILE --key KEY`".into(),
            ),
            "attestation.signed" => Ok("the run signs a verification attestation (--attest)".into()),
            other => Err(format!("`{other}` is not a requirement vcc can check")),
        };
        match outcome {
            Ok(how) => held.push(format!("{req}: {how}")),
            Err(why) => r.findings.push(finding(format!("{req}: {why}"), req)),
        }
    }
    if r.findings.is_empty() {
        r.status = Status::Pass;
        r.summary = format!(
            "provenance policy `{}` holds: {}",
            policy.id,
            policy.require.join(", ")
        );
    } else if unknown == r.findings.len() {
        r.status = Status::Error;
        r.summary = format!(
            "provenance policy `{}`: {} requirement(s) could not be judged",
            policy.id, unknown
        );
    } else {
        r.status = Status::Fail;
        r.summary = format!(
            "provenance policy `{}`: {} of {} requirement(s) not met",
            policy.id,
            r.findings.len(),
            policy.require.len()
        );
    }
    r.findings
        .extend(held.into_iter().map(|h| finding(h, "held")));
    r
}

/// A gate: its criteria passed (`rows`: every row of this run so far) and
/// each approval it needs is signed, trusted for its role, and bound to
/// this contract and these bytes.
pub fn gate(
    gate: &Gate,
    rows: &[CriterionReport],
    approvals: &[Approval],
    contract_digest: &str,
    root_digest: &str,
) -> CriterionReport {
    let mut r = row(
        gate_id(&gate.id),
        Severity::Must,
        format!(
            "gate `{}` ({}): {} criterion(s), {} approval(s)",
            gate.id,
            gate.when.as_str(),
            gate.criteria.len(),
            gate.approvals.len()
        ),
    );
    r.validator.describes_as = Some("vcc: gate".into());
    let mut problems = Vec::new();
    // What the gate waits on that did not decide (a row `skip` or
    // `error`, an AI judgment that errs or whose judges disagree): the
    // gate is undecided as they are, withheld rather than closed.
    let mut undecided: Option<Status> = None;
    let mut closed = false;
    for c in &gate.criteria {
        match rows.iter().find(|row| &row.id == c) {
            Some(row) if row.status == Status::Pass => {}
            Some(row) => {
                wait_on(&mut undecided, &mut closed, row.status);
                problems.push(finding(
                    format!("criterion `{c}` did not pass ({})", status_word(row.status)),
                    "criterion",
                ));
            }
            None => {
                wait_on(&mut undecided, &mut closed, Status::Skip);
                problems.push(finding(
                    format!("criterion `{c}` was not evaluated in this run"),
                    "criterion",
                ));
            }
        }
    }
    let mut counted = Vec::new();
    // Each approval a gate needs takes its own statement, from a signer
    // no other approval of the gate counted (two `Reviewer` approvals are
    // two reviewers), or its own criterion's judgment. Required approvals
    // choose first: an optional one never takes what a required one needs.
    let mut taken = Taken::default();
    let (required, optional): (Vec<_>, Vec<_>) = gate.approvals.iter().partition(|a| !a.optional);
    for need in required.into_iter().chain(optional) {
        // Statements for this gate and role, and files that are not
        // approvals at all (which say nothing of their gate, so the row
        // says why they do not count). A statement for no gate (an empty
        // `gate`) is for none.
        let mine: Vec<(usize, &Approval)> = approvals
            .iter()
            .enumerate()
            .filter(|(_, a)| {
                (a.gate == gate.id && same_role(&a.role, &need.role))
                    || (a.gate.is_empty() && a.problem.is_some())
            })
            .collect();
        let mut why_not = Vec::new();
        let mut ok = None;
        for (i, a) in mine {
            let refused = if let Some(p) = &a.problem {
                Some(p.clone())
            } else if !a.roles.iter().any(|r| same_role(r, &need.role)) {
                Some(format!(
                    "signed by {}, whom the trust policy does not list for role `{}`",
                    if a.signers.is_empty() {
                        "no trusted key".to_string()
                    } else {
                        a.signers.join(", ")
                    },
                    need.role
                ))
            } else if a.contract_digest != contract_digest {
                Some(format!(
                    "approves another contract ({}, this one is {contract_digest})",
                    a.contract_digest
                ))
            } else if a.root_digest != root_digest {
                Some(format!(
                    "is stale: it approves deliverables with root digest {}, these are {root_digest}",
                    a.root_digest
                ))
            } else if let Some(min) = need.min_score
                && a.score.is_none_or(|s| !s.is_finite() || s < min)
            {
                Some(format!(
                    "scores {}, below the {min} the gate needs",
                    a.score.map_or("nothing".to_string(), |s| s.to_string())
                ))
            } else if taken.statements.contains(&i) {
                Some("counts already for another approval of this gate".to_string())
            } else {
                a.signers
                    .iter()
                    .find(|k| taken.signers.contains(k))
                    .map(|k| format!(
                        "signed by {k}, whose approval counts already for this gate: each approval it needs is another signer's"
                    ))
            };
            match refused {
                Some(why) => why_not.push(format!("{}: {why}", a.file)),
                None => {
                    ok = Some(a);
                    taken.statements.push(i);
                    taken.signers.extend(a.signers.iter().cloned());
                    break;
                }
            }
        }
        // An AI's approval may be a criterion's judgment instead, once.
        let judged = need.judged_by.as_ref().map(|id| {
            let row = rows.iter().find(|row| &row.id == id);
            (id, row.map(|r| (r.status, r.summary.clone())))
        });
        if ok.is_none()
            && let Some((id, Some((Status::Pass, summary)))) = &judged
            && !taken.judgments.contains(id)
        {
            taken.judgments.push((*id).clone());
            counted.push(format!(
                "{} approval of role `{}` judged by criterion `{id}`: {summary}",
                approval_kind(need.by),
                need.role
            ));
            continue;
        }
        if let Some((id, row)) = &judged {
            why_not.push(match row {
                Some((Status::Pass, _)) => format!(
                    "criterion `{id}` (the AI judgment) counts already for another approval of this gate"
                ),
                Some((status, summary)) => format!(
                    "criterion `{id}` (the AI judgment) did not pass ({}): {summary}",
                    status_word(*status)
                ),
                None => format!("criterion `{id}` (the AI judgment) was not evaluated in this run"),
            });
        }
        match ok {
            Some(a) => counted.push(format!(
                "{} approval of role `{}` by {}{}",
                approval_kind(need.by),
                need.role,
                a.signers.join(", "),
                a.score.map(|s| format!(" (score {s})")).unwrap_or_default()
            )),
            None if need.optional => counted.push(format!(
                "optional {} approval of role `{}`: none counts",
                approval_kind(need.by),
                need.role
            )),
            None => {
                // Without a signed approval that counts, an AI judgment
                // that did not decide leaves the approval undecided; any
                // other lack of one closes the gate.
                match &judged {
                    Some((_, Some((status @ (Status::Skip | Status::Error), _)))) => {
                        wait_on(&mut undecided, &mut closed, *status)
                    }
                    Some((_, None)) => wait_on(&mut undecided, &mut closed, Status::Skip),
                    _ => closed = true,
                }
                let detail = if why_not.is_empty() {
                    "none was found (`vcc approve` writes one)".to_string()
                } else {
                    why_not.join("; ")
                };
                problems.push(finding(
                    format!(
                        "no valid {} approval of role `{}`{}: {detail}",
                        approval_kind(need.by),
                        need.role,
                        need.min_score
                            .map(|m| format!(" with score ≥ {m}"))
                            .unwrap_or_default()
                    ),
                    "approval",
                ));
            }
        }
    }
    match (problems.is_empty(), closed, undecided) {
        (true, _, _) => {
            r.status = Status::Pass;
            r.summary = format!("gate `{}` is open", gate.id);
        }
        (false, false, Some(status)) => {
            r.status = status;
            r.summary = format!(
                "gate `{}` is undecided: what it waits on did not decide ({}); {} problem(s)",
                gate.id,
                status_word(status),
                problems.len()
            );
        }
        _ => {
            r.status = Status::Fail;
            r.summary = format!(
                "gate `{}` is withheld: {} problem(s)",
                gate.id,
                problems.len()
            );
        }
    }
    r.findings = problems;
    r.findings
        .extend(counted.into_iter().map(|c| finding(c, "counted")));
    r
}

/// What the approvals of one gate counted so far: statements (by index),
/// their signers (trust-policy key ids), criteria whose judgment stood in.
#[derive(Default)]
struct Taken {
    statements: Vec<usize>,
    signers: Vec<String>,
    judgments: Vec<String>,
}

/// Something a gate waits on is `status`: a failure closes the gate; a
/// `skip` or `error` leaves it undecided (an `error` outweighs a `skip`).
fn wait_on(undecided: &mut Option<Status>, closed: &mut bool, status: Status) {
    match status {
        Status::Pass => {}
        Status::Fail => *closed = true,
        Status::Error => *undecided = Some(Status::Error),
        Status::Skip => {
            undecided.get_or_insert(Status::Skip);
        }
    }
}

/// A gate checked only with `vcc check --gate ID`: a visible `skip`.
pub fn later_gate(gate: &Gate) -> CriterionReport {
    let mut r = row(
        gate_id(&gate.id),
        Severity::May,
        format!("gate `{}` ({})", gate.id, gate.when.as_str()),
    );
    r.status = Status::Skip;
    r.summary = format!(
        "gate `{}` applies {}: check it with `vcc check --gate {}`",
        gate.id,
        match gate.when {
            GateWhen::BeforeFinal => "before the final verdict",
            GateWhen::BeforePackaging => "before packaging",
            GateWhen::BeforeDelivery => "before delivery",
        },
        gate.id
    );
    r
}

fn approval_kind(k: vcc_contract::model::ApprovalKind) -> &'static str {
    match k {
        vcc_contract::model::ApprovalKind::Human => "human",
        vcc_contract::model::ApprovalKind::Ai => "AI",
    }
}

/// `role:Reviewer` and `Reviewer` are one role.
pub fn same_role(a: &str, b: &str) -> bool {
    a.trim_start_matches("role:") == b.trim_start_matches("role:")
}

fn status_word(s: Status) -> &'static str {
    match s {
        Status::Pass => "pass",
        Status::Fail => "fail",
        Status::Skip => "skip",
        Status::Error => "error",
    }
}
