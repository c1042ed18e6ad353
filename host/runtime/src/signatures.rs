//! Who signed a file of the snapshot (`signatures`, vcc:validator@0.1.3).
//! The host checks, so a validator can never be fooled by a signature it
//! cannot verify: the DSSE envelope beside the file (`PATH.dsse.json`, a
//! file of the snapshot too, so it is hashed and bound like any other) must
//! be a record envelope whose payload is the file's exact bytes, signed by
//! keys the trust policy names for records, at least `threshold` of them.

use std::collections::BTreeSet;
use std::sync::Arc;

use vcc_trust::dsse::{Envelope, pae};
use vcc_trust::keys::PublicKey;

/// The keys the trust policy names for records (`records: { signers,
/// threshold }`), by their policy ids.
#[derive(Debug, Clone)]
pub struct RecordSigners {
    pub keys: Vec<(String, PublicKey)>,
    pub threshold: usize,
    /// The trust policy's file, which messages name.
    pub policy: String,
    /// The policy's keys that are not under `records`: a signature by one
    /// is named as such, not as an unknown key.
    pub others: Vec<(String, PublicKey)>,
}

impl RecordSigners {
    /// The keys a trust policy names for records, for the `signatures`
    /// host call. With a policy, always its signers (none when it has no
    /// `records`), so a refused signature names the policy and what it
    /// lacks.
    pub fn of_policy(p: &vcc_trust::policy::Policy) -> Arc<RecordSigners> {
        let listed: &[String] = p.records.as_ref().map_or(&[], |r| &r.signers);
        Arc::new(RecordSigners {
            keys: listed
                .iter()
                .filter_map(|id| p.keys.get(id).map(|k| (id.clone(), k.clone())))
                .collect(),
            threshold: p.records.as_ref().map_or(1, |r| r.threshold),
            policy: p.path.display().to_string(),
            others: p
                .keys
                .iter()
                .filter(|(id, _)| !listed.contains(id))
                .map(|(id, k)| (id.clone(), k.clone()))
                .collect(),
        })
    }
}

/// What the host found: the trusted signers (empty unless the threshold
/// is met), and why any signature did not count.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Checked {
    pub signers: Vec<String>,
    pub problems: Vec<(&'static str, String)>,
}

impl Checked {
    fn problem(code: &'static str, message: String) -> Checked {
        Checked {
            signers: Vec::new(),
            problems: vec![(code, message)],
        }
    }
}

/// Reads a file of the snapshot by path (`FileAccess::read`).
pub type ReadFile<'a> = dyn FnMut(&str) -> Result<Arc<[u8]>, String> + 'a;

/// Check the signatures of `path`, reading the snapshot's files (the record
/// and its envelope) through `read`, so what is verified is what was hashed
/// (and both are recorded as read).
pub fn check(read: &mut ReadFile, path: &str, signers: Option<&RecordSigners>) -> Checked {
    let Some(policy) = signers else {
        return Checked::problem(
            "no-policy",
            "there is no trust file (--trust FILE, $VCC_TRUST or ~/.config/vcc/trust.yaml) to name the keys that sign records, so no signature can be trusted".into(),
        );
    };
    if policy.keys.is_empty() {
        return Checked::problem(
            "no-policy",
            format!(
                "the trust policy {} lists no key under `records` (`records: {{ signers: [...] }}`), so no signature can be trusted",
                policy.policy
            ),
        );
    }
    let record = match read(path) {
        Ok(bytes) => bytes,
        Err(e) => return Checked::problem("unsigned", e),
    };
    let envelope_path = format!("{path}{}", vcc_record::ENVELOPE_SUFFIX);
    let bytes = match read(&envelope_path) {
        Ok(bytes) => bytes,
        Err(_) => {
            return Checked::problem(
                "unsigned",
                format!(
                    "{path} is not signed: no {envelope_path} beside it (sign with `vcc record --key`)"
                ),
            );
        }
    };
    let envelope: Envelope = match serde_json::from_slice(&bytes) {
        Ok(e) => e,
        Err(e) => {
            return Checked::problem(
                "not-an-envelope",
                format!("{envelope_path} is not a DSSE envelope: {e}"),
            );
        }
    };
    if envelope.payload_type != vcc_record::PAYLOAD_TYPE {
        return Checked::problem(
            "wrong-type",
            format!(
                "{envelope_path} signs a `{}`, not a command record ({})",
                envelope.payload_type,
                vcc_record::PAYLOAD_TYPE
            ),
        );
    }
    let Some(payload) = envelope.payload_bytes() else {
        return Checked::problem(
            "not-an-envelope",
            format!("{envelope_path}: the payload is not base64"),
        );
    };
    if payload != record.as_ref() {
        return Checked::problem(
            "other-bytes",
            format!(
                "{envelope_path} signs other bytes than {path} holds: the record was changed after it was signed"
            ),
        );
    }
    let message = pae(&envelope.payload_type, &payload);
    let mut trusted = BTreeSet::new();
    let mut problems = Vec::new();
    for (i, sig) in envelope.signatures.iter().enumerate() {
        use base64::Engine as _;
        let Ok(raw) = base64::engine::general_purpose::STANDARD.decode(&sig.sig) else {
            problems.push((
                "bad-signature",
                format!("signature {} of {envelope_path} is not base64", i + 1),
            ));
            continue;
        };
        match policy.keys.iter().find(|(_, k)| k.verifies(&message, &raw)) {
            Some((id, _)) => {
                trusted.insert(id.clone());
            }
            None => match policy.keys.iter().find(|(_, k)| k.id() == sig.keyid) {
                Some((id, _)) => problems.push((
                    "bad-signature",
                    format!(
                        "signature {} names record signer `{id}` and does not verify",
                        i + 1
                    ),
                )),
                None => problems.push((
                    "unknown-key",
                    match policy.others.iter().find(|(_, k)| k.verifies(&message, &raw)) {
                        Some((id, _)) => format!(
                            "signature {} is by key `{id}`, which the trust policy {} lists under `keys` but not under `records`",
                            i + 1,
                            policy.policy
                        ),
                        None => format!(
                            "signature {} is by a key the trust policy {} does not list ({})",
                            i + 1,
                            policy.policy,
                            if sig.keyid.is_empty() {
                                "no key id"
                            } else {
                                sig.keyid.as_str()
                            }
                        ),
                    },
                )),
            },
        }
    }
    if envelope.signatures.is_empty() {
        problems.push(("unsigned", format!("{envelope_path} holds no signature")));
    }
    if trusted.len() < policy.threshold {
        if !trusted.is_empty() {
            problems.push((
                "threshold",
                format!(
                    "{} trusted signer(s) ({}); the trust policy asks for {}",
                    trusted.len(),
                    trusted.iter().cloned().collect::<Vec<_>>().join(", "),
                    policy.threshold
                ),
            ));
        }
        return Checked {
            signers: Vec::new(),
            problems,
        };
    }
    Checked {
        signers: trusted.into_iter().collect(),
        problems,
    }
}
