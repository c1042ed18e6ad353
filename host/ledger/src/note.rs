//! Checkpoints in the formats transparency logs share: a C2SP
//! `tlog-checkpoint` body (origin line, tree size, base64 root hash) in a
//! C2SP `signed-note` with Ed25519 signatures, as Go's
//! `golang.org/x/mod/sumdb/note`, sigsum and Rekor v2 write them:
//!
//! ```text
//! vcc-ledger/4f1c…
//! 42
//! qJ8…base64…=
//!
//! — vcc-ledger/4f1c… Ab3d…base64(key hash ‖ signature)…
//! ```
//!
//! A signature line is `— NAME BASE64`, where the decoded bytes are the
//! key's 4-byte hash — the first four bytes of
//! `SHA-256(NAME ‖ "\n" ‖ 0x01 ‖ public key)` — and the 64-byte Ed25519
//! signature of the body (every line before the blank one, each with its
//! newline).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use sha2::{Digest, Sha256};
use vcc_trust::keys::{PrivateKey, PublicKey};

use crate::merkle::Hash;

/// The signature type byte of Ed25519 in signed notes.
const ED25519: u8 = 0x01;
/// A note is small; anything larger is not one.
pub const MAX_NOTE: usize = 1 << 16;

/// A checkpoint: which log, how many entries, and the root of their tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    pub origin: String,
    pub size: u64,
    pub root: Hash,
}

/// A signed note as read: its body and its signature lines.
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    pub body: String,
    pub signatures: Vec<NoteSignature>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NoteSignature {
    pub name: String,
    pub key_hash: [u8; 4],
    pub signature: Vec<u8>,
}

impl Checkpoint {
    /// The checkpoint body (C2SP tlog-checkpoint).
    pub fn body(&self) -> String {
        format!(
            "{}\n{}\n{}\n",
            self.origin,
            self.size,
            B64.encode(self.root)
        )
    }

    /// Parse a checkpoint body; extension lines after the root are allowed
    /// and ignored, as the format says.
    pub fn parse(body: &str) -> Result<Checkpoint, String> {
        let mut lines = body.split('\n');
        let origin = lines
            .next()
            .filter(|o| !o.is_empty())
            .ok_or("no origin line")?;
        let size = lines
            .next()
            .ok_or("no tree size line")?
            .parse::<u64>()
            .map_err(|_| "the tree size is not a decimal number")?;
        let root = B64
            .decode(lines.next().ok_or("no root hash line")?)
            .map_err(|_| "the root hash is not base64")?;
        let root: Hash = root
            .try_into()
            .map_err(|_| "the root hash is not 32 bytes")?;
        if !body.ends_with('\n') {
            return Err("the body does not end with a newline".into());
        }
        Ok(Checkpoint {
            origin: origin.to_string(),
            size,
            root,
        })
    }
}

/// The key hash of an Ed25519 key named `name` in signed notes.
pub fn key_hash(name: &str, key: &[u8; 32]) -> [u8; 4] {
    let mut h = Sha256::new();
    h.update(name.as_bytes());
    h.update(b"\n");
    h.update([ED25519]);
    h.update(key);
    let d = h.finalize();
    [d[0], d[1], d[2], d[3]]
}

/// The verifier key string Go's `note.NewVerifier` reads:
/// `NAME+HEXHASH+BASE64(0x01 ‖ key)`.
pub fn verifier_key(name: &str, key: &PublicKey) -> String {
    let raw = key.raw();
    let mut typed = vec![ED25519];
    typed.extend_from_slice(&raw);
    let hash = key_hash(name, &raw);
    format!(
        "{name}+{}+{}",
        hash.iter().map(|b| format!("{b:02x}")).collect::<String>(),
        B64.encode(typed)
    )
}

impl Note {
    /// `body` signed by `key` under `name`.
    pub fn sign(body: &str, name: &str, key: &PrivateKey) -> Note {
        Note {
            body: body.to_string(),
            signatures: vec![NoteSignature {
                name: name.to_string(),
                key_hash: key_hash(name, &key.public().raw()),
                signature: key.sign(body.as_bytes()),
            }],
        }
    }

    pub fn unsigned(body: &str) -> Note {
        Note {
            body: body.to_string(),
            signatures: Vec::new(),
        }
    }

    /// The note's text: the body, a blank line, the signature lines.
    pub fn text(&self) -> String {
        let mut out = self.body.clone();
        out.push('\n');
        for s in &self.signatures {
            let mut bytes = s.key_hash.to_vec();
            bytes.extend_from_slice(&s.signature);
            out.push_str(&format!("— {} {}\n", s.name, B64.encode(bytes)));
        }
        out
    }

    /// Read a note's text. Malformed signature lines make it unreadable:
    /// a note is either what its signer wrote or nothing.
    pub fn parse(text: &str) -> Result<Note, String> {
        if text.len() > MAX_NOTE {
            return Err(format!("the note is over {MAX_NOTE} bytes"));
        }
        let (body, sigs) = text
            .split_once("\n\n")
            .ok_or("no blank line between the body and the signatures")?;
        let body = format!("{body}\n");
        let mut signatures = Vec::new();
        for line in sigs.split_terminator('\n') {
            let rest = line
                .strip_prefix("— ")
                .ok_or_else(|| format!("`{line}` is not a signature line (— NAME SIGNATURE)"))?;
            let (name, sig) = rest
                .rsplit_once(' ')
                .ok_or("a signature line without a signature")?;
            if name.is_empty() || name.contains(char::is_whitespace) || name.contains('+') {
                return Err(format!("`{name}` is not a key name"));
            }
            let bytes = B64
                .decode(sig)
                .map_err(|_| "a signature that is not base64")?;
            if bytes.len() < 5 {
                return Err("a signature shorter than a key hash".into());
            }
            signatures.push(NoteSignature {
                name: name.to_string(),
                key_hash: [bytes[0], bytes[1], bytes[2], bytes[3]],
                signature: bytes[4..].to_vec(),
            });
        }
        if !text.ends_with('\n') {
            return Err("the note does not end with a newline".into());
        }
        Ok(Note { body, signatures })
    }

    /// Whether `key` signed the body under one of the signature lines'
    /// names (name and key hash must match the key).
    pub fn signed_by(&self, key: &PublicKey) -> bool {
        let raw = key.raw();
        self.signatures.iter().any(|s| {
            s.key_hash == key_hash(&s.name, &raw)
                && key.verifies(self.body.as_bytes(), &s.signature)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_round_trips_and_verifies_only_its_body() {
        let key = PrivateKey::generate().unwrap();
        let cp = Checkpoint {
            origin: "vcc-ledger/test".into(),
            size: 7,
            root: [9u8; 32],
        };
        let note = Note::sign(&cp.body(), &cp.origin, &key);
        let text = note.text();
        assert!(text.starts_with("vcc-ledger/test\n7\nCQkJ"));
        assert!(text.contains("\n\n— vcc-ledger/test "));
        let back = Note::parse(&text).unwrap();
        assert_eq!(back, note);
        assert!(back.signed_by(&key.public()));
        assert_eq!(Checkpoint::parse(&back.body).unwrap(), cp);
        let other = PrivateKey::generate().unwrap();
        assert!(!back.signed_by(&other.public()));
        let tampered = Note::parse(&text.replacen("\n7\n", "\n8\n", 1)).unwrap();
        assert!(!tampered.signed_by(&key.public()));
        assert!(verifier_key("vcc-ledger/test", &key.public()).starts_with("vcc-ledger/test+"));
    }

    #[test]
    fn malformed_notes_are_refused() {
        for bad in [
            "",
            "x\n",
            "a\n1\nAA==\n\nnot a signature\n",
            "a\n1\nAA==\n\n— name !!!\n",
        ] {
            assert!(Note::parse(bad).is_err(), "{bad:?}");
        }
        assert!(Checkpoint::parse("o\nx\nAA==\n").is_err());
        assert!(Checkpoint::parse("o\n1\nAA==\n").is_err(), "32 bytes");
    }
}
