//! Unit tests of `verify.rs` (and helpers the other modules' tests use).

use super::*;
use crate::entry::{Acceptance, Entry, EntryContract, Kind, Outcome};
use vcc_report::Verdict;
use vcc_trust::keys::PrivateKey;

pub(crate) fn entry(n: u64) -> Entry {
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

pub(crate) fn ledger(n: u64, key: Option<&PrivateKey>) -> (tempfile::TempDir, Ledger) {
    let dir = tempfile::tempdir().unwrap();
    let l = Ledger::new(&dir.path().join("ledger.jsonl"));
    for i in 0..n {
        assert_eq!(l.append(entry(i), key).unwrap().seq, i);
    }
    (dir, l)
}

pub(crate) fn problem(l: &Ledger, key: Option<&PrivateKey>) -> Option<(ProblemKind, u64)> {
    let (v, _) = verify(l, key.map(|k| k.public()).as_ref()).unwrap();
    v.problem.map(|p| (p.kind, p.seq))
}

pub(crate) fn rewrite(l: &Ledger, f: impl Fn(&mut Vec<Vec<u8>>)) {
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

/// Append `e` as anyone who can write the file can: chained to the
/// tree of the lines before it, no lock, no check; with `key`, a
/// checkpoint signed as vcc signs one (a forger who holds the key).
pub(crate) fn forge(l: &Ledger, mut e: Entry, key: Option<&PrivateKey>) {
    let lines = l.read().unwrap().lines;
    let mut f = Frontier::default();
    for x in &lines {
        f.push(leaf_hash(x));
    }
    e.seq = f.size();
    e.prev_root = B64.encode(f.root());
    let line = e.to_line();
    f.push(leaf_hash(line.as_bytes()));
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&l.path)
        .unwrap();
    std::io::Write::write_all(&mut file, format!("{line}\n").as_bytes()).unwrap();
    if let Some(key) = key {
        let first = l.read().unwrap().lines[0].clone();
        let cp = Checkpoint {
            origin: origin_of(&leaf_hash(&first)),
            size: f.size(),
            root: f.root(),
        };
        l.store_checkpoint(&StoredCheckpoint {
            size: cp.size,
            note: Note::sign(&cp.body(), &cp.origin, key).text(),
        })
        .unwrap();
    }
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
    for i in 1..4 {
        let mut e = entry(i);
        if i == 1 {
            e.reason = "rewritten".into();
        }
        forge(&l, e, Some(&key));
    }
    assert_eq!(problem(&l, Some(&key)), Some((ProblemKind::Forked, 1)));
    let other = PrivateKey::generate().unwrap();
    assert_eq!(
        problem(&l, Some(&other)).map(|p| p.0),
        Some(ProblemKind::Unsigned)
    );
}

#[test]
fn with_a_key_every_entry_must_be_covered_by_a_signed_checkpoint() {
    let key = PrivateKey::generate().unwrap();
    let (_d, l) = ledger(3, Some(&key));
    forge(&l, entry(3), None);
    forge(&l, entry(4), None);
    let (v, _) = verify(&l, Some(&key.public())).unwrap();
    let p = v.problem.unwrap();
    assert_eq!((p.kind, p.seq, v.covered), (ProblemKind::Uncovered, 3, 3));
    assert!(
        p.message
            .starts_with("seq 3 to 4 are covered by no checkpoint"),
        "{}",
        p.message
    );
    // Without the key the chain holds: integrity, not authorship.
    assert!(verify(&l, None).unwrap().0.intact());
    // The checkpoints deleted: nothing is covered.
    std::fs::remove_file(l.checkpoints_path()).unwrap();
    assert_eq!(problem(&l, Some(&key)), Some((ProblemKind::Uncovered, 0)));
    // A checkpoint another key signed covers nothing.
    let (_d, l) = ledger(2, Some(&PrivateKey::generate().unwrap()));
    assert_eq!(
        problem(&l, Some(&key)).map(|p| p.0),
        Some(ProblemKind::Unsigned)
    );
    // An empty log is covered.
    let (_d, l) = ledger(0, None);
    std::fs::write(&l.path, b"").unwrap();
    assert!(verify(&l, Some(&key.public())).unwrap().0.intact());
}

#[test]
fn a_kept_checkpoint_is_extended_or_the_rewrite_is_named() {
    let key = PrivateKey::generate().unwrap();
    let (_d, l) = ledger(3, Some(&key));
    let kept =
        Checkpoint::parse(&Note::parse(&l.checkpoints().unwrap()[1].note).unwrap().body).unwrap();
    for _ in 3..6 {
        l.append(entry(9), Some(&key)).unwrap();
    }
    let check = |l: &Ledger| {
        let (v, _) = verify_with(
            &l.read().unwrap(),
            &l.checkpoints().unwrap(),
            Some(&key.public()),
            Some(&Kept {
                checkpoint: &kept,
                name: "kept",
            }),
            0,
        );
        (v.extends, v.problem.map(|p| (p.kind, p.seq)))
    };
    assert_eq!(check(&l), (Some(2), None));
    let lines = l.read().unwrap().lines;
    // Rolled back below it: the log and its checkpoints cut to one
    // entry (a whole, signed log by itself).
    rewrite(&l, |lines| lines.truncate(1));
    rewrite_checkpoints(&l, 1);
    assert!(verify(&l, Some(&key.public())).unwrap().0.intact());
    assert_eq!(check(&l), (None, Some((ProblemKind::Truncated, 1))));
    // Rewritten after it, and re-signed by a forger who holds the key:
    // a whole, signed log by itself, which does not extend it.
    for (i, _) in lines.iter().enumerate().skip(1) {
        let mut e = entry(i as u64);
        e.reason = "rewritten".into();
        forge(&l, e, Some(&key));
    }
    assert!(verify(&l, Some(&key.public())).unwrap().0.intact());
    assert_eq!(check(&l), (None, Some((ProblemKind::Forked, 0))));
}

fn rewrite_checkpoints(l: &Ledger, keep: usize) {
    let kept: Vec<StoredCheckpoint> = l.checkpoints().unwrap().into_iter().take(keep).collect();
    let text: String = kept
        .iter()
        .map(|c| serde_json::to_string(c).unwrap() + "\n")
        .collect();
    std::fs::write(l.checkpoints_path(), text).unwrap();
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
    assert_eq!(l.repair(None).unwrap().torn, 12);
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
