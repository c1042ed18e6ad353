//! `FILE.checked`: which leading lines of `FILE.checkpoints` were already
//! found signed by the ledger key, so that an append (which verifies the
//! whole log first) checks one signature, not one per entry ever logged.
//!
//! It is signed by the ledger key itself, over the SHA-256 of exactly the
//! bytes it vouches for. Whoever can write the folder can delete it (then
//! every signature is checked again) or keep an old one (which still only
//! vouches for the bytes it hashed), but cannot make it vouch for a line
//! the key did not sign. It says nothing about the entries: their tree is
//! always computed from them, and every checkpoint's root is compared with
//! it whatever this file says. Anything odd about it: it is ignored.

use std::fs::OpenOptions;
use std::io::{Read as _, Write as _};
use std::os::unix::fs::OpenOptionsExt as _;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use vcc_trust::keys::{PrivateKey, PublicKey};

use crate::file::{Ledger, sibling};

/// The file is one short JSON object.
const MAX_CHECKED: u64 = 4096;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Checked {
    /// Whole lines of `FILE.checkpoints` found signed by the key.
    lines: u64,
    /// The bytes they take.
    bytes: u64,
    /// Hex SHA-256 of those bytes.
    sha256: String,
    /// Base64 Ed25519 signature of [`message`] by the ledger key.
    signature: String,
}

/// What the key signs: not a checkpoint body (its second line is not a
/// tree size), so the signature cannot stand for one.
fn message(lines: u64, bytes: u64, sha256: &str) -> String {
    format!(
        "vcc ledger: checkpoint signatures checked\n{lines} lines in the first {bytes} bytes\nsha256 {sha256}\n"
    )
}

fn hex_sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn path(ledger: &Ledger) -> std::path::PathBuf {
    sibling(&ledger.path, "checked")
}

/// How many leading lines of `checkpoints` (the bytes of
/// `FILE.checkpoints`) `key` is known to have signed; 0 when the file is
/// absent or does not hold.
pub fn known_signed(ledger: &Ledger, checkpoints: &[u8], key: &PublicKey) -> usize {
    read(ledger, checkpoints, key).unwrap_or(0)
}

fn read(ledger: &Ledger, checkpoints: &[u8], key: &PublicKey) -> Option<usize> {
    // Never blocks on a FIFO, never reads past the cap.
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path(ledger))
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = Vec::new();
    file.take(MAX_CHECKED).read_to_end(&mut text).ok()?;
    let c: Checked = serde_json::from_slice(&text).ok()?;
    let prefix = checkpoints.get(..usize::try_from(c.bytes).ok()?)?;
    let lines = prefix.iter().filter(|b| **b == b'\n').count();
    let whole = prefix.is_empty() || prefix.ends_with(b"\n");
    let signature = B64.decode(&c.signature).ok()?;
    (whole
        && lines as u64 == c.lines
        && hex_sha256(prefix) == c.sha256
        && key.verifies(message(c.lines, c.bytes, &c.sha256).as_bytes(), &signature))
    .then_some(lines)
}

/// Record that every whole line of `checkpoints` is signed by `key` (the
/// caller verified them, or signed them itself). Best effort: it is a
/// cache, and losing it costs time only.
pub fn record(ledger: &Ledger, checkpoints: &[u8], key: &PrivateKey) {
    let end = checkpoints
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let prefix = &checkpoints[..end];
    let lines = prefix.iter().filter(|b| **b == b'\n').count() as u64;
    let sha256 = hex_sha256(prefix);
    let signature = B64.encode(key.sign(message(lines, end as u64, &sha256).as_bytes()));
    let checked = Checked {
        lines,
        bytes: end as u64,
        sha256,
        signature,
    };
    let target = path(ledger);
    let tmp = sibling(&ledger.path, &format!("checked.{}.tmp", std::process::id()));
    // A name planted there (a link) is removed, never followed.
    let _ = std::fs::remove_file(&tmp);
    let written = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .open(&tmp)
        .and_then(|mut f| f.write_all(&serde_json::to_vec(&checked).unwrap_or_default()))
        .and_then(|()| std::fs::rename(&tmp, &target));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}
