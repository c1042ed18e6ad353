//! `vcc ledger checkpoint|consistency|verify-proof`: what a log proves to
//! someone who does not hold it. A checkpoint kept elsewhere (a CI
//! artifact, a witness) pins the history up to it; a consistency proof
//! shows a later signed checkpoint extends it; a receipt shows one entry
//! is in a signed tree.

use std::path::Path;

use vcc_ledger::Ledger;
use vcc_ledger::consistency::{self, Start};
use vcc_ledger::note::Checkpoint;
use vcc_report::law::exit;
use vcc_trust::keys::PublicKey;

use crate::output::{print_stdout, write_atomically};

pub(crate) fn public_key(path: &Path) -> Result<PublicKey, i32> {
    PublicKey::read(path).map_err(|r| {
        eprintln!("vcc ledger: --key: {}", r.message);
        exit::INVALID
    })
}

/// The note in a file kept elsewhere, read capped.
fn kept_note(path: &Path) -> Result<String, String> {
    let bytes =
        crate::attach::read_capped(path, consistency::MAX_KEPT).map_err(|e| e.to_string())?;
    consistency::kept_note(&bytes)
}

/// The checkpoint in a file kept elsewhere, when `key` signed it.
pub(crate) fn kept_checkpoint(path: &Path, key: &PublicKey) -> Result<Checkpoint, String> {
    consistency::signed_checkpoint(&kept_note(path)?, key, "the checkpoint")
}

/// Write `text` to `out`, or print it.
fn deliver(command: &str, text: &str, out: Option<&Path>, what: &str) -> i32 {
    match out {
        Some(path) => {
            if let Err(e) = write_atomically(path, text.as_bytes()) {
                eprintln!("vcc ledger {command}: {}: {e}", path.display());
                return exit::INVALID;
            }
            eprintln!("wrote {}: {what}", path.display());
        }
        None => print_stdout(text),
    }
    exit::ACCEPTED
}

/// `vcc ledger checkpoint FILE --key PUB`: the latest checkpoint of a log
/// that verifies with the key (every entry covered).
pub fn checkpoint(file: &Path, key: &Path, out: Option<&Path>) -> i32 {
    let key = match public_key(key) {
        Ok(k) => k,
        Err(code) => return code,
    };
    let (v, tree) = match vcc_ledger::verify(&Ledger::new(file), Some(&key)) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("vcc ledger checkpoint: {e}");
            return exit::INVALID;
        }
    };
    if let Some(p) = &v.problem {
        eprintln!(
            "vcc ledger checkpoint: {}: BROKEN at seq {}: {}: {}; no checkpoint is given out from it",
            file.display(),
            p.seq,
            p.kind.as_str(),
            p.message
        );
        return exit::NOT_ACCEPTED;
    }
    let Some(latest) = tree.latest else {
        eprintln!(
            "vcc ledger checkpoint: {}: no checkpoint yet (an empty log): append with --ledger-key",
            file.display()
        );
        return exit::NOT_ACCEPTED;
    };
    // The stored note of that size, as the key signed it.
    let note = Ledger::new(file).checkpoints().ok().and_then(|stored| {
        stored
            .into_iter()
            .rev()
            .find(|c| {
                c.size == latest.size
                    && consistency::signed_checkpoint(&c.note, &key, "the note")
                        .is_ok_and(|cp| cp == latest)
            })
            .map(|c| c.note)
    });
    let Some(note) = note else {
        eprintln!(
            "vcc ledger checkpoint: {}: the checkpoints changed while being read; try again",
            file.display()
        );
        return exit::INVALID;
    };
    deliver(
        "checkpoint",
        &note,
        out,
        &format!(
            "the checkpoint of {} at size {}",
            latest.origin, latest.size
        ),
    )
}

/// `vcc ledger consistency FILE --from KEPT | --from-size N`.
pub fn consistency(
    file: &Path,
    from: Option<&Path>,
    from_size: Option<u64>,
    out: Option<&Path>,
) -> i32 {
    let kept;
    let start = match (from, from_size) {
        (Some(path), _) => match kept_note(path) {
            Ok(note) => {
                kept = note;
                Start::Note(&kept)
            }
            Err(why) => {
                eprintln!("vcc ledger consistency: --from {}: {why}", path.display());
                return exit::INVALID;
            }
        },
        (None, Some(size)) => Start::Size(size),
        (None, None) => {
            eprintln!("vcc ledger consistency: give --from CHECKPOINT or --from-size N");
            return exit::INVALID;
        }
    };
    let proof = match consistency::prove(&Ledger::new(file), start) {
        Ok(p) => p,
        Err(why) => {
            eprintln!("vcc ledger consistency: {why}");
            return exit::NOT_ACCEPTED;
        }
    };
    let text = serde_json::to_string_pretty(&proof).unwrap_or_default() + "\n";
    deliver(
        "consistency",
        &text,
        out,
        &format!("a consistency proof of {} hash(es)", proof.proof.len()),
    )
}

/// `vcc ledger verify-proof FILE --key PUB [--checkpoint KEPT]`: a receipt
/// (`vcc_receipt`) or a consistency proof (`vcc_consistency`).
pub fn verify_proof(file: &Path, key: &Path, kept: Option<&Path>) -> i32 {
    let key = match public_key(key) {
        Ok(k) => k,
        Err(code) => return code,
    };
    let cap = vcc_ledger::receipt::MAX_RECEIPT.max(consistency::MAX_PROOF) as u64;
    let bytes = match crate::attach::read_capped(file, cap) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("vcc ledger verify-proof: {}: {e}", file.display());
            return exit::INVALID;
        }
    };
    let is_consistency = serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .is_some_and(|v| v.get("vcc_consistency").is_some());
    if !is_consistency {
        if kept.is_some() {
            eprintln!(
                "vcc ledger verify-proof: --checkpoint is for consistency proofs (`vcc ledger consistency`); {} is not one",
                file.display()
            );
            return exit::INVALID;
        }
        return match vcc_ledger::receipt::verify_receipt(&bytes, &key) {
            Ok(cp) => {
                eprintln!(
                    "{}: the entry is in {} at size {}, signed by the key",
                    file.display(),
                    cp.origin,
                    cp.size
                );
                exit::ACCEPTED
            }
            Err(why) => {
                eprintln!("{}: NOT proven: {why}", file.display());
                exit::NOT_ACCEPTED
            }
        };
    }
    let kept = match kept
        .map(|path| kept_checkpoint(path, &key).map_err(|why| (path, why)))
        .transpose()
    {
        Ok(k) => k,
        Err((path, why)) => {
            eprintln!(
                "vcc ledger verify-proof: --checkpoint {}: {why}",
                path.display()
            );
            return exit::INVALID;
        }
    };
    match consistency::verify_proof(&bytes, &key, kept.as_ref()) {
        Ok((old, new)) => {
            eprintln!(
                "{}: {} at size {} extends its tree at size {}{}, both signed by the key",
                file.display(),
                new.origin,
                new.size,
                old.size,
                if kept.is_some() {
                    " (the checkpoint kept)"
                } else {
                    ""
                }
            );
            exit::ACCEPTED
        }
        Err(why) => {
            eprintln!("{}: NOT proven: {why}", file.display());
            exit::NOT_ACCEPTED
        }
    }
}
