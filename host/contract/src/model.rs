//! The contract format, version 1.
//!
//! Every struct denies unknown fields: a misspelt field must never silently
//! weaken a gate. Fields whose name starts with `x-` are extensions; the
//! parser moves them into `extensions` before these types see the document.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::units::{ByteSize, DurationSpec};

/// The key of a file reference in params: `{ $file: PATH }` (read by
/// `contract_files`, written by the VCC v1 translation).
pub const FILE_KEY: &str = "$file";

/// Extension fields (`x-…`) of one object, kept verbatim.
pub type Extensions = BTreeMap<String, Value>;

/// A Verifiable Completion Contract.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "vcc contract", extend("patternProperties" = {"^x-": {}}))]
pub struct Contract {
    /// The contract format version. Always `1`.
    pub vcc: FormatVersion,
    /// A name for the contract, used in reports.
    #[schemars(regex(pattern = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"), length(max = 128))]
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The deliverable root, relative to this file [default: the file's
    /// folder]; `--dir` overrides it. A contract built on a base has the
    /// base's root (`WEAKENS_BASE` if it moves it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    /// Gitignore patterns, relative to the deliverable root, for files and
    /// folders that are not deliverables (`target/`, `*.log`): never
    /// walked, hashed or shown to validators. The root's `.git` is always left out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
    /// Also leave out what the `.gitignore` and `.ignore` files inside the
    /// deliverable root ignore. Those files are the producer's: they can
    /// hide files from criteria (a hidden file is missing, never passing).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gitignore: bool,
    /// An advisory contract runs every criterion and reports, but is never
    /// `accepted`.
    #[serde(default)]
    pub advisory: bool,
    /// Where a drafted contract came from (`vcc init --task`): the task,
    /// the files it was expected to touch, the rules that chose its
    /// criteria, how it was classified and when. It judges nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generated_from: Option<GeneratedFrom>,
    /// A base contract from a bundle: its deliverables and criteria are
    /// this contract's too, and may be strengthened here, never weakened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extends: Option<Extends>,
    /// The outputs the contract is about.
    #[serde(default)]
    pub deliverables: Vec<Deliverable>,
    /// Validator components, by the name criteria use.
    #[serde(default)]
    pub validators: BTreeMap<String, ValidatorRef>,
    /// AI judges, by the name criteria grant them with (`judges:` on a
    /// criterion): a provider, a model and pinned sampling parameters.
    /// Endpoints and keys never come from a contract: the verifier's judge
    /// configuration says which endpoints may serve them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub judges: BTreeMap<String, Judge>,
    /// The acceptance criteria.
    #[serde(default)]
    pub criteria: Vec<Criterion>,
    /// Default limits for every validator run; a criterion may override them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<Limits>,
    /// The budget of `vcc converge`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<Budget>,
    /// Checkpoints that need signed approvals (VCC v1 `gates`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gates: Vec<Gate>,
    /// What the run's own provenance must show (VCC v1
    /// `provenancePolicy`): a MUST row of the host's, `provenance:ID`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<ProvenancePolicy>,
    #[serde(skip)]
    pub extensions: Extensions,
}

/// A checkpoint: criteria that must pass and approvals that must be
/// signed, by people (or AI judges) the trust policy names for a role.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("patternProperties" = {"^x-": {}}))]
pub struct Gate {
    #[schemars(regex(pattern = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"), length(max = 128))]
    pub id: String,
    /// `before_final` gates are part of every check (a MUST row
    /// `gate:ID`); the others are checked with `vcc check --gate ID`.
    #[serde(default)]
    pub when: GateWhen,
    /// Criteria (ids, or the host's `provenance:ID`) that must pass.
    #[serde(default)]
    pub criteria: Vec<String>,
    /// Signed approvals (`vcc approve`) the gate needs.
    #[serde(default)]
    pub approvals: Vec<ApprovalRequirement>,
    #[serde(skip)]
    pub extensions: Extensions,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GateWhen {
    #[default]
    BeforeFinal,
    BeforePackaging,
    BeforeDelivery,
}

impl GateWhen {
    pub fn as_str(self) -> &'static str {
        match self {
            GateWhen::BeforeFinal => "before_final",
            GateWhen::BeforePackaging => "before_packaging",
            GateWhen::BeforeDelivery => "before_delivery",
        }
    }
}

/// One approval a gate needs: a statement signed by a key the trust
/// policy lists under `roles: { ROLE: [...] }`, bound to the contract's
/// digest and the deliverables' root digest.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("patternProperties" = {"^x-": {}}))]
pub struct ApprovalRequirement {
    /// The role, e.g. `Reviewer` (VCC's `role:Reviewer`).
    pub role: String,
    /// Who is expected to judge: `human` or `ai`. The approval counts as a
    /// signed statement, or (for `ai`) as the pass of `judged_by`.
    #[serde(default)]
    pub by: ApprovalKind,
    /// The statement's score must be at least this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_score: Option<f64>,
    /// The rubric the score is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rubric: Option<String>,
    /// Reported, but the gate does not wait for it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub optional: bool,
    /// An `ai` approval may also be the judgment of this criterion (a
    /// `std/rubric` criterion of the contract, with the rubric and the
    /// threshold of the approval): it counts when the criterion passes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged_by: Option<String>,
    #[serde(skip)]
    pub extensions: Extensions,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ApprovalKind {
    #[default]
    Human,
    Ai,
}

/// What the run's own provenance record must show. vcc knows the inputs
/// it hashed, its own and its validators' digests, the params it ran
/// with; it knows the agent's actions only from an attached transcript,
/// and a signature only when it signs an attestation (`--attest`).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("patternProperties" = {"^x-": {}}))]
pub struct ProvenancePolicy {
    #[schemars(regex(pattern = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"), length(max = 128))]
    pub id: String,
    /// `inputs.enumerated`, `tooling.recorded`, `agentActions.logged`,
    /// `artifactHashes.recorded`, `dependencies.recorded`,
    /// `parameters.recorded`, `attestation.signed`.
    pub require: Vec<String>,
    #[serde(skip)]
    pub extensions: Extensions,
}

/// The requirements a [`ProvenancePolicy`] may name.
pub const PROVENANCE_REQUIREMENTS: &[&str] = &[
    "inputs.enumerated",
    "tooling.recorded",
    "agentActions.logged",
    "artifactHashes.recorded",
    "dependencies.recorded",
    "parameters.recorded",
    "attestation.signed",
];

/// The id of the host's row for a gate.
pub fn gate_id(gate: &str) -> String {
    format!("gate:{gate}")
}

/// The id of the host's row for the contract's provenance policy.
pub fn provenance_id(policy: &str) -> String {
    format!("provenance:{policy}")
}

/// A named output under the deliverable root.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("patternProperties" = {"^x-": {}}))]
pub struct Deliverable {
    #[schemars(regex(pattern = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"), length(max = 128))]
    pub id: String,
    /// A file, a directory or a glob, relative to the deliverable root, with
    /// `/` as separator. No absolute paths, no `..`.
    pub path: String,
    /// A missing required deliverable fails every criterion that targets it.
    /// Defaults to `true`: a gate fails closed.
    #[serde(default = "yes")]
    pub required: bool,
    /// Deliverables this one is derived from.
    #[serde(default)]
    pub depends_on: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip)]
    pub extensions: Extensions,
}

/// Required deliverables no MUST criterion targets. A required
/// deliverable must exist for a run to be accepted, so the host checks
/// each of these itself, as a MUST row of its own ([`presence_id`]).
pub fn presence_checks(contract: &Contract) -> Vec<&Deliverable> {
    contract
        .deliverables
        .iter()
        .filter(|d| d.required)
        .filter(|d| {
            !contract
                .criteria
                .iter()
                .any(|c| c.severity == Severity::Must && c.targets.contains(&d.id))
        })
        .collect()
}

/// The id of the host's own row for a required deliverable: `:` is not
/// allowed in a contract's ids, so it never names a criterion of the
/// contract.
pub fn presence_id(deliverable: &str) -> String {
    format!("deliverable:{deliverable}")
}

fn yes() -> bool {
    true
}

/// A validator component a criterion can be bound to: a built-in
/// (`component: std/NAME`), a `.wasm` file (`component: PATH`), or a
/// validator of a signed bundle (`bundle`, `validator`, `version`), which
/// `vcc lock` pins in `vcc.lock`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("patternProperties" = {"^x-": {}}))]
pub struct ValidatorRef {
    /// `std/NAME` for a validator built into vcc, or the path of a `.wasm`
    /// component relative to the contract file. Not with `bundle`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub component: String,
    /// Pin the component's bytes: `blake3:<64 hex digits>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^blake3:[0-9a-f]{64}$"))]
    pub digest: Option<String>,
    /// A bundle name, e.g. `acme/security`: the validator comes from that
    /// bundle, as verified against the trust policy and pinned in `vcc.lock`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bundle: Option<String>,
    /// The validator's name in the bundle [default: this binding's name].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validator: Option<String>,
    /// A semver requirement on the bundle's version, e.g. `^1.2` [default: any].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(skip)]
    pub extensions: Extensions,
}

impl ValidatorRef {
    /// The built-in validator name, when `component` is `std/…`.
    pub fn builtin(&self) -> Option<&str> {
        (self.bundle.is_none() && self.component.starts_with(BUILTIN_PREFIX))
            .then_some(self.component.as_str())
    }

    /// `(bundle, validator)` for a bundle validator (the parser sets
    /// `validator` to the binding's name when the contract leaves it out).
    pub fn from_bundle(&self) -> Option<(&str, &str)> {
        let bundle = self.bundle.as_deref()?;
        Some((bundle, self.validator.as_deref().unwrap_or_default()))
    }

    /// What the binding names, for people: `std/NAME`, the path, or
    /// `BUNDLE:VALIDATOR`.
    pub fn shown(&self) -> String {
        match self.from_bundle() {
            Some((bundle, validator)) => format!("{bundle}:{validator}"),
            None => self.component.clone(),
        }
    }
}

/// How `vcc init --task` drafted a contract.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("patternProperties" = {"^x-": {}}))]
pub struct GeneratedFrom {
    /// The task, as given.
    pub task: String,
    /// The files (globs) the task was expected to touch.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// The rules file that chose the criteria, or `builtin`.
    pub rules: String,
    /// `verifiable`, `advisory` or `skip`.
    pub class: TaskClass,
    /// When it was drafted (RFC 3339, UTC).
    pub at: String,
    /// What the draft guessed, for whoever reviews it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub guessed: Vec<String>,
    #[serde(skip)]
    pub extensions: Extensions,
}

/// What kind of task a drafted contract is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TaskClass {
    /// Clear success criteria a check can run: tests, types, lint.
    Verifiable,
    /// Investigate, research, explore, design, plan, audit…: no check can
    /// say it is done; an advisory contract, never accepted.
    Advisory,
    /// Docs-only changes: text checks only.
    Skip,
}

impl TaskClass {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskClass::Verifiable => "verifiable",
            TaskClass::Advisory => "advisory",
            TaskClass::Skip => "skip",
        }
    }
}

/// A base contract, carried by a bundle, that this contract builds on.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("patternProperties" = {"^x-": {}}))]
pub struct Extends {
    /// The bundle carrying the base contract, e.g. `acme/security`.
    pub bundle: String,
    /// The base contract's name in the bundle, e.g. `baseline`.
    pub contract: String,
    /// A semver requirement on the bundle's version [default: any].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(skip)]
    pub extensions: Extensions,
}

/// Components named with this prefix are the ones embedded in vcc.
pub const BUILTIN_PREFIX: &str = "std/";

/// An atomic acceptance check.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("patternProperties" = {"^x-": {}}))]
pub struct Criterion {
    #[schemars(regex(pattern = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"), length(max = 128))]
    pub id: String,
    pub severity: Severity,
    /// A key of `validators`. Not with `not_evaluated`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub validator: String,
    /// Why vcc cannot judge this criterion (a VCC v1 criterion no
    /// validator maps, for example). It is reported as a visible `skip`
    /// row with this reason; on a MUST it is refused at lint
    /// (`UNVERIFIABLE_MUST`), since such a contract could never be accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_evaluated: Option<String>,
    /// Deliverable ids the validator judges.
    #[serde(default)]
    pub targets: Vec<String>,
    /// Judges (keys of the contract's `judges`) the validator may ask for
    /// completions, through the host (vcc:validator@0.1.4 `judge`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub judges: Vec<String>,
    /// Parameters for the validator, checked against its parameter schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// What `vcc converge` does when this criterion fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_fail: Option<OnFail>,
    /// Overrides the contract's limits for this criterion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<Limits>,
    #[serde(skip)]
    pub extensions: Extensions,
}

/// How much a criterion matters. Only `must` decides the verdict.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Must,
    Should,
    May,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Must => "must",
            Severity::Should => "should",
            Severity::May => "may",
        }
    }
}

/// What `vcc converge` (and the agent hook) does when a criterion fails.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("patternProperties" = {"^x-": {}}))]
pub struct OnFail {
    /// `retry` (the default), `abort`, or `warn` (SHOULD and MAY only).
    #[serde(default)]
    pub action: FailAction,
    /// Handed to the command `vcc converge` runs, with the failing criteria.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// How many times the command is run to fix this criterion: a MUST
    /// still failing after that stops the loop (`attempts`); a SHOULD is
    /// no longer handed over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_attempts: Option<u32>,
    #[serde(skip)]
    pub extensions: Extensions,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FailAction {
    /// Hand the failure to the command again, with this criterion's prompt.
    #[default]
    Retry,
    /// Stop `vcc converge` at once: more attempts cannot help.
    Abort,
    /// Report the failure, and do not ask for a fix. Never on a MUST: a
    /// MUST is never waived.
    Warn,
}

/// Per validator run.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("patternProperties" = {"^x-": {}}))]
pub struct Limits {
    /// Wall-clock budget, e.g. `10s`, `500ms`, `2m`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<DurationSpec>,
    /// Guest memory cap, e.g. `256MiB`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<ByteSize>,
    /// Judge calls the whole run may make (calls answered from the cache
    /// or a replayed session are free). Per run: on the contract only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_calls: Option<u64>,
    /// Tokens (input and output) the run's judge calls may spend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_tokens: Option<u64>,
    /// Cost the run's judge calls may spend, in the unit of the
    /// configuration's prices (e.g. US dollars).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub judge_cost: Option<f64>,
    /// How long one judge call may take, e.g. `60s` [default: 120s].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_deadline: Option<DurationSpec>,
    #[serde(skip)]
    pub extensions: Extensions,
}

impl Limits {
    /// Each limit at the lower of the two (absent: no limit), as a base
    /// and the contract built on it hold together: the contract may
    /// tighten a base's limits (its judge spending above all), never
    /// loosen them.
    pub fn tightest(a: Option<Limits>, b: Option<&Limits>) -> Option<Limits> {
        let Some(b) = b else { return a };
        let Some(a) = a else { return Some(b.clone()) };
        Some(Limits {
            timeout: lower(a.timeout.map(|t| t.0), b.timeout.map(|t| t.0)).map(DurationSpec),
            memory: lower(a.memory.map(|m| m.0), b.memory.map(|m| m.0)).map(ByteSize),
            judge_calls: lower(a.judge_calls, b.judge_calls),
            judge_tokens: lower(a.judge_tokens, b.judge_tokens),
            judge_cost: lower(a.judge_cost, b.judge_cost),
            judge_deadline: lower(a.judge_deadline.map(|t| t.0), b.judge_deadline.map(|t| t.0))
                .map(DurationSpec),
            extensions: a.extensions,
        })
    }

    /// Whether any of the per-run judge limits is set.
    pub fn has_judge_limits(&self) -> bool {
        self.judge_calls.is_some()
            || self.judge_tokens.is_some()
            || self.judge_cost.is_some()
            || self.judge_deadline.is_some()
    }
}

/// An AI judge: who answers (a provider's API and a model) and how it
/// samples. A contract never says where the endpoint is or holds a key.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("patternProperties" = {"^x-": {}}))]
pub struct Judge {
    /// The API the judge speaks.
    pub provider: Provider,
    /// The model, as the provider names it.
    #[schemars(length(min = 1, max = 256))]
    pub model: String,
    /// An endpoint of the verifier's judge configuration, by its `id` or
    /// `url` [default: the first one serving this provider and model].
    /// One the configuration does not list is never called.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// Sampling parameters, sent as written and recorded with every call.
    #[serde(default)]
    pub params: JudgeParams,
    #[serde(skip)]
    pub extensions: Extensions,
}

/// The APIs a judge may speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize, JsonSchema)]
pub enum Provider {
    /// OpenAI's chat completions (`POST {url}/chat/completions`), which
    /// vLLM, llama.cpp's server and Ollama also serve.
    #[serde(rename = "openai-compatible")]
    OpenaiCompatible,
    /// Anthropic's Messages API (`POST {url}/messages`).
    #[serde(rename = "anthropic")]
    Anthropic,
}

impl Provider {
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::OpenaiCompatible => "openai-compatible",
            Provider::Anthropic => "anthropic",
        }
    }
}

/// Sampling parameters of a judge. Unset ones take vcc's pinned defaults
/// (temperature 0, seed 0 where the API has one, 1024 output tokens), so
/// no call runs at a provider's unrecorded default.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JudgeParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 2))]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 1))]
    pub top_p: Option<f64>,
    /// Anthropic only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub top_k: Option<u32>,
    /// The seed of sample 0; sample `i` is sent `seed + i`. OpenAI-compatible only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Output tokens per call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
}

/// The budget of the convergence loop (`vcc converge`). Command-line
/// flags may lower each limit, never raise it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("patternProperties" = {"^x-": {}}))]
pub struct Budget {
    /// Runs of the command at most.
    #[serde(
        default,
        alias = "max_iterations",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(range(min = 1))]
    pub iterations: Option<u32>,
    /// Wall time of the whole loop, e.g. `30m`.
    #[serde(
        default,
        alias = "max_duration",
        skip_serializing_if = "Option::is_none"
    )]
    pub time: Option<DurationSpec>,
    /// Cost the command may report through `$VCC_USAGE`, in its own unit
    /// (e.g. US dollars).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub cost: Option<f64>,
    /// Tokens the command may report through `$VCC_USAGE`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// Stop when the failing MUST criteria and their findings are
    /// unchanged after this many runs in a row [default: 2].
    #[serde(
        default,
        alias = "stagnation_window",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(range(min = 1))]
    pub stagnation: Option<u32>,
    #[serde(skip)]
    pub extensions: Extensions,
}

impl Budget {
    /// Each limit at the lower of the two (absent: no limit).
    pub fn tightest(a: Option<Budget>, b: Option<&Budget>) -> Option<Budget> {
        let Some(b) = b else { return a };
        let Some(a) = a else { return Some(b.clone()) };
        Some(Budget {
            iterations: lower(a.iterations, b.iterations),
            time: lower(a.time.map(|t| t.0), b.time.map(|t| t.0)).map(DurationSpec),
            cost: lower(a.cost, b.cost),
            tokens: lower(a.tokens, b.tokens),
            stagnation: lower(a.stagnation, b.stagnation),
            extensions: a.extensions,
        })
    }
}

/// The lower of two limits, where an absent one is no limit.
fn lower<T: PartialOrd + Copy>(x: Option<T>, y: Option<T>) -> Option<T> {
    match (x, y) {
        (Some(x), Some(y)) => Some(if y < x { y } else { x }),
        (x, y) => x.or(y),
    }
}

/// The `vcc:` field. Only version 1 exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FormatVersion(pub u64);

pub const FORMAT_VERSION: u64 = 1;

impl<'de> Deserialize<'de> for FormatVersion {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let v = u64::deserialize(de)?;
        if v != FORMAT_VERSION {
            return Err(serde::de::Error::custom(format!(
                "unsupported contract format version {v}: this vcc reads `vcc: {FORMAT_VERSION}`"
            )));
        }
        Ok(FormatVersion(v))
    }
}

impl JsonSchema for FormatVersion {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "FormatVersion".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "const": FORMAT_VERSION, "description": "The contract format version." })
    }
}
