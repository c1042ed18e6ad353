//! The arguments of the commands agents run: `vcc converge`, `vcc hook`,
//! `vcc mcp`.

use vcc_report::harness::Harness;

use super::*;

#[derive(Args)]
pub struct ConvergeArgs {
    /// The contract (YAML, or JSON with a .json extension).
    pub contract: PathBuf,
    /// The deliverable root [default: the contract's `root:`, else its folder].
    #[arg(long, value_name = "ROOT")]
    pub dir: Option<PathBuf>,
    /// Leave out what this gitignore pattern matches (repeat), on top of
    /// the contract's `exclude`: never hashed, never seen by a validator.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Judge FILE, from outside the root, as if it were at GUEST_PATH under
    /// it (repeat), as `vcc check --attach` does: the agent's transcript,
    /// say `--attach .vcc/transcript.jsonl=/tmp/session.jsonl`. Every check
    /// of the loop reads it again (a transcript grows as CMD runs); one
    /// that cannot be read makes that check invalid and ends the loop.
    #[arg(long, value_name = "GUEST_PATH=FILE")]
    pub attach: Vec<String>,
    /// Runs of CMD at most [default: the contract's budget.iterations, else 10].
    #[arg(long, value_name = "N")]
    pub max_iterations: Option<u32>,
    /// Wall time of the whole loop, e.g. `20m` [default: the contract's budget.time].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub max_time: Option<vcc_contract::DurationSpec>,
    /// Cost CMD may report through $VCC_USAGE [default: the contract's budget.cost].
    #[arg(long, value_name = "X")]
    pub max_cost: Option<f64>,
    /// Tokens CMD may report through $VCC_USAGE [default: the contract's budget.tokens].
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
    /// Stop when the failing MUST criteria and their findings are unchanged
    /// after K runs in a row [default: the contract's budget.stagnation, else 2].
    #[arg(long, value_name = "K")]
    pub stagnation: Option<u32>,
    /// Stop (reason `command_error`) when CMD exits non-zero.
    #[arg(long)]
    pub stop_on_command_error: bool,
    /// The share (in percent) of each token, cost and time budget kept back
    /// from child loops started inside CMD ($VCC_BUDGET_FILE).
    #[arg(long, value_name = "PERCENT", default_value_t = 10,
          value_parser = clap::value_parser!(u8).range(0..=100))]
    pub reserve: u8,
    /// Also write the converge report (JSON) to FILE.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Also write a self-contained HTML page to FILE: the loop, with a chart
    /// of the MUST criteria failing after each run, and the last check.
    #[arg(long, value_name = "FILE")]
    pub report_html: Option<PathBuf>,
    /// Exit 0 when the contract is advisory (the loop stops after its
    /// first check, as it always does then), as `vcc check --allow-advisory`.
    #[arg(long)]
    pub allow_advisory: bool,
    /// human (progress to stderr) or json (the converge report, to stdout).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Criteria evaluated at once [default: the number of cores].
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    #[command(flatten)]
    pub binding: BindingArgs,
    #[command(flatten)]
    pub ledger: LedgerArgs,
    /// The command and its arguments, after `--`. It runs in the folder
    /// vcc was started in, not in the deliverable root when --dir or the
    /// contract's `root:` names another ($VCC_ROOT is the root).
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
}

pub(super) fn parse_duration(text: &str) -> Result<vcc_contract::DurationSpec, String> {
    vcc_contract::DurationSpec::parse(text)
}

/// `vcc hook NAME`: a subcommand for each harness in
/// `vcc_report::harness::Harness::ALL`, with the harness's own help, all
/// taking [`HookArgs`]. Made from that list, so a new harness needs no line
/// here or in the dispatch.
pub struct HookCommand {
    pub harness: Harness,
    pub args: HookArgs,
}

impl clap::Subcommand for HookCommand {
    fn augment_subcommands(mut cmd: clap::Command) -> clap::Command {
        for harness in Harness::ALL {
            // The harness's own words, set after the arguments: a
            // flattened struct's doc (`LedgerArgs`) would otherwise be the
            // subcommand's about.
            let sub = HookArgs::augment_args(clap::Command::new(harness.name()))
                .about(harness.about())
                .long_about(None);
            cmd = cmd.subcommand(sub);
        }
        cmd.subcommand_required(true).arg_required_else_help(true)
    }

    fn augment_subcommands_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_subcommands(cmd)
    }

    fn has_subcommand(name: &str) -> bool {
        Harness::from_name(name).is_some()
    }
}

impl clap::FromArgMatches for HookCommand {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let Some((name, sub)) = matches.subcommand() else {
            return Err(clap::Error::new(clap::error::ErrorKind::MissingSubcommand));
        };
        let harness = Harness::from_name(name).ok_or_else(|| {
            clap::Error::raw(
                clap::error::ErrorKind::InvalidSubcommand,
                format!("no harness is named {name}\n"),
            )
        })?;
        Ok(HookCommand {
            harness,
            args: HookArgs::from_arg_matches(sub)?,
        })
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

#[derive(Args)]
pub struct HookArgs {
    /// The contract. Relative paths on the hook's command line mean the
    /// session's project folder ($CLAUDE_PROJECT_DIR, $CURSOR_PROJECT_DIR,
    /// $GEMINI_PROJECT_DIR, else the first stop's folder), fixed at the
    /// session's first stop with the contract and the root.
    #[arg(long, value_name = "FILE")]
    pub contract: PathBuf,
    /// The deliverable root [default: the contract's `root:`, else its
    /// folder].
    #[arg(long, value_name = "ROOT")]
    pub dir: Option<PathBuf>,
    /// Stops blocked in a turn at most (timeouts and crashed checks
    /// included); past it the stop is allowed and the work is reported
    /// withheld, never accepted. The count starts again when a stop is let
    /// through.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub max_blocks: u32,
    /// On a SubagentStop of subagents of this type, judge with this
    /// contract (repeat). A type without one is judged with the session,
    /// at its stop.
    #[arg(long, value_name = "TYPE=CONTRACT")]
    pub subagent: Vec<String>,
    /// Give up judging after this long, and block the stop (keep it below
    /// the harness's own hook timeout, past which it lets the stop through).
    #[arg(long, value_name = "DURATION", default_value = "50s", value_parser = humantime::parse_duration)]
    pub timeout: std::time::Duration,
    #[command(flatten)]
    pub binding: BindingArgs,
    #[command(flatten)]
    pub ledger: LedgerArgs,
}

impl HookArgs {
    /// The contract `--subagent` names for subagents of type `kind`.
    pub fn subagent_contract(&self, kind: &str) -> Option<PathBuf> {
        self.subagent.iter().find_map(|spec| {
            let (k, path) = spec.split_once('=')?;
            (k == kind && !path.is_empty()).then(|| PathBuf::from(path))
        })
    }
}

#[derive(Args)]
pub struct McpArgs {
    #[command(flatten)]
    pub binding: BindingArgs,
    #[command(flatten)]
    pub ledger: LedgerArgs,
}
