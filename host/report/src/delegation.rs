//! Delegation with conserved budgets (Agent Contracts): a `vcc converge`
//! started inside another's command is a child of that loop. The parent
//! publishes its budget as a pool (`$VCC_BUDGET_FILE`); a child is granted
//! part of what is left, its spending is charged to the pool as it
//! happens, and what it did not spend returns when it ends.
//!
//! Tokens and cost are conserved: while a child runs it holds its whole
//! grant, so siblings started at once can never be granted, together, more
//! than the parent has left. Time is bounded, not shared (children run at
//! the same time), and iterations are each loop's own (a child's run is not
//! one of its parent's).
//!
//! Nothing here reads a file or a clock; the CLI locks, reads and writes
//! the pool and passes the time in.

use serde::{Deserialize, Serialize};

use crate::budget::{Limits, Termination, Usage};

/// The pool file's format name; a file without it is not a pool.
pub const POOL_FORMAT: &str = "vcc.budget-pool/1";
/// The error code a child's refusal starts with (exit 2).
pub const EXCEEDS_PARENT: &str = "BUDGET_EXCEEDS_PARENT";

/// The parent loop's budget as its command (and any child it starts) sees
/// it: the envelope behind `$VCC_BUDGET_FILE`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pool {
    pub format: String,
    /// The parent's contract, as given on its command line.
    pub contract: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract_digest: Option<String>,
    /// The parent's run of its command this pool serves now.
    pub iteration: u32,
    pub limits: Limits,
    /// When the parent's time budget ends (Unix milliseconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_unix_ms: Option<u64>,
    /// Kept back from children: they may be granted what is left minus it.
    pub reserve: Grant,
    /// What the parent spent itself (its command and its judges), its
    /// children aside.
    pub own: Usage,
    /// What is left of the parent's budget (the limits minus what it and
    /// every child spent), as of the last write.
    pub left: Grant,
    /// Runs of the parent's command left, counting the current one.
    pub iterations_left: u32,
    /// What a child started now could be granted, at most.
    pub grantable: Grant,
    /// Every child, in the order they joined.
    pub children: Vec<Delegation>,
}

/// An amount of each conserved resource; absent means no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Grant {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
}

/// One child loop: its grant, what it spent and how it ended. Also the
/// converge report's delegation tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Delegation {
    /// 1, 2, … in the order children joined the pool.
    pub id: u32,
    /// The child vcc's process id.
    pub pid: u32,
    pub contract: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract_digest: Option<String>,
    /// The parent's run it was started in.
    pub iteration: u32,
    pub started_at: String,
    pub granted: Grant,
    /// Everything it spent so far (its command, its judges, its own
    /// children), charged to the parent as it happens.
    pub spent: Usage,
    pub state: ChildState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<String>,
    /// Its lifecycle (FULFILLED, VIOLATED, EXPIRED, TERMINATED).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub termination: Option<Termination>,
    /// What went back to the parent: its grant minus what it spent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returned: Option<Grant>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChildState {
    Running,
    Ended,
    /// Its parent's command ended and the child did not say how it ended
    /// (it was killed): it is charged its whole grant.
    Lost,
}

impl Delegation {
    /// What it holds of the pool: while it runs (or when it was lost) its
    /// whole grant, or more if it spent more; once ended, what it spent.
    pub fn charge(&self) -> Usage {
        match self.state {
            ChildState::Ended => self.spent,
            ChildState::Running | ChildState::Lost => Usage {
                tokens: self
                    .granted
                    .tokens
                    .map_or(self.spent.tokens, |g| g.max(self.spent.tokens)),
                cost: self
                    .granted
                    .cost
                    .map_or(self.spent.cost, |g| g.max(self.spent.cost)),
            },
        }
    }

    /// Its grant minus what it spent (nothing below zero).
    pub fn unspent(&self) -> Grant {
        Grant {
            tokens: self
                .granted
                .tokens
                .map(|g| g.saturating_sub(self.spent.tokens)),
            cost: self.granted.cost.map(|g| (g - self.spent.cost).max(0.0)),
            time_ms: None,
        }
    }
}

impl Pool {
    /// A parent's pool before any child; `reserve_pct` of each conserved
    /// limit is kept back from children.
    pub fn new(
        contract: String,
        contract_digest: Option<String>,
        limits: Limits,
        deadline_unix_ms: Option<u64>,
        reserve_pct: u8,
    ) -> Pool {
        let pct = f64::from(reserve_pct.min(100)) / 100.0;
        let reserve = Grant {
            tokens: limits.tokens.map(|t| (t as f64 * pct).ceil() as u64),
            cost: limits.cost.map(|c| c * pct),
            time_ms: limits.time_ms.map(|t| (t as f64 * pct).ceil() as u64),
        };
        let mut pool = Pool {
            format: POOL_FORMAT.into(),
            contract,
            contract_digest,
            iteration: 0,
            limits,
            deadline_unix_ms,
            reserve,
            own: Usage::default(),
            left: Grant::default(),
            iterations_left: limits.iterations,
            grantable: Grant::default(),
            children: Vec::new(),
        };
        pool.refresh(0);
        pool
    }

    /// The parent and every child's actual spending.
    pub fn spent(&self) -> Usage {
        let mut total = self.own;
        for c in &self.children {
            total.add(c.spent);
        }
        total
    }

    /// What the parent and its children hold: running children their
    /// whole grant.
    fn held(&self) -> Usage {
        let mut total = self.own;
        for c in &self.children {
            total.add(c.charge());
        }
        total
    }

    /// Recompute `left` and `grantable` after any change; `now_unix_ms`
    /// for the time left.
    pub fn refresh(&mut self, now_unix_ms: u64) {
        let spent = self.spent();
        let held = self.held();
        let time_left = self.deadline_unix_ms.map(|d| d.saturating_sub(now_unix_ms));
        self.left = Grant {
            tokens: self.limits.tokens.map(|t| t.saturating_sub(spent.tokens)),
            cost: self.limits.cost.map(|c| (c - spent.cost).max(0.0)),
            time_ms: time_left,
        };
        self.grantable = Grant {
            tokens: self.limits.tokens.map(|t| {
                t.saturating_sub(held.tokens)
                    .saturating_sub(self.reserve.tokens.unwrap_or(0))
            }),
            cost: self
                .limits
                .cost
                .map(|c| (c - held.cost - self.reserve.cost.unwrap_or(0.0)).max(0.0)),
            time_ms: time_left.map(|t| t.saturating_sub(self.reserve.time_ms.unwrap_or(0))),
        };
    }

    /// Grant a child what it asks (or, where it asks nothing, all that can
    /// be granted); refused with [`EXCEEDS_PARENT`] when it asks for more.
    /// The child joins the pool as running.
    pub fn join(
        &mut self,
        ask: Grant,
        contract: String,
        contract_digest: Option<String>,
        pid: u32,
        started_at: String,
        now_unix_ms: u64,
    ) -> Result<Delegation, String> {
        self.refresh(now_unix_ms);
        let can = self.grantable;
        let tokens = pick(ask.tokens, can.tokens, |a, c| a > c)
            .map_err(|(a, c)| format!("{a} tokens (the parent can grant {c})"));
        let cost = pick(ask.cost, can.cost, |a, c| a > c + 1e-12)
            .map_err(|(a, c)| format!("a cost of {a} (the parent can grant {c})"));
        let time = pick(ask.time_ms, can.time_ms, |a, c| a > c)
            .map_err(|(a, c)| format!("{a} ms (the parent can grant {c} ms)"));
        let (tokens, cost, time_ms) = match (tokens, cost, time) {
            (Ok(t), Ok(c), Ok(ms)) => (t, c, ms),
            (t, c, ms) => {
                let refused: Vec<String> =
                    [t.err(), c.err(), ms.err()].into_iter().flatten().collect();
                // The refused child is in the parent's tree too, granted
                // nothing, ended at once: a loop that asked too much is
                // seen where the budget is read, not only in its own output.
                let nothing = Grant {
                    tokens: can.tokens.map(|_| 0),
                    cost: can.cost.map(|_| 0.0),
                    time_ms: can.time_ms.map(|_| 0),
                };
                self.children.push(Delegation {
                    id: self.children.iter().map(|c| c.id).max().unwrap_or(0) + 1,
                    pid,
                    contract,
                    contract_digest,
                    iteration: self.iteration,
                    started_at: started_at.clone(),
                    granted: nothing,
                    spent: Usage::default(),
                    state: ChildState::Ended,
                    ended_at: Some(started_at),
                    outcome: Some(Termination::BudgetExceedsParent.lifecycle().to_string()),
                    termination: Some(Termination::BudgetExceedsParent),
                    returned: Some(nothing),
                });
                self.refresh(now_unix_ms);
                return Err(format!(
                    "{EXCEEDS_PARENT}: this loop asks for {} — more than the parent loop ({}) has left after its reserve; lower the child's --max-* flags or its contract's budget, or give the parent more",
                    refused.join(", "),
                    self.contract
                ));
            }
        };
        let child = Delegation {
            id: self.children.iter().map(|c| c.id).max().unwrap_or(0) + 1,
            pid,
            contract,
            contract_digest,
            iteration: self.iteration,
            started_at,
            granted: Grant {
                tokens,
                cost,
                time_ms,
            },
            spent: Usage::default(),
            state: ChildState::Running,
            ended_at: None,
            outcome: None,
            termination: None,
            returned: None,
        };
        self.children.push(child.clone());
        self.refresh(now_unix_ms);
        Ok(child)
    }

    /// Whether this pool — as the parent wrote it, at `at_unix_ms` —
    /// could have granted `child` what it holds: within what could be
    /// granted in each resource, and bounded wherever the parent is. The
    /// parent asks this of every child that joined since it last wrote
    /// the pool, in the order they joined, because the pool file is in
    /// the command's reach: a grant is what the parent's own accounting
    /// allows, never what the file says. An admitted child is counted in
    /// (holding its grant) for the next.
    ///
    /// An honest child can never be refused: it was granted against this
    /// pool plus the children before it, who held at least their grants,
    /// at a later time (so with no more time left).
    pub fn admit(&mut self, child: &Delegation, at_unix_ms: u64) -> Result<(), String> {
        self.refresh(at_unix_ms);
        let can = self.grantable;
        let g = child.granted;
        let mut over = Vec::new();
        match (g.tokens, can.tokens) {
            (Some(t), Some(c)) if t > c => over.push(format!("{t} tokens (it could grant {c})")),
            (None, Some(c)) => over.push(format!("unlimited tokens (it could grant {c})")),
            _ => {}
        }
        match (g.cost, can.cost) {
            (Some(t), Some(c)) if t.is_nan() || t > c + 1e-9 => {
                over.push(format!("a cost of {t} (it could grant {c})"));
            }
            (None, Some(c)) => over.push(format!("an unlimited cost (it could grant {c})")),
            _ => {}
        }
        match (g.time_ms, can.time_ms) {
            (Some(t), Some(c)) if t > c => over.push(format!("{t} ms (it could grant {c} ms)")),
            (None, Some(c)) => over.push(format!("unlimited time (it could grant {c} ms)")),
            _ => {}
        }
        if !over.is_empty() {
            return Err(format!(
                "child {} ({}) holds a grant its parent never made: {}. The budget pool was written by something other than vcc (the command can write it); a child's grant is what the parent's own accounting allows",
                child.id,
                child.contract,
                over.join(", ")
            ));
        }
        // A child refused at joining ended then, granted nothing.
        let refused = child.termination == Some(Termination::BudgetExceedsParent);
        self.children.push(Delegation {
            spent: Usage::default(),
            state: if refused {
                ChildState::Ended
            } else {
                ChildState::Running
            },
            ..child.clone()
        });
        self.refresh(at_unix_ms);
        Ok(())
    }

    pub fn child_mut(&mut self, id: u32) -> Option<&mut Delegation> {
        self.children.iter_mut().find(|c| c.id == id)
    }
}

/// The child's limit in one resource: its ask if the parent can grant it,
/// else all the parent can grant; no limit on either side stays none.
fn pick<T: Copy>(
    ask: Option<T>,
    can: Option<T>,
    over: impl Fn(T, T) -> bool,
) -> Result<Option<T>, (T, T)> {
    match (ask, can) {
        (Some(a), Some(c)) if over(a, c) => Err((a, c)),
        (Some(a), _) => Ok(Some(a)),
        (None, c) => Ok(c),
    }
}

impl Limits {
    /// These limits lowered to a grant (a child's own budget within what
    /// its parent gave it).
    pub fn within(self, grant: Grant) -> Limits {
        fn min<T: PartialOrd>(a: Option<T>, b: Option<T>) -> Option<T> {
            match (a, b) {
                (Some(a), Some(b)) => Some(if b < a { b } else { a }),
                (a, b) => a.or(b),
            }
        }
        Limits {
            tokens: min(self.tokens, grant.tokens),
            cost: min(self.cost, grant.cost),
            time_ms: min(self.time_ms, grant.time_ms),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(tokens: u64) -> Limits {
        Limits {
            iterations: 5,
            time_ms: None,
            cost: None,
            tokens: Some(tokens),
            stagnation: 2,
        }
    }

    fn join(pool: &mut Pool, tokens: Option<u64>) -> Result<Delegation, String> {
        let ask = Grant {
            tokens,
            ..Grant::default()
        };
        pool.join(ask, "child.yaml".into(), None, 1, "t".into(), 0)
    }

    #[test]
    fn siblings_can_never_be_granted_more_than_is_left_after_the_reserve() {
        let mut pool = Pool::new("p.yaml".into(), None, limits(10_000), None, 10);
        assert_eq!(pool.grantable.tokens, Some(9_000));
        pool.own.tokens = 1_000;
        let a = join(&mut pool, Some(3_000)).unwrap();
        let b = join(&mut pool, Some(3_000)).unwrap();
        assert_eq!((a.id, b.id), (1, 2));
        assert_eq!(pool.grantable.tokens, Some(2_000));
        let err = join(&mut pool, Some(2_001)).unwrap_err();
        assert!(
            err.starts_with(
                "BUDGET_EXCEEDS_PARENT: this loop asks for 2001 tokens (the parent can grant 2000)"
            ),
            "{err}"
        );
        // Asking nothing takes what can be granted; the next gets nothing.
        let c = join(&mut pool, None).unwrap();
        assert_eq!(c.granted.tokens, Some(2_000));
        assert_eq!(pool.grantable.tokens, Some(0));
    }

    #[test]
    fn the_parent_admits_only_grants_it_could_have_made() {
        let published = Pool::new("p.yaml".into(), None, limits(10_000), None, 10);
        // Honest: two children joined against the file, one after the other.
        let mut file = published.clone();
        let a = join(&mut file, Some(3_000)).unwrap();
        file.child_mut(a.id).unwrap().spent.tokens = 3_500;
        let b = join(&mut file, None).unwrap();
        let mut replay = published.clone();
        replay.admit(&a, 0).unwrap();
        replay.admit(&b, 0).unwrap();
        // The file's limits raised by the command: the child it let in
        // holds more than the parent could give.
        let mut file = published.clone();
        file.limits.tokens = Some(1_000_000);
        let big = join(&mut file, Some(100_000)).unwrap();
        let err = published.clone().admit(&big, 0).unwrap_err();
        assert!(
            err.contains(
                "holds a grant its parent never made: 100000 tokens (it could grant 9000)"
            ),
            "{err}"
        );
        // No limit where the parent has one.
        let unbounded = Delegation {
            granted: Grant::default(),
            ..a
        };
        assert!(published.clone().admit(&unbounded, 0).is_err());
    }

    #[test]
    fn an_ended_child_returns_what_it_did_not_spend() {
        let mut pool = Pool::new("p.yaml".into(), None, limits(10_000), None, 0);
        let a = join(&mut pool, Some(4_000)).unwrap();
        pool.child_mut(a.id).unwrap().spent.tokens = 1_500;
        pool.refresh(0);
        assert_eq!(pool.grantable.tokens, Some(6_000), "held: the whole grant");
        assert_eq!(pool.left.tokens, Some(8_500), "left: what was spent");
        let child = pool.child_mut(a.id).unwrap();
        child.state = ChildState::Ended;
        assert_eq!(child.unspent().tokens, Some(2_500));
        pool.refresh(0);
        assert_eq!(pool.grantable.tokens, Some(8_500));
    }

    #[test]
    fn a_lost_child_holds_its_whole_grant_and_an_overspent_one_what_it_spent() {
        let mut pool = Pool::new("p.yaml".into(), None, limits(10_000), None, 0);
        let a = join(&mut pool, Some(4_000)).unwrap();
        let child = pool.child_mut(a.id).unwrap();
        child.state = ChildState::Lost;
        assert_eq!(child.charge().tokens, 4_000);
        child.spent.tokens = 4_500;
        assert_eq!(child.charge().tokens, 4_500);
    }

    #[test]
    fn time_is_bounded_by_the_parent_deadline_minus_its_reserve() {
        let l = Limits {
            time_ms: Some(60_000),
            tokens: None,
            ..limits(0)
        };
        let mut pool = Pool::new("p.yaml".into(), None, l, Some(100_000), 10);
        let ask = Grant {
            time_ms: Some(50_000),
            ..Grant::default()
        };
        let err = pool
            .join(ask, "c".into(), None, 1, "t".into(), 50_000)
            .unwrap_err();
        assert!(
            err.contains("50000 ms (the parent can grant 44000 ms)"),
            "{err}"
        );
        let child = pool
            .join(Grant::default(), "c".into(), None, 1, "t".into(), 50_000)
            .unwrap();
        assert_eq!(child.granted.time_ms, Some(44_000));
        assert_eq!(child.granted.tokens, None, "no token limit anywhere");
        let own = limits(9_000).within(child.granted);
        assert_eq!((own.tokens, own.time_ms), (Some(9_000), Some(44_000)));
    }
}
