//! Signed verification attestations: what a run verified, about which
//! bytes, signed, in the formats supply-chain tools read.
//!
//! - A SLSA Verification Summary Attestation (VSA v1) in an in-toto
//!   Statement v1: `verifier` (vcc and its version), `timeVerified`,
//!   `resourceUri`, `policy` (the contract and its digest),
//!   `inputAttestations` (the bundle signatures and signed records the
//!   verdict relied on), `verificationResult` (`PASSED` only when the run
//!   was accepted), `verifiedLevels` (vcc's own, never `SLSA_…`).
//! - An in-toto test-result v0.1 Statement: `result` (`PASSED`, `WARNED`
//!   when accepted with a SHOULD or MAY not passing, else `FAILED`), the
//!   contract as `configuration`, and the criteria that passed, warned or
//!   failed.
//!
//! Both have every deliverable file as a subject, by `sha256` (what cosign,
//! gh and slsa-verifier match on) and `blake3` (what vcc hashed), and each
//! is a DSSE envelope: one line each of an `.intoto.jsonl` file.

use serde_json::{Value, json};
use vcc_contract::Severity;
use vcc_report::{Report, Status, Verdict};
use vcc_trust::dsse::{Envelope, PAYLOAD_TYPE, STATEMENT_TYPE};
use vcc_trust::keys::PrivateKey;

pub const VSA_TYPE: &str = "https://slsa.dev/verification_summary/v1";
pub const TEST_RESULT_TYPE: &str = "https://in-toto.io/attestation/test-result/v0.1";
/// Who verifies: vcc, as a URI.
pub const VERIFIER_ID: &str = "urn:vcc:verifier";
/// The level a VSA claims for an accepted run (a verifier's own levels must
/// not start with `SLSA_`).
pub const ACCEPTED_LEVEL: &str = "VCC_CONTRACT_ACCEPTED";

/// The subjects of a report: every deliverable file by its digests.
fn subjects(r: &Report) -> Vec<Value> {
    r.deliverables
        .iter()
        .flat_map(|d| d.subjects.iter())
        .map(|s| json!({ "name": s.path, "digest": { "sha256": s.sha256, "blake3": s.blake3 } }))
        .collect()
}

fn hex(digest: &str) -> &str {
    digest.split_once(':').map_or(digest, |(_, h)| h)
}

/// The contract as VSA v1 names a policy: `uri` and `digest`.
fn policy(r: &Report) -> Value {
    let mut d = contract(r);
    if let Some(o) = d.as_object_mut() {
        o.remove("name");
    }
    d
}

/// The contract as an in-toto ResourceDescriptor.
fn contract(r: &Report) -> Value {
    let mut d = json!({
        "uri": format!(
            "file://{}",
            r.contract.absolute_path.as_deref().unwrap_or(&r.contract.path)
        ),
        "name": r.contract.id.clone().unwrap_or_else(|| r.contract.path.clone()),
    });
    if let Some(digest) = &r.contract.digest {
        d["digest"] = json!({ "blake3": hex(digest) });
    }
    d
}

/// What the verdict relied on that others signed: bundles (by manifest
/// digest) and signed command records (their envelopes, by blake3).
fn inputs(r: &Report) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for c in &r.criteria {
        if let Some(b) = &c.validator.bundle {
            let d = json!({
                "uri": format!("oci:{}@{}", b.name, b.version),
                "digest": { "sha256": hex(&b.manifest) },
            });
            if !out.contains(&d) {
                out.push(d);
            }
        }
        for f in c
            .files_read
            .iter()
            .filter(|f| f.path.ends_with(vcc_record::ENVELOPE_SUFFIX))
        {
            let d = json!({ "uri": f.path, "digest": { "blake3": hex(&f.digest) } });
            if !out.contains(&d) {
                out.push(d);
            }
        }
    }
    out
}

/// The VSA v1 Statement of a report.
pub fn vsa(r: &Report, resource: &str, time: &str) -> Value {
    let passed = r.verdict == Verdict::Accepted;
    json!({
        "_type": STATEMENT_TYPE,
        "subject": subjects(r),
        "predicateType": VSA_TYPE,
        "predicate": {
            "verifier": { "id": VERIFIER_ID, "version": { "vcc": r.runtime.vcc_version } },
            "timeVerified": time,
            "resourceUri": resource,
            "policy": policy(r),
            "inputAttestations": inputs(r),
            "verificationResult": if passed { "PASSED" } else { "FAILED" },
            "verifiedLevels": if passed { vec![ACCEPTED_LEVEL] } else { Vec::new() },
        }
    })
}

/// The test-result v0.1 Statement of a report.
pub fn test_result(r: &Report) -> Value {
    let ids = |pick: &dyn Fn(Severity, Status) -> bool| -> Vec<&str> {
        r.criteria
            .iter()
            .filter(|c| pick(c.severity, c.status))
            .map(|c| c.id.as_str())
            .collect()
    };
    let passed = ids(&|_, s| s == Status::Pass);
    let warned = ids(&|sev, s| sev != Severity::Must && s != Status::Pass);
    let failed = ids(&|sev, s| sev == Severity::Must && s != Status::Pass);
    let result = match r.verdict {
        Verdict::Accepted if warned.is_empty() => "PASSED",
        Verdict::Accepted => "WARNED",
        _ => "FAILED",
    };
    json!({
        "_type": STATEMENT_TYPE,
        "subject": subjects(r),
        "predicateType": TEST_RESULT_TYPE,
        "predicate": {
            "result": result,
            "configuration": [contract(r)],
            "passedTests": passed,
            "warnedTests": warned,
            "failedTests": failed,
        }
    })
}

/// The two envelopes of a report, each as one JSON line.
pub fn lines(r: &Report, resource: &str, time: &str, key: &PrivateKey) -> String {
    let mut out = String::new();
    for statement in [vsa(r, resource, time), test_result(r)] {
        let payload = serde_json::to_vec(&statement).unwrap_or_default();
        let envelope = Envelope::sign(PAYLOAD_TYPE, &payload, key);
        out.push_str(&serde_json::to_string(&envelope).unwrap_or_default());
        out.push('\n');
    }
    out
}

/// What one line of an attestation file says, once its signature is
/// checked against `signers` (trust-policy ids and keys).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Checked {
    pub predicate_type: String,
    /// `verificationResult` of a VSA, `result` of a test result.
    pub result: Option<String>,
    /// Ids of the trusted keys that signed it.
    pub signers: Vec<String>,
    /// (name, sha256) of each subject.
    pub subjects: Vec<(String, String)>,
    /// Why it cannot be trusted.
    pub problem: Option<String>,
}

/// Check one envelope line against the keys that may sign attestations;
/// at least `threshold` of them must have.
pub fn check_line(
    text: &str,
    signers: &[(String, vcc_trust::keys::PublicKey)],
    threshold: usize,
) -> Checked {
    let mut c = Checked::default();
    let envelope: Envelope = match serde_json::from_str(text) {
        Ok(e) => e,
        Err(e) => {
            c.problem = Some(format!("not a DSSE envelope: {e}"));
            return c;
        }
    };
    if envelope.payload_type != PAYLOAD_TYPE {
        c.problem = Some(format!(
            "payload type `{}`, not an in-toto Statement",
            envelope.payload_type
        ));
        return c;
    }
    c.signers = signers
        .iter()
        .filter(|(_, k)| envelope.signed_by(k))
        .map(|(id, _)| id.clone())
        .collect();
    if c.signers.len() < threshold.max(1) {
        c.problem = Some(format!(
            "signed by {} trusted key(s); {} needed of {}",
            c.signers.len(),
            threshold.max(1),
            signers
                .iter()
                .map(|(id, _)| id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        return c;
    }
    let Some(statement) = envelope
        .payload_bytes()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
    else {
        c.problem = Some("the payload is not a JSON Statement".into());
        return c;
    };
    if statement["_type"] != STATEMENT_TYPE {
        c.problem = Some("the payload is not an in-toto Statement v1".into());
        return c;
    }
    c.predicate_type = statement["predicateType"]
        .as_str()
        .unwrap_or("")
        .to_string();
    c.result = statement["predicate"]["verificationResult"]
        .as_str()
        .or_else(|| statement["predicate"]["result"].as_str())
        .map(str::to_string);
    c.subjects = statement["subject"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            (
                s["name"].as_str().unwrap_or("").to_string(),
                s["digest"]["sha256"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    c
}
