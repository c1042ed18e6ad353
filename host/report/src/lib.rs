//! The vcc report and the termination law.
//!
//! Validators report; the host decides. The decision lives here, in
//! [`law::decide`], away from the runtime, so it can be read in one screen
//! and tested against a reference. Nothing here depends on wasmtime.

use serde::{Deserialize, Serialize};
use vcc_contract::{OnFail, Problem, Severity};

pub mod budget;
pub mod converge;
pub mod delegation;
#[cfg(feature = "fixture")]
pub mod fixture;
pub mod harness;
pub mod judge;
pub mod output;
pub mod partition;
pub mod text;

/// Bumped on any incompatible change to the JSON report.
pub const SCHEMA_VERSION: u32 = 1;

/// Per criterion, recorded by the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The validator says the criterion holds.
    Pass,
    /// The validator says it does not hold, or a required target is missing.
    Fail,
    /// The validator could not judge.
    Skip,
    /// Set by the host only: the validator could not be run to a trustworthy
    /// answer (trap, timeout, limits, malformed output, unavailable).
    Error,
}

/// The run's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Every MUST criterion passed (and there is at least one).
    Accepted,
    /// At least one MUST criterion failed.
    Rejected,
    /// No MUST failed, but at least one was skipped or errored, or the
    /// deliverables changed while the run was in progress.
    Withheld,
    /// The contract could not be evaluated at all.
    Invalid,
    /// The contract is advisory: it reports, and is never accepted.
    Advisory,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Accepted => "accepted",
            Verdict::Rejected => "rejected",
            Verdict::Withheld => "withheld",
            Verdict::Invalid => "invalid",
            Verdict::Advisory => "advisory",
        }
    }
}

/// Why the host set a status (stable names, for tools).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The validator decided (pass, fail or skip).
    Validator,
    /// A required target deliverable matched no file.
    MissingDeliverable,
    /// The host's own row for a required deliverable no MUST criterion
    /// targets: it is present.
    DeliverablePresent,
    /// The contract says vcc cannot judge this criterion (`not_evaluated`,
    /// such as a VCC v1 criterion no validator maps): a visible `skip`.
    NotEvaluated,
    /// A row the host judges itself from what it knows of the run: a
    /// gate (its criteria and signed approvals) or the provenance policy.
    Host,
    /// A target holds something the host would not hash (special file,
    /// oversized or unreadable file, a name that is not UTF-8).
    UnreadableDeliverable,
    /// The component is missing, does not load, has an unsupported WIT
    /// version or does not match its pinned digest.
    ValidatorUnavailable,
    /// The wall-clock budget ran out.
    Timeout,
    /// The guest tried to grow memory past its limit.
    MemoryLimit,
    StackOverflow,
    /// The guest trapped (a panic, `unreachable`, a bad memory access...).
    Trap,
    /// The guest called `exit()` instead of returning.
    Exit,
    /// stdout/stderr, evidence or the returned value exceeded its cap.
    OutputLimit,
    /// The returned value broke the interface's rules.
    MalformedOutput,
    /// The validator returned `err`: it could not work.
    ValidatorError,
    /// The validator refused the criterion's params at run time (`err`
    /// starting `invalid params:`): a contract bug, not the deliverables'.
    InvalidParams,
    /// A bug or an I/O failure in the host.
    Internal,
}

/// The termination law and the exit codes.
pub mod law {
    use super::{Severity, Status, Verdict};

    /// A run is accepted if and only if it is not advisory, has at least one
    /// MUST criterion, and every MUST criterion passed. SHOULD and MAY never
    /// change the verdict.
    pub fn decide(
        advisory: bool,
        outcomes: impl IntoIterator<Item = (Severity, Status)>,
    ) -> Verdict {
        let (mut musts, mut failed, mut unsure) = (0usize, false, false);
        for (severity, status) in outcomes {
            if severity != Severity::Must {
                continue;
            }
            musts += 1;
            match status {
                Status::Pass => {}
                Status::Fail => failed = true,
                Status::Skip | Status::Error => unsure = true,
            }
        }
        match () {
            _ if advisory => Verdict::Advisory,
            _ if musts == 0 => Verdict::Invalid,
            _ if failed => Verdict::Rejected,
            _ if unsure => Verdict::Withheld,
            _ => Verdict::Accepted,
        }
    }

    /// What every way of running vcc does with an advisory contract, in
    /// the one sentence each says it with: `vcc check` and the MCP `check`
    /// tool report it (exit 1, 0 with --allow-advisory), a stop hook lets
    /// the stop go on with the report, `vcc converge` stops after its first
    /// check without running its command.
    pub const ADVISORY: &str = "an advisory contract reports and never accepts: nothing is accepted and nothing is blocked, so there is nothing to work towards";

    /// `vcc check` exit codes.
    pub mod exit {
        /// The run was accepted (or advisory with `--allow-advisory`).
        pub const ACCEPTED: i32 = 0;
        /// Rejected, withheld, or advisory.
        pub const NOT_ACCEPTED: i32 = 1;
        /// The contract could not be evaluated, or vcc itself failed.
        pub const INVALID: i32 = 2;
    }

    pub fn exit_code(verdict: Verdict, allow_advisory: bool) -> i32 {
        match verdict {
            Verdict::Accepted => exit::ACCEPTED,
            Verdict::Advisory if allow_advisory => exit::ACCEPTED,
            Verdict::Rejected | Verdict::Withheld | Verdict::Advisory => exit::NOT_ACCEPTED,
            Verdict::Invalid => exit::INVALID,
        }
    }
}

/// The verdict in words, from the MUST rows.
pub fn verdict_reason(verdict: Verdict, criteria: &[CriterionReport], contract_id: &str) -> String {
    let musts: Vec<&CriterionReport> = criteria
        .iter()
        .filter(|c| c.severity == Severity::Must)
        .collect();
    let ids = |status: Status| -> Vec<String> {
        musts
            .iter()
            .filter(|c| c.status == status)
            .map(|c| c.id.clone())
            .collect()
    };
    match verdict {
        Verdict::Accepted => format!("all {} MUST criteria passed", musts.len()),
        Verdict::Rejected => format!("MUST criteria failed: {}", ids(Status::Fail).join(", ")),
        Verdict::Withheld => {
            let mut open = ids(Status::Skip);
            open.extend(ids(Status::Error));
            format!(
                "no MUST failed, but these did not pass: {}",
                open.join(", ")
            )
        }
        Verdict::Advisory => {
            let passed = criteria.iter().filter(|c| c.status == Status::Pass).count();
            format!(
                "advisory contract `{contract_id}`: {passed} of {} criteria passed; advisory contracts are never accepted",
                criteria.len()
            )
        }
        Verdict::Invalid => "the contract has no MUST criterion".into(),
    }
}

/// The JSON report of one `vcc check`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    pub schema_version: u32,
    pub verdict: Verdict,
    /// The verdict in words.
    pub reason: String,
    pub contract: ContractInfo,
    /// Absent when the run stopped before walking the deliverables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deliverables: Option<DeliverablesInfo>,
    pub criteria: Vec<CriterionReport>,
    /// Integrity-pass problems (errors make the run invalid).
    pub problems: Vec<Problem>,
    /// The criteria a partial run (`--only`) evaluated; such a run is never
    /// accepted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub partial: Vec<String>,
    /// `vcc check --gate ID`: the verdict is about that gate only (its
    /// criteria and approvals): accepted means the gate is open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<String>,
    /// Which run this is: its id, when it started, the commit it judged.
    #[serde(default)]
    pub run: RunInfo,
    /// Set when the verdict was not computed but taken from a ledger entry
    /// for the very same inputs (`vcc check --reuse`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reused: Option<Reused>,
    /// `vcc check --reuse` that reused nothing: why the verdict was
    /// computed (no ledger key to check the log with, a log that does not
    /// verify, no signed entry for these inputs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_reused: Option<String>,
    /// Where the verdict was logged (`--ledger`). Added after the entry was
    /// appended: the entry's `report_digest` is of the report without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ledger: Option<LedgerRef>,
    /// The run's use of AI judges, when a criterion was granted one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judging: Option<judge::JudgingInfo>,
    /// A shard (`vcc check --partition`): which share of the contract's
    /// rows it judged. A shard is never accepted: `vcc merge` decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<partition::PartitionInfo>,
    /// The report of `vcc merge`: the shards it was put together from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged: Option<partition::MergeInfo>,
    pub runtime: RuntimeInfo,
}

/// Which run produced a report, for CI systems, people and the ledger.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// 32 hex digits, random per run.
    pub id: String,
    /// RFC 3339, UTC, when the run started.
    pub started_at: String,
    /// The git commit (`HEAD`) of the work tree the deliverable root is
    /// in, when it is in one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

impl RunInfo {
    /// A new run, starting now.
    pub fn start(commit: Option<String>) -> RunInfo {
        let mut bytes = [0u8; 16];
        // Without randomness the id is still unique enough per host and
        // instant; it names a run, it protects nothing.
        if getrandom::fill(&mut bytes).is_err() {
            let seed = format!("{}-{:?}", std::process::id(), std::time::SystemTime::now());
            bytes.copy_from_slice(&blake3::hash(seed.as_bytes()).as_bytes()[..16]);
        }
        RunInfo {
            id: bytes.iter().map(|b| format!("{b:02x}")).collect(),
            started_at: now_rfc3339(),
            commit,
        }
    }
}

/// The current time, RFC 3339 in UTC with milliseconds.
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

/// A verdict computed earlier for the very same inputs (`vcc check
/// --reuse`): where it is, and each criterion's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct PriorVerdict {
    pub reused: Reused,
    pub criteria: Vec<PriorCriterion>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PriorCriterion {
    pub id: String,
    pub severity: Severity,
    pub status: Status,
    pub reason: Reason,
    pub summary: String,
}

/// A ledger entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LedgerRef {
    pub file: String,
    pub seq: u64,
}

/// Where a reused verdict came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reused {
    /// The ledger file, as given.
    pub ledger: String,
    /// The entry whose verdict this is.
    pub seq: u64,
    /// The run that computed it.
    pub run_id: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ContractInfo {
    /// As it was given.
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absolute_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `blake3:<hex>` of the contract bytes that were evaluated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// `vcc: 1`, or the `vccVersion` of a VCC v1 contract.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    pub advisory: bool,
    /// Bases it was composed with (`extends`, `--policy`): the verdict
    /// requires their criteria too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bases: Vec<BaseInfo>,
    /// Files its params name (`{ $file: PATH }`), relative to the contract
    /// file; `digest` covers them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<ContractFileInfo>,
    /// `blake3:<hex>` over every byte the contract was read from: its
    /// file, the files its params name, its `vcc.lock` (and a VCC v1
    /// mapping). What `vcc merge` binds shards to, with `policy`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sources: Option<String>,
    /// `blake3:<hex>` of the trust policy in force, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContractFileInfo {
    pub path: String,
    pub digest: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeliverablesInfo {
    /// As it was given (or found from the contract).
    pub root: String,
    /// Canonical: symlinks resolved.
    #[serde(default)]
    pub root_absolute: String,
    /// `blake3:<hex>` of the manifest of every hashed file (see README).
    pub root_digest: String,
    pub files: u64,
    pub bytes: u64,
    /// Entries the host did not hash, and why.
    pub unreadable: Vec<UnreadableEntry>,
    /// Files that changed, appeared or disappeared while validators ran.
    pub changed: Vec<String>,
    /// What the walk left out (`.git`, `exclude`, `--exclude`, ignore files).
    #[serde(default)]
    pub excluded: ExcludedInfo,
    /// Files from outside the root judged as if they were under it (the
    /// agent transcript `vcc hook` attaches), with where they came from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attached: Vec<AttachedFile>,
    /// Every hashed file with its sha256 and blake3, when asked for
    /// (`vcc check --attest`: the subjects of the attestation).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subjects: Vec<SubjectFile>,
}

/// A deliverable file by its digests (the sha256 is of the same bytes the
/// host hashed with blake3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubjectFile {
    pub path: String,
    pub sha256: String,
    pub blake3: String,
}

/// What the walk of the root left out: never hashed, never shown to a
/// validator.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExcludedInfo {
    /// Entries left out; a folder left out counts once (it was not entered).
    pub entries: u64,
    /// The rules in force, as written: `exclude: target/`,
    /// `--exclude: *.log`, `gitignore: true`.
    pub rules: Vec<String>,
    /// The first entries left out, in walk order, with the rule that did it.
    pub first: Vec<ExcludedEntry>,
}

/// How many excluded entries a report names.
pub const EXCLUDED_SHOWN: usize = 100;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExcludedEntry {
    pub path: String,
    /// A folder (left out with everything in it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub folder: bool,
    /// `exclude: target/`, `sub/.gitignore:3: *.log`, `(always): /.git`.
    pub rule: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttachedFile {
    pub path: String,
    pub source: String,
    pub digest: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnreadableEntry {
    pub path: String,
    /// `symlink`, `fifo`, `socket`, `device`, `too_large`, `non_utf8_name`,
    /// `unreadable`, `too_deep`, `too_many_files`.
    pub kind: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CriterionReport {
    pub id: String,
    pub severity: Severity,
    pub status: Status,
    pub reason: Reason,
    pub summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub targets: Vec<TargetReport>,
    pub findings: Vec<Finding>,
    pub evidence: Vec<EvidenceRef>,
    /// Files the validator read through the host interface, with the digests
    /// of the bytes it was given.
    pub files_read: Vec<FileRead>,
    /// Every completion the validator asked of an AI judge.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub judge_calls: Vec<judge::JudgeCall>,
    pub validator: ValidatorReport,
    /// The base the criterion comes from, as that base wrote it (absent:
    /// the checked contract's own, or overridden by it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// Upstream deliverables (`depends_on`) with a failing MUST: this
    /// criterion judged inputs that are themselves not accepted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suspect_inputs: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_fail: Option<OnFail>,
    /// The evidence this row stands for (VCC v1 `evidence.producedArtifact`
    /// of the acceptance criterion).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub produced_artifact: Option<String>,
    /// The line of the contract file the criterion is written at (absent
    /// for the host's own rows and for criteria taken from a base).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub duration_ms: u64,
}

impl CriterionReport {
    /// A row no validator judged (a shard that is missing): `skip`, so it
    /// can never count as passed.
    pub fn not_judged(id: &str, severity: Severity, summary: String) -> CriterionReport {
        CriterionReport {
            id: id.to_string(),
            severity,
            status: Status::Skip,
            reason: Reason::NotEvaluated,
            summary,
            description: None,
            targets: Vec::new(),
            findings: Vec::new(),
            evidence: Vec::new(),
            files_read: Vec::new(),
            judge_calls: Vec::new(),
            validator: ValidatorReport {
                name: "(none)".into(),
                component: "vcc".into(),
                digest: None,
                wit_version: None,
                describes_as: None,
                version: None,
                bundle: None,
            },
            origin: None,
            suspect_inputs: Vec::new(),
            on_fail: None,
            produced_artifact: None,
            line: None,
            duration_ms: 0,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TargetReport {
    pub id: String,
    pub files: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvidenceRef {
    pub name: String,
    pub media_type: String,
    pub size: u64,
    pub digest: String,
    /// Where `--evidence-dir` stored the bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FileRead {
    pub path: String,
    pub digest: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ValidatorReport {
    /// The name the contract binds.
    pub name: String,
    /// `std/NAME` or the component path.
    pub component: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wit_version: Option<String>,
    /// The validator's own name and version, from `describe()`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub describes_as: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// For a validator from a bundle: which bundle, exactly, and who
    /// signed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bundle: Option<BundleRef>,
}

/// A verified bundle a validator or base contract came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BundleRef {
    pub name: String,
    pub version: String,
    /// `sha256:<hex>` of the bundle's OCI manifest, as `vcc.lock` pins it.
    pub manifest: String,
    /// Key ids (in the trust policy) of the signers whose signatures counted.
    pub signers: Vec<String>,
}

/// A base contract a checked contract was composed with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BaseInfo {
    /// `BUNDLE:CONTRACT@VERSION`, or the path of a `--policy` file.
    pub source: String,
    /// `blake3:<hex>` of the base contract's bytes.
    pub digest: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bundle: Option<BundleRef>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RuntimeInfo {
    pub vcc_version: String,
    pub wasmtime_version: String,
    /// `blake3:<hex>` of the vcc executable that produced the report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_digest: Option<String>,
    pub cache: CacheStats,
    pub duration_ms: u64,
    /// blake3 over everything the verdict depended on (the contract with its
    /// files, bases and lock, the root digest, the validators' digests, the
    /// limits, the trust policy, vcc and its digest): two runs with the same
    /// key judge the same thing the same way (`vcc check --reuse`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reuse_key: Option<String>,
}

/// Precompiled-component cache use during this run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CacheStats {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
    /// Components loaded from the cache without compiling.
    pub hits: u64,
    /// Components compiled (and then stored).
    pub misses: u64,
    /// Cache entries refused (corrupt, tampered, or from another engine).
    pub rejected: u64,
    /// Built-in validators loaded from the native code embedded in vcc
    /// (never from the cache).
    #[serde(default)]
    pub embedded: u64,
    /// Of the compiled and cached ones, those run on Winch code: a large
    /// component's first runs, while Cranelift's code is compiled in the
    /// background for the next run.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub winch: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Report {
    /// What a report file says while its run is in progress: `invalid`,
    /// because it did not finish. Written before a run starts and replaced
    /// when it ends, so a crash or kill never leaves an earlier verdict.
    pub fn unfinished(contract_path: &str) -> Report {
        Report {
            schema_version: SCHEMA_VERSION,
            verdict: Verdict::Invalid,
            reason: "the run did not finish (vcc writes this before a run starts and replaces it when the run ends)".into(),
            contract: ContractInfo {
                path: contract_path.to_string(),
                absolute_path: None,
                id: None,
                title: None,
                digest: None,
                format: None,
                advisory: false,
                bases: Vec::new(),
                files: Vec::new(),
                sources: None,
                policy: None,
            },
            deliverables: None,
            criteria: Vec::new(),
            problems: Vec::new(),
            partial: Vec::new(),
            gate: None,
            run: RunInfo::start(None),
            reused: None,
            not_reused: None,
            ledger: None,
            judging: None,
            partition: None,
            merged: None,
            runtime: RuntimeInfo {
                vcc_version: env!("CARGO_PKG_VERSION").to_string(),
                ..RuntimeInfo::default()
            },
        }
    }

    /// The exit code `vcc check` returns for this report.
    pub fn exit_code(&self, allow_advisory: bool) -> i32 {
        law::exit_code(self.verdict, allow_advisory)
    }
}

#[cfg(test)]
mod tests {
    use super::law::decide;
    use super::*;
    use proptest::prelude::*;

    /// The law, written as plainly as possible, to check `decide` against.
    fn reference(advisory: bool, outcomes: &[(Severity, Status)]) -> bool {
        let musts: Vec<Status> = outcomes
            .iter()
            .filter(|(sev, _)| *sev == Severity::Must)
            .map(|(_, status)| *status)
            .collect();
        !advisory && !musts.is_empty() && musts.iter().all(|s| *s == Status::Pass)
    }

    fn severity() -> impl Strategy<Value = Severity> {
        prop_oneof![
            Just(Severity::Must),
            Just(Severity::Should),
            Just(Severity::May)
        ]
    }

    fn status() -> impl Strategy<Value = Status> {
        prop_oneof![
            Just(Status::Pass),
            Just(Status::Fail),
            Just(Status::Skip),
            Just(Status::Error)
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5000))]

        #[test]
        fn accepted_iff_every_must_passed(
            advisory in any::<bool>(),
            outcomes in prop::collection::vec((severity(), status()), 0..12),
        ) {
            let verdict = decide(advisory, outcomes.iter().copied());
            prop_assert_eq!(verdict == Verdict::Accepted, reference(advisory, &outcomes));
            let musts: Vec<Status> = outcomes.iter().filter(|o| o.0 == Severity::Must).map(|o| o.1).collect();
            let expected = if advisory {
                Verdict::Advisory
            } else if musts.is_empty() {
                Verdict::Invalid
            } else if musts.contains(&Status::Fail) {
                Verdict::Rejected
            } else if musts.iter().any(|s| *s != Status::Pass) {
                Verdict::Withheld
            } else {
                Verdict::Accepted
            };
            prop_assert_eq!(verdict, expected);
            // Only an accepted run (or an allowed advisory one) exits 0.
            prop_assert_eq!(law::exit_code(verdict, false) == 0, verdict == Verdict::Accepted);
        }
    }

    #[test]
    fn should_and_may_never_change_the_verdict() {
        let base = [(Severity::Must, Status::Pass)];
        for status in [Status::Fail, Status::Skip, Status::Error] {
            let with = [
                (Severity::Must, Status::Pass),
                (Severity::Should, status),
                (Severity::May, status),
            ];
            assert_eq!(decide(false, with), decide(false, base));
        }
    }

    #[test]
    fn exit_codes() {
        use law::{exit, exit_code};
        assert_eq!(exit_code(Verdict::Accepted, false), exit::ACCEPTED);
        assert_eq!(exit_code(Verdict::Rejected, true), exit::NOT_ACCEPTED);
        assert_eq!(exit_code(Verdict::Withheld, false), exit::NOT_ACCEPTED);
        assert_eq!(exit_code(Verdict::Advisory, false), exit::NOT_ACCEPTED);
        assert_eq!(exit_code(Verdict::Advisory, true), exit::ACCEPTED);
        assert_eq!(exit_code(Verdict::Invalid, true), exit::INVALID);
    }
}
