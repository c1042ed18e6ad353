//! Is a bundle trusted? Against a trust policy: its rule for the bundle's
//! name, enough distinct listed signers whose DSSE signatures verify
//! (strictly) over an in-toto Statement that names this very manifest and
//! every layer, with the bundle's name and version, not expired, and a
//! version at or above the rule's floor.

use std::collections::BTreeSet;
use std::time::SystemTime;

use crate::bundle::Bundle;
use crate::dsse::{self, Statement};
use crate::layout::{self, annotation};
use crate::policy::Policy;
use crate::refusal::{Code, Refusal};

/// A bundle the policy trusts.
#[derive(Debug, Clone, PartialEq)]
pub struct Verified {
    pub name: String,
    pub version: String,
    /// `sha256:<hex>` of the bundle manifest.
    pub manifest: String,
    /// Policy key ids of the signers whose signatures count.
    pub signers: Vec<String>,
}

/// Verify `bundle` against `policy` at time `now`.
pub fn verify(bundle: &Bundle, policy: &Policy, now: SystemTime) -> Result<Verified, Refusal> {
    let name = &bundle.config.name;
    let version = &bundle.config.version;
    let rule = policy.rule_for(name).ok_or_else(|| {
        Refusal::new(
            Code::NotTrusted,
            format!(
                "no rule of the trust policy ({}) covers bundle `{name}`",
                policy.path.display()
            ),
        )
    })?;
    let parsed = semver::Version::parse(version)
        .map_err(|e| Refusal::new(Code::MalformedBundle, format!("version `{version}`: {e}")))?;
    if bundle.signatures.is_empty() {
        return Err(Refusal::new(
            Code::Unsigned,
            format!(
                "bundle {name} {version} carries no signature; the trust policy requires {} of: {}",
                rule.threshold,
                rule.signers.join(", ")
            ),
        ));
    }
    let mut signers = BTreeSet::new();
    // The most telling refusal among the signatures that did not count.
    let mut refusals: Vec<Refusal> = Vec::new();
    for (_, envelope) in &bundle.signatures {
        let by: Vec<&String> = rule
            .signers
            .iter()
            .filter(|s| policy.keys.get(*s).is_some_and(|k| envelope.signed_by(k)))
            .collect();
        if by.is_empty() {
            let claims_listed_key = envelope.signatures.iter().any(|s| {
                rule.signers
                    .iter()
                    .any(|id| policy.keys.get(id).is_some_and(|k| k.id() == s.keyid))
            });
            refusals.push(if claims_listed_key {
                Refusal::new(
                    Code::BadSignature,
                    format!(
                        "a signature claims to be by a trusted key of `{name}`, but does not verify"
                    ),
                )
            } else {
                Refusal::new(
                    Code::UnknownKey,
                    format!(
                        "signed by {}, not by a key the trust policy lists for `{name}` ({})",
                        envelope
                            .signatures
                            .iter()
                            .map(|s| if s.keyid.is_empty() {
                                "an unnamed key"
                            } else {
                                s.keyid.as_str()
                            })
                            .collect::<Vec<_>>()
                            .join(", "),
                        rule.signers.join(", ")
                    ),
                )
            });
            continue;
        }
        match statement_holds(bundle, envelope, now) {
            Ok(()) => signers.extend(by.into_iter().cloned()),
            Err(refusal) => refusals.push(refusal),
        }
    }
    if signers.len() < rule.threshold {
        if signers.is_empty() {
            refusals.sort_by_key(|r| rank(r.code));
            return Err(refusals.into_iter().next().unwrap_or_else(|| {
                Refusal::new(Code::Unsigned, "no signature counts".to_string())
            }));
        }
        return Err(Refusal::new(
            Code::ThresholdNotMet,
            format!(
                "{} trusted signer(s) ({}) of {name} {version}; the trust policy requires {} of: {}",
                signers.len(),
                signers.iter().cloned().collect::<Vec<_>>().join(", "),
                rule.threshold,
                rule.signers.join(", ")
            ),
        ));
    }
    if let Some(min) = &rule.min_version
        && &parsed < min
    {
        return Err(Refusal::new(
            Code::BelowMinVersion,
            format!("{name} {version} is below the trust policy's min_version {min}: a rollback"),
        ));
    }
    Ok(Verified {
        name: name.clone(),
        version: version.clone(),
        manifest: bundle.descriptor.digest.clone(),
        signers: signers.into_iter().collect(),
    })
}

/// Which refusal says most, when no signature counts: what a trusted key
/// signed but does not hold comes first.
fn rank(code: Code) -> u8 {
    match code {
        Code::PayloadTypeMismatch => 0,
        Code::DigestMismatch => 1,
        Code::NameMismatch => 2,
        Code::VersionMismatch => 3,
        Code::Expired => 4,
        Code::BadSignature => 5,
        _ => 6,
    }
}

/// What a trusted signature states must be true of this bundle.
fn statement_holds(
    bundle: &Bundle,
    envelope: &dsse::Envelope,
    now: SystemTime,
) -> Result<(), Refusal> {
    let name = &bundle.config.name;
    if envelope.payload_type != dsse::PAYLOAD_TYPE {
        return Err(Refusal::new(
            Code::PayloadTypeMismatch,
            format!(
                "a signature's payload type is {:?}, not an in-toto Statement ({})",
                envelope.payload_type,
                dsse::PAYLOAD_TYPE
            ),
        ));
    }
    let statement: Statement = envelope
        .payload_bytes()
        .and_then(|p| serde_json::from_slice(&p).ok())
        .filter(|s: &Statement| {
            s.type_ == dsse::STATEMENT_TYPE && s.predicate_type == dsse::PREDICATE_TYPE
        })
        .ok_or_else(|| {
            Refusal::new(
                Code::PayloadTypeMismatch,
                "a signed payload is not a vcc bundle Statement (in-toto v1)".to_string(),
            )
        })?;
    let covers = |hex: &str| {
        statement
            .subject
            .iter()
            .any(|s| s.digest.get("sha256").map(String::as_str) == Some(hex))
    };
    if !covers(layout::sha256_hex(&bundle.descriptor.digest).unwrap_or("")) {
        return Err(Refusal::new(
            Code::DigestMismatch,
            format!(
                "a signature is over another bundle: its subjects do not include this manifest ({})",
                bundle.descriptor.digest
            ),
        ));
    }
    for layer in &bundle.manifest.layers {
        if !covers(layout::sha256_hex(&layer.digest).unwrap_or("")) {
            let title = layer
                .annotations
                .get(annotation::TITLE)
                .cloned()
                .unwrap_or_default();
            return Err(Refusal::new(
                Code::DigestMismatch,
                format!(
                    "{title} ({}) is not among the signed subjects",
                    layer.digest
                ),
            ));
        }
    }
    if &statement.predicate.name != name {
        return Err(Refusal::new(
            Code::NameMismatch,
            format!(
                "the signature is for `{}`, the bundle is `{name}`",
                statement.predicate.name
            ),
        ));
    }
    if statement.predicate.version != bundle.config.version {
        return Err(Refusal::new(
            Code::VersionMismatch,
            format!(
                "the signature is for version {}, the bundle is {}",
                statement.predicate.version, bundle.config.version
            ),
        ));
    }
    if let Some(expires) = &statement.predicate.expires {
        let at = humantime::parse_rfc3339(expires).map_err(|e| {
            Refusal::new(
                Code::MalformedBundle,
                format!("expires {}: {e}", vcc_contract::problem::quoted(expires)),
            )
        })?;
        if at <= now {
            return Err(Refusal::new(
                Code::Expired,
                format!("the signature expired at {expires}"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::tests::sample;
    use crate::keys::PrivateKey;
    use std::time::Duration;

    fn policy(dir: &std::path::Path, keys: &[(&str, &PrivateKey)], rule: &str) -> Policy {
        let mut text = String::from("trust: 1\nkeys:\n");
        for (id, key) in keys {
            std::fs::write(dir.join(format!("{id}.pub")), key.public().to_pem()).unwrap();
            text.push_str(&format!("  - {{ id: {id}, public_key: {id}.pub }}\n"));
        }
        text.push_str(&format!("bundles:\n  - {rule}\n"));
        let path = dir.join("trust.yaml");
        std::fs::write(&path, text).unwrap();
        Policy::read(&path).unwrap()
    }

    fn code(r: Result<Verified, Refusal>) -> Code {
        r.unwrap_err().code
    }

    #[test]
    fn signatures_thresholds_floors_and_expiry() {
        let keys = tempfile::tempdir().unwrap();
        let (a, b, stranger) = (
            PrivateKey::generate().unwrap(),
            PrivateKey::generate().unwrap(),
            PrivateKey::generate().unwrap(),
        );
        let one = policy(
            keys.path(),
            &[("a", &a), ("b", &b)],
            "{ name: \"acme/*\", signers: [a, b], min_version: 1.2.0 }",
        );
        let two = policy(
            keys.path(),
            &[("a", &a), ("b", &b)],
            "{ name: \"acme/*\", signers: [a, b], threshold: 2 }",
        );
        let now = SystemTime::now();

        let dir = tempfile::tempdir().unwrap();
        let mut bundle = sample(dir.path(), "1.2.0");
        assert_eq!(code(verify(&bundle, &one, now)), Code::Unsigned);
        bundle.sign(&stranger, None).unwrap();
        assert_eq!(code(verify(&bundle, &one, now)), Code::UnknownKey);
        bundle.sign(&a, None).unwrap();
        let ok = verify(&bundle, &one, now).unwrap();
        assert_eq!(ok.signers, vec!["a"]);
        assert_eq!(code(verify(&bundle, &two, now)), Code::ThresholdNotMet);
        bundle.sign(&b, None).unwrap();
        assert_eq!(verify(&bundle, &two, now).unwrap().signers, vec!["a", "b"]);

        let old_dir = tempfile::tempdir().unwrap();
        let mut old = sample(old_dir.path(), "1.1.9");
        old.sign(&a, None).unwrap();
        assert_eq!(code(verify(&old, &one, now)), Code::BelowMinVersion);

        let exp_dir = tempfile::tempdir().unwrap();
        let mut expiring = sample(exp_dir.path(), "1.3.0");
        expiring
            .sign(&a, Some(now + Duration::from_secs(3600)))
            .unwrap();
        assert!(verify(&expiring, &one, now).is_ok());
        assert_eq!(
            code(verify(&expiring, &one, now + Duration::from_secs(7200))),
            Code::Expired
        );
    }

    #[test]
    fn a_signature_over_another_bundle_does_not_count() {
        let keys = tempfile::tempdir().unwrap();
        let a = PrivateKey::generate().unwrap();
        let p = policy(
            keys.path(),
            &[("a", &a)],
            "{ name: \"acme/*\", signers: [a] }",
        );
        let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let mut signed = sample(d1.path(), "1.2.0");
        signed.sign(&a, None).unwrap();
        let mut other = sample(d2.path(), "1.2.1");
        // Graft the first bundle's signature onto the second.
        other.signatures = signed.signatures.clone();
        assert_eq!(
            code(verify(&other, &p, SystemTime::now())),
            Code::DigestMismatch
        );
    }
}
