//! Scale-out: `vcc check --partition hash:K/N` judges one share of a
//! contract's rows, and `vcc merge` puts the shards back together and
//! applies the termination law once, over their union. Criteria are
//! independent, so a fleet splits them the way nextest splits tests; the
//! host decides only when every shard is in, they judged the same
//! contract, the same deliverables, with the same validators and vcc —
//! and that contract and those deliverables are the ones the merge was
//! told to decide about ([`Expected`], `bind.rs`): a self-consistent set of
//! shards from an old commit is still the wrong set.
//!
//! Nothing here reads a file: the CLI reads the shards (and checks their
//! signatures), the contract and the root; this decides.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use vcc_contract::{Contract, Severity};

use crate::{CriterionReport, Report, RunInfo, Verdict, law};

mod bind;

pub use bind::{Expect, Expected};
use bind::{check_fields, check_shard, problems_of};

/// How rows are dealt to shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheme {
    /// By a hash of the row's id: adding a row moves no other.
    Hash,
    /// Round-robin by position in the contract (as nextest's `count:`).
    Count,
}

/// `hash:K/N` or `count:K/N`: shard K (1-based) of N.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partition {
    pub scheme: Scheme,
    pub index: u32,
    pub total: u32,
}

/// The DSSE payload type of a signed shard report.
pub const SHARD_PAYLOAD_TYPE: &str = "application/vnd.vcc.report+json";

/// The most shards a contract may be split into.
pub const MAX_SHARDS: u32 = 4096;

impl Partition {
    pub fn parse(text: &str) -> Result<Partition, String> {
        let fix = "write hash:K/N or count:K/N, with 1 <= K <= N, e.g. hash:2/8 (or hash:I+1/8 for a 0-based I)";
        let (scheme, rest) = text
            .split_once(':')
            .ok_or_else(|| format!("--partition {text}: {fix}"))?;
        let scheme = match scheme {
            "hash" => Scheme::Hash,
            "count" => Scheme::Count,
            other => return Err(format!("--partition {text}: no scheme `{other}`; {fix}")),
        };
        let (k, n) = rest
            .split_once('/')
            .ok_or_else(|| format!("--partition {text}: {fix}"))?;
        // `I+1`: a 0-based index as an engine gives it (a Kubernetes
        // Indexed Job's `$(JOB_COMPLETION_INDEX)+1`), where no shell adds one.
        let k = match k.strip_suffix("+1").map(str::parse::<u32>) {
            Some(Ok(i)) => i.checked_add(1).ok_or(()),
            Some(Err(_)) => Err(()),
            None => k.parse().map_err(|_| ()),
        };
        let (index, total): (u32, u32) = match (k, n.parse()) {
            (Ok(k), Ok(n)) => (k, n),
            _ => return Err(format!("--partition {text}: {fix}")),
        };
        if index == 0 || index > total || total > MAX_SHARDS {
            return Err(format!(
                "--partition {text}: {fix} (and N at most {MAX_SHARDS})"
            ));
        }
        Ok(Partition {
            scheme,
            index,
            total,
        })
    }

    /// The shard (1-based) a row goes to, at `position` among all rows.
    /// `total` is at least 1 (a shard report saying 0 is refused before).
    pub fn shard_of(scheme: Scheme, total: u32, id: &str, position: usize) -> u32 {
        let total = u64::from(total.max(1));
        match scheme {
            Scheme::Hash => {
                let h = blake3::hash(format!("vcc partition {id}").as_bytes());
                let mut first = [0u8; 8];
                first.copy_from_slice(&h.as_bytes()[..8]);
                (u64::from_le_bytes(first) % total) as u32 + 1
            }
            Scheme::Count => (position as u64 % total) as u32 + 1,
        }
    }

    /// The ids of `rows` this shard judges.
    pub fn assign(&self, rows: &[Row]) -> Vec<String> {
        rows.iter()
            .enumerate()
            .filter(|(i, r)| Partition::shard_of(self.scheme, self.total, &r.id, *i) == self.index)
            .map(|(_, r)| r.id.clone())
            .collect()
    }

    pub fn label(&self) -> String {
        let scheme = match self.scheme {
            Scheme::Hash => "hash",
            Scheme::Count => "count",
        };
        format!("{scheme}:{}/{}", self.index, self.total)
    }
}

/// One row of the whole contract, as every shard lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub id: String,
    pub severity: Severity,
}

/// Every row of the whole contract, in the order shards deal them: the
/// criteria (with those of its bases), then the host's rows for required
/// deliverables no MUST targets, then the provenance policy's. A shard
/// lists them; a merge that read the contract compares.
pub fn rows_of(contract: &Contract) -> Vec<Row> {
    let mut rows: Vec<Row> = contract
        .criteria
        .iter()
        .map(|c| Row {
            id: c.id.clone(),
            severity: c.severity,
        })
        .collect();
    rows.extend(
        vcc_contract::model::presence_checks(contract)
            .into_iter()
            .map(|d| Row {
                id: vcc_contract::model::presence_id(&d.id),
                severity: Severity::Must,
            }),
    );
    if let Some(policy) = &contract.provenance {
        rows.push(Row {
            id: vcc_contract::model::provenance_id(&policy.id),
            severity: Severity::Must,
        });
    }
    rows
}

/// What a shard report says of its partition (`partition` in the report).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartitionInfo {
    pub scheme: Scheme,
    pub index: u32,
    pub total: u32,
    /// Every row of the contract, in order: what the merge must see.
    pub rows: Vec<Row>,
}

/// What a merge checked its shards against.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Binding {
    /// `--contract`: the merge read the contract (with its files, lock
    /// and trust policy) and walked the root itself.
    Contract,
    /// `--expect-contract` and `--expect-root`: digests it was given.
    Digests,
    /// `--unbound`: nothing but each other. The report says so.
    #[default]
    Unbound,
}

impl Binding {
    pub fn as_str(self) -> &'static str {
        match self {
            Binding::Contract => "contract",
            Binding::Digests => "digests",
            Binding::Unbound => "unbound",
        }
    }
}

/// What a merged report says of the shards it came from (`merged`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergeInfo {
    pub scheme: Scheme,
    pub total: u32,
    /// The shards given, in order of their index.
    pub shards: Vec<ShardRef>,
    /// Shards that were not given: their rows are `skip` rows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<u32>,
    /// What the shards were checked against.
    #[serde(default)]
    pub binding: Binding,
    /// Merged without a signature by a key the trust policy names for
    /// shards (`--allow-unsigned`): the rows are the files' word.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unsigned: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardRef {
    pub index: u32,
    /// The file it was read from.
    pub file: String,
    /// The shard's run id.
    pub run: String,
    /// Who signed it (key ids of the trust policy), when it was signed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub signed_by: Vec<String>,
}

/// A shard as the CLI read it.
pub struct Shard {
    pub file: String,
    pub report: Report,
    pub signed_by: Vec<String>,
}

/// Merge shard reports into the report of the whole contract; `Err` is
/// why they cannot be merged (the merge is then `invalid`). Every shard
/// must hold what `expected` says; the merged report is a run of its own
/// (its own run id, no ledger entry, no reuse key of a slice).
pub fn merge(shards: Vec<Shard>, expected: &Expected) -> Result<Report, String> {
    let Some(first) = shards.first() else {
        return Err("no shard report given".into());
    };
    let mut infos = Vec::new();
    for s in &shards {
        let info = check_shard(s)?;
        check_fields(s, expected)?;
        infos.push(info);
    }
    let base = infos[0].clone();
    let base_file = first.file.clone();
    let same = |what: &str, a: Option<&str>, b: Option<&str>, file: &str| -> Result<(), String> {
        if a != b {
            return Err(format!(
                "{file} and {base_file} judged different {what} ({} and {}): shards of one check must share it",
                b.unwrap_or("none"),
                a.unwrap_or("none")
            ));
        }
        Ok(())
    };
    let digest = |r: &Report| r.contract.digest.clone();
    let root = |r: &Report| r.deliverables.as_ref().map(|d| d.root_digest.clone());
    let host = |r: &Report| r.runtime.host_digest.clone();
    let (c0, r0, h0) = (
        digest(&first.report),
        root(&first.report),
        host(&first.report),
    );
    let mut by_index: BTreeMap<u32, &Shard> = BTreeMap::new();
    let mut validators: BTreeMap<String, (String, String)> = BTreeMap::new();
    for (s, p) in shards.iter().zip(&infos) {
        if (p.scheme, p.total) != (base.scheme, base.total) || p.rows != base.rows {
            return Err(format!(
                "{} was cut differently from {base_file} (another scheme, number of shards or contract rows)",
                s.file
            ));
        }
        same(
            "contracts",
            c0.as_deref(),
            digest(&s.report).as_deref(),
            &s.file,
        )?;
        same(
            "deliverables (root digests)",
            r0.as_deref(),
            root(&s.report).as_deref(),
            &s.file,
        )?;
        same(
            "vcc binaries (host digests)",
            h0.as_deref(),
            host(&s.report).as_deref(),
            &s.file,
        )?;
        if s.report.contract.advisory != first.report.contract.advisory {
            return Err(format!(
                "{} and {base_file} disagree on whether the contract is advisory (`contract.advisory`): shards of one check must share it",
                s.file
            ));
        }
        if let Some(other) = by_index.insert(p.index, s) {
            return Err(format!(
                "shard {} of {} given twice ({} and {})",
                p.index, p.total, other.file, s.file
            ));
        }
        let mine = Partition {
            scheme: p.scheme,
            index: p.index,
            total: p.total,
        }
        .assign(&p.rows);
        let held: BTreeSet<&str> = s.report.criteria.iter().map(|c| c.id.as_str()).collect();
        let want: BTreeSet<&str> = mine.iter().map(String::as_str).collect();
        if held != want {
            return Err(format!(
                "{} holds rows {:?} where shard {} of {} holds {:?}",
                s.file, held, p.index, p.total, want
            ));
        }
        for c in &s.report.criteria {
            let Some(d) = c.validator.digest.clone() else {
                continue;
            };
            let name = c.validator.name.clone();
            match validators.get(&name) {
                Some((known, file)) if known != &d => {
                    return Err(format!(
                        "validator `{name}` is {known} in {file} and {d} in {}: shards must run the same validators",
                        s.file
                    ));
                }
                Some(_) => {}
                None => {
                    validators.insert(name, (d, s.file.clone()));
                }
            }
        }
    }
    let missing: Vec<u32> = (1..=base.total)
        .filter(|k| !by_index.contains_key(k))
        .collect();
    let mut rows: BTreeMap<String, CriterionReport> = BTreeMap::new();
    for s in by_index.values() {
        for c in &s.report.criteria {
            rows.insert(c.id.clone(), c.clone());
        }
    }
    let shards_ref: Vec<ShardRef> = by_index
        .iter()
        .map(|(index, s)| ShardRef {
            index: *index,
            file: s.file.clone(),
            run: s.report.run.id.clone(),
            signed_by: s.signed_by.clone(),
        })
        .collect();
    // The lowest shard given carries what all share (contract, root,
    // vcc); what belongs to its slice alone is replaced below.
    let Some(lowest) = by_index.values().next() else {
        return Err("no shard report given".into());
    };
    let mut merged = lowest.report.clone();
    merged.criteria = base
        .rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            rows.remove(&row.id).unwrap_or_else(|| {
                let shard = Partition::shard_of(base.scheme, base.total, &row.id, i);
                CriterionReport::not_judged(
                    &row.id,
                    row.severity,
                    format!(
                        "not judged: shard {shard} of {} is missing, so this row has no verdict",
                        base.total
                    ),
                )
            })
        })
        .collect();
    let given: Vec<&Report> = by_index.values().map(|s| &s.report).collect();
    merged.problems = problems_of(&given, expected);
    merged.run = RunInfo::start(None);
    merged.partial = Vec::new();
    merged.partition = None;
    merged.ledger = None;
    merged.reused = None;
    merged.runtime.reuse_key = None;
    merged.judging = judging_of(&given);
    // Each shard's cache use is of its machine and slice: the fleet's is
    // their sum.
    let cache = &mut merged.runtime.cache;
    (cache.hits, cache.misses, cache.rejected, cache.embedded) = (0, 0, 0, 0);
    for r in &given {
        let c = &r.runtime.cache;
        cache.hits = cache.hits.saturating_add(c.hits);
        cache.misses = cache.misses.saturating_add(c.misses);
        cache.rejected = cache.rejected.saturating_add(c.rejected);
        cache.embedded = cache.embedded.saturating_add(c.embedded);
    }
    if let Some(d) = merged.deliverables.as_mut() {
        let mut changed: Vec<String> = given
            .iter()
            .filter_map(|r| r.deliverables.as_ref())
            .flat_map(|d| d.changed.iter().cloned())
            .collect();
        changed.sort();
        changed.dedup();
        d.changed = changed;
    }
    merged.merged = Some(MergeInfo {
        scheme: base.scheme,
        total: base.total,
        shards: shards_ref,
        missing: missing.clone(),
        binding: expected.binding,
        unsigned: expected.unsigned,
    });
    merged.verdict = law::decide(
        merged.contract.advisory,
        merged.criteria.iter().map(|c| (c.severity, c.status)),
    );
    merged.reason = crate::verdict_reason(
        merged.verdict,
        &merged.criteria,
        merged.contract.id.as_deref().unwrap_or("?"),
    );
    // A shard whose files changed while it ran judged bytes that are not
    // the ones its digest names: its rows may pass, the whole may not.
    let changed: Vec<String> = by_index
        .values()
        .filter(|s| {
            s.report
                .deliverables
                .as_ref()
                .is_some_and(|d| !d.changed.is_empty())
        })
        .map(|s| s.file.clone())
        .collect();
    if !changed.is_empty() && merged.verdict == Verdict::Accepted {
        merged.verdict = Verdict::Withheld;
        merged.reason = format!(
            "deliverables changed while these shards ran ({}); the verdict would not be about the bytes that were judged",
            changed.join(", ")
        );
    }
    if !missing.is_empty() {
        // Even a shard dealt no MUST row is part of the whole: without it
        // the merge cannot know it judged every row, and never accepts.
        if merged.verdict == Verdict::Accepted {
            merged.verdict = Verdict::Withheld;
        }
        let list: Vec<String> = missing.iter().map(u32::to_string).collect();
        merged.reason = format!(
            "{} of {} shard(s) missing ({}), so not every row was judged; of those given: {}",
            missing.len(),
            base.total,
            list.join(", "),
            merged.reason
        );
    }
    // What the verdict rests on, said where every format shows it.
    if expected.binding == Binding::Unbound {
        merged.reason.push_str(
            "; merged --unbound: the shards were checked against each other only, not against the contract and the deliverables they claim",
        );
    }
    if expected.unsigned {
        merged.reason.push_str(
            "; merged --allow-unsigned: no key the trust policy names for shards signed them, so their rows are the files' word",
        );
    }
    Ok(merged)
}

/// The shards' use of AI judges, summed: each shard's is of its slice.
fn judging_of(given: &[&Report]) -> Option<crate::judge::JudgingInfo> {
    let mut all = given.iter().filter_map(|r| r.judging.as_ref());
    let mut sum = all.next()?.clone();
    // Each shard recorded its own session, if any: no one file is the run's.
    sum.recorded = None;
    for j in all {
        let (u, v) = (&mut sum.usage, &j.usage);
        u.calls = u.calls.saturating_add(v.calls);
        u.cached = u.cached.saturating_add(v.cached);
        u.replayed = u.replayed.saturating_add(v.replayed);
        u.failed = u.failed.saturating_add(v.failed);
        u.tokens = u.tokens.saturating_add(v.tokens);
        u.cost += v.cost;
    }
    Some(sum)
}

#[cfg(test)]
mod tests;
