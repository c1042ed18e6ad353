//! The arguments of `vcc merge`.

use super::*;

#[derive(Args)]
pub struct MergeArgs {
    /// Shard reports: the JSON `vcc check --partition … --report` wrote,
    /// signed (a DSSE envelope) or not.
    #[arg(required = true, num_args = 1..)]
    pub shards: Vec<PathBuf>,
    /// The contract the shards must have judged, read as `vcc check` reads
    /// it (its files, vcc.lock, trust policy, bases): every shard must
    /// hold its digests and rows, and the root digest of the deliverables
    /// as the merge walks them now. One of --contract,
    /// --expect-contract/--expect-root or --unbound is required.
    #[arg(long, value_name = "FILE")]
    pub contract: Option<PathBuf>,
    /// With --contract: the deliverable root [default: the contract's
    /// `root:`, else its folder].
    #[arg(long, value_name = "ROOT", requires = "contract")]
    pub dir: Option<PathBuf>,
    /// With --contract: leave out what this gitignore pattern matches
    /// (repeat), as the shards' `vcc check --exclude` did.
    #[arg(long, value_name = "GLOB", requires = "contract")]
    pub exclude: Vec<String>,
    /// With --contract: walk the root with the limits the shards' checks
    /// used (`vcc check --max-files`) [default: 1000000].
    #[arg(long, value_name = "N", requires = "contract")]
    pub max_files: Option<usize>,
    /// With --contract: as the shards' `vcc check --max-depth` [default: 256].
    #[arg(long, value_name = "N", requires = "contract")]
    pub max_depth: Option<usize>,
    /// With --contract: as the shards' `vcc check --max-file-size`
    /// [default: 4GiB].
    #[arg(long, value_name = "SIZE", value_parser = super::parse_size, requires = "contract")]
    pub max_file_size: Option<vcc_contract::ByteSize>,
    /// The contract digest every shard must hold (`contract.digest` in a
    /// report), for a merge that does not have the contract; with
    /// --expect-root.
    #[arg(
        long,
        value_name = "DIGEST",
        requires = "expect_root",
        conflicts_with = "contract"
    )]
    pub expect_contract: Option<String>,
    /// The root digest every shard must hold
    /// (`deliverables.root_digest`), for a merge that does not have the
    /// tree; with --expect-contract.
    #[arg(
        long,
        value_name = "DIGEST",
        requires = "expect_contract",
        conflicts_with = "contract"
    )]
    pub expect_root: Option<String>,
    /// Merge shards checked against nothing but each other: any
    /// self-consistent set, of any commit, merges. The report says so.
    #[arg(long, conflicts_with_all = ["contract", "expect_contract", "expect_root"])]
    pub unbound: bool,
    /// Merge shards that no key signed, when the trust policy names no
    /// shard signers (`attestations:`); the report says so. A policy that
    /// names them always requires them.
    #[arg(long)]
    pub allow_unsigned: bool,
    /// The contract as `vcc check` reads it, with --contract (trust
    /// policy, lock, base, VCC v1 mappings); --trust also names the keys
    /// that must have signed the shards.
    #[command(flatten)]
    pub binding: BindingArgs,
    #[command(flatten)]
    pub reports: ReportArgs,
    /// Exit 0 for an advisory verdict, as `vcc check --allow-advisory`.
    #[arg(long)]
    pub allow_advisory: bool,
    #[command(flatten)]
    pub ledger: LedgerArgs,
    /// Append a signed SLSA verification summary and an in-toto test
    /// result of the merged verdict to FILE, as `vcc check --attest`;
    /// needs --contract (the subjects are the files the merge walked).
    #[arg(long, value_name = "FILE", requires = "contract")]
    pub attest: Option<PathBuf>,
    /// The private key that signs --attest (from `vcc key generate`).
    #[arg(long, value_name = "KEY")]
    pub key: Option<PathBuf>,
    /// The attestation's resourceUri [default: file:// of the root].
    #[arg(long, value_name = "URI")]
    pub resource: Option<String>,
}
