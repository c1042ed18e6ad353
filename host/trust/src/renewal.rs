//! Which signatures a newer one by the same key replaces. A signature
//! replaces another when both verify under the public key its own
//! signature manifest names (so only that key's holder can replace what
//! that key signed) and its Statement says it was signed later. Nothing
//! here trusts a key id or an annotation alone: a key id is a hint anyone
//! can write.

use std::time::SystemTime;

use crate::dsse::{Envelope, Statement};
use crate::keys::PublicKey;
use crate::layout::{Manifest, annotation};

/// A signature: its manifest's digest, the manifest, its envelope.
pub struct Signed {
    pub digest: String,
    pub manifest: Manifest,
    pub envelope: Envelope,
}

/// The key that made a signature, proven: the public key its manifest
/// names, when the envelope verifies under it.
pub fn proven_key(manifest: &Manifest, envelope: &Envelope) -> Option<PublicKey> {
    let pem = manifest.annotations.get(annotation::PUBLIC_KEY)?;
    let key = PublicKey::from_pem(pem, "a signature's public key").ok()?;
    envelope.signed_by(&key).then_some(key)
}

/// When a signature says it was made (older signatures say nothing).
pub fn signed_at(envelope: &Envelope) -> Option<SystemTime> {
    let statement: Statement = serde_json::from_slice(&envelope.payload_bytes()?).ok()?;
    humantime::parse_rfc3339(statement.predicate.signed.as_deref()?).ok()
}

/// The digests of the signatures that a later one by the same key replaces.
pub fn superseded(all: &[Signed]) -> Vec<String> {
    let mut out = Vec::new();
    for newer in all {
        let Some(key) = proven_key(&newer.manifest, &newer.envelope) else {
            continue;
        };
        let Some(at) = signed_at(&newer.envelope) else {
            continue;
        };
        for older in all {
            if older.digest != newer.digest
                && older.envelope.signed_by(&key)
                && signed_at(&older.envelope).is_none_or(|then| then < at)
                && !out.contains(&older.digest)
            {
                out.push(older.digest.clone());
            }
        }
    }
    out
}
