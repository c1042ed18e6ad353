//! DSSE envelopes (Dead Simple Signing Envelope, v1) over in-toto
//! Statements (v1): the signature format of validator bundles, readable by
//! any in-toto or DSSE implementation.
//!
//! A signature is over the PAE (pre-authentication encoding) of the payload
//! type and the payload bytes, so a signature made for one type of payload
//! cannot be replayed as another.

use std::collections::BTreeMap;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

use crate::keys::{PrivateKey, PublicKey};

/// The payload type of an in-toto Statement.
pub const PAYLOAD_TYPE: &str = "application/vnd.in-toto+json";
/// in-toto Statement v1.
pub const STATEMENT_TYPE: &str = "https://in-toto.io/Statement/v1";
/// What a vcc bundle signature states (its predicate).
pub const PREDICATE_TYPE: &str = "urn:vcc:bundle-signature:v1";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    /// Base64 of the payload bytes.
    pub payload: String,
    #[serde(rename = "payloadType")]
    pub payload_type: String,
    pub signatures: Vec<Signature>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Signature {
    /// A hint: which key signed (the verifier never trusts it alone).
    #[serde(default)]
    pub keyid: String,
    /// Base64 of the signature of the PAE.
    pub sig: String,
}

/// `DSSEv1 <len(type)> <type> <len(body)> <body>`.
pub fn pae(payload_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "DSSEv1 {} {} {} ",
        payload_type.len(),
        payload_type,
        payload.len()
    )
    .into_bytes();
    out.extend_from_slice(payload);
    out
}

impl Envelope {
    pub fn sign(payload_type: &str, payload: &[u8], key: &PrivateKey) -> Envelope {
        Envelope {
            payload: STANDARD.encode(payload),
            payload_type: payload_type.to_string(),
            signatures: vec![Signature {
                keyid: key.id().to_string(),
                sig: STANDARD.encode(key.sign(&pae(payload_type, payload))),
            }],
        }
    }

    pub fn payload_bytes(&self) -> Option<Vec<u8>> {
        STANDARD.decode(&self.payload).ok()
    }

    /// Whether `key` made one of the signatures.
    pub fn signed_by(&self, key: &PublicKey) -> bool {
        let Some(payload) = self.payload_bytes() else {
            return false;
        };
        let message = pae(&self.payload_type, &payload);
        self.signatures.iter().any(|s| {
            STANDARD
                .decode(&s.sig)
                .is_ok_and(|sig| key.verifies(&message, &sig))
        })
    }
}

/// An in-toto Statement about a bundle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Statement {
    #[serde(rename = "_type")]
    pub type_: String,
    pub subject: Vec<Subject>,
    #[serde(rename = "predicateType")]
    pub predicate_type: String,
    pub predicate: Predicate,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Subject {
    pub name: String,
    /// Algorithm → lowercase hex.
    pub digest: BTreeMap<String, String>,
}

/// What the signer vouches for, besides the digests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Predicate {
    pub name: String,
    pub version: String,
    pub created: String,
    /// RFC 3339; after it the signature no longer counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<String>,
    /// RFC 3339: when it was signed. A later signature by the same key
    /// replaces an earlier one (older vcc versions ignore the field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signed: Option<String>,
}

impl Subject {
    pub fn sha256(name: &str, hex: &str) -> Subject {
        Subject {
            name: name.to_string(),
            digest: BTreeMap::from([("sha256".to_string(), hex.to_string())]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pae_is_the_dsse_encoding() {
        // The DSSE specification's example.
        assert_eq!(
            pae("http://example.com/HelloWorld", b"hello world"),
            b"DSSEv1 29 http://example.com/HelloWorld 11 hello world".to_vec()
        );
    }

    #[test]
    fn envelopes_verify_only_their_payload_and_type() {
        let key = PrivateKey::generate().unwrap();
        let other = PrivateKey::generate().unwrap();
        let mut env = Envelope::sign(PAYLOAD_TYPE, b"{}", &key);
        assert!(env.signed_by(&key.public()));
        assert!(!env.signed_by(&other.public()));
        env.payload_type = "text/plain".into();
        assert!(!env.signed_by(&key.public()), "the type is signed too");
    }
}
