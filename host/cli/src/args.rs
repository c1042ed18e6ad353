//! The command line.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod agents;
mod artifacts;
mod merge;
mod reports;

pub use agents::{ConvergeArgs, HookArgs, HookCommand, McpArgs};
pub use artifacts::{BundleCommand, KeyCommand, Lang, LockArgs, ValidatorCommand};
pub use merge::MergeArgs;
pub use reports::{Print, ReportArgs};

#[derive(Parser)]
#[command(
    name = "vcc",
    version,
    about = "Check deliverables against a Verifiable Completion Contract, with sandboxed WebAssembly validators.",
    after_help = "Exit codes of `vcc check`: 0 accepted, 1 rejected/withheld/advisory, 2 invalid (the contract could not be evaluated). `vcc record` exits with the recorded command's code."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// Colour in human output: auto (a terminal, and NO_COLOR unset), always, never.
    #[arg(long, global = true, value_enum, default_value_t = Color::Auto)]
    pub color: Color,

    /// Where precompiled components are cached [default: $VCC_CACHE_DIR, $XDG_CACHE_HOME/vcc, ~/.cache/vcc].
    #[arg(long, global = true, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,

    /// Compile every component, and keep nothing on disk.
    #[arg(long, global = true)]
    pub no_cache: bool,
}

#[derive(Subcommand)]
pub enum Command {
    /// Evaluate a contract: integrity pass, validators, verdict.
    Check(Box<CheckArgs>),
    /// Put shard reports (`vcc check --partition`) back together and apply
    /// the termination law once over their union.
    Merge(Box<MergeArgs>),
    /// Run the integrity pass alone (exit 0 when clean, 2 on any error).
    Lint(LintArgs),
    /// The contract as the worker's brief: numbered criteria, what checks
    /// each, the evidence it needs, what to do when it fails, the budget.
    Explain(ExplainArgs),
    /// Print the JSON Schema of the contract format.
    Schema,
    /// Run a command and record what happened (exit code, times, output
    /// digests), as a deliverable for `std/exit-record`.
    Record(RecordArgs),
    /// Validator components.
    #[command(subcommand)]
    Validator(ValidatorCommand),
    /// Ed25519 keys that sign validator bundles.
    #[command(subcommand)]
    Key(KeyCommand),
    /// Validator bundles: build, sign, verify, push, pull, inspect; the
    /// local store: list, rm, gc, save.
    #[command(subcommand)]
    Bundle(BundleCommand),
    /// Resolve the bundles a contract uses (local store, else the registry
    /// its trust policy names), verify them, and pin them in vcc.lock
    /// beside the contract; never below the version vcc.lock holds
    /// without --allow-downgrade, and naming every version passed over.
    Lock(LockArgs),
    /// Run CMD until the contract is accepted, or stop for a stated reason
    /// (budget, stagnation, abort, attempts): check; hand the failures
    /// over ($VCC_FEEDBACK, $VCC_FEEDBACK_MD); run CMD; check again.
    Converge(ConvergeArgs),
    /// Where agents stop: a hook that lets an agent stop only when the
    /// contract is accepted.
    #[command(subcommand)]
    Hook(HookCommand),
    /// A Model Context Protocol server over stdio, with tools `check`,
    /// `lint` and `explain`. A tool call reports; it admits nothing.
    Mcp(McpArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff): `vcc man > vcc.1`.
    Man,
    /// Write a commented starter contract for a folder (and the schema
    /// editors complete fields from).
    Init(InitArgs),
    /// The component cache: what it holds, and making room.
    #[command(subcommand)]
    Cache(CacheCommand),
    /// Packages `std/package` checks: write the manifest of a folder.
    #[command(subcommand)]
    Package(PackageCommand),
    /// The verdict log (`--ledger FILE`): verify it, show and count its
    /// entries, prove an entry's inclusion, repair a torn last line.
    #[command(subcommand)]
    Ledger(LedgerCommand),
    /// Signed verification attestations (`vcc check --attest`).
    #[command(subcommand)]
    Attest(AttestCommand),
    /// Sign an approval of a contract's gate for the deliverables as they
    /// are now (an in-toto Statement in a DSSE envelope, bound to the
    /// contract's digest and the deliverables' root digest); `vcc check`
    /// counts it when the trust policy lists the key under the role.
    Approve(ApproveArgs),
}

#[derive(Args)]
pub struct ApproveArgs {
    /// The private key that signs (`vcc key generate`).
    #[arg(long, value_name = "KEY")]
    pub key: PathBuf,
    /// The contract whose gate is approved.
    #[arg(long, value_name = "FILE")]
    pub contract: PathBuf,
    /// The gate's id.
    #[arg(long, value_name = "GATE")]
    pub gate: String,
    /// The role approving [default: the gate's only role].
    #[arg(long, value_name = "ROLE")]
    pub role: Option<String>,
    /// The score given, on the gate's rubric.
    #[arg(long, value_name = "N")]
    pub score: Option<f64>,
    /// A remark kept in the statement.
    #[arg(long, value_name = "TEXT")]
    pub comment: Option<String>,
    /// The deliverable root [default: the contract's root].
    #[arg(long, value_name = "ROOT")]
    pub dir: Option<PathBuf>,
    /// Where to write the envelope [default: vcc-approvals/GATE.ROLE.KEYID.dsse.json beside the contract].
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The contract as `vcc check` reads it (trust policy, lock, base,
    /// VCC v1 mappings): the approval binds that contract's digest.
    #[command(flatten)]
    pub binding: BindingArgs,
}

#[derive(Subcommand)]
pub enum AttestCommand {
    /// Exit 0 when every attestation in FILE is signed by a key the trust
    /// policy names under `attestations`, its result passed, and (with
    /// --dir) every subject still matches the bytes on disk; 1 when a
    /// result failed or a subject changed; 2 when one cannot be trusted.
    Verify {
        file: PathBuf,
        /// The trust policy [default: $VCC_TRUST, else ~/.config/vcc/trust.yaml].
        #[arg(long, value_name = "FILE")]
        trust: Option<PathBuf>,
        /// The deliverable root whose files the subjects must still match.
        #[arg(long, value_name = "ROOT")]
        dir: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
}

#[derive(Subcommand)]
pub enum LedgerCommand {
    /// Exit 0 when the log is intact; 1 when broken, naming the first bad
    /// seq and why (edited, reordered, removed, truncated, forked,
    /// unsigned, uncovered).
    Verify {
        file: PathBuf,
        /// The public key checkpoints must be signed by (NAME.pub); with
        /// it, every entry must be covered by a checkpoint it signed.
        #[arg(long, value_name = "PUB")]
        key: Option<PathBuf>,
        /// A checkpoint kept elsewhere (a note from `vcc ledger
        /// checkpoint`, or a copy of FILE.checkpoints): the log must extend
        /// it (an RFC 6962 consistency proof). Needs --key.
        #[arg(long, value_name = "FILE", requires = "key")]
        checkpoint: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// The entries, one line each (or JSON).
    Show {
        file: PathBuf,
        /// Only the last N entries.
        #[arg(long, value_name = "N")]
        last: Option<usize>,
        /// Only entries of this contract id.
        #[arg(long, value_name = "ID")]
        contract: Option<String>,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Outcomes counted with explicit denominators, checks and loops apart.
    Stats {
        file: PathBuf,
        #[arg(long, value_enum, default_value_t = StatsBy::All)]
        by: StatsBy,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// The latest checkpoint of a log that verifies with KEY: the note to
    /// keep elsewhere (a CI artifact, a witness) and check later with
    /// `verify --checkpoint` or `verify-proof --checkpoint`.
    Checkpoint {
        file: PathBuf,
        /// The ledger's public key (NAME.pub).
        #[arg(long, value_name = "PUB")]
        key: PathBuf,
        /// Write the note to FILE [default: stdout].
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// A receipt for entry SEQ: the entry, its inclusion path and a signed
    /// checkpoint, checkable offline with `verify-proof`.
    Prove {
        file: PathBuf,
        seq: u64,
        /// Sign a checkpoint of the whole log now with this private key
        /// [default: the latest stored checkpoint that holds SEQ].
        #[arg(long, value_name = "KEY")]
        key: Option<PathBuf>,
        /// Write the receipt to FILE [default: stdout].
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// A consistency proof: the latest stored checkpoint extends an
    /// earlier one (RFC 6962), checkable offline with `verify-proof`.
    Consistency {
        file: PathBuf,
        /// The earlier checkpoint: one kept elsewhere (a note, or a copy of
        /// FILE.checkpoints).
        #[arg(
            long,
            value_name = "FILE",
            required_unless_present = "from_size",
            conflicts_with = "from_size"
        )]
        from: Option<PathBuf>,
        /// The earlier checkpoint: the stored one of N entries.
        #[arg(long, value_name = "N")]
        from_size: Option<u64>,
        /// Write the proof to FILE [default: stdout].
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Check a receipt or a consistency proof offline: exit 0 when the
    /// entry is proven included in (or the later tree proven to extend the
    /// earlier one of) checkpoints signed by KEY.
    VerifyProof {
        receipt: PathBuf,
        #[arg(long, value_name = "PUB")]
        key: PathBuf,
        /// For a consistency proof: the checkpoint kept elsewhere it must
        /// start from.
        #[arg(long, value_name = "FILE")]
        checkpoint: Option<PathBuf>,
    },
    /// Remove a torn last line (a write cut off by a crash or a full disk);
    /// with --key, also the entries after the last checkpoint KEY signed
    /// (kept in FILE.removed).
    Repair {
        file: PathBuf,
        /// The ledger's public key (NAME.pub).
        #[arg(long, value_name = "PUB")]
        key: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StatsBy {
    All,
    Contract,
    Day,
}

#[derive(Subcommand)]
pub enum PackageCommand {
    /// Print the manifest `std/package` reads (`{"files": [{"path",
    /// "sha256"}]}`) of every file under DIR, by path relative to it and
    /// in byte order: `vcc package manifest dist > dist/MANIFEST.json`,
    /// then pack the folder. A link or a special file is refused (a
    /// package holds regular files); an earlier MANIFEST.json or
    /// manifest.json at the top is left out.
    Manifest {
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
}

#[derive(Subcommand)]
pub enum CacheCommand {
    /// Where the cache is, its entries and memos, and the bound.
    Stats {
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Remove entries not used for DURATION, then the least recently used
    /// until the rest fit in SIZE [default: --max-size $VCC_CACHE_MAX_SIZE,
    /// else 1GiB]. Entries in use by a run are kept.
    Prune {
        /// e.g. `30days`, `12h`: also removes memos not written since.
        #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
        older_than: Option<std::time::Duration>,
        /// e.g. `500MiB`, `2GiB`.
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        max_size: Option<vcc_contract::ByteSize>,
    },
    /// Remove every entry and memo (the cache's key stays).
    Clear,
    /// Compile components into the cache now, with the optimizing compiler
    /// (Cranelift), so no check waits for them: for a CI image, or after a
    /// download. A check compiles a large component (4 MiB or more) it has
    /// no code for with Winch, which is faster to compile and a little
    /// slower to run, and starts this in the background for the next run.
    Compile {
        /// Component files; `-` reads one from stdin.
        #[arg(required = true, value_name = "COMPONENT")]
        components: Vec<std::path::PathBuf>,
    },
}

#[derive(Args)]
pub struct InitArgs {
    /// What the contract is about.
    #[arg(long, value_enum, default_value_t = Template::Software)]
    pub template: Template,
    /// The folder [default: the current one].
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The contract's file name, in the folder.
    #[arg(long, value_name = "FILE", default_value = "vcc.yaml")]
    pub out: PathBuf,
    /// Replace an existing contract.
    #[arg(long)]
    pub force: bool,
    /// Instead of a contract: write the vcc section of AGENTS.md and a
    /// skill (.agents/skills/vcc-check/SKILL.md) from the contract --out
    /// names, telling any agent how to check its work before claiming it
    /// is done.
    #[arg(long, conflicts_with_all = ["template", "force"])]
    pub agents: bool,
    /// Draft a contract for this task instead of a template: classified
    /// verifiable, advisory or skip, with the checks the rules give for
    /// the files it touches, and `generated_from` saying what it guessed.
    #[arg(long, value_name = "TEXT", conflicts_with_all = ["template", "agents"])]
    pub task: Option<String>,
    /// With --task: a file (glob, relative to the folder) the task is
    /// expected to touch (repeat).
    #[arg(long = "files", value_name = "GLOB", num_args = 1.., requires = "task")]
    pub files: Vec<String>,
    /// With --task: keep a draft that already passes (by default one is
    /// refused, exit 1: it checks nothing the task changes).
    #[arg(long, requires = "task")]
    pub allow_passing: bool,
    /// With --task: the rules mapping file globs to activities [default:
    /// the built-in ones, contracts/task-rules.yaml].
    #[arg(long, value_name = "FILE", requires = "task")]
    pub rules: Option<PathBuf>,
    /// With --task: the class, instead of the one guessed from its words.
    #[arg(long, value_enum, value_name = "CLASS", requires = "task")]
    pub class: Option<TaskClassArg>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TaskClassArg {
    Verifiable,
    Advisory,
    Skip,
}

impl From<TaskClassArg> for vcc_contract::TaskClass {
    fn from(c: TaskClassArg) -> Self {
        match c {
            TaskClassArg::Verifiable => vcc_contract::TaskClass::Verifiable,
            TaskClassArg::Advisory => vcc_contract::TaskClass::Advisory,
            TaskClassArg::Skip => vcc_contract::TaskClass::Skip,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Template {
    /// A code repository: README, CHANGELOG, tests, JSON files.
    Software,
    /// A research report with sections and citations.
    Research,
    /// An agent's task, judged with its transcript (see `vcc hook`).
    Agent,
}

impl Template {
    pub fn name(self) -> &'static str {
        match self {
            Template::Software => "software",
            Template::Research => "research",
            Template::Agent => "agent",
        }
    }
}

/// Where trust comes from, and how registries are reached.
#[derive(Args, Clone, Default)]
pub struct TrustArgs {
    /// The trust policy [default: $VCC_TRUST, else ~/.config/vcc/trust.yaml].
    #[arg(long, value_name = "FILE")]
    pub trust: Option<PathBuf>,
    /// Allow plain HTTP to registries (always allowed to loopback addresses).
    #[arg(long)]
    pub insecure: bool,
}

/// What binds a contract beyond its own text.
#[derive(Args, Clone, Default)]
pub struct BindingArgs {
    #[command(flatten)]
    pub trust: TrustArgs,
    /// Refuse (exit 2) a missing or stale vcc.lock, even for a contract
    /// that uses no bundle.
    #[arg(long)]
    pub locked: bool,
    /// A base contract from outside the workspace, evaluated together with
    /// the contract (the verdict requires both): a contract FILE, or a
    /// bundle's contract as BUNDLE#CONTRACT (from the local store) or
    /// HOST[:PORT]/REPO:TAG#CONTRACT (pulled and verified).
    #[arg(long, value_name = "REF|FILE")]
    pub policy: Option<String>,
    /// VCC v1: where an artifact whose URI is not a path (`worktree://…`)
    /// lives, as ARTIFACT=DIR with DIR under the deliverable root (like
    /// `x-vcc-path` on the artifact). Repeatable.
    #[arg(long = "artifact-root", value_name = "ARTIFACT=DIR")]
    pub artifact_roots: Vec<String>,
    /// VCC v1: a YAML or JSON file mapping the adapters criteria name
    /// (`rule.adapter`) to validators, like `x-vcc-adapters`.
    #[arg(long, value_name = "FILE")]
    pub adapters: Option<PathBuf>,
    /// Where the signed approvals of gates (`vcc approve`) are read from
    /// [default: vcc-approvals/ beside the contract].
    #[arg(long, value_name = "DIR")]
    pub approvals: Option<PathBuf>,
    #[command(flatten)]
    pub judge: JudgeArgs,
}

/// Where AI judges are answered from, and what they may spend.
#[derive(Args, Clone, Default)]
pub struct JudgeArgs {
    /// The judge configuration: which endpoints may serve the contract's
    /// judges, their keys' variables and prices [default: $VCC_JUDGES, else
    /// the trust policy's `judges:`, else ~/.config/vcc/judges.yaml]. Never
    /// in the deliverable root.
    #[arg(long = "judges", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Write every judge call of the run (prompt, raw response, key) to
    /// FILE, a session `--judge-replay` answers from.
    #[arg(long, value_name = "FILE")]
    pub judge_record: Option<PathBuf>,
    /// Answer judge calls only from the session in FILE (recorded with
    /// --judge-record): no endpoint is called, and a call the session does
    /// not hold is an error. Never in the deliverable root.
    #[arg(long, value_name = "FILE")]
    pub judge_replay: Option<PathBuf>,
    /// Judge calls the run may make (answers from the cache or a session
    /// are free); past it a criterion is `error`.
    #[arg(long, value_name = "N")]
    pub judge_calls: Option<u64>,
    /// Tokens the run's judge calls may spend.
    #[arg(long, value_name = "N")]
    pub judge_tokens: Option<u64>,
    /// Cost the run's judge calls may spend (in the configuration's
    /// price unit).
    #[arg(long, value_name = "COST")]
    pub judge_cost: Option<f64>,
    /// How long one judge call may take [default: 120s].
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    pub judge_deadline: Option<std::time::Duration>,
}

impl BindingArgs {
    /// What `--artifact-root` and `--adapters` map in a VCC v1 contract.
    pub fn mapping(&self) -> Result<vcc_contract::vcc1::Mapping, String> {
        vcc_contract::vcc1::Mapping::from_args(&self.artifact_roots, self.adapters.as_deref())
    }
}

#[derive(Args)]
pub struct CheckArgs {
    /// The contract (YAML, or JSON with a .json extension). With several,
    /// each is checked in turn and the worst exit code wins.
    #[arg(required = true, num_args = 1..)]
    pub contracts: Vec<PathBuf>,
    /// The deliverable root [default: the contract's `root:`, else its folder].
    #[arg(long, value_name = "ROOT")]
    pub dir: Option<PathBuf>,
    /// Leave out what this gitignore pattern matches (repeat), on top of
    /// the contract's `exclude`: never hashed, never seen by a validator.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    #[command(flatten)]
    pub reports: ReportArgs,
    /// Store evidence bytes in DIR, one file per blake3 digest.
    #[arg(long, value_name = "DIR")]
    pub evidence_dir: Option<PathBuf>,
    /// Criteria evaluated at once [default: the number of cores].
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Exit 0 for an advisory contract (advisory contracts are never accepted).
    #[arg(long)]
    pub allow_advisory: bool,
    /// Exit 0 whenever the contract was judged (rejected and withheld too),
    /// 2 when it could not be: for a shard, whose verdict `vcc merge`
    /// decides, run where a non-zero exit would retry or fail the job.
    #[arg(long)]
    pub exit_zero: bool,
    /// Check again whenever the deliverables, the contract or its files
    /// change (for contract authors; Ctrl-C ends it).
    #[arg(long)]
    pub watch: bool,
    /// Judge FILE, from outside the root, as if it were at GUEST_PATH under
    /// it (repeat): an agent's transcript kept elsewhere, say
    /// `--attach .vcc/transcript.jsonl=/tmp/session.jsonl`. Read once; the
    /// report lists it under `deliverables.attached`.
    #[arg(long, value_name = "GUEST_PATH=FILE")]
    pub attach: Vec<String>,
    /// Evaluate only these criteria (repeat, or separate with commas), for
    /// contract authors: a partial run is never accepted.
    #[arg(long, value_name = "ID", value_delimiter = ',')]
    pub only: Vec<String>,
    /// Judge one gate of the contract: its criteria and its signed
    /// approvals. Exit 0 means the gate is open (the report says `gate`).
    #[arg(long = "gate", value_name = "GATE", conflicts_with = "only")]
    pub gate: Option<String>,

    /// Refuse to judge a root holding more files than this [default: 1000000].
    #[arg(long, value_name = "N")]
    pub max_files: Option<usize>,
    /// Folders deeper than this are not walked (and reported) [default: 256].
    #[arg(long, value_name = "N")]
    pub max_depth: Option<usize>,
    /// Files larger than this are not read (and reported) [default: 4GiB].
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_file_size: Option<vcc_contract::ByteSize>,
    #[command(flatten)]
    pub binding: BindingArgs,
    #[command(flatten)]
    pub ledger: LedgerArgs,
    /// Reuse the verdict the ledger holds for exactly these inputs (the
    /// contract with its files, bases and lock, the root's digest, the
    /// validators, the limits, the trust policy, vcc): no validator runs.
    /// Needs --ledger and --ledger-key: only an entry a checkpoint signed
    /// by that key covers is reused. Any difference, an `error` row, no
    /// key or a log that does not verify computes the verdict (the report
    /// says why: `not_reused`).
    #[arg(long)]
    pub reuse: bool,
    /// Append a signed SLSA verification summary and an in-toto test result
    /// of the run to FILE (DSSE envelopes, one per line: an .intoto.jsonl).
    #[arg(long, value_name = "FILE")]
    pub attest: Option<PathBuf>,
    /// The private key that signs --attest (from `vcc key generate`).
    #[arg(long, value_name = "KEY")]
    pub key: Option<PathBuf>,
    /// The attestation's resourceUri [default: file:// of the root].
    #[arg(long, value_name = "URI")]
    pub resource: Option<String>,
    /// Judge one share of the contract's rows: `hash:K/N` (by a hash of
    /// each row's id, stable when rows are added) or `count:K/N`
    /// (round-robin); K may be `I+1` for a 0-based index I. A shard is
    /// never accepted: `vcc merge` decides. With --key, --report writes the
    /// shard signed (a DSSE envelope).
    #[arg(long, value_name = "SCHEME:K/N", value_parser = parse_partition,
          conflicts_with_all = ["only", "gate", "reuse", "attest", "watch"])]
    pub partition: Option<vcc_report::partition::Partition>,
}

fn parse_partition(text: &str) -> Result<vcc_report::partition::Partition, String> {
    vcc_report::partition::Partition::parse(text)
}

fn parse_size(text: &str) -> Result<vcc_contract::ByteSize, String> {
    vcc_contract::ByteSize::parse(text)
}

#[derive(Args)]
pub struct RecordArgs {
    /// Where to write the JSON record; the captured output goes next to it,
    /// in FILE.stdout and FILE.stderr.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Bytes of each stream kept in the captures (the digests cover all output).
    #[arg(long, value_name = "BYTES", default_value_t = 16 << 20)]
    pub max_capture: u64,
    /// The deliverable root the record's paths are relative to (the `--dir`
    /// of the `vcc check` that will judge it) [default: the current folder].
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Files or folders the command works on (its code, its tests): each
    /// file's blake3 is recorded before the command runs, so a record is
    /// bound to the code it tested.
    #[arg(long, value_name = "PATH", num_args = 1..)]
    pub inputs: Vec<PathBuf>,
    /// Files or folders the command writes (a JUnit report): each file's
    /// blake3 is recorded after it ran, so a report is bound to this run.
    #[arg(long, value_name = "PATH", num_args = 1..)]
    pub outputs: Vec<PathBuf>,
    /// Leave out of --inputs and --outputs what this gitignore pattern
    /// matches (repeat), as `vcc check --exclude` does: `__pycache__/`,
    /// `*.pyc`. The root's `.git` is always left out.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Also leave out what the root's .gitignore and .ignore files ignore
    /// (as a contract's `gitignore: true`).
    #[arg(long)]
    pub gitignore: bool,
    /// Sign the record with this private key (from `vcc key generate`): a
    /// DSSE envelope over its exact bytes, written to FILE.dsse.json.
    #[arg(long, value_name = "KEY")]
    pub key: Option<PathBuf>,
    /// The command and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
    // `vcc record` uses neither the cache nor colour: these shadow the
    // global flags (clap does not copy a global flag into a command that
    // has one of the same name), so its help lists only what it uses.
    #[arg(long, hide = true, value_enum, default_value_t = Color::Auto)]
    color: Color,
    #[arg(long, hide = true)]
    cache_dir: Option<PathBuf>,
    #[arg(long, hide = true)]
    no_cache: bool,
}

#[derive(Args)]
pub struct LintArgs {
    /// The contract; without it, `--adapters FILE` is checked alone.
    #[arg(required_unless_present = "adapters")]
    pub contract: Option<PathBuf>,
    /// The deliverable root the contract will be checked against [default:
    /// its `root:`, else its folder]: a validator component under it must be pinned.
    #[arg(long, value_name = "ROOT")]
    pub dir: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    #[command(flatten)]
    pub binding: BindingArgs,
}

#[derive(clap::Args)]
pub struct ExplainArgs {
    pub contract: PathBuf,
    /// The deliverable root the work goes to [default: the contract's
    /// `root:`, else its folder].
    #[arg(long, value_name = "ROOT")]
    pub dir: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = BriefFormat::Markdown)]
    pub format: BriefFormat,
    /// Add what a `vcc converge` (or `vcc check`) report says happened:
    /// per criterion, its status, how often it failed, how often it was
    /// handed over, when it first passed, its last findings.
    #[arg(long, value_name = "REPORT")]
    pub results: Option<PathBuf>,
    #[command(flatten)]
    pub binding: BindingArgs,
}

/// How `vcc explain` writes the brief.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum BriefFormat {
    /// Headings and lists, for people.
    Markdown,
    /// Plain numbered text for an agent's prompt (no markup, no JSON).
    Prompt,
    /// The brief as JSON, for tools.
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Color {
    Auto,
    Always,
    Never,
}

/// `--ledger` and `--ledger-key`, for the commands that judge.
#[derive(clap::Args, Clone, Default)]
pub struct LedgerArgs {
    /// Append every verdict to this verdict log (JSON lines, a Merkle tree;
    /// see `vcc ledger`).
    #[arg(long, value_name = "FILE", env = "VCC_LEDGER")]
    pub ledger: Option<PathBuf>,
    /// Sign a checkpoint of the log after each append with this private key
    /// (from `vcc key generate`).
    #[arg(long, value_name = "KEY", env = "VCC_LEDGER_KEY")]
    pub ledger_key: Option<PathBuf>,
}
