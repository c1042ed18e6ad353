//! Offline receipts: `vcc ledger prove FILE SEQ` writes the entry, its
//! index, its RFC 6962 inclusion path and a signed checkpoint of a tree
//! that holds it; `vcc ledger verify-proof RECEIPT --key PUB` checks them
//! with nothing but the receipt and the ledger's public key.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use serde::{Deserialize, Serialize};
use vcc_trust::keys::{PrivateKey, PublicKey};

use crate::file::Ledger;
use crate::merkle::{Hash, inclusion_proof, leaf_hash, root, verify_inclusion};
use crate::note::{Checkpoint, Note};
use crate::verify::verify;

/// The receipt format (`vcc_receipt`).
pub const FORMAT: u32 = 1;
/// A receipt is small (one entry, a path of at most 64 hashes, a note).
pub const MAX_RECEIPT: usize = 8 << 20;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Receipt {
    pub vcc_receipt: u32,
    /// The entry's line, exactly (the leaf's bytes).
    pub entry: String,
    pub index: u64,
    pub tree_size: u64,
    /// Base64 hashes, nearest sibling first.
    pub inclusion: Vec<String>,
    /// The signed checkpoint note of the tree of `tree_size` entries.
    pub checkpoint: String,
}

/// A receipt for entry `seq` of an intact ledger: against a fresh
/// checkpoint signed with `key`, else the latest stored one that holds it.
pub fn prove(ledger: &Ledger, seq: u64, key: Option<&PrivateKey>) -> Result<Receipt, String> {
    let (verification, tree) =
        verify(ledger, key.map(|k| k.public()).as_ref()).map_err(|e| e.to_string())?;
    if let Some(p) = &verification.problem {
        return Err(format!(
            "the ledger is not intact ({} at seq {}: {}); no receipt is made from it",
            p.kind.as_str(),
            p.seq,
            p.message
        ));
    }
    if seq >= verification.entries {
        return Err(format!(
            "seq {seq} is not in the ledger ({} entries)",
            verification.entries
        ));
    }
    let lines = ledger.read().map_err(|e| e.to_string())?;
    let entry = String::from_utf8(lines.lines[seq as usize].clone())
        .map_err(|_| format!("entry {seq} is not UTF-8"))?;
    let (size, note) = match key {
        Some(key) => {
            let size = tree.leaves.len() as u64;
            let cp = Checkpoint {
                origin: tree.origin.clone().unwrap_or_default(),
                size,
                root: root(&tree.leaves),
            };
            (size, Note::sign(&cp.body(), &cp.origin, key).text())
        }
        None => {
            let stored = ledger.checkpoints().map_err(|e| e.to_string())?;
            let cp = stored.iter().rev().find(|c| c.size > seq).ok_or_else(|| {
                format!(
                    "no checkpoint holds seq {seq}: append with --ledger-key, or give --key to sign one now"
                )
            })?;
            (cp.size, cp.note.clone())
        }
    };
    let path = inclusion_proof(&tree.leaves[..size as usize], seq as usize)
        .ok_or("the inclusion path could not be made")?;
    Ok(Receipt {
        vcc_receipt: FORMAT,
        entry,
        index: seq,
        tree_size: size,
        inclusion: path.iter().map(|h| B64.encode(h)).collect(),
        checkpoint: note,
    })
}

/// Check a receipt's bytes against the ledger's public key: what it says
/// when it holds (`Ok`: the checkpoint), or why not.
pub fn verify_receipt(bytes: &[u8], key: &PublicKey) -> Result<Checkpoint, String> {
    if bytes.len() > MAX_RECEIPT {
        return Err(format!("the receipt is over {MAX_RECEIPT} bytes"));
    }
    let r: Receipt = serde_json::from_slice(bytes).map_err(|e| format!("not a receipt: {e}"))?;
    if r.vcc_receipt != FORMAT {
        return Err(format!(
            "receipt format {} (this vcc reads {FORMAT})",
            r.vcc_receipt
        ));
    }
    let note = Note::parse(&r.checkpoint)?;
    if !note.signed_by(key) {
        return Err("the checkpoint is not signed by the key given".into());
    }
    let cp = Checkpoint::parse(&note.body)?;
    if cp.size != r.tree_size {
        return Err(format!(
            "the receipt says tree size {}, its checkpoint {}",
            r.tree_size, cp.size
        ));
    }
    let path: Vec<Hash> = r
        .inclusion
        .iter()
        .map(|h| B64.decode(h).ok().and_then(|b| b.try_into().ok()))
        .collect::<Option<_>>()
        .ok_or("an inclusion hash is not 32 bytes of base64")?;
    if path.len() > 64 {
        return Err("the inclusion path is longer than any tree".into());
    }
    let leaf = leaf_hash(r.entry.as_bytes());
    if !verify_inclusion(&leaf, r.index, r.tree_size, &path, &cp.root) {
        return Err(format!(
            "the entry is not leaf {} of the tree the checkpoint signed",
            r.index
        ));
    }
    let seq = serde_json::from_str::<serde_json::Value>(&r.entry)
        .ok()
        .and_then(|v| v.get("seq").and_then(serde_json::Value::as_u64));
    if seq != Some(r.index) {
        return Err(format!(
            "the entry says seq {seq:?}, the receipt index {}",
            r.index
        ));
    }
    Ok(cp)
}
