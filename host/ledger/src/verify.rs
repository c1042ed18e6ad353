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
//!   that matches the file, or the log does not extend a checkpoint kept
//!   elsewhere (the history was rewritten after it was signed);
//! - `unsigned`: with `--key`, a checkpoint that key did not sign;
//! - `uncovered`: with `--key`, entries after the last checkpoint the key
//!   signed. A chain of hashes proves nothing about who appended: anyone
//!   who can write the file can add a correctly chained entry, so with a
//!   key only what a signed checkpoint covers is the log.
//!
//! A torn last line is reported and ignored: it is not an entry.

use std::borrow::Cow;
use std::collections::BTreeMap;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use serde::{Deserialize, Serialize};
use vcc_trust::keys::PublicKey;

use crate::file::{Error, Ledger, Lines, StoredCheckpoint, origin_of};
use crate::merkle::{Frontier, Hash, consistency_proof, leaf_hash, verify_consistency};
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
    Uncovered,
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
            ProblemKind::Uncovered => "uncovered",
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
    /// Entries the latest checkpoint that matches the file covers (with a
    /// key: the latest one the key signed).
    pub covered: u64,
    /// The size of a checkpoint kept elsewhere that the log was proven to
    /// extend (`--checkpoint`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extends: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<Problem>,
}

impl Verification {
    pub fn intact(&self) -> bool {
        self.problem.is_none()
    }
}

/// The leaves of the file's entries, and what was learnt of its
/// checkpoints.
pub struct Tree {
    pub leaves: Vec<Hash>,
    pub origin: Option<String>,
    /// The latest checkpoint that is the root of the entries it counts
    /// (with a key: and that the key signed).
    pub latest: Option<Checkpoint>,
}

/// A checkpoint kept away from the log (a CI artifact, a witness), whose
/// signature the caller has checked; `name` says where it came from.
pub struct Kept<'a> {
    pub checkpoint: &'a Checkpoint,
    pub name: &'a str,
}

pub fn verify(ledger: &Ledger, key: Option<&PublicKey>) -> Result<(Verification, Tree), Error> {
    read_and_verify(ledger, key, None).map(|(_, v, tree)| (v, tree))
}

/// The log read once and verified (with `kept`: against a checkpoint kept
/// elsewhere): for callers that go on to use the entries, which are then
/// exactly the entries verified.
pub fn read_and_verify(
    ledger: &Ledger,
    key: Option<&PublicKey>,
    kept: Option<&Kept>,
) -> Result<(Lines, Verification, Tree), Error> {
    let read = ledger.read()?;
    let bytes = ledger.checkpoint_bytes()?;
    let stored = ledger.checkpoints_of(&bytes)?;
    let known = key.map_or(0, |k| crate::checked::known_signed(ledger, &bytes, k));
    let (v, tree) = verify_with(&read, &stored, key, kept, known);
    Ok((read, v, tree))
}

/// [`verify`] of a log already read: its lines and its checkpoints.
pub fn verify_parts(
    read: &Lines,
    stored: &[StoredCheckpoint],
    key: Option<&PublicKey>,
) -> (Verification, Tree) {
    verify_with(read, stored, key, None, 0)
}

/// [`verify_parts`], with `kept` whether the log extends a checkpoint kept
/// elsewhere; the first `known_signed` checkpoints are known to be signed
/// by `key` (`checked.rs`) and their signatures are not checked again.
pub fn verify_with(
    read: &Lines,
    stored: &[StoredCheckpoint],
    key: Option<&PublicKey>,
    kept: Option<&Kept>,
    known_signed: usize,
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
    // The latest checkpoint that matches the file (and is signed by the
    // key, when one is given): what covers the entries.
    let mut latest: Option<Checkpoint> = None;
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
        let mut signed = true;
        if let Some(key) = key {
            if *i < known_signed || note.signed_by(key) {
                verified += 1;
            } else {
                signed = false;
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
            Some(root) if root == &cp.root => {
                last_good = last_good.max(cp.size);
                if signed && latest.as_ref().is_none_or(|l| l.size <= cp.size) {
                    latest = Some(cp.clone());
                }
            }
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
    let covered = latest.as_ref().map_or(0, |c| c.size);
    if key.is_some() && covered < entries {
        problems.push(Problem {
            seq: covered,
            kind: ProblemKind::Uncovered,
            message: format!(
                "{} covered by no checkpoint the key signed: appended without the key (by someone who does not hold it, or by a run killed before it signed); `vcc ledger repair FILE --key PUB` removes them if they are a run of yours cut off",
                seq_range(covered, entries - 1, "is", "are")
            ),
        });
    }
    let mut extends = None;
    if let Some(kept) = kept {
        match extension(kept, &leaves, origin.as_deref(), &frontier.root()) {
            Ok(size) => extends = Some(size),
            Err(p) => problems.push(p),
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
            covered,
            extends,
            problem: problems.into_iter().next(),
        },
        Tree {
            leaves,
            origin,
            latest,
        },
    )
}

/// Whether the log (its leaves, origin and root) extends the checkpoint
/// kept elsewhere: the RFC 6962 consistency proof from the kept tree to
/// the log's tree, made here and checked against the kept root.
fn extension(
    kept: &Kept,
    leaves: &[Hash],
    origin: Option<&str>,
    root: &Hash,
) -> Result<u64, Problem> {
    let cp = kept.checkpoint;
    let entries = leaves.len() as u64;
    if cp.size > 0 && origin != Some(cp.origin.as_str()) {
        return Err(Problem {
            seq: 0,
            kind: ProblemKind::Forked,
            message: format!(
                "the checkpoint kept in {} is for log {}, and this log is {}: it is another log, or its first entry was rewritten",
                kept.name,
                cp.origin,
                origin.unwrap_or("empty")
            ),
        });
    }
    if cp.size > entries {
        return Err(Problem {
            seq: entries,
            kind: ProblemKind::Truncated,
            message: format!(
                "the checkpoint kept in {} counts {} entries, and the log holds {entries}: entries from seq {entries} on were removed (or the log was rolled back)",
                kept.name, cp.size
            ),
        });
    }
    let proven = consistency_proof(leaves, cp.size as usize)
        .is_some_and(|proof| verify_consistency(cp.size, entries, &cp.root, root, &proof));
    if !proven {
        return Err(Problem {
            seq: 0,
            kind: ProblemKind::Forked,
            message: format!(
                "the log does not extend the checkpoint kept in {} (size {}): its first {} entries are not the ones that were signed then; the history was rewritten after it",
                kept.name, cp.size, cp.size
            ),
        });
    }
    Ok(cp.size)
}

fn seq_of(line: &[u8]) -> Option<u64> {
    serde_json::from_slice::<Head>(line).ok()?.seq
}

/// What the chain needs of an entry; the rest of it is not read here.
#[derive(Deserialize)]
struct Head<'a> {
    seq: Option<u64>,
    #[serde(borrow)]
    prev_root: Option<Cow<'a, str>>,
}

/// What is wrong with line `i`, given the tree of the lines before it.
/// `seq A to B are` (or `seq A is`, when the range is one entry).
pub fn seq_range(first: u64, last: u64, one: &str, many: &str) -> String {
    if first == last {
        format!("seq {first} {one}")
    } else {
        format!("seq {first} to {last} {many}")
    }
}

fn check_line(line: &[u8], i: u64, before: &Frontier) -> Option<Problem> {
    // An entry is a JSON object (serde would also read an array).
    let head = if line.first() == Some(&b'{') {
        serde_json::from_slice::<Head>(line).map_err(|e| crate::file::in_line(&e))
    } else {
        Err("not a JSON object".to_string())
    };
    let head = match head {
        Ok(h) => h,
        Err(e) => {
            return Some(Problem {
                seq: i,
                kind: ProblemKind::Edited,
                message: format!("line {} is not a ledger entry: {e}", i + 1),
            });
        }
    };
    let (Some(seq), Some(prev)) = (head.seq, head.prev_root) else {
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
                "line {} is seq {seq}: {} missing",
                i + 1,
                seq_range(i, seq - 1, "is", "are")
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
    if *prev != B64.encode(before.root()) {
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
pub(crate) mod tests;
