//! What a loop may spend and why it stopped: the limits of `vcc converge`
//! and of a delegation ([`Limits`]), what a command reports spending
//! ([`Usage`]), what is left ([`BudgetLeft`]), and the stop reasons
//! ([`Termination`]). Shared by `converge` and `delegation`, below both.

use serde::{Deserialize, Serialize};

/// Why the loop stopped (stable names, for tools).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Termination {
    /// Every MUST passed.
    Accepted,
    BudgetIterations,
    BudgetTime,
    BudgetCost,
    BudgetTokens,
    /// The failing MUST criteria and their findings did not change.
    Stagnation,
    /// A failing criterion's `on_fail.action` is `abort`.
    Abort,
    /// A MUST still fails after its `on_fail.max_attempts`.
    Attempts,
    /// The command exited non-zero, with `--stop-on-command-error`.
    CommandError,
    /// The command could not be started.
    CommandNotStarted,
    /// The command wrote a `$VCC_USAGE` line vcc cannot read, while a cost
    /// or token budget is in force: what is left cannot be known.
    UsageInvalid,
    /// The contract's bytes changed during the loop.
    ContractChanged,
    /// Ctrl-C (SIGINT) or SIGTERM.
    Interrupted,
    /// The contract could not be evaluated.
    Invalid,
    /// The contract is advisory: it reports and never accepts, so the
    /// loop stops after its first check (`law::ADVISORY`).
    Advisory,
    /// Started inside another loop's command, it asked for more than that
    /// loop could grant (`BUDGET_EXCEEDS_PARENT`); nothing ran.
    BudgetExceedsParent,
    /// Written before the loop starts; a report still saying this means
    /// vcc was killed.
    Unfinished,
}

impl Termination {
    /// The Agent Contracts lifecycle state the loop ended in: FULFILLED
    /// (accepted), EXPIRED (the time budget ran out), TERMINATED (stopped
    /// from outside: interrupted, the contract changed, it could not be
    /// evaluated, or vcc was killed), VIOLATED (every other end: a budget
    /// other than time spent, stagnation, an abort, attempts, the command).
    pub fn lifecycle(self) -> &'static str {
        match self {
            Termination::Accepted => "FULFILLED",
            Termination::BudgetTime => "EXPIRED",
            Termination::Interrupted
            | Termination::ContractChanged
            | Termination::Invalid
            | Termination::BudgetExceedsParent
            | Termination::Advisory
            | Termination::Unfinished => "TERMINATED",
            _ => "VIOLATED",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Accepted => "accepted",
            Termination::BudgetIterations => "budget_iterations",
            Termination::BudgetTime => "budget_time",
            Termination::BudgetCost => "budget_cost",
            Termination::BudgetTokens => "budget_tokens",
            Termination::Stagnation => "stagnation",
            Termination::Abort => "abort",
            Termination::Attempts => "attempts",
            Termination::CommandError => "command_error",
            Termination::CommandNotStarted => "command_not_started",
            Termination::UsageInvalid => "usage_invalid",
            Termination::ContractChanged => "contract_changed",
            Termination::Interrupted => "interrupted",
            Termination::Invalid => "invalid",
            Termination::BudgetExceedsParent => "budget_exceeds_parent",
            Termination::Advisory => "advisory",
            Termination::Unfinished => "unfinished",
        }
    }

    /// 0 accepted, 2 the contract could not be evaluated, 1 anything else.
    pub fn exit_code(self) -> i32 {
        use crate::law::exit;
        match self {
            Termination::Accepted => exit::ACCEPTED,
            Termination::Invalid | Termination::BudgetExceedsParent => exit::INVALID,
            _ => exit::NOT_ACCEPTED,
        }
    }
}

/// The loop's limits: the contract's budget, lowered by flags.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    pub iterations: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    pub stagnation: u32,
}

/// What the command reported spending through `$VCC_USAGE`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    pub tokens: u64,
    pub cost: f64,
}

impl Usage {
    pub fn add(&mut self, other: Usage) {
        self.tokens = self.tokens.saturating_add(other.tokens);
        self.cost += other.cost;
    }

    /// One `$VCC_USAGE` line: `{"tokens": N, "cost": X}`, either optional,
    /// no other field, nothing negative.
    pub fn parse_line(line: &str) -> Result<Usage, String> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Line {
            #[serde(default)]
            tokens: u64,
            #[serde(default)]
            cost: f64,
        }
        let l: Line = serde_json::from_str(line).map_err(|e| e.to_string())?;
        if !(l.cost.is_finite() && l.cost >= 0.0) {
            return Err(format!("cost {} is not a number of 0 or more", l.cost));
        }
        Ok(Usage {
            tokens: l.tokens,
            cost: l.cost,
        })
    }
}

/// What is left, handed to the command as `$VCC_BUDGET_LEFT` (JSON). A
/// limit not in force is absent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BudgetLeft {
    /// Runs of the command left, counting the one about to start.
    pub iterations: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
}
