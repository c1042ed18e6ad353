//! Is a bundle trusted? Against a trust policy: not revoked; its rule for
//! the bundle's name, whose signer requirement (a threshold, or groups) is
//! met by listed keys whose DSSE signatures verify (strictly) over an
//! in-toto Statement that names this very manifest and every layer, with
//! the bundle's name and version, not expired; and a version at or above
//! the rule's floor.

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
    let digests: Vec<&str> = std::iter::once(bundle.descriptor.digest.as_str())
        .chain(bundle.manifest.layers.iter().map(|l| l.digest.as_str()))
        .collect();
    // First: no signature can bring a revoked bundle back.
    if let Some(r) = policy.revocation(name, version, &digests) {
        return Err(Refusal::new(
            Code::Revoked,
            format!(
                "{name} {version} ({}) is revoked by the trust policy ({}): {}",
                bundle.descriptor.digest,
                policy.path.display(),
                r.reason
            ),
        ));
    }
    let rule = policy.rule_for(name).ok_or_else(|| {
        Refusal::new(
            Code::NotTrusted,
            format!(
                "no rule of the trust policy ({}) covers bundle `{name}`",
                policy.path.display()
            ),
        )
    })?;
    let listed = rule.require.keys();
    let parsed = semver::Version::parse(version)
        .map_err(|e| Refusal::new(Code::MalformedBundle, format!("version `{version}`: {e}")))?;
    if bundle.signatures.is_empty() {
        return Err(Refusal::new(
            Code::Unsigned,
            format!(
                "bundle {name} {version} carries no signature; the trust policy requires {}",
                rule.require
            ),
        ));
    }
    let mut signers = BTreeSet::new();
    // The most telling refusal among the signatures that did not count.
    let mut refusals: Vec<Refusal> = Vec::new();
    // The expired signatures of listed keys: (when, key id).
    let mut lapsed: Vec<(SystemTime, String)> = Vec::new();
    for (_, envelope) in &bundle.signatures {
        let by: Vec<String> = listed
            .iter()
            .filter(|s| policy.keys.get(**s).is_some_and(|k| envelope.signed_by(k)))
            .map(|s| s.to_string())
            .collect();
        if by.is_empty() {
            let claims_listed_key = envelope.signatures.iter().any(|s| {
                listed
                    .iter()
                    .any(|id| policy.keys.get(*id).is_some_and(|k| k.id() == s.keyid))
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
                        listed.join(", ")
                    ),
                )
            });
            continue;
        }
        match statement_holds(bundle, envelope, now) {
            Ok(()) => signers.extend(by),
            Err(Lapse::Expired(at, text)) => {
                lapsed.extend(by.iter().map(|k| (at, k.clone())));
                refusals.push(Refusal::new(
                    Code::Expired,
                    format!("the signature by {} expired at {text}", by.join(", ")),
                ));
            }
            Err(Lapse::Refused(refusal)) => refusals.push(refusal),
        }
    }
    if !rule.require.met(&signers) {
        // Expired signatures of keys that have no good one: name the
        // newest, the one a re-sign or a refresh was due to replace.
        lapsed.retain(|(_, k)| !signers.contains(k));
        lapsed.sort();
        let newest_lapse = lapsed.last().map(|(at, key)| {
            format!(
                "; the newest signature that lapsed is {key}'s, at {} (re-sign, then `vcc bundle refresh`)",
                humantime::format_rfc3339_seconds(*at)
            )
        });
        if signers.is_empty() {
            refusals.sort_by_key(|r| rank(r.code));
            let mut first = refusals
                .into_iter()
                .next()
                .unwrap_or_else(|| Refusal::new(Code::Unsigned, "no signature counts".to_string()));
            if first.code == Code::Expired
                && let Some(newest) = newest_lapse
            {
                first.message = format!(
                    "no signature of {name} {version} counts{newest}; the trust policy requires {}",
                    rule.require
                );
            }
            return Err(first);
        }
        let unmet = rule.require.unmet(&signers);
        let unmet = if unmet == [rule.require.to_string()] {
            String::new()
        } else {
            format!(", and {} is not met", unmet.join(" nor "))
        };
        return Err(Refusal::new(
            Code::ThresholdNotMet,
            format!(
                "{name} {version} is signed by {}; the trust policy requires {}{unmet}{}",
                signers.iter().cloned().collect::<Vec<_>>().join(", "),
                rule.require,
                newest_lapse.unwrap_or_default()
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

/// Why a trusted key's signature does not count: it expired (when, as
/// written), or it states something untrue of this bundle.
enum Lapse {
    Expired(SystemTime, String),
    Refused(Refusal),
}

impl From<Refusal> for Lapse {
    fn from(r: Refusal) -> Lapse {
        Lapse::Refused(r)
    }
}

/// What a trusted signature states must be true of this bundle.
fn statement_holds(
    bundle: &Bundle,
    envelope: &dsse::Envelope,
    now: SystemTime,
) -> Result<(), Lapse> {
    let name = &bundle.config.name;
    if envelope.payload_type != dsse::PAYLOAD_TYPE {
        return Err(Lapse::Refused(Refusal::new(
            Code::PayloadTypeMismatch,
            format!(
                "a signature's payload type is {:?}, not an in-toto Statement ({})",
                envelope.payload_type,
                dsse::PAYLOAD_TYPE
            ),
        )));
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
        ).into());
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
            )
            .into());
        }
    }
    if &statement.predicate.name != name {
        return Err(Refusal::new(
            Code::NameMismatch,
            format!(
                "the signature is for `{}`, the bundle is `{name}`",
                statement.predicate.name
            ),
        )
        .into());
    }
    if statement.predicate.version != bundle.config.version {
        return Err(Refusal::new(
            Code::VersionMismatch,
            format!(
                "the signature is for version {}, the bundle is {}",
                statement.predicate.version, bundle.config.version
            ),
        )
        .into());
    }
    if let Some(expires) = &statement.predicate.expires {
        let at = humantime::parse_rfc3339(expires).map_err(|e| {
            Refusal::new(
                Code::MalformedBundle,
                format!("expires {}: {e}", vcc_contract::problem::quoted(expires)),
            )
        })?;
        if at <= now {
            return Err(Lapse::Expired(at, expires.clone()));
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

    /// The rotation: "2 of [platform, platform2, security]" is met
    /// by the two platform keys alone; groups keep security required.
    #[test]
    fn signer_groups_keep_a_group_required_through_a_rotation() {
        let keys = tempfile::tempdir().unwrap();
        let (p1, p2, sec) = (
            PrivateKey::generate().unwrap(),
            PrivateKey::generate().unwrap(),
            PrivateKey::generate().unwrap(),
        );
        let named = [("platform", &p1), ("platform2", &p2), ("security", &sec)];
        let flat = policy(
            keys.path(),
            &named,
            "{ name: \"acme/*\", signers: [platform, platform2, security], threshold: 2 }",
        );
        let groups = policy(
            keys.path(),
            &named,
            "{ name: \"acme/*\", all_of: [ { any_of: [platform, platform2] }, security ] }",
        );
        let now = SystemTime::now();
        let dir = tempfile::tempdir().unwrap();
        let mut bundle = sample(dir.path(), "1.2.0");
        bundle.sign(&p1, None).unwrap();
        bundle.sign(&p2, None).unwrap();
        assert!(verify(&bundle, &flat, now).is_ok(), "the flat form's hole");
        let refused = verify(&bundle, &groups, now).unwrap_err();
        assert_eq!(refused.code, Code::ThresholdNotMet);
        assert!(
            refused.message.contains(
                "requires all of (any of (platform, platform2), security), and security is not met"
            ),
            "{}",
            refused.message
        );
        bundle.sign(&sec, None).unwrap();
        let ok = verify(&bundle, &groups, now).unwrap();
        assert_eq!(ok.signers, vec!["platform", "platform2", "security"]);
        // Security alone does not meet the platform group.
        let dir2 = tempfile::tempdir().unwrap();
        let mut only_sec = sample(dir2.path(), "1.2.1");
        only_sec.sign(&sec, None).unwrap();
        let refused = verify(&only_sec, &groups, now).unwrap_err();
        assert!(
            refused
                .message
                .contains("any of (platform, platform2) is not met"),
            "{}",
            refused.message
        );
    }

    #[test]
    fn a_revoked_bundle_is_refused_whoever_signed_it() {
        let keys = tempfile::tempdir().unwrap();
        let a = PrivateKey::generate().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut bundle = sample(dir.path(), "1.2.0");
        bundle.sign(&a, None).unwrap();
        let layer = bundle.manifest.layers[0].digest.clone();
        for (entry, shown) in [
            (
                "{ bundle: \"acme/security@1.2.0\", reason: \"CVE-1: leaks\" }".to_string(),
                "CVE-1: leaks",
            ),
            (
                format!(
                    "{{ digest: \"{}\", reason: \"bad build\" }}",
                    bundle.descriptor.digest
                ),
                "bad build",
            ),
            (
                format!("{{ digest: \"{layer}\", reason: \"a bad component\" }}"),
                "a bad component",
            ),
        ] {
            let p = policy(
                keys.path(),
                &[("a", &a)],
                &format!("{{ name: \"acme/*\", signers: [a] }}\nrevoked:\n  - {entry}"),
            );
            let refused = verify(&bundle, &p, SystemTime::now()).unwrap_err();
            assert_eq!(refused.code, Code::Revoked, "{entry}");
            assert!(refused.message.ends_with(shown), "{}", refused.message);
        }
        let build_dir = tempfile::tempdir().unwrap();
        let mut built = sample(build_dir.path(), "1.2.0+build.7");
        built.sign(&a, None).unwrap();
        let p = policy(
            keys.path(),
            &[("a", &a)],
            "{ name: \"acme/*\", signers: [a] }\nrevoked:\n  - { bundle: \"acme/security@1.2.0\", reason: r }",
        );
        assert_eq!(
            verify(&built, &p, SystemTime::now()).unwrap_err().code,
            Code::Revoked,
            "build metadata is the same version"
        );
        let other = policy(
            keys.path(),
            &[("a", &a)],
            "{ name: \"acme/*\", signers: [a] }\nrevoked:\n  - { bundle: \"acme/security@1.2.1\", reason: x }",
        );
        assert!(
            verify(&bundle, &other, SystemTime::now()).is_ok(),
            "another version"
        );
    }

    #[test]
    fn re_signing_replaces_and_the_newest_lapse_is_named() {
        let keys = tempfile::tempdir().unwrap();
        let (a, b) = (
            PrivateKey::generate().unwrap(),
            PrivateKey::generate().unwrap(),
        );
        let p = policy(
            keys.path(),
            &[("a", &a), ("b", &b)],
            "{ name: \"acme/*\", signers: [a, b] }",
        );
        let now = SystemTime::now();
        let dir = tempfile::tempdir().unwrap();
        let mut bundle = sample(dir.path(), "1.2.0");
        bundle
            .sign(&a, Some(now + Duration::from_secs(60)))
            .unwrap();
        bundle
            .sign(&b, Some(now + Duration::from_secs(3600)))
            .unwrap();
        let later = now + Duration::from_secs(7200);
        let refused = verify(&bundle, &p, later).unwrap_err();
        assert_eq!(refused.code, Code::Expired);
        assert!(
            refused
                .message
                .contains("the newest signature that lapsed is b's"),
            "{}",
            refused.message
        );
        bundle
            .sign(&a, Some(now + Duration::from_secs(86_400)))
            .unwrap();
        let again = Bundle::open(&bundle.layout).unwrap();
        assert_eq!(
            again.signatures.len(),
            2,
            "a's renewal replaced its first signature"
        );
        assert_eq!(verify(&again, &p, later).unwrap().signers, vec!["a"]);
    }
}
