//! One ledger entry: what a check (or a loop) decided, about which bytes,
//! by which code — and its projection onto the outcomes of verify-gated
//! admission (`success | blocked | failed | skipped`, `accepted |
//! withheld`), so a history can be counted with honest denominators.
//!
//! The mapping, for a check (and a merge of shards): accepted → success;
//! rejected, withheld and advisory → blocked (the work can still be
//! fixed); invalid → failed. A shard (`check --partition`) decides
//! nothing alone: skipped, whatever its rows say (its merge is the
//! check). For
//! a loop's end: accepted → success; a budget, stagnation, abort, attempts,
//! a changed contract, a command that failed or could not start, unreadable
//! usage, an invalid contract → failed; interrupted or unfinished →
//! skipped (no outcome is known). Only `success` is `accepted`.

use serde::{Deserialize, Serialize};
use vcc_report::converge::{ConvergeReport, Termination};
use vcc_report::{Report, Status, Verdict};

/// What produced an entry. Check-level rows (`check`, `merge`,
/// `converge_check`, `hook`, `mcp`), loop-level rows (`converge_end`) and
/// shards (`shard`) are never counted together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Check,
    ConvergeCheck,
    ConvergeEnd,
    Hook,
    Mcp,
    /// `vcc check --partition`: one share of a contract's rows.
    Shard,
    /// `vcc merge`: the shards put together, the verdict of the whole.
    Merge,
}

impl Kind {
    pub fn is_loop(self) -> bool {
        self == Kind::ConvergeEnd
    }

    pub fn is_shard(self) -> bool {
        self == Kind::Shard
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Check => "check",
            Kind::ConvergeCheck => "converge_check",
            Kind::ConvergeEnd => "converge_end",
            Kind::Hook => "hook",
            Kind::Mcp => "mcp",
            Kind::Shard => "shard",
            Kind::Merge => "merge",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Success,
    Blocked,
    Failed,
    Skipped,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::Blocked => "blocked",
            Outcome::Failed => "failed",
            Outcome::Skipped => "skipped",
        }
    }

    pub fn of_check(v: Verdict) -> Outcome {
        match v {
            Verdict::Accepted => Outcome::Success,
            Verdict::Rejected | Verdict::Withheld | Verdict::Advisory => Outcome::Blocked,
            Verdict::Invalid => Outcome::Failed,
        }
    }

    pub fn of_loop(t: Termination) -> Outcome {
        match t {
            Termination::Accepted => Outcome::Success,
            Termination::Interrupted | Termination::Unfinished => Outcome::Skipped,
            _ => Outcome::Failed,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Acceptance {
    Accepted,
    Withheld,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The entry's index in the log, from 0 (the leaf index of its tree).
    pub seq: u64,
    /// RFC 3339 UTC, when it was appended.
    pub time: String,
    pub run_id: String,
    pub kind: Kind,
    pub contract: EntryContract,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_digest: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<Git>,
    #[serde(default)]
    pub validators: Vec<EntryValidator>,
    pub verdict: Verdict,
    pub reason: String,
    #[serde(default)]
    pub criteria: Vec<EntryCriterion>,
    /// blake3 of the JSON report of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_digest: Option<String>,
    pub vcc_version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_digest: Option<String>,
    pub outcome: Outcome,
    pub acceptance_status: Acceptance,
    /// A loop's end: why it stopped, and its runs of the command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub termination: Option<Termination>,
    /// A loop's check: which iteration (0 is the first check).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iteration: Option<u32>,
    /// Everything a computed verdict depended on, hashed (see
    /// `vcc check --reuse`); absent when not reusable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reuse_key: Option<String>,
    /// This verdict was reused from that entry, not computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reused_from: Option<u64>,
    /// Base64 of the Merkle root of the entries before this one: each
    /// entry is chained to the history it was appended to.
    pub prev_root: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntryContract {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Git {
    pub commit: String,
    /// Whether the work tree had changes against the commit (read from
    /// the repository's files, no `git` process; unknown when they could
    /// not be read without a guess).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dirty: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntryValidator {
    pub name: String,
    pub component: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// `NAME@VERSION` and manifest digest, for a bundle validator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bundle: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntryCriterion {
    pub id: String,
    pub severity: vcc_contract::Severity,
    pub status: Status,
    pub reason: vcc_report::Reason,
    pub summary: String,
    /// Digests of the evidence items it returned.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<String>,
}

impl Entry {
    /// The entry of a check's report (`seq` and `prev_root` are set when
    /// it is appended).
    pub fn of_check(
        kind: Kind,
        report: &Report,
        report_digest: Option<String>,
        git_dirty: Option<bool>,
    ) -> Entry {
        let mut validators: Vec<EntryValidator> = Vec::new();
        for c in &report.criteria {
            let v = &c.validator;
            if validators
                .iter()
                .any(|x| x.name == v.name && x.digest == v.digest)
            {
                continue;
            }
            validators.push(EntryValidator {
                name: v.name.clone(),
                component: v.component.clone(),
                digest: v.digest.clone(),
                bundle: v
                    .bundle
                    .as_ref()
                    .map(|b| format!("{}@{} {}", b.name, b.version, b.manifest)),
            });
        }
        let outcome = if kind.is_shard() {
            Outcome::Skipped
        } else {
            Outcome::of_check(report.verdict)
        };
        Entry {
            seq: 0,
            time: vcc_report::now_rfc3339(),
            run_id: report.run.id.clone(),
            kind,
            contract: EntryContract {
                path: report
                    .contract
                    .absolute_path
                    .clone()
                    .unwrap_or_else(|| report.contract.path.clone()),
                id: report.contract.id.clone(),
                digest: report.contract.digest.clone(),
            },
            root: report
                .deliverables
                .as_ref()
                .map(|d| d.root_absolute.clone()),
            root_digest: report.deliverables.as_ref().map(|d| d.root_digest.clone()),
            git: report.run.commit.clone().map(|commit| Git {
                commit,
                dirty: git_dirty,
            }),
            validators,
            verdict: report.verdict,
            reason: report.reason.clone(),
            criteria: report
                .criteria
                .iter()
                .map(|c| EntryCriterion {
                    id: c.id.clone(),
                    severity: c.severity,
                    status: c.status,
                    reason: c.reason,
                    summary: c.summary.clone(),
                    evidence: c.evidence.iter().map(|e| e.digest.clone()).collect(),
                })
                .collect(),
            report_digest,
            vcc_version: report.runtime.vcc_version.clone(),
            host_digest: report.runtime.host_digest.clone(),
            outcome,
            acceptance_status: acceptance(outcome),
            termination: None,
            iteration: None,
            reuse_key: report.runtime.reuse_key.clone(),
            reused_from: report.reused.as_ref().map(|r| r.seq),
            prev_root: String::new(),
        }
    }

    /// The entry of a loop's end: its termination, and its last check.
    pub fn of_loop(report: &ConvergeReport, report_digest: Option<String>) -> Entry {
        let last = report.last_check.as_ref();
        let mut entry = match last {
            Some(r) => Entry::of_check(Kind::ConvergeEnd, r, None, None),
            None => Entry::of_check(
                Kind::ConvergeEnd,
                &Report::unfinished(&report.contract.path),
                None,
                None,
            ),
        };
        let outcome = Outcome::of_loop(report.termination.reason);
        entry.kind = Kind::ConvergeEnd;
        entry.outcome = outcome;
        entry.acceptance_status = acceptance(outcome);
        entry.termination = Some(report.termination.reason);
        entry.reason = report.termination.detail.clone();
        entry.report_digest = report_digest;
        entry.reuse_key = None;
        entry.reused_from = None;
        entry.contract.digest = report.contract_digest.clone().or(entry.contract.digest);
        entry.iteration = Some(report.metrics.remediation_iterations);
        entry
    }

    /// The entry as its line in the log (compact JSON, no newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

fn acceptance(outcome: Outcome) -> Acceptance {
    match outcome {
        Outcome::Success => Acceptance::Accepted,
        _ => Acceptance::Withheld,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_success_is_accepted_and_interrupted_loops_are_unknown() {
        assert_eq!(Outcome::of_check(Verdict::Accepted), Outcome::Success);
        assert_eq!(Outcome::of_check(Verdict::Withheld), Outcome::Blocked);
        assert_eq!(Outcome::of_check(Verdict::Invalid), Outcome::Failed);
        assert_eq!(Outcome::of_loop(Termination::Stagnation), Outcome::Failed);
        assert_eq!(
            Outcome::of_loop(Termination::ContractChanged),
            Outcome::Failed
        );
        assert_eq!(Outcome::of_loop(Termination::Interrupted), Outcome::Skipped);
        assert_eq!(acceptance(Outcome::Blocked), Acceptance::Withheld);
    }

    #[test]
    fn a_shard_is_no_outcome_of_its_own() {
        let mut report = Report::unfinished("c.yaml");
        report.verdict = Verdict::Rejected;
        let shard = Entry::of_check(Kind::Shard, &report, None, None);
        assert_eq!(shard.outcome, Outcome::Skipped);
        assert!(shard.to_line().contains("\"kind\":\"shard\""));
        let merge = Entry::of_check(Kind::Merge, &report, None, None);
        assert_eq!(merge.outcome, Outcome::Blocked);
    }
}
