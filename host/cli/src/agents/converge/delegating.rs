//! A loop inside another (`$VCC_BUDGET_FILE`): joining the parent's pool,
//! charging it what this loop spends, and settling what child loops spent
//! and said they delegated.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use vcc_report::converge::{Limits, Termination, Usage};
use vcc_report::delegation::{ChildState, Delegation, Grant, Pool};

use super::pool::{PoolFile, now_unix_ms};
use super::{BUDGET_FILE, Converge, GRACE, POLL, Parent};

impl Converge<'_> {
    /// Ask the parent loop whose command started this one for a share of
    /// its budget (`$VCC_BUDGET_FILE`): what it grants, or why not.
    pub(super) fn join_parent(
        &mut self,
        path: &Path,
        limits: Limits,
    ) -> Result<Grant, (Termination, String)> {
        let file = PoolFile::at(path);
        let ask = Grant {
            tokens: limits.tokens,
            cost: limits.cost,
            time_ms: limits.time_ms,
        };
        let contract = self.args.contract.display().to_string();
        let digest = self.ready.as_ref().map(|r| r.prepared.doc.digest.clone());
        let joined = file.update(|pool| {
            pool.join(
                ask,
                contract,
                digest,
                std::process::id(),
                vcc_report::now_rfc3339(),
                now_unix_ms(),
            )
        });
        match joined {
            Err(e) => Err((
                Termination::Invalid,
                format!(
                    "${BUDGET_FILE} names a parent loop's budget pool that cannot be used ({e}): a loop started inside another's command runs on a share of that budget, or not at all"
                ),
            )),
            Ok(Err(refused)) => Err((Termination::BudgetExceedsParent, refused)),
            Ok(Ok(child)) => {
                let granted = child.granted;
                self.parent = Some(Parent {
                    file,
                    id: child.id,
                    granted,
                });
                self.progress(&format!(
                    "child {} of the loop whose command started it: granted {}",
                    child.id,
                    shown_grant(&granted)
                ));
                Ok(granted)
            }
        }
    }

    /// Tell the parent what this loop has spent (all of it: its command,
    /// its judges, its own children), and at the end how it ended.
    pub(super) fn charge_parent(&self, end: Option<Termination>) -> Result<(), String> {
        let total = self.lp.as_ref().map(|l| l.usage).unwrap_or_default();
        self.charge(total, end)
    }

    /// The same while the command runs, with what it has spent so far.
    pub(super) fn charge_parent_running(&self, total: Usage) -> Result<(), String> {
        self.charge(total, None)
    }

    pub(super) fn charge(&self, total: Usage, end: Option<Termination>) -> Result<(), String> {
        let Some(parent) = &self.parent else {
            return Ok(());
        };
        let found = parent.file.update(|pool| {
            let Some(me) = pool.child_mut(parent.id) else {
                return false;
            };
            me.spent.tokens = me.spent.tokens.max(total.tokens);
            me.spent.cost = me.spent.cost.max(total.cost);
            if let Some(why) = end {
                me.state = ChildState::Ended;
                me.ended_at = Some(vcc_report::now_rfc3339());
                me.outcome = Some(why.lifecycle().to_string());
                me.termination = Some(why);
                me.returned = Some(me.unspent());
            }
            pool.refresh(now_unix_ms());
            true
        })?;
        if found {
            Ok(())
        } else {
            Err(format!(
                "child {} is gone from the parent's budget pool {}",
                parent.id,
                parent.file.path().display()
            ))
        }
    }

    /// This loop's pool as it should read at `at` (Unix ms): its limits,
    /// what it spent itself (`now_own`: its command's usage in the current
    /// run), every child it knows.
    pub(super) fn pool_now(&self, run: u32, limits: Limits, now_own: Usage, at: u64) -> Pool {
        let mut own = self.own;
        own.add(now_own);
        let started_unix = at.saturating_sub(self.started.elapsed().as_millis() as u64);
        let mut pool = Pool::new(
            self.args.contract.display().to_string(),
            self.ready.as_ref().map(|r| r.prepared.doc.digest.clone()),
            limits,
            limits.time_ms.map(|ms| started_unix + ms),
            self.args.reserve,
        );
        pool.iteration = run;
        pool.own = own;
        pool.iterations_left = limits.iterations.saturating_sub(run.saturating_sub(1));
        pool.children = self.delegations.values().cloned().collect();
        pool.refresh(at);
        pool
    }

    /// Write the pool afresh for a run: whatever the last command wrote
    /// to it is replaced by what this loop knows.
    pub(super) fn publish_pool(
        &mut self,
        run: u32,
        limits: Limits,
        now_own: Usage,
    ) -> Result<(), String> {
        let at = now_unix_ms();
        let pool = self.pool_now(run, limits, now_own, at);
        self.pool.replace(&pool)?;
        self.published = Some((pool, at));
        Ok(())
    }

    /// Learn from the pool what the children of this run joined with and
    /// spent, and write back what this loop knows; what the children of
    /// this run spent so far. A child holding a grant this loop could not
    /// have made is an error (the pool was written by someone else).
    pub(super) fn sync_pool(
        &mut self,
        run: u32,
        limits: Limits,
        now_own: Usage,
    ) -> Result<Usage, String> {
        let at = now_unix_ms();
        let mut base = self.pool_now(run, limits, now_own, at);
        let mut known = std::mem::take(&mut self.delegations);
        let mut events = Vec::new();
        // Grants are checked against the pool as this loop last wrote it,
        // which is what the children that joined since were granted from.
        let mut replay = self.published.take();
        let synced = self.pool.update(|pool| {
            let merged = merge(&mut known, &pool.children, run, replay.as_mut());
            base.children = known.values().cloned().collect();
            base.refresh(at);
            *pool = base.clone();
            merged.map(|e| events = e)
        });
        self.delegations = known;
        for line in events {
            self.progress(&line);
        }
        synced??;
        self.published = Some((base, at));
        let mut spent = Usage::default();
        for d in self.delegations.values().filter(|d| d.iteration == run) {
            spent.add(d.spent);
        }
        Ok(spent)
    }

    /// After the command ended: its children must end too, and say what
    /// they spent, before the check. One still running is asked to stop,
    /// then killed; one that never says how it ended is `lost` and charged
    /// its whole grant. What this run's children are charged, if any ran.
    pub(super) fn settle_children(
        &mut self,
        run: u32,
        limits: Limits,
    ) -> Result<Option<Usage>, String> {
        let give_up = Instant::now() + GRACE * 2;
        let mut asked = false;
        loop {
            self.sync_pool(run, limits, Usage::default())?;
            let running: Vec<libc::pid_t> = self
                .delegations
                .values()
                .filter(|d| d.iteration == run && d.state == ChildState::Running)
                .map(|d| d.pid as libc::pid_t)
                .filter(|pid| alive(*pid))
                .collect();
            if running.is_empty() {
                break;
            }
            let signal = if !asked {
                asked = true;
                libc::SIGTERM
            } else if Instant::now() >= give_up {
                libc::SIGKILL
            } else {
                0
            };
            if signal != 0 {
                for pid in &running {
                    // SAFETY: kill(2) on a process id; no memory involved.
                    unsafe { libc::kill(*pid, signal) };
                }
                if signal == libc::SIGKILL {
                    break;
                }
            }
            std::thread::sleep(POLL);
        }
        let mut any = false;
        let mut charged = Usage::default();
        let mut lost = Vec::new();
        for d in self.delegations.values_mut().filter(|d| d.iteration == run) {
            if d.state == ChildState::Running {
                d.state = ChildState::Lost;
                d.ended_at = Some(vcc_report::now_rfc3339());
                lost.push(format!(
                    "child {} ({}) never said how it ended: charged its whole grant",
                    d.id, d.contract
                ));
            }
            any = true;
            charged.add(d.charge());
        }
        for line in lost {
            self.progress(&line);
        }
        self.sync_pool(run, limits, Usage::default())?;
        Ok(any.then_some(charged))
    }
}

/// Merge what the pool says of the children into what this loop knows: a
/// new child may join the current run only, with a grant `published` (the
/// pool as this loop last wrote it, and when) could have made; spending
/// only grows, and an end, once known, stays. Progress lines for what
/// changed, or why a child cannot be believed.
pub(super) fn merge(
    known: &mut BTreeMap<u32, Delegation>,
    said: &[Delegation],
    run: u32,
    mut published: Option<&mut (Pool, u64)>,
) -> Result<Vec<String>, String> {
    let mut events = Vec::new();
    let mut joined: Vec<&Delegation> = said
        .iter()
        .filter(|c| c.iteration == run && !known.contains_key(&c.id))
        .collect();
    // In the order they joined: each was granted from what the ones
    // before it left.
    joined.sort_by_key(|c| c.id);
    for c in joined {
        match published.as_deref_mut() {
            Some((pool, at)) => pool.admit(c, *at)?,
            None => return Err(format!("child {} joined a pool vcc never wrote", c.id)),
        }
    }
    for c in said {
        match known.get_mut(&c.id) {
            None if c.iteration == run => {
                events.push(format!(
                    "child {} ({}) joined: granted {}",
                    c.id,
                    c.contract,
                    shown_grant(&c.granted)
                ));
                known.insert(c.id, c.clone());
            }
            None => {}
            Some(k) => {
                k.spent.tokens = k.spent.tokens.max(c.spent.tokens);
                k.spent.cost = k.spent.cost.max(c.spent.cost);
                if k.state == ChildState::Running && c.state == ChildState::Ended {
                    k.state = ChildState::Ended;
                    k.ended_at.clone_from(&c.ended_at);
                    k.outcome.clone_from(&c.outcome);
                    k.termination = c.termination;
                    k.returned = Some(k.unspent());
                    events.push(format!(
                        "child {} ({}) ended {}: spent {} tokens, cost {}",
                        k.id,
                        k.contract,
                        k.outcome.as_deref().unwrap_or("?"),
                        k.spent.tokens,
                        k.spent.cost
                    ));
                }
            }
        }
    }
    Ok(events)
}

pub(super) fn shown_grant(g: &Grant) -> String {
    let mut parts = Vec::new();
    if let Some(t) = g.tokens {
        parts.push(format!("{t} tokens"));
    }
    if let Some(c) = g.cost {
        parts.push(format!("cost {c}"));
    }
    if let Some(ms) = g.time_ms {
        parts.push(format!("{:.1} s", ms as f64 / 1000.0));
    }
    if parts.is_empty() {
        "no limit (the parent has none)".into()
    } else {
        parts.join(", ")
    }
}

/// Whether a process with this id exists.
fn alive(pid: libc::pid_t) -> bool {
    // SAFETY: kill(2) with signal 0 only checks the process exists.
    pid > 0 && unsafe { libc::kill(pid, 0) } == 0
}
