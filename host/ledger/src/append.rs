//! Writing the ledger: appends and repairs.
//!
//! Appends are serialised by an exclusive `flock` on `FILE`. Under it, the
//! whole log is read once and verified (`vcc ledger verify`, with the
//! key's public half for a signed log); the new entry is chained to the
//! tree of exactly those bytes, written with one `write` on an `O_APPEND`
//! descriptor and `fsync`ed (and the folder when the file is created)
//! before its checkpoint follows. Nothing the worker can write beside the
//! file is believed over the entries: a log that does not verify, that
//! has a torn tail, or (with a key) that has entries no signed checkpoint
//! covers, is left untouched and the append refused. With a key, the new
//! tree is proven (RFC 6962 consistency) to extend the last checkpoint the
//! key signed before it is signed itself: the key only ever signs a
//! history it signed before, extended by the entry in hand.

use std::fs::{File, OpenOptions};
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::os::unix::fs::OpenOptionsExt as _;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use vcc_trust::keys::{PrivateKey, PublicKey};

use crate::checked::{known_signed, record};
use crate::entry::Entry;
use crate::file::{
    Appended, Error, Ledger, Lines, MAX_LINE, StoredCheckpoint, lock, origin_of, sibling, split,
    sync_folder,
};
use crate::merkle::{consistency_proof, empty_root, leaf_hash, root, verify_consistency};
use crate::note::{Checkpoint, Note};
use crate::verify::{Problem, verify_parts, verify_with};

/// What `vcc ledger repair` removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Repaired {
    /// Bytes of a torn last line of the file.
    pub torn: u64,
    /// Bytes of a torn last line of `FILE.checkpoints`.
    pub torn_checkpoints: u64,
    /// The seqs (first, last) of entries no checkpoint signed by the key
    /// covered, moved to `FILE.removed`.
    pub uncovered: Option<(u64, u64)>,
    /// Checkpoint lines moved to `FILE.removed` with them (signed by
    /// another key, or counting entries that were removed).
    pub checkpoints_removed: usize,
}

impl Repaired {
    pub fn nothing(&self) -> bool {
        self == &Repaired::default()
    }
}

impl Ledger {
    /// Append `entry` (its `seq` and `prev_root` are set here), and with
    /// `key` a signed checkpoint of the new tree.
    pub fn append(&self, mut entry: Entry, key: Option<&PrivateKey>) -> Result<Appended, Error> {
        let created = !self.path.exists();
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .mode(0o644)
            .open(&self.path)
            .map_err(|e| self.io(e))?;
        lock(&file).map_err(|e| self.io(e))?;
        if created {
            sync_folder(&self.path).map_err(|e| self.io(e))?;
        }
        // The log as it is, read once under the lock: what is verified is
        // what is extended.
        let lines = split(&self.read_locked(&mut file)?);
        if let Some(torn) = lines.torn_tail {
            return Err(Error::TornTail { bytes: torn });
        }
        let checkpoint_bytes = self.checkpoint_bytes()?;
        if let Some(torn) = split(&checkpoint_bytes).torn_tail {
            return Err(Error::TornCheckpoint {
                path: self.checkpoints_path(),
                bytes: torn,
            });
        }
        let stored = self.checkpoints_of(&checkpoint_bytes)?;
        if key.is_none() && !stored.is_empty() {
            return Err(Error::KeyNeeded {
                path: self.path.clone(),
                checkpoints: stored.len(),
            });
        }
        let public = key.map(PrivateKey::public);
        let known = public
            .as_ref()
            .map_or(0, |k| known_signed(self, &checkpoint_bytes, k));
        let (verification, tree) = verify_with(&lines, &stored, public.as_ref(), None, known);
        if let Some(p) = verification.problem {
            return Err(self.broken(p));
        }

        entry.seq = tree.leaves.len() as u64;
        entry.prev_root = B64.encode(root(&tree.leaves));
        let mut line = entry.to_line();
        if line.len() > MAX_LINE {
            return Err(Error::Unreadable {
                seq: entry.seq,
                why: format!("the entry is over {MAX_LINE} bytes"),
            });
        }
        let leaf = leaf_hash(line.as_bytes());
        let mut leaves = tree.leaves;
        leaves.push(leaf);
        let new_root = root(&leaves);
        let origin = tree.origin.unwrap_or_else(|| origin_of(&leaves[0]));
        let checkpoint = match key {
            Some(key) => {
                // The tree about to be signed extends the last one the key
                // signed (verify found it covers every entry).
                let (size, signed_root) = tree
                    .latest
                    .as_ref()
                    .map_or((0, empty_root()), |c| (c.size, c.root));
                let extends = consistency_proof(&leaves, size as usize).is_some_and(|proof| {
                    verify_consistency(size, leaves.len() as u64, &signed_root, &new_root, &proof)
                });
                if !extends {
                    return Err(Error::Broken {
                        path: self.path.clone(),
                        seq: size,
                        kind: "forked",
                        message: format!(
                            "the log does not extend its last signed checkpoint (size {size}); nothing was appended"
                        ),
                    });
                }
                let cp = Checkpoint {
                    origin: origin.clone(),
                    size: leaves.len() as u64,
                    root: new_root,
                };
                Some(Note::sign(&cp.body(), &origin, key).text())
            }
            None => None,
        };

        // One write of the whole line: a reader sees all of it or none.
        line.push('\n');
        file.write_all(line.as_bytes()).map_err(|e| self.io(e))?;
        file.sync_all().map_err(|e| self.io(e))?;
        if let (Some(note), Some(key)) = (&checkpoint, key) {
            let stored = StoredCheckpoint {
                size: leaves.len() as u64,
                note: note.clone(),
            };
            self.store_checkpoint(&stored)?;
            // Every line before it was verified above, and this one the key
            // just signed.
            let mut all = checkpoint_bytes;
            all.extend_from_slice(
                serde_json::to_string(&stored)
                    .unwrap_or_default()
                    .as_bytes(),
            );
            all.push(b'\n');
            record(self, &all, key);
        }
        Ok(Appended {
            seq: entry.seq,
            root: new_root,
            checkpoint,
        })
    }

    /// The whole file, read through the locked descriptor.
    fn read_locked(&self, file: &mut File) -> Result<Vec<u8>, Error> {
        file.seek(SeekFrom::Start(0)).map_err(|e| self.io(e))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(|e| self.io(e))?;
        Ok(bytes)
    }

    fn broken(&self, p: Problem) -> Error {
        Error::Broken {
            path: self.path.clone(),
            seq: p.seq,
            kind: p.kind.as_str(),
            message: format!(
                "{}; nothing was appended: a log is extended only while `vcc ledger verify` (with the key, for a signed log) calls it intact",
                p.message
            ),
        }
    }

    /// Remove what a cut-off write leaves (under the lock): a torn last
    /// line of the file or of its checkpoints and, with `key`, the entries
    /// after the last checkpoint that key signed (a run killed between its
    /// entry and its checkpoint, or entries someone else appended), which
    /// are kept in `FILE.removed`. A history that is broken before that
    /// point is not mended, and a log no checkpoint of the key covers is
    /// not emptied: `Err`, and nothing is changed.
    pub fn repair(&self, key: Option<&PublicKey>) -> Result<Repaired, Error> {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&self.path)
            .map_err(|e| self.io(e))?;
        lock(&file).map_err(|e| self.io(e))?;
        let bytes = self.read_locked(&mut file)?;
        let lines = split(&bytes);
        let checkpoint_bytes = self.checkpoint_bytes()?;
        let checkpoint_lines = split(&checkpoint_bytes);
        let stored = self.checkpoints_of(&checkpoint_bytes)?;
        let mut done = Repaired {
            torn: lines.torn_tail.unwrap_or(0),
            torn_checkpoints: checkpoint_lines.torn_tail.unwrap_or(0),
            ..Repaired::default()
        };
        let mut keep = lines.lines.len();
        // Some: the checkpoints to keep, when some are removed.
        let mut signed = None;
        if let Some(key) = key {
            let (v, _) = verify_parts(&lines, &stored, Some(key));
            if v.problem.is_some() {
                let covered = v.covered as usize;
                if covered == 0 && !lines.lines.is_empty() {
                    return Err(Error::Broken {
                        path: self.path.clone(),
                        seq: 0,
                        kind: "uncovered",
                        message: "no checkpoint signed by the key covers any entry: the key never signed this log, or its checkpoints were deleted; repair does not empty a log (keep this file as evidence, start a new log)".into(),
                    });
                }
                // A checkpoint the key signed past the cover is the key's
                // word about entries the file no longer holds as signed:
                // an edit, not a cut-off write.
                let signed_past = stored.iter().any(|c| {
                    c.size > v.covered && Note::parse(&c.note).is_ok_and(|n| n.signed_by(key))
                });
                if signed_past && let Some(p) = v.problem {
                    return Err(Error::Broken {
                        path: self.path.clone(),
                        seq: p.seq,
                        kind: p.kind.as_str(),
                        message: format!(
                            "{}; repair removes only a cut-off write and the entries after the last checkpoint the key signed: it does not mend a rewritten history (keep this file as evidence, start a new log)",
                            p.message
                        ),
                    });
                }
                let prefix = Lines {
                    lines: lines.lines[..covered].to_vec(),
                    torn_tail: None,
                };
                let kept: Vec<StoredCheckpoint> = stored
                    .iter()
                    .filter(|c| c.size <= v.covered)
                    .cloned()
                    .collect();
                let (intact, _) = verify_parts(&prefix, &kept, Some(key));
                if let Some(p) = intact.problem {
                    return Err(Error::Broken {
                        path: self.path.clone(),
                        seq: p.seq,
                        kind: p.kind.as_str(),
                        message: format!(
                            "{}; repair removes only a cut-off write and the entries after the last signed checkpoint, and the {covered} entries signed checkpoints cover are not intact: it does not mend a rewritten history (keep this file as evidence, start a new log)",
                            p.message
                        ),
                    });
                }
                if covered < lines.lines.len() {
                    done.uncovered = Some((covered as u64, lines.lines.len() as u64 - 1));
                }
                done.checkpoints_removed = stored.len() - kept.len();
                keep = covered;
                if done.checkpoints_removed > 0 {
                    signed = Some(kept);
                }
            }
        }
        if done.nothing() {
            return Ok(done);
        }
        // Keep what is removed: entries someone appended are evidence.
        let mut removed: Vec<&[u8]> = lines.lines[keep..].iter().map(Vec::as_slice).collect();
        if signed.is_some() {
            removed.extend(
                stored
                    .iter()
                    .zip(&checkpoint_lines.lines)
                    .filter(|(c, _)| c.size > keep as u64)
                    .map(|(_, line)| line.as_slice()),
            );
        }
        if !removed.is_empty() {
            self.keep_removed(&removed)?;
        }
        // The checkpoints first: cut off between the two, the next repair
        // finds the same uncovered entries.
        match &signed {
            Some(kept) => self.rewrite_checkpoints(kept)?,
            None if done.torn_checkpoints > 0 => {
                let path = self.checkpoints_path();
                OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .and_then(|f| {
                        f.set_len(checkpoint_bytes.len() as u64 - done.torn_checkpoints)?;
                        f.sync_all()
                    })
                    .map_err(|e| Error::Io(path.clone(), e))?;
            }
            None => {}
        }
        let kept_bytes: u64 = lines.lines[..keep].iter().map(|l| l.len() as u64 + 1).sum();
        if kept_bytes < bytes.len() as u64 {
            file.set_len(kept_bytes).map_err(|e| self.io(e))?;
            file.sync_all().map_err(|e| self.io(e))?;
        }
        Ok(done)
    }

    /// Replace `FILE.checkpoints` with `checkpoints` (write and rename).
    fn rewrite_checkpoints(&self, checkpoints: &[StoredCheckpoint]) -> Result<(), Error> {
        let path = self.checkpoints_path();
        let tmp = sibling(
            &self.path,
            &format!("checkpoints.{}.tmp", std::process::id()),
        );
        let mut text = String::new();
        for cp in checkpoints {
            text.push_str(&serde_json::to_string(cp).unwrap_or_default());
            text.push('\n');
        }
        // A name planted there (a link) is removed, never followed.
        let _ = std::fs::remove_file(&tmp);
        let written = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .open(&tmp)
            .and_then(|mut f| f.write_all(text.as_bytes()).and_then(|()| f.sync_all()))
            .and_then(|()| std::fs::rename(&tmp, &path));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(Error::Io(path, e));
        }
        Ok(())
    }

    /// Append the removed lines to `FILE.removed`.
    fn keep_removed(&self, lines: &[&[u8]]) -> Result<(), Error> {
        let path = sibling(&self.path, "removed");
        let io = |e| Error::Io(path.clone(), e);
        let mut out = OpenOptions::new()
            .append(true)
            .create(true)
            .mode(0o644)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .map_err(io)?;
        let mut bytes = Vec::new();
        for l in lines {
            bytes.extend_from_slice(l);
            bytes.push(b'\n');
        }
        out.write_all(&bytes).map_err(io)?;
        out.sync_all().map_err(io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::tests::{entry, forge, ledger, rewrite};
    use crate::verify::verify;

    /// The file and its checkpoints, byte for byte.
    fn bytes(l: &Ledger) -> (Vec<u8>, Vec<u8>) {
        (
            std::fs::read(&l.path).unwrap(),
            std::fs::read(l.checkpoints_path()).unwrap_or_default(),
        )
    }

    fn refused(l: &Ledger, key: Option<&PrivateKey>) -> Error {
        let before = bytes(l);
        let err = l.append(entry(99), key).unwrap_err();
        assert_eq!(
            bytes(l),
            before,
            "a refused append leaves the log untouched"
        );
        err
    }

    #[test]
    fn a_signed_append_refuses_a_log_it_cannot_vouch_for_and_leaves_it_untouched() {
        let key = PrivateKey::generate().unwrap();
        // An entry appended after the last checkpoint, correctly chained.
        let (_d, l) = ledger(2, Some(&key));
        forge(&l, entry(2), None);
        let err = refused(&l, Some(&key));
        assert!(
            matches!(
                err,
                Error::Broken {
                    kind: "uncovered",
                    seq: 2,
                    ..
                }
            ),
            "{err}"
        );
        // The history rewritten and the checkpoints deleted.
        let (_d, l) = ledger(2, Some(&key));
        rewrite(&l, |lines| lines.truncate(1));
        forge(&l, entry(7), None);
        std::fs::remove_file(l.checkpoints_path()).unwrap();
        let err = refused(&l, Some(&key));
        assert!(
            matches!(
                err,
                Error::Broken {
                    kind: "uncovered",
                    seq: 0,
                    ..
                }
            ),
            "{err}"
        );
        // An edit that keeps every byte count (which a state file of the
        // tree, believed when the length matched, once hid).
        let (_d, l) = ledger(3, Some(&key));
        rewrite(&l, |lines| {
            lines[1] = String::from_utf8(lines[1].clone())
                .unwrap()
                .replace("entry 1", "entry X")
                .into_bytes()
        });
        let err = refused(&l, Some(&key));
        assert!(
            matches!(
                err,
                Error::Broken {
                    kind: "edited",
                    seq: 1,
                    ..
                }
            ),
            "{err}"
        );
        // A signed log and no key: the entry would be covered by nothing.
        let (_d, l) = ledger(2, Some(&key));
        assert!(matches!(
            refused(&l, None),
            Error::KeyNeeded { checkpoints: 2, .. }
        ));
        // Another key's log.
        let (_d, l) = ledger(2, Some(&PrivateKey::generate().unwrap()));
        let err = refused(&l, Some(&key));
        assert!(
            matches!(
                err,
                Error::Broken {
                    kind: "unsigned",
                    ..
                }
            ),
            "{err}"
        );
        // An unsigned log that does not verify.
        let (_d, l) = ledger(3, None);
        rewrite(&l, |lines| {
            lines.remove(1);
        });
        let err = refused(&l, None);
        assert!(
            matches!(
                err,
                Error::Broken {
                    kind: "removed",
                    seq: 1,
                    ..
                }
            ),
            "{err}"
        );
        // A torn checkpoint line: the next one would be glued to it.
        let (_d, l) = ledger(2, Some(&key));
        let mut cps = std::fs::read(l.checkpoints_path()).unwrap();
        cps.extend_from_slice(b"{\"size\":3,\"no");
        std::fs::write(l.checkpoints_path(), cps).unwrap();
        assert!(matches!(
            refused(&l, Some(&key)),
            Error::TornCheckpoint { bytes: 13, .. }
        ));
    }

    #[test]
    fn the_signed_record_of_checked_signatures_vouches_only_for_what_the_key_signed() {
        let key = PrivateKey::generate().unwrap();
        let public = key.public();
        let (_d, l) = ledger(4, Some(&key));
        let bytes = l.checkpoint_bytes().unwrap();
        assert_eq!(known_signed(&l, &bytes, &public), 4);
        // Another key's record, or another log's bytes: nothing is known.
        assert_eq!(
            known_signed(&l, &bytes, &PrivateKey::generate().unwrap().public()),
            0
        );
        let mut edited = bytes.clone();
        edited[10] ^= 1;
        assert_eq!(known_signed(&l, &edited, &public), 0);
        // A line the key did not sign, after the record: still checked.
        crate::verify::tests::forge(&l, entry(4), Some(&PrivateKey::generate().unwrap()));
        let bytes = l.checkpoint_bytes().unwrap();
        assert_eq!(known_signed(&l, &bytes, &public), 4);
        let (v, _) = verify(&l, Some(&public)).unwrap();
        assert_eq!(
            v.problem.map(|p| (p.kind.as_str(), p.seq)),
            Some(("unsigned", 4))
        );
        // A planted record: ignored, whatever it claims.
        let checked = sibling(&l.path, "checked");
        std::fs::write(
            &checked,
            "{\"lines\":5,\"bytes\":1,\"sha256\":\"\",\"signature\":\"\"}",
        )
        .unwrap();
        assert_eq!(known_signed(&l, &bytes, &public), 0);
        std::fs::remove_file(&checked).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &checked).unwrap();
        assert_eq!(known_signed(&l, &bytes, &public), 0);
    }

    #[test]
    fn every_signed_checkpoint_is_extended_by_the_next() {
        let key = PrivateKey::generate().unwrap();
        let (_d, l) = ledger(9, Some(&key));
        let (v, tree) = verify(&l, Some(&key.public())).unwrap();
        assert!(v.intact(), "{:?}", v.problem);
        assert_eq!((v.covered, v.checkpoints_verified), (9, 9));
        let whole = root(&tree.leaves);
        for cp in l.checkpoints().unwrap() {
            let cp = Checkpoint::parse(&Note::parse(&cp.note).unwrap().body).unwrap();
            let proof = consistency_proof(&tree.leaves, cp.size as usize).unwrap();
            assert!(verify_consistency(cp.size, 9, &cp.root, &whole, &proof));
        }
    }

    #[test]
    fn repair_removes_what_no_signed_checkpoint_covers_and_keeps_it() {
        let key = PrivateKey::generate().unwrap();
        let (_d, l) = ledger(3, Some(&key));
        forge(&l, entry(3), None);
        // A checkpoint another key signed over the forged entry.
        forge(&l, entry(4), Some(&PrivateKey::generate().unwrap()));
        let mut cps = std::fs::read(l.checkpoints_path()).unwrap();
        cps.extend_from_slice(b"{\"size\":6,");
        std::fs::write(l.checkpoints_path(), cps).unwrap();
        let forged = l.read().unwrap().lines[3..].to_vec();
        let done = l.repair(Some(&key.public())).unwrap();
        assert_eq!(
            done,
            Repaired {
                torn: 0,
                torn_checkpoints: 10,
                uncovered: Some((3, 4)),
                checkpoints_removed: 1,
            }
        );
        let removed = std::fs::read(sibling(&l.path, "removed")).unwrap();
        let removed = split(&removed).lines;
        assert_eq!(removed.len(), 3, "two entries and the checkpoint line");
        assert_eq!(removed[..2], forged[..]);
        assert!(verify(&l, Some(&key.public())).unwrap().0.intact());
        assert_eq!(l.append(entry(3), Some(&key)).unwrap().seq, 3);
        assert!(l.repair(Some(&key.public())).unwrap().nothing());

        // A rewritten history is not mended, and nothing changes.
        let (_d, l) = ledger(3, Some(&key));
        forge(&l, entry(3), None);
        rewrite(&l, |lines| {
            lines[1] = String::from_utf8(lines[1].clone())
                .unwrap()
                .replace("entry 1", "entry X")
                .into_bytes()
        });
        let before = bytes(&l);
        let err = l.repair(Some(&key.public())).unwrap_err();
        assert!(
            matches!(
                err,
                Error::Broken {
                    kind: "edited",
                    seq: 1,
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(bytes(&l), before);

        // A log no checkpoint of the key covers is not emptied.
        let (_d, l) = ledger(2, None);
        let before = bytes(&l);
        let err = l.repair(Some(&key.public())).unwrap_err();
        assert!(
            matches!(
                err,
                Error::Broken {
                    kind: "uncovered",
                    seq: 0,
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(bytes(&l), before);
    }
}

#[cfg(test)]
mod cost {
    use super::*;
    use crate::merkle::Frontier;
    use crate::verify::tests::{entry, ledger};

    /// How long a signed append takes at N entries (not a check: run with
    /// `--ignored --nocapture` to see).
    #[test]
    #[ignore]
    fn a_signed_append_at_ten_thousand_entries() {
        let key = PrivateKey::generate().unwrap();
        let (_d, l) = ledger(1, Some(&key));
        let mut f = Frontier::default();
        let mut text = std::fs::read_to_string(&l.path).unwrap();
        f.push(leaf_hash(text.trim_end().as_bytes()));
        let origin = origin_of(&leaf_hash(text.trim_end().as_bytes()));
        let mut cps = std::fs::read_to_string(l.checkpoints_path()).unwrap();
        for i in 1..10_000u64 {
            let mut e = entry(i);
            e.seq = i;
            e.prev_root = B64.encode(f.root());
            let line = e.to_line();
            f.push(leaf_hash(line.as_bytes()));
            text.push_str(&line);
            text.push('\n');
            let cp = Checkpoint {
                origin: origin.clone(),
                size: f.size(),
                root: f.root(),
            };
            let stored = StoredCheckpoint {
                size: cp.size,
                note: Note::sign(&cp.body(), &origin, &key).text(),
            };
            cps.push_str(&serde_json::to_string(&stored).unwrap());
            cps.push('\n');
        }
        std::fs::write(&l.path, text).unwrap();
        std::fs::write(l.checkpoints_path(), cps).unwrap();
        let started = std::time::Instant::now();
        let _ = crate::verify::verify(&l, None).unwrap();
        eprintln!("verify without the key: {:?}", started.elapsed());
        let started = std::time::Instant::now();
        l.append(entry(10_000), Some(&key)).unwrap();
        eprintln!(
            "a signed append at 10,000 entries, no record of checked signatures: {:?} ({} bytes)",
            started.elapsed(),
            std::fs::metadata(&l.path).unwrap().len()
        );
        let started = std::time::Instant::now();
        l.append(entry(10_001), Some(&key)).unwrap();
        eprintln!("the next signed append: {:?}", started.elapsed());
        let started = std::time::Instant::now();
        let (v, _) = crate::verify::verify(&l, Some(&key.public())).unwrap();
        assert!(v.intact());
        eprintln!("verify with the key: {:?}", started.elapsed());
        let started = std::time::Instant::now();
        l.append(entry(10_002), None).unwrap_err();
        eprintln!("an unsigned append refused there: {:?}", started.elapsed());
    }
}
