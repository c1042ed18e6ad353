//! Append-only, proven to someone who does not hold the log: a checkpoint
//! kept elsewhere (a CI artifact, a witness) and the RFC 6962 consistency
//! proof that a later signed checkpoint extends it.
//!
//! `vcc ledger consistency FILE --from KEPT` writes both checkpoints and the
//! proof between them; `vcc ledger verify-proof PROOF --key PUB
//! [--checkpoint KEPT]` checks it with nothing but the proof, the key and
//! the kept checkpoint — what a witness does before it replaces the
//! checkpoint it keeps with the newer one.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use serde::{Deserialize, Serialize};
use vcc_trust::keys::PublicKey;

use crate::file::{Ledger, StoredCheckpoint, split};
use crate::merkle::{Hash, consistency_proof, verify_consistency};
use crate::note::{Checkpoint, MAX_NOTE, Note};
use crate::verify::verify;

/// The proof format (`vcc_consistency`).
pub const FORMAT: u32 = 1;
/// A proof is small (two notes and at most 2·64 hashes).
pub const MAX_PROOF: usize = 1 << 20;
/// A file holding a checkpoint: a note, or a copy of `FILE.checkpoints`.
pub const MAX_KEPT: u64 = 64 << 20;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsistencyProof {
    pub vcc_consistency: u32,
    /// The signed checkpoint note of the earlier tree.
    pub old_checkpoint: String,
    /// The signed checkpoint note of the later tree.
    pub new_checkpoint: String,
    /// Base64 hashes: RFC 6962 PROOF(old size, new tree).
    pub proof: Vec<String>,
}

/// Where a consistency proof starts.
pub enum Start<'a> {
    /// A checkpoint note (kept elsewhere).
    Note(&'a str),
    /// The stored checkpoint of this size.
    Size(u64),
}

/// The note in a file that holds a checkpoint: a signed note as
/// `vcc ledger checkpoint` prints it, or a copy of a `FILE.checkpoints`
/// (its last whole line).
pub fn kept_note(bytes: &[u8]) -> Result<String, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8: not a checkpoint")?;
    if !text.trim_start().starts_with('{') {
        if text.len() > MAX_NOTE {
            return Err(format!("over {MAX_NOTE} bytes: not a checkpoint note"));
        }
        return Ok(text.to_string());
    }
    let lines = split(bytes).lines;
    let last = lines
        .iter()
        .rev()
        .find(|l| !l.is_empty())
        .ok_or("no checkpoint line in it")?;
    serde_json::from_slice::<StoredCheckpoint>(last)
        .map(|c| c.note)
        .map_err(|e| format!("its last line is not a checkpoint line ({{size, note}}): {e}"))
}

/// A note's checkpoint, when `key` signed it; `what` names the note in the
/// error.
pub fn signed_checkpoint(note: &str, key: &PublicKey, what: &str) -> Result<Checkpoint, String> {
    let note = Note::parse(note).map_err(|e| format!("{what} is not a signed note: {e}"))?;
    if !note.signed_by(key) {
        return Err(format!("{what} is not signed by the key given"));
    }
    Checkpoint::parse(&note.body).map_err(|e| format!("{what} is not a checkpoint: {e}"))
}

/// A consistency proof from `from` to the latest stored checkpoint of an
/// intact log.
pub fn prove(ledger: &Ledger, from: Start) -> Result<ConsistencyProof, String> {
    let (verification, tree) = verify(ledger, None).map_err(|e| e.to_string())?;
    if let Some(p) = &verification.problem {
        return Err(format!(
            "the ledger is not intact ({} at seq {}: {}); no proof is made from it",
            p.kind.as_str(),
            p.seq,
            p.message
        ));
    }
    let stored = ledger.checkpoints().map_err(|e| e.to_string())?;
    let latest = stored
        .iter()
        .max_by_key(|c| c.size)
        .ok_or("the ledger has no checkpoint: append with --ledger-key")?;
    let old_note = match from {
        Start::Note(note) => note.to_string(),
        Start::Size(size) => stored
            .iter()
            .find(|c| c.size == size)
            .map(|c| c.note.clone())
            .ok_or_else(|| format!("no stored checkpoint has size {size}"))?,
    };
    let old = Note::parse(&old_note)
        .and_then(|n| Checkpoint::parse(&n.body))
        .map_err(|e| format!("the earlier checkpoint is not a checkpoint note: {e}"))?;
    if old.size > latest.size {
        return Err(format!(
            "the earlier checkpoint counts {} entries, more than the latest stored one ({}): the log was truncated or rolled back",
            old.size, latest.size
        ));
    }
    if old.size > 0 && tree.origin.as_deref() != Some(old.origin.as_str()) {
        return Err(format!(
            "the earlier checkpoint is for log {}, and this log is {}",
            old.origin,
            tree.origin.as_deref().unwrap_or("empty")
        ));
    }
    let leaves = &tree.leaves[..latest.size as usize];
    let proof = consistency_proof(leaves, old.size as usize).ok_or("no proof can be made")?;
    let new_root = crate::merkle::root(leaves);
    if !verify_consistency(old.size, latest.size, &old.root, &new_root, &proof) {
        return Err(format!(
            "the log does not extend the earlier checkpoint (size {}): its first {} entries are not the ones that were signed then",
            old.size, old.size
        ));
    }
    Ok(ConsistencyProof {
        vcc_consistency: FORMAT,
        old_checkpoint: old_note,
        new_checkpoint: latest.note.clone(),
        proof: proof.iter().map(|h| B64.encode(h)).collect(),
    })
}

/// Check a consistency proof's bytes against the ledger's public key, and
/// with `kept` against the checkpoint kept elsewhere: `Ok((old, new))`
/// when the new checkpoint's tree extends the old one's.
pub fn verify_proof(
    bytes: &[u8],
    key: &PublicKey,
    kept: Option<&Checkpoint>,
) -> Result<(Checkpoint, Checkpoint), String> {
    if bytes.len() > MAX_PROOF {
        return Err(format!("the proof is over {MAX_PROOF} bytes"));
    }
    let p: ConsistencyProof =
        serde_json::from_slice(bytes).map_err(|e| format!("not a consistency proof: {e}"))?;
    if p.vcc_consistency != FORMAT {
        return Err(format!(
            "consistency proof format {} (this vcc reads {FORMAT})",
            p.vcc_consistency
        ));
    }
    let old = signed_checkpoint(&p.old_checkpoint, key, "the earlier checkpoint")?;
    let new = signed_checkpoint(&p.new_checkpoint, key, "the later checkpoint")?;
    if let Some(kept) = kept
        && kept != &old
    {
        return Err(format!(
            "the proof starts from a checkpoint of size {} ({}), not from the one kept (size {}, {})",
            old.size,
            B64.encode(old.root),
            kept.size,
            B64.encode(kept.root)
        ));
    }
    if old.size > 0 && old.origin != new.origin {
        return Err(format!(
            "the checkpoints are of two logs: {} and {}",
            old.origin, new.origin
        ));
    }
    if p.proof.len() > 128 {
        return Err("the proof is longer than any tree's".into());
    }
    let path: Vec<Hash> = p
        .proof
        .iter()
        .map(|h| B64.decode(h).ok().and_then(|b| b.try_into().ok()))
        .collect::<Option<_>>()
        .ok_or("a proof hash is not 32 bytes of base64")?;
    if !verify_consistency(old.size, new.size, &old.root, &new.root, &path) {
        return Err(format!(
            "the tree of size {} does not extend the tree of size {}: the history was rewritten between them",
            new.size, old.size
        ));
    }
    Ok((old, new))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::tests::{entry, ledger};
    use vcc_trust::keys::PrivateKey;

    #[test]
    fn a_proof_verifies_only_with_its_key_and_its_start() {
        let key = PrivateKey::generate().unwrap();
        let (_d, l) = ledger(6, Some(&key));
        let proof = prove(&l, Start::Size(2)).unwrap();
        let bytes = serde_json::to_vec(&proof).unwrap();
        let (old, new) = verify_proof(&bytes, &key.public(), None).unwrap();
        assert_eq!((old.size, new.size), (2, 6));
        assert!(verify_proof(&bytes, &key.public(), Some(&old)).is_ok());
        assert!(verify_proof(&bytes, &key.public(), Some(&new)).is_err());
        let other = PrivateKey::generate().unwrap();
        assert!(verify_proof(&bytes, &other.public(), None).is_err());
        // The notes swapped: a larger tree never is a prefix of a smaller.
        let mut swapped = proof.clone();
        std::mem::swap(&mut swapped.old_checkpoint, &mut swapped.new_checkpoint);
        let bytes = serde_json::to_vec(&swapped).unwrap();
        assert!(verify_proof(&bytes, &key.public(), None).is_err());
        // From a stored size that has no checkpoint, or past the end.
        l.append(entry(6), Some(&key)).unwrap();
        assert!(prove(&l, Start::Size(9)).is_err());
    }

    #[test]
    fn hostile_bytes_are_never_a_proof_nor_a_kept_checkpoint() {
        let key = PrivateKey::generate().unwrap().public();
        for bytes in [
            &b""[..],
            b"{}",
            b"null",
            b"{\"vcc_consistency\":1,\"old_checkpoint\":\"\",\"new_checkpoint\":\"\",\"proof\":[]}",
            b"{\"vcc_consistency\":1,\"old_checkpoint\":\"o\\n0\\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\\n\\n\",\"new_checkpoint\":\"o\\n0\\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\\n\\n\",\"proof\":[]}",
        ] {
            assert!(verify_proof(bytes, &key, None).is_err(), "{bytes:?}");
            if let Ok(note) = kept_note(bytes) {
                assert!(signed_checkpoint(&note, &key, "it").is_err());
            }
        }
        assert_eq!(
            kept_note(b"{\"size\":1,\"note\":\"a\"}\n{\"size\":2,\"note\":\"b\"}\n").unwrap(),
            "b"
        );
        assert!(kept_note(b"{\"size\":1}\n").is_err());
    }
}
