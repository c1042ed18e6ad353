//! The readers of records that outlive a run, fed hostile bytes: ledger
//! files with their checkpoints, C2SP notes and checkpoints, receipts and
//! consistency proofs, kept checkpoints, and attestation lines. The first byte picks the reader. None may panic, and
//! nothing arbitrary bytes say may verify against a key they were not
//! signed with.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use vcc_ledger::file::{parse_checkpoints, split};
use vcc_ledger::note::{Checkpoint, Note};
use vcc_trust::keys::{PrivateKey, PublicKey};

/// A key no input was signed with (a fixed seed would do; generated once).
fn key() -> &'static PublicKey {
    static KEY: OnceLock<PublicKey> = OnceLock::new();
    KEY.get_or_init(|| PrivateKey::generate().expect("a key").public())
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    match which % 4 {
        0 => {
            // A ledger and its checkpoints, split at the first 0xFF.
            let (lines, checkpoints) = match rest.iter().position(|b| *b == 0xFF) {
                Some(i) => (&rest[..i], &rest[i + 1..]),
                None => (rest, &[][..]),
            };
            let stored = parse_checkpoints(checkpoints).unwrap_or_default();
            let (v, _) = vcc_ledger::verify::verify_parts(&split(lines), &stored, Some(key()));
            assert!(
                v.checkpoints_verified == 0,
                "a checkpoint verified with a key nobody signed with"
            );
        }
        1 => {
            if let Ok(text) = std::str::from_utf8(rest)
                && let Ok(note) = Note::parse(text)
            {
                assert!(!note.signed_by(key()));
                let _ = Checkpoint::parse(&note.body);
                assert_eq!(Note::parse(&note.text()).ok(), Some(note));
            }
        }
        2 => {
            assert!(vcc_ledger::receipt::verify_receipt(rest, key()).is_err());
            assert!(vcc_ledger::consistency::verify_proof(rest, key(), None).is_err());
            if let Ok(note) = vcc_ledger::consistency::kept_note(rest) {
                assert!(vcc_ledger::consistency::signed_checkpoint(&note, key(), "it").is_err());
            }
        }
        _ => {
            if let Ok(text) = std::str::from_utf8(rest) {
                let c = vcc_formats::attest::check_line(text, &[("ci".into(), key().clone())], 1);
                assert!(
                    c.problem.is_some(),
                    "an attestation verified with a key nobody signed with"
                );
            }
        }
    }
});
