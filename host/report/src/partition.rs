//! Scale-out: `vcc check --partition hash:K/N` judges one share of a
//! contract's rows, and `vcc merge` puts the shards back together and
//! applies the termination law once, over their union. Criteria are
//! independent, so a fleet splits them the way nextest splits tests; the
//! host decides only when every shard is in and they judged the same
//! contract, the same deliverables, with the same validators.
//!
//! Nothing here reads a file: the CLI reads the shards (and checks their
//! signatures), this decides.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use vcc_contract::Severity;

use crate::{CriterionReport, Report, Verdict, law};

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
        let fix = "write hash:K/N or count:K/N, with 1 <= K <= N, e.g. hash:2/8";
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
        let (index, total): (u32, u32) = match (k.parse(), n.parse()) {
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
    pub fn shard_of(scheme: Scheme, total: u32, id: &str, position: usize) -> u32 {
        match scheme {
            Scheme::Hash => {
                let h = blake3::hash(format!("vcc partition {id}").as_bytes());
                let mut first = [0u8; 8];
                first.copy_from_slice(&h.as_bytes()[..8]);
                (u64::from_le_bytes(first) % u64::from(total)) as u32 + 1
            }
            Scheme::Count => (position as u64 % u64::from(total)) as u32 + 1,
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

/// What a shard report says of its partition (`partition` in the report).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartitionInfo {
    pub scheme: Scheme,
    pub index: u32,
    pub total: u32,
    /// Every row of the contract, in order: what the merge must see.
    pub rows: Vec<Row>,
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
/// why they cannot be merged (the merge is then `invalid`).
pub fn merge(shards: Vec<Shard>) -> Result<Report, String> {
    let Some(first) = shards.first() else {
        return Err("no shard report given".into());
    };
    let info = |s: &Shard| -> Result<PartitionInfo, String> {
        s.report.partition.clone().ok_or_else(|| {
            format!(
                "{} is not a shard report (it has no `partition`: write shards with `vcc check --partition`)",
                s.file
            )
        })
    };
    let base = info(first)?;
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
    for s in &shards {
        let p = info(s)?;
        if s.report.verdict == Verdict::Invalid {
            return Err(format!(
                "{} is invalid ({}): its rows were not judged",
                s.file, s.report.reason
            ));
        }
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
        .values()
        .map(|s| ShardRef {
            index: s.report.partition.as_ref().map_or(0, |p| p.index),
            file: s.file.clone(),
            run: s.report.run.id.clone(),
            signed_by: s.signed_by.clone(),
        })
        .collect();
    // The lowest shard given carries what all share (contract, root).
    let lowest = by_index.keys().next().copied().unwrap_or(1);
    let pos = shards
        .iter()
        .position(|s| {
            s.report
                .partition
                .as_ref()
                .is_some_and(|p| p.index == lowest)
        })
        .unwrap_or(0);
    let mut merged = shards[pos].report.clone();
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
    let mut problems = Vec::new();
    for s in by_index.values() {
        for p in &s.report.problems {
            if !problems.contains(p) {
                problems.push(p.clone());
            }
        }
    }
    merged.problems = problems;
    merged.partial = Vec::new();
    merged.partition = None;
    merged.ledger = None;
    merged.merged = Some(MergeInfo {
        scheme: base.scheme,
        total: base.total,
        shards: shards_ref,
        missing: missing.clone(),
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
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(n: usize) -> Vec<Row> {
        (0..n)
            .map(|i| Row {
                id: format!("C-{i}"),
                severity: if i % 3 == 0 {
                    Severity::Should
                } else {
                    Severity::Must
                },
            })
            .collect()
    }

    use crate::{DeliverablesInfo, Status};
    use proptest::prelude::*;

    /// A whole report with these rows' statuses, as one check writes it.
    fn whole(rows: &[(Row, Status)], advisory: bool) -> Report {
        let mut r = Report::unfinished("c.yaml");
        r.contract.digest = Some("blake3:c".into());
        r.contract.id = Some("c".into());
        r.contract.advisory = advisory;
        r.runtime.host_digest = Some("blake3:h".into());
        r.deliverables = Some(DeliverablesInfo {
            root: ".".into(),
            root_absolute: "/r".into(),
            root_digest: "blake3:r".into(),
            files: 1,
            bytes: 1,
            unreadable: Vec::new(),
            changed: Vec::new(),
            excluded: Default::default(),
            attached: Vec::new(),
            subjects: Vec::new(),
        });
        r.criteria = rows
            .iter()
            .map(|(row, status)| {
                let mut c =
                    CriterionReport::not_judged(&row.id, row.severity, format!("{status:?}"));
                c.status = *status;
                c.validator.name = "v".into();
                c.validator.digest = Some("blake3:v".into());
                c
            })
            .collect();
        r.verdict = law::decide(advisory, r.criteria.iter().map(|c| (c.severity, c.status)));
        r.reason = crate::verdict_reason(r.verdict, &r.criteria, "c");
        r
    }

    /// The shards a partitioned check of that report would write.
    fn shards(whole: &Report, rows: &[Row], scheme: Scheme, total: u32) -> Vec<Shard> {
        (1..=total)
            .map(|index| {
                let p = Partition {
                    scheme,
                    index,
                    total,
                };
                let mine = p.assign(rows);
                let mut r = whole.clone();
                r.criteria.retain(|c| mine.contains(&c.id));
                r.partition = Some(PartitionInfo {
                    scheme,
                    index,
                    total,
                    rows: rows.to_vec(),
                });
                r.verdict = Verdict::Withheld;
                Shard {
                    file: format!("shard-{index}.json"),
                    report: r,
                    signed_by: Vec::new(),
                }
            })
            .collect()
    }

    fn status() -> impl Strategy<Value = Status> {
        prop_oneof![
            6 => Just(Status::Pass),
            1 => Just(Status::Fail),
            1 => Just(Status::Skip),
            1 => Just(Status::Error),
        ]
    }

    fn severity() -> impl Strategy<Value = Severity> {
        prop_oneof![
            Just(Severity::Must),
            Just(Severity::Should),
            Just(Severity::May)
        ]
    }

    proptest! {
        /// For random contracts and random N, the merged shards give
        /// exactly the unsharded rows and verdict.
        #[test]
        fn merged_shards_are_the_unsharded_check(
            rows in prop::collection::vec((severity(), status()), 1..60),
            total in 1u32..12,
            hash in any::<bool>(),
            advisory in any::<bool>(),
        ) {
            let rows: Vec<(Row, Status)> = rows
                .into_iter()
                .enumerate()
                .map(|(i, (severity, status))| (Row { id: format!("AC-{i}"), severity }, status))
                .collect();
            let ids: Vec<Row> = rows.iter().map(|(r, _)| r.clone()).collect();
            let whole = whole(&rows, advisory);
            let scheme = if hash { Scheme::Hash } else { Scheme::Count };
            let merged = merge(shards(&whole, &ids, scheme, total)).unwrap();
            prop_assert_eq!(merged.verdict, whole.verdict);
            prop_assert_eq!(merged.reason, whole.reason);
            let got: Vec<(String, Status)> = merged.criteria.iter().map(|c| (c.id.clone(), c.status)).collect();
            let want: Vec<(String, Status)> = whole.criteria.iter().map(|c| (c.id.clone(), c.status)).collect();
            prop_assert_eq!(got, want);
            let info = merged.merged.unwrap();
            prop_assert_eq!(info.shards.len() as u32, total);
            prop_assert!(info.missing.is_empty());
        }

        /// Without one shard the merge never accepts, and its rows are
        /// visible `skip` rows.
        #[test]
        fn a_missing_shard_is_never_accepted(
            n in 2usize..40,
            total in 2u32..8,
            drop in 0u32..8,
        ) {
            let rows: Vec<(Row, Status)> = (0..n)
                .map(|i| (Row { id: format!("AC-{i}"), severity: Severity::Must }, Status::Pass))
                .collect();
            let ids: Vec<Row> = rows.iter().map(|(r, _)| r.clone()).collect();
            let whole = whole(&rows, false);
            let mut given = shards(&whole, &ids, Scheme::Hash, total);
            let gone = (drop % total) as usize;
            given.remove(gone);
            let merged = merge(given).unwrap();
            prop_assert_eq!(merged.verdict, Verdict::Withheld);
            prop_assert_eq!(merged.criteria.len(), n);
            prop_assert_eq!(merged.merged.unwrap().missing, vec![gone as u32 + 1]);
        }
    }

    #[test]
    fn shards_of_other_checks_duplicates_and_strangers_are_refused() {
        let rows: Vec<(Row, Status)> = (0..6)
            .map(|i| {
                (
                    Row {
                        id: format!("AC-{i}"),
                        severity: Severity::Must,
                    },
                    Status::Pass,
                )
            })
            .collect();
        let ids: Vec<Row> = rows.iter().map(|(r, _)| r.clone()).collect();
        let w = whole(&rows, false);
        let refused = |mut s: Vec<Shard>, change: &dyn Fn(&mut Vec<Shard>)| {
            change(&mut s);
            merge(s).unwrap_err()
        };
        let e = refused(shards(&w, &ids, Scheme::Hash, 3), &|s| {
            s[1].report.deliverables.as_mut().unwrap().root_digest = "blake3:other".into();
        });
        assert!(
            e.contains("judged different deliverables (root digests)"),
            "{e}"
        );
        let e = refused(shards(&w, &ids, Scheme::Hash, 3), &|s| {
            s[2].report.contract.digest = Some("blake3:other".into());
        });
        assert!(e.contains("judged different contracts"), "{e}");
        let e = refused(shards(&w, &ids, Scheme::Hash, 3), &|s| {
            let again = Shard {
                file: "again.json".into(),
                report: s[0].report.clone(),
                signed_by: Vec::new(),
            };
            s.push(again);
        });
        assert!(e.contains("shard 1 of 3 given twice"), "{e}");
        let e = refused(shards(&w, &ids, Scheme::Hash, 3), &|s| {
            if let Some(c) = s[0].report.criteria.first_mut() {
                c.validator.digest = Some("blake3:another".into());
            } else {
                s[0].report.contract.digest = Some("blake3:other".into());
            }
        });
        assert!(
            e.contains("validator `v`") || e.contains("judged different contracts"),
            "{e}"
        );
        let e = refused(shards(&w, &ids, Scheme::Hash, 3), &|s| {
            s[1].report.partition = None;
        });
        assert!(e.contains("is not a shard report"), "{e}");
        // Files that changed under one shard: every row passing is not enough.
        let mut given = shards(&w, &ids, Scheme::Hash, 3);
        given[1].report.deliverables.as_mut().unwrap().changed = vec!["doc.md".into()];
        let merged = merge(given).unwrap();
        assert_eq!(merged.verdict, Verdict::Withheld);
        assert!(merged.reason.contains("shard-2.json"), "{}", merged.reason);
        // A row moved to the wrong shard (a hand-edited shard).
        let e = refused(shards(&w, &ids, Scheme::Count, 2), &|s| {
            let moved = s[0].report.criteria.remove(0);
            s[1].report.criteria.push(moved);
        });
        assert!(e.contains("holds rows"), "{e}");
    }

    #[test]
    fn partitions_parse_and_refuse_with_the_fix() {
        let p = Partition::parse("hash:2/8").unwrap();
        assert_eq!((p.scheme, p.index, p.total), (Scheme::Hash, 2, 8));
        assert_eq!(Partition::parse("count:1/1").unwrap().label(), "count:1/1");
        for bad in [
            "hash:0/3", "hash:4/3", "rand:1/2", "hash:1", "1/2", "hash:a/b",
        ] {
            let err = Partition::parse(bad).unwrap_err();
            assert!(err.contains("write hash:K/N or count:K/N"), "{bad}: {err}");
        }
    }

    #[test]
    fn every_row_is_in_exactly_one_shard_and_hash_moves_no_row_when_one_is_added() {
        for scheme in [Scheme::Hash, Scheme::Count] {
            for total in 1..=9 {
                let all = rows(40);
                let mut seen: Vec<String> = (1..=total)
                    .flat_map(|index| {
                        Partition {
                            scheme,
                            index,
                            total,
                        }
                        .assign(&all)
                    })
                    .collect();
                seen.sort();
                let mut ids: Vec<String> = all.iter().map(|r| r.id.clone()).collect();
                ids.sort();
                assert_eq!(seen, ids, "{scheme:?} {total}");
            }
        }
        let before = rows(40);
        let mut after = before.clone();
        after.insert(
            7,
            Row {
                id: "NEW".into(),
                severity: Severity::Must,
            },
        );
        for r in &before {
            let at = |rows: &[Row]| rows.iter().position(|x| x.id == r.id).unwrap();
            assert_eq!(
                Partition::shard_of(Scheme::Hash, 5, &r.id, at(&before)),
                Partition::shard_of(Scheme::Hash, 5, &r.id, at(&after))
            );
        }
    }
}
