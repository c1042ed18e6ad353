//! Signed approvals of a gate (`vcc approve`): an in-toto Statement v1 in
//! a DSSE envelope, whose subjects are the contract (by its digest) and
//! the deliverables (by the root digest vcc computes over them), so an
//! approval is of these exact bytes and nothing else. Being signed and
//! bound to both, an approval is safe to keep anywhere, even where the
//! producer of the deliverables can write: it can delete one (the gate is
//! then withheld), never forge or reuse one.
//!
//! ```json
//! {"_type": "https://in-toto.io/Statement/v1",
//!  "subject": [{"name": "contract", "digest": {"blake3": "…"}},
//!              {"name": "deliverables", "digest": {"blake3": "…"}}],
//!  "predicateType": "urn:vcc:approval:v1",
//!  "predicate": {"contract_id": "…", "gate": "GATE-REVIEW", "role": "Reviewer",
//!                "score": 4, "approved_at": "2026-11-24T10:00:00Z"}}
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::dsse::{Envelope, PAYLOAD_TYPE, STATEMENT_TYPE, Subject};
use crate::keys::PrivateKey;
use crate::policy::Policy;

/// What an approval states.
pub const APPROVAL_PREDICATE: &str = "urn:vcc:approval:v1";
/// An approval file is at most this large.
pub const MAX_APPROVAL_BYTES: u64 = 1 << 20;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalPredicate {
    pub contract_id: String,
    pub gate: String,
    pub role: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    pub approved_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ApprovalStatement {
    #[serde(rename = "_type")]
    type_: String,
    subject: Vec<Subject>,
    #[serde(rename = "predicateType")]
    predicate_type: String,
    predicate: ApprovalPredicate,
}

/// What is approved.
pub struct Approve<'a> {
    /// `blake3:<hex>` of the contract.
    pub contract_digest: &'a str,
    /// `blake3:<hex>` root digest of the deliverables.
    pub root_digest: &'a str,
    pub predicate: ApprovalPredicate,
}

fn blake3_subject(name: &str, digest: &str) -> Subject {
    Subject {
        name: name.to_string(),
        digest: BTreeMap::from([(
            "blake3".to_string(),
            digest.trim_start_matches("blake3:").to_string(),
        )]),
    }
}

/// The signed envelope of an approval.
pub fn sign(a: &Approve, key: &PrivateKey) -> Envelope {
    let statement = ApprovalStatement {
        type_: STATEMENT_TYPE.into(),
        subject: vec![
            blake3_subject("contract", a.contract_digest),
            blake3_subject("deliverables", a.root_digest),
        ],
        predicate_type: APPROVAL_PREDICATE.into(),
        predicate: a.predicate.clone(),
    };
    let payload = serde_json::to_vec(&statement).unwrap_or_default();
    Envelope::sign(PAYLOAD_TYPE, &payload, key)
}

/// An approval statement as read, before its signature is checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    pub contract_digest: String,
    pub root_digest: String,
    pub predicate: ApprovalPredicate,
    envelope: Envelope,
}

/// Who signed an approval, as the trust policy sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Signers {
    /// Policy key ids whose signature verified.
    pub keys: Vec<String>,
    /// Roles the policy gives those keys.
    pub roles: Vec<String>,
}

/// Read an approval envelope and its statement; `Err` says why it is not
/// one (its signature is checked by [`Statement::signers`]).
pub fn read(bytes: &[u8]) -> Result<Statement, String> {
    let envelope: Envelope =
        serde_json::from_slice(bytes).map_err(|e| format!("not a DSSE envelope: {e}"))?;
    if envelope.payload_type != PAYLOAD_TYPE {
        return Err(format!(
            "payload type `{}`, not an in-toto Statement",
            envelope.payload_type
        ));
    }
    let payload = envelope
        .payload_bytes()
        .ok_or("the payload is not base64")?;
    let statement: ApprovalStatement =
        serde_json::from_slice(&payload).map_err(|e| format!("not an approval statement: {e}"))?;
    if statement.type_ != STATEMENT_TYPE || statement.predicate_type != APPROVAL_PREDICATE {
        return Err(format!(
            "a `{}` statement, not an approval ({APPROVAL_PREDICATE})",
            statement.predicate_type
        ));
    }
    let digest = |name: &str| -> Result<String, String> {
        let found: Vec<&Subject> = statement
            .subject
            .iter()
            .filter(|s| s.name == name)
            .collect();
        match found[..] {
            [s] => s
                .digest
                .get("blake3")
                .map(|h| format!("blake3:{h}"))
                .ok_or_else(|| format!("subject `{name}` has no blake3 digest")),
            _ => Err(format!("the statement needs exactly one `{name}` subject")),
        }
    };
    Ok(Statement {
        contract_digest: digest("contract")?,
        root_digest: digest("deliverables")?,
        predicate: statement.predicate,
        envelope,
    })
}

impl Statement {
    /// The policy's keys that signed it and the roles they hold; `Err`
    /// when no key of the policy did (or there is no policy).
    pub fn signers(&self, policy: Option<&Policy>) -> Result<Signers, String> {
        let Some(policy) = policy else {
            return Err("there is no trust policy to verify its signature against (--trust FILE, $VCC_TRUST)".into());
        };
        let keys: Vec<String> = policy
            .keys
            .iter()
            .filter(|(_, key)| self.envelope.signed_by(key))
            .map(|(id, _)| id.clone())
            .collect();
        if keys.is_empty() {
            return Err(format!(
                "signed by no key of the trust policy {}",
                policy.path.display()
            ));
        }
        let roles = policy
            .roles
            .iter()
            .filter(|(_, ids)| ids.iter().any(|k| keys.contains(k)))
            .map(|(role, _)| role.clone())
            .collect();
        Ok(Signers { keys, roles })
    }
}
