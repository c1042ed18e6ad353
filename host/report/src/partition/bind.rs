//! What a merge holds each shard to before it counts a row: the shard
//! must be well formed (a shard file is anyone's bytes until proven
//! otherwise), and must have judged what the merge decides about — the
//! contract it read, or the digests it was given, with the same trust
//! policy and the same vcc. Each refusal names the file, the field, what
//! was expected and what was found.

use std::collections::BTreeSet;

use vcc_contract::Problem;

use super::{Binding, MAX_SHARDS, PartitionInfo, Row, Shard};
use crate::{Report, Verdict};

/// What every shard must have judged, and how the merge knows it.
#[derive(Debug, Clone, Default)]
pub struct Expected {
    pub binding: Binding,
    /// Values every shard must hold, field by field.
    pub fields: Vec<Expect>,
    /// The contract's rows, when the merge read the contract.
    pub rows: Option<Vec<Row>>,
    /// Whether the contract is advisory, when the merge read it.
    pub advisory: Option<bool>,
    /// The whole contract's integrity problems, when the merge read it
    /// (a shard's are of its slice: a validator or deliverable its slice
    /// does not use).
    pub problems: Option<Vec<Problem>>,
    /// No trusted key signed the shards (`--allow-unsigned`).
    pub unsigned: bool,
}

/// One value every shard must hold.
#[derive(Debug, Clone)]
pub struct Expect {
    /// The report's field, as a reader finds it: `contract.digest`.
    pub field: &'static str,
    /// The value; `None`: the field must be absent (no trust policy).
    pub want: Option<String>,
    /// Where the value comes from: `the contract vcc.yaml as read now`.
    pub from: String,
    /// What a shard holding another value is: `of another contract`.
    pub means: &'static str,
    get: fn(&Report) -> Option<String>,
}

impl Expect {
    /// `contract.digest`: the contract's bytes (and the files its params
    /// name).
    pub fn contract(want: &str, from: &str) -> Expect {
        Expect {
            field: "contract.digest",
            want: Some(want.to_string()),
            from: from.to_string(),
            means: "a shard of another contract",
            get: |r| r.contract.digest.clone(),
        }
    }

    /// `contract.sources`: the contract with its files, lock and mapping.
    pub fn sources(want: &str, from: &str) -> Expect {
        Expect {
            field: "contract.sources",
            want: Some(want.to_string()),
            from: from.to_string(),
            means: "a shard of another contract, lock or contract file",
            get: |r| r.contract.sources.clone(),
        }
    }

    /// `contract.policy`: the trust policy the shard was checked under.
    pub fn policy(want: Option<String>, from: &str) -> Expect {
        Expect {
            field: "contract.policy",
            want,
            from: from.to_string(),
            means: "a shard checked under another trust policy",
            get: |r| r.contract.policy.clone(),
        }
    }

    /// `contract.bases`: each base composed in (`extends`, `--policy`).
    pub fn bases(want: String, from: &str) -> Expect {
        Expect {
            field: "contract.bases",
            want: Some(want),
            from: from.to_string(),
            means: "a shard checked with other base contracts",
            get: |r| {
                Some(Expect::bases_of(
                    r.contract
                        .bases
                        .iter()
                        .map(|b| (b.source.as_str(), b.digest.as_str())),
                ))
            },
        }
    }

    /// Bases (label or source, digest) as one comparable line.
    pub fn bases_of<'a>(bases: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
        let list: Vec<String> = bases
            .into_iter()
            .map(|(source, digest)| format!("{source} {digest}"))
            .collect();
        format!("[{}]", list.join(", "))
    }

    /// `deliverables.root_digest`: the tree it judged.
    pub fn root(want: &str, from: &str) -> Expect {
        Expect {
            field: "deliverables.root_digest",
            want: Some(want.to_string()),
            from: from.to_string(),
            means: "a shard of another tree (another commit, or files changed since)",
            get: |r| r.deliverables.as_ref().map(|d| d.root_digest.clone()),
        }
    }

    /// `runtime.host_digest`: the vcc executable that judged.
    pub fn host(want: Option<String>, from: &str) -> Expect {
        Expect {
            field: "runtime.host_digest",
            want,
            from: from.to_string(),
            means: "a shard judged by another vcc",
            get: |r| r.runtime.host_digest.clone(),
        }
    }

    /// `runtime.vcc_version`.
    pub fn version(want: &str, from: &str) -> Expect {
        Expect {
            field: "runtime.vcc_version",
            want: Some(want.to_string()),
            from: from.to_string(),
            means: "a shard judged by another version of vcc",
            get: |r| Some(r.runtime.vcc_version.clone()),
        }
    }
}

/// Every expected value, in the shard: `Err` names the first that differs.
pub(super) fn check_fields(s: &Shard, expected: &Expected) -> Result<(), String> {
    for e in &expected.fields {
        let found = (e.get)(&s.report);
        if found != e.want {
            return Err(format!(
                "{}: {} is {}, expected {} ({}): {} is not merged",
                s.file,
                e.field,
                found.as_deref().unwrap_or("absent"),
                e.want.as_deref().unwrap_or("absent"),
                e.from,
                e.means
            ));
        }
    }
    if let Some(advisory) = expected.advisory
        && s.report.contract.advisory != advisory
    {
        return Err(format!(
            "{}: contract.advisory is {}, expected {advisory} (the contract as read now)",
            s.file, s.report.contract.advisory
        ));
    }
    if let (Some(rows), Some(p)) = (&expected.rows, &s.report.partition)
        && &p.rows != rows
    {
        let ids = |rows: &[Row]| -> String {
            let list: Vec<String> = rows
                .iter()
                .map(|r| format!("{} {}", r.id, r.severity.as_str()))
                .collect();
            list.join(", ")
        };
        return Err(format!(
            "{}: partition.rows is [{}], expected [{}] (the rows of the contract as read now): a shard of another contract is not merged",
            s.file,
            ids(&p.rows),
            ids(rows)
        ));
    }
    Ok(())
}

/// A shard that is one: a partition within bounds, rows listed once,
/// each of its criteria a row of its own severity, listed once. `Ok`:
/// its partition.
pub(super) fn check_shard(s: &Shard) -> Result<PartitionInfo, String> {
    let file = &s.file;
    let Some(p) = s.report.partition.clone() else {
        return Err(format!(
            "{file} is not a shard report (it has no `partition`: write shards with `vcc check --partition`)"
        ));
    };
    if p.total == 0 || p.total > MAX_SHARDS {
        return Err(format!(
            "{file}: partition.total is {}: a contract is split into 1 to {MAX_SHARDS} shards",
            p.total
        ));
    }
    if p.index == 0 || p.index > p.total {
        return Err(format!(
            "{file}: partition.index is {} of {}: a shard is 1 to {}",
            p.index, p.total, p.total
        ));
    }
    if s.report.verdict == Verdict::Invalid {
        return Err(format!(
            "{file} is invalid ({}): its rows were not judged",
            s.report.reason
        ));
    }
    let mut seen = BTreeSet::new();
    for row in &p.rows {
        if !seen.insert(row.id.as_str()) {
            return Err(format!(
                "{file}: partition.rows lists `{}` twice: every row of a contract is one row",
                row.id
            ));
        }
    }
    let mut held = BTreeSet::new();
    for c in &s.report.criteria {
        if !held.insert(c.id.as_str()) {
            return Err(format!(
                "{file}: criteria holds `{}` twice: a row is judged once",
                c.id
            ));
        }
        match p.rows.iter().find(|r| r.id == c.id) {
            None => {
                return Err(format!(
                    "{file}: criteria holds `{}`, which partition.rows does not list",
                    c.id
                ));
            }
            Some(row) if row.severity != c.severity => {
                return Err(format!(
                    "{file}: criterion `{}` is {}, but partition.rows says {}",
                    c.id,
                    c.severity.as_str(),
                    row.severity.as_str()
                ));
            }
            Some(_) => {}
        }
    }
    Ok(p)
}

/// The merged report's integrity problems: the whole contract's when the
/// merge read it; otherwise only those every shard reported (a problem
/// one slice sees, such as an unused validator, is not the whole's).
pub(super) fn problems_of(given: &[&Report], expected: &Expected) -> Vec<Problem> {
    if let Some(problems) = &expected.problems {
        return problems.clone();
    }
    let Some((first, rest)) = given.split_first() else {
        return Vec::new();
    };
    let mut problems: Vec<Problem> = Vec::new();
    for p in &first.problems {
        if rest.iter().all(|r| r.problems.contains(p)) && !problems.contains(p) {
            problems.push(p.clone());
        }
    }
    problems
}
