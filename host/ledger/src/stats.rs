//! `vcc ledger stats`: outcomes counted with their denominators written
//! out, as the verify-gated admission paper asks — all rows, the rows
//! whose outcome is known (not `skipped`), and the share of successes of
//! each. Check-level rows, loop-level rows and shards are counted apart,
//! never mixed: a loop's end is not one more check, and a shard is a
//! share of one (its merge is the check).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::entry::{Entry, Outcome};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    Nothing,
    Contract,
    Day,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Counts {
    pub rows: u64,
    pub success: u64,
    pub blocked: u64,
    pub failed: u64,
    pub skipped: u64,
    /// Rows with a known outcome: all but `skipped`.
    pub known: u64,
    /// success / known (absent when nothing is known).
    pub success_of_known: Option<f64>,
    /// success / rows.
    pub success_of_all: Option<f64>,
}

impl Counts {
    fn add(&mut self, o: Outcome) {
        self.rows += 1;
        match o {
            Outcome::Success => self.success += 1,
            Outcome::Blocked => self.blocked += 1,
            Outcome::Failed => self.failed += 1,
            Outcome::Skipped => self.skipped += 1,
        }
        self.known = self.rows - self.skipped;
        let share = |n: u64, d: u64| (d > 0).then(|| n as f64 / d as f64);
        self.success_of_known = share(self.success, self.known);
        self.success_of_all = share(self.success, self.rows);
    }
}

/// One group's counts, at each level.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Group {
    pub checks: Counts,
    pub loops: Counts,
    /// `vcc check --partition` rows: `skipped`, their merge decides.
    pub shards: Counts,
}

pub fn stats(entries: &[Entry], by: By) -> BTreeMap<String, Group> {
    let mut out: BTreeMap<String, Group> = BTreeMap::new();
    for e in entries {
        let key = match by {
            By::Nothing => "all".to_string(),
            By::Contract => e
                .contract
                .id
                .clone()
                .unwrap_or_else(|| e.contract.path.clone()),
            By::Day => e.time.get(..10).unwrap_or("?").to_string(),
        };
        let group = out.entry(key).or_default();
        if e.kind.is_loop() {
            group.loops.add(e.outcome);
        } else if e.kind.is_shard() {
            group.shards.add(e.outcome);
        } else {
            group.checks.add(e.outcome);
        }
    }
    out
}
