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

/// Bound to digests that every test shard holds.
fn bound() -> Expected {
    Expected {
        binding: Binding::Digests,
        fields: vec![
            Expect::contract("blake3:c", "--expect-contract"),
            Expect::root("blake3:r", "--expect-root"),
        ],
        ..Expected::default()
    }
}

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
            let mut c = CriterionReport::not_judged(&row.id, row.severity, format!("{status:?}"));
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
        let merged = merge(shards(&whole, &ids, scheme, total), &bound()).unwrap();
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
        let merged = merge(given, &bound()).unwrap();
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
    // Unbound: what is left is that shards agree with each other.
    let refused = |mut s: Vec<Shard>, change: &dyn Fn(&mut Vec<Shard>)| {
        change(&mut s);
        merge(s, &Expected::default()).unwrap_err()
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
    let merged = merge(given, &bound()).unwrap();
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
    // A Kubernetes Indexed Job's 0-based index, one added by vcc.
    assert_eq!(
        Partition::parse("hash:0+1/16").unwrap().label(),
        "hash:1/16"
    );
    assert_eq!(Partition::parse("hash:15+1/16").unwrap().index, 16);
    for bad in [
        "hash:0/3",
        "hash:4/3",
        "rand:1/2",
        "hash:1",
        "1/2",
        "hash:a/b",
        "hash:3+1/3",
        "hash:+1/3",
        "hash:1+2/3",
        "hash:4294967295+1/3",
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

fn six_musts() -> (Report, Vec<Row>) {
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
    (whole(&rows, false), ids)
}

/// Hand-edited shard fields: each refused with what is wrong, none a
/// panic, none merged.
#[test]
fn hostile_shard_fields_are_refused_with_the_field() {
    let (w, ids) = six_musts();
    let refused = |change: &dyn Fn(&mut Vec<Shard>)| {
        let mut s = shards(&w, &ids, Scheme::Count, 3);
        change(&mut s);
        merge(s, &bound()).unwrap_err()
    };
    type Edit = Box<dyn Fn(&mut Vec<Shard>)>;
    let cases: Vec<(&str, Edit)> = vec![
        (
            "partition.total is 0",
            Box::new(|s| {
                for x in s.iter_mut() {
                    x.report.partition.as_mut().unwrap().total = 0;
                }
            }),
        ),
        (
            "partition.total is 4294967295",
            Box::new(|s| {
                for x in s.iter_mut() {
                    x.report.partition.as_mut().unwrap().total = u32::MAX;
                }
            }),
        ),
        (
            "partition.index is 4 of 3",
            Box::new(|s| s[2].report.partition.as_mut().unwrap().index = 4),
        ),
        (
            "partition.index is 0 of 3",
            Box::new(|s| s[0].report.partition.as_mut().unwrap().index = 0),
        ),
        (
            "partition.rows lists `AC-1` twice",
            Box::new(|s| {
                for x in s.iter_mut() {
                    let p = x.report.partition.as_mut().unwrap();
                    p.rows[0].id = "AC-1".into();
                }
            }),
        ),
        (
            "criteria holds `AC-0` twice",
            Box::new(|s| {
                // The same row twice: once failing, once passing.
                let mut again = s[0].report.criteria[0].clone();
                again.status = Status::Fail;
                s[0].report.criteria.push(again);
            }),
        ),
        (
            "criteria holds `AC-9`, which partition.rows does not list",
            Box::new(|s| {
                let mut extra = s[0].report.criteria[0].clone();
                extra.id = "AC-9".into();
                s[0].report.criteria.push(extra);
            }),
        ),
        (
            "criterion `AC-0` is may, but partition.rows says must",
            Box::new(|s| s[0].report.criteria[0].severity = Severity::May),
        ),
        (
            "disagree on whether the contract is advisory",
            Box::new(|s| s[1].report.contract.advisory = true),
        ),
        (
            "deliverables.root_digest is blake3:old, expected blake3:r (--expect-root)",
            Box::new(|s| {
                for x in s.iter_mut() {
                    x.report.deliverables.as_mut().unwrap().root_digest = "blake3:old".into();
                }
            }),
        ),
        (
            "contract.digest is absent, expected blake3:c (--expect-contract)",
            Box::new(|s| s[2].report.contract.digest = None),
        ),
    ];
    for (want, change) in cases {
        let e = refused(&*change);
        assert!(e.contains(want), "{want}: {e}");
    }
}

#[test]
fn the_merged_report_is_its_own_run_and_keeps_only_the_wholes_problems() {
    let (w, ids) = six_musts();
    let mut given = shards(&w, &ids, Scheme::Count, 2);
    let problem = |message: &str| vcc_contract::Problem {
        code: vcc_contract::Code::UnusedValidator,
        level: vcc_contract::Level::Warning,
        message: message.into(),
        file: "c.yaml".into(),
        field: None,
        line: None,
        column: None,
        help: None,
    };
    for (i, s) in given.iter_mut().enumerate() {
        s.report.run = RunInfo::start(None);
        s.report.runtime.reuse_key = Some(format!("blake3:slice-{i}"));
        s.report.problems = vec![problem("everyone's"), problem(&format!("slice {i}"))];
    }
    let runs: Vec<String> = given.iter().map(|s| s.report.run.id.clone()).collect();
    let merged = merge(given, &bound()).unwrap();
    assert!(!runs.contains(&merged.run.id), "{}", merged.run.id);
    assert_eq!(merged.run.id.len(), 32);
    assert_eq!(merged.runtime.reuse_key, None);
    let kept: Vec<&str> = merged.problems.iter().map(|p| p.message.as_str()).collect();
    assert_eq!(kept, ["everyone's"]);
    // Unbound and unsigned merges say so in their reason.
    let unbound = Expected {
        unsigned: true,
        ..Expected::default()
    };
    let merged = merge(shards(&w, &ids, Scheme::Count, 2), &unbound).unwrap();
    assert_eq!(merged.verdict, Verdict::Accepted);
    assert!(
        merged.reason.contains("merged --unbound"),
        "{}",
        merged.reason
    );
    assert!(
        merged.reason.contains("merged --allow-unsigned"),
        "{}",
        merged.reason
    );
    let info = merged.merged.unwrap();
    assert_eq!((info.binding, info.unsigned), (Binding::Unbound, true));
}
