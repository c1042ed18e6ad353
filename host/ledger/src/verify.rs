//! `vcc ledger verify`: is the history intact? Every entry must be where
//! its `seq` says, chained to the tree of the entries before it
//! (`prev_root`), and every checkpoint must be the root of the entries it
//! counts, signed (with `--key`) by the ledger's key. The first problem
//! is named by its seq and its kind:
//!
//! - `edited`: an entry's bytes are not those the next entry chained to,
//!   or not those a checkpoint signed;
//! - `reordered`, `removed`: an entry is out of order, or missing;
//! - `truncated`: the file holds fewer entries than a checkpoint counts;
//! - `forked`: an earlier checkpoint is not consistent with a later one
//!   that matches the file (the history was rewritten after it was signed);
//! - `unsigned`: with `--key`, a checkpoint that key did not sign.
//!
//! A torn last line is reported and ignored: it is not an entry.

use std::collections::BTreeMap;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use serde::Serialize;
use vcc_trust::keys::PublicKey;

use crate::file::{Error, Ledger, Lines, StoredCheckpoint, origin_of};
use crate::merkle::{Frontier, Hash, leaf_hash};
use crate::note::{Checkpoint, Note};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    Edited,
    Reordered,
    Removed,
    Truncated,
    Forked,
    Unsigned,
}

impl ProblemKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProblemKind::Edited => "edited",
            ProblemKind::Reordered => "reordered",
            ProblemKind::Removed => "removed",
            ProblemKind::Truncated => "truncated",
            ProblemKind::Forked => "forked",
            ProblemKind::Unsigned => "unsigned",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    /// The first seq that is not what it should be.
    pub seq: u64,
    pub kind: ProblemKind,
    pub message: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Verification {
    pub entries: u64,
    /// Base64 of the root of the tree of the entries.
    pub root: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// Bytes of a torn last line (ignored).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub torn_tail: Option<u64>,
    pub checkpoints: usize,
    /// Checkpoints whose signature by the given key was verified.
    pub checkpoints_verified: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<Problem>,
}

impl Verification {
    pub fn intact(&self) -> bool {
        self.problem.is_none()
    }
}

/// The leaves of an intact prefix, and the roots at every size.
pub struct Tree {
    pub leaves: Vec<Hash>,
    pub origin: Option<String>,
}

pub fn verify(ledger: &Ledger, key: Option<&PublicKey>) -> Result<(Verification, Tree), Error> {
    let read = ledger.read()?;
    let stored = ledger.checkpoints()?;
    Ok(verify_parts(&read, &stored, key))
}

/// [`verify`] of a log already read: its lines and its checkpoints.
pub fn verify_parts(
    read: &Lines,
    stored: &[StoredCheckpoint],
    key: Option<&PublicKey>,
) -> (Verification, Tree) {
    let mut problems: Vec<Problem> = Vec::new();
    let mut frontier = Frontier::default();
    let mut leaves = Vec::with_capacity(read.lines.len());
    // Roots after each size a checkpoint names.
    let wanted: std::collections::BTreeSet<u64> = stored.iter().map(|c| c.size).collect();
    let mut roots: BTreeMap<u64, Hash> = BTreeMap::new();
    if wanted.contains(&0) {
        roots.insert(0, frontier.root());
    }
    for (i, line) in read.lines.iter().enumerate() {
        let i = i as u64;
        if problems.is_empty()
            && let Some(mut p) = check_line(line, i, &frontier)
        {
            // seq i is not here: somewhere later (reordered), or gone.
            if p.kind == ProblemKind::Removed
                && read.lines[i as usize + 1..]
                    .iter()
                    .any(|l| seq_of(l) == Some(i))
            {
                p.kind = ProblemKind::Reordered;
                p.message = format!("{}: seq {i} comes later in the file", p.message);
            }
            problems.push(p);
        }
        let leaf = leaf_hash(line);
        leaves.push(leaf);
        frontier.push(leaf);
        if wanted.contains(&frontier.size()) {
            roots.insert(frontier.size(), frontier.root());
        }
    }
    let entries = frontier.size();
    let origin = leaves.first().map(origin_of);

    let mut verified = 0;
    let mut matching_after: Option<u64> = None;
    // Checkpoints from the latest back: the latest one that matches the
    // file tells an edit from a fork.
    let mut parsed = Vec::new();
    for (i, cp) in stored.iter().enumerate() {
        let note = Note::parse(&cp.note);
        let body = note
            .as_ref()
            .ok()
            .and_then(|n| Checkpoint::parse(&n.body).ok());
        parsed.push((i, cp.size, note, body));
    }
    for (_, size, _, body) in parsed.iter().rev() {
        if let Some(b) = body
            && roots.get(size) == Some(&b.root)
        {
            matching_after = Some(matching_after.map_or(*size, |m: u64| m.max(*size)));
        }
    }
    let mut last_good: u64 = 0;
    let mut previous_size = 0;
    for (i, size, note, body) in &parsed {
        let line = i + 1;
        let (Ok(note), Some(cp)) = (note, body) else {
            problems.push(Problem {
                seq: (*size).min(entries),
                kind: ProblemKind::Edited,
                message: format!("checkpoint line {line} is not a signed checkpoint note"),
            });
            continue;
        };
        if let Some(key) = key {
            if note.signed_by(key) {
                verified += 1;
            } else {
                problems.push(Problem {
                    seq: cp.size.saturating_sub(1),
                    kind: ProblemKind::Unsigned,
                    message: format!(
                        "checkpoint line {line} (size {}) is not signed by the key given",
                        cp.size
                    ),
                });
            }
        }
        if cp.size != *size {
            problems.push(Problem {
                seq: cp.size.min(*size),
                kind: ProblemKind::Edited,
                message: format!(
                    "checkpoint line {line} says size {} in its note and {size} beside it",
                    cp.size
                ),
            });
            continue;
        }
        if cp.size < previous_size {
            problems.push(Problem {
                seq: cp.size,
                kind: ProblemKind::Reordered,
                message: format!(
                    "checkpoint line {line} (size {}) comes after one of size {previous_size}",
                    cp.size
                ),
            });
        }
        previous_size = previous_size.max(cp.size);
        if let Some(o) = &origin
            && &cp.origin != o
            && cp.size > 0
        {
            problems.push(Problem {
                seq: 0,
                kind: ProblemKind::Forked,
                message: format!(
                    "checkpoint line {line} is for log {}, and this log is {o}: its first entry is not the one that was signed",
                    cp.origin
                ),
            });
            continue;
        }
        if cp.size > entries {
            problems.push(Problem {
                seq: entries,
                kind: ProblemKind::Truncated,
                message: format!(
                    "checkpoint line {line} counts {} entries, and the file holds {entries}: entries from seq {entries} on were removed",
                    cp.size
                ),
            });
            continue;
        }
        match roots.get(&cp.size) {
            Some(root) if root == &cp.root => last_good = last_good.max(cp.size),
            _ => {
                let forked = matching_after.is_some_and(|m| m > cp.size);
                problems.push(Problem {
                    // Between the last checkpoint that matches and this one.
                    seq: last_good.min(cp.size.saturating_sub(1)),
                    kind: if forked {
                        ProblemKind::Forked
                    } else {
                        ProblemKind::Edited
                    },
                    message: if forked {
                        format!(
                            "checkpoint line {line} (size {}) is not consistent with the later checkpoint of size {}: the history before it was rewritten after it was signed",
                            cp.size,
                            matching_after.unwrap_or_default()
                        )
                    } else {
                        format!(
                            "the first {} entries are not the ones checkpoint line {line} signed: an entry after seq {} was edited, reordered or removed",
                            cp.size,
                            last_good.saturating_sub(1)
                        )
                    },
                });
            }
        }
    }
    problems.sort_by_key(|p| p.seq);
    (
        Verification {
            entries,
            root: B64.encode(frontier.root()),
            origin: origin.clone(),
            torn_tail: read.torn_tail,
            checkpoints: stored.len(),
            checkpoints_verified: verified,
            problem: problems.into_iter().next(),
        },
        Tree { leaves, origin },
    )
}

fn seq_of(line: &[u8]) -> Option<u64> {
    serde_json::from_slice::<serde_json::Value>(line)
        .ok()?
        .get("seq")?
        .as_u64()
}

/// What is wrong with line `i`, given the tree of the lines before it.
fn check_line(line: &[u8], i: u64, before: &Frontier) -> Option<Problem> {
    let value: serde_json::Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return Some(Problem {
                seq: i,
                kind: ProblemKind::Edited,
                message: format!("line {} is not a ledger entry: {e}", i + 1),
            });
        }
    };
    let seq = value.get("seq").and_then(serde_json::Value::as_u64);
    let prev = value.get("prev_root").and_then(serde_json::Value::as_str);
    let (Some(seq), Some(prev)) = (seq, prev) else {
        return Some(Problem {
            seq: i,
            kind: ProblemKind::Edited,
            message: format!(
                "line {} has no seq or prev_root: it is not a ledger entry",
                i + 1
            ),
        });
    };
    if seq > i {
        return Some(Problem {
            seq: i,
            kind: ProblemKind::Removed,
            message: format!(
                "line {} is seq {seq}: seq {i} to {} are missing",
                i + 1,
                seq - 1
            ),
        });
    }
    if seq < i {
        return Some(Problem {
            seq,
            kind: ProblemKind::Reordered,
            message: format!(
                "line {} is seq {seq}, which belongs at line {}",
                i + 1,
                seq + 1
            ),
        });
    }
    if prev != B64.encode(before.root()) {
        // The entries before it are not the history it was appended to:
        // the one before it (or, for the first, itself) was changed.
        let culprit = i.saturating_sub(1);
        return Some(Problem {
            seq: culprit,
            kind: ProblemKind::Edited,
            message: if i == 0 {
                "the first entry does not start an empty log (prev_root): it was edited".into()
            } else {
                format!(
                    "seq {i} was appended after a history whose root is not that of the entries before it: seq {culprit} (or an entry before it) was edited"
                )
            },
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::{Acceptance, Entry, EntryContract, Kind, Outcome};
    use vcc_report::Verdict;
    use vcc_trust::keys::PrivateKey;

    fn entry(n: u64) -> Entry {
        Entry {
            seq: 0,
            time: "2026-11-23T00:00:00.000Z".into(),
            run_id: format!("run-{n}"),
            kind: Kind::Check,
            contract: EntryContract {
                path: "/c.yaml".into(),
                id: Some("c".into()),
                digest: None,
            },
            root: None,
            root_digest: None,
            git: None,
            validators: Vec::new(),
            verdict: Verdict::Accepted,
            reason: format!("entry {n}"),
            criteria: Vec::new(),
            report_digest: None,
            vcc_version: "0".into(),
            host_digest: None,
            outcome: Outcome::Success,
            acceptance_status: Acceptance::Accepted,
            termination: None,
            iteration: None,
            reuse_key: None,
            reused_from: None,
            prev_root: String::new(),
        }
    }

    fn ledger(n: u64, key: Option<&PrivateKey>) -> (tempfile::TempDir, Ledger) {
        let dir = tempfile::tempdir().unwrap();
        let l = Ledger::new(&dir.path().join("ledger.jsonl"));
        for i in 0..n {
            assert_eq!(l.append(entry(i), key).unwrap().seq, i);
        }
        (dir, l)
    }

    fn problem(l: &Ledger, key: Option<&PrivateKey>) -> Option<(ProblemKind, u64)> {
        let (v, _) = verify(l, key.map(|k| k.public()).as_ref()).unwrap();
        v.problem.map(|p| (p.kind, p.seq))
    }

    fn rewrite(l: &Ledger, f: impl Fn(&mut Vec<Vec<u8>>)) {
        let mut lines = l.read().unwrap().lines;
        f(&mut lines);
        let mut bytes = Vec::new();
        for line in lines {
            bytes.extend_from_slice(&line);
            bytes.push(b'\n');
        }
        std::fs::write(&l.path, bytes).unwrap();
    }

    #[test]
    fn an_intact_ledger_verifies_and_each_tampering_is_named() {
        let key = PrivateKey::generate().unwrap();
        let (_d, l) = ledger(6, Some(&key));
        let (v, _) = verify(&l, Some(&key.public())).unwrap();
        assert!(v.intact(), "{:?}", v.problem);
        assert_eq!(
            (v.entries, v.checkpoints, v.checkpoints_verified),
            (6, 6, 6)
        );

        let (_d, l) = ledger(6, Some(&key));
        rewrite(&l, |lines| {
            lines[2] = String::from_utf8(lines[2].clone())
                .unwrap()
                .replace("entry 2", "entry X")
                .into_bytes()
        });
        assert_eq!(problem(&l, Some(&key)), Some((ProblemKind::Edited, 2)));

        let (_d, l) = ledger(6, None);
        rewrite(&l, |lines| {
            lines.remove(3);
        });
        assert_eq!(problem(&l, None), Some((ProblemKind::Removed, 3)));

        let (_d, l) = ledger(6, None);
        rewrite(&l, |lines| lines.swap(1, 4));
        assert_eq!(problem(&l, None), Some((ProblemKind::Reordered, 1)));

        let (_d, l) = ledger(6, Some(&key));
        rewrite(&l, |lines| lines.truncate(4));
        assert_eq!(problem(&l, Some(&key)), Some((ProblemKind::Truncated, 4)));

        // The last entry edited: only its checkpoint can tell.
        let (_d, l) = ledger(6, Some(&key));
        rewrite(&l, |lines| {
            lines[5] = String::from_utf8(lines[5].clone())
                .unwrap()
                .replace("entry 5", "entry Y")
                .into_bytes()
        });
        assert_eq!(problem(&l, Some(&key)), Some((ProblemKind::Edited, 5)));
    }

    #[test]
    fn a_rewritten_history_with_fresh_checkpoints_is_a_fork() {
        let key = PrivateKey::generate().unwrap();
        let (_d, l) = ledger(4, Some(&key));
        // The forger rewrites entry 1 and re-chains and re-signs from there
        // (with the ledger's own key, say): the checkpoints signed before
        // are no longer consistent with the later ones.
        let lines = l.read().unwrap().lines;
        std::fs::write(&l.path, [lines[0].as_slice(), b"\n"].concat()).unwrap();
        let _ = std::fs::remove_file(l.path.with_file_name("ledger.jsonl.state"));
        for i in 1..4 {
            let mut e = entry(i);
            if i == 1 {
                e.reason = "rewritten".into();
            }
            l.append(e, Some(&key)).unwrap();
        }
        assert_eq!(problem(&l, Some(&key)), Some((ProblemKind::Forked, 1)));
        let other = PrivateKey::generate().unwrap();
        assert_eq!(
            problem(&l, Some(&other)).map(|p| p.0),
            Some(ProblemKind::Unsigned)
        );
    }

    #[test]
    fn a_torn_tail_is_ignored_refused_and_repaired() {
        let (_d, l) = ledger(3, None);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&l.path)
            .unwrap();
        std::io::Write::write_all(&mut f, b"{\"seq\":3,\"ti").unwrap();
        let (v, _) = verify(&l, None).unwrap();
        assert!(v.intact());
        assert_eq!((v.entries, v.torn_tail), (3, Some(12)));
        assert!(matches!(
            l.append(entry(3), None),
            Err(Error::TornTail { bytes: 12 })
        ));
        assert_eq!(l.repair().unwrap(), 12);
        assert_eq!(l.append(entry(3), None).unwrap().seq, 3);
        assert!(verify(&l, None).unwrap().0.intact());
    }

    #[test]
    fn receipts_verify_offline_and_only_for_their_entry() {
        let key = PrivateKey::generate().unwrap();
        let (_d, l) = ledger(7, Some(&key));
        for seq in [0, 3, 6] {
            let r = crate::receipt::prove(&l, seq, None).unwrap();
            let bytes = serde_json::to_vec(&r).unwrap();
            let cp = crate::receipt::verify_receipt(&bytes, &key.public()).unwrap();
            assert_eq!(cp.size, 7);
            let mut forged = r.clone();
            forged.entry = forged.entry.replace(&format!("entry {seq}"), "entry Z");
            let bytes = serde_json::to_vec(&forged).unwrap();
            assert!(crate::receipt::verify_receipt(&bytes, &key.public()).is_err());
        }
    }
}
