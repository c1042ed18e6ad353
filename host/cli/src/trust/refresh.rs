//! `vcc bundle refresh [CONTRACT...]`: fetch the signatures a registry
//! holds now for bundles already pinned, by manifest digest, so nothing
//! but signatures can change, and keep them in the store when the bundle
//! verifies with them. This is the step of a key rotation that reaches
//! every team without a new lock: the platform re-signs and pushes, teams
//! (and CI) refresh, `check --locked` trusts the same bytes again.

use std::path::PathBuf;
use std::time::SystemTime;

use vcc_report::law::exit;
use vcc_trust::bundle::Bundle;
use vcc_trust::lock::Lock;
use vcc_trust::verify::verify;
use vcc_trust::{Code, Refusal};

use crate::args::TrustArgs;
use crate::trust::bundles::{open_store, policy, registry_refusal};

/// One pinned bundle to refresh.
struct Pinned {
    name: String,
    version: String,
    manifest: String,
    /// `HOST[:PORT]/REPO:TAG` (or `…@sha256:…`) it came from.
    source: String,
}

/// `vcc bundle refresh`: the bundles the contracts' locks pin, else every
/// stored bundle that came from a registry. Exit 0 when each is trusted
/// after the refresh, 2 when one is refused (the store keeps what it had).
pub fn refresh(contracts: &[PathBuf], trust: &TrustArgs) -> i32 {
    let result = (|| {
        let policy = policy(trust)?;
        crate::trust::bundles::policy_outside_repository(&policy)?;
        let store = open_store()?;
        let pinned = if contracts.is_empty() {
            store
                .sourced()?
                .into_iter()
                .map(|(name, version, manifest, source)| Pinned {
                    name,
                    version,
                    manifest,
                    source,
                })
                .collect()
        } else {
            locked(contracts)?
        };
        Ok::<_, Refusal>((policy, store, pinned))
    })();
    let (policy, store, pinned) = match result {
        Ok(r) => r,
        Err(r) => return crate::trust::bundles::refused("bundle refresh", &r),
    };
    if pinned.is_empty() {
        eprintln!(
            "vcc bundle refresh: nothing to refresh: no bundle {} came from a registry",
            if contracts.is_empty() {
                "in the store"
            } else {
                "the locks pin"
            }
        );
        return exit::ACCEPTED;
    }
    let mut code = exit::ACCEPTED;
    for p in &pinned {
        let before = store.bundle(&p.manifest).map_or(0, |b| b.signatures.len());
        match refresh_one(&store, &policy, p, trust.insecure) {
            Ok((bundle, signers)) => eprintln!(
                "refreshed {} {} ({}) from {}: {} signature(s), {} new; trusted, signed by {}",
                p.name,
                p.version,
                p.manifest,
                p.source,
                bundle.signatures.len(),
                bundle.signatures.len().saturating_sub(before),
                signers.join(", ")
            ),
            Err(r) => {
                eprintln!(
                    "vcc bundle refresh: {} {} ({}) from {}: refused: {}: {} (the store keeps what it had)",
                    p.name, p.version, p.manifest, p.source, r.code, r.message
                );
                code = exit::INVALID;
            }
        }
    }
    code
}

/// What the locks beside `contracts` pin from a registry.
fn locked(contracts: &[PathBuf]) -> Result<Vec<Pinned>, Refusal> {
    let mut out: Vec<Pinned> = Vec::new();
    for contract in contracts {
        let lock = Lock::read_for(contract)?.ok_or_else(|| {
            Refusal::new(
                Code::LockMissing,
                format!(
                    "{} has no {}: run `vcc lock {}` first",
                    contract.display(),
                    vcc_trust::lock::FILE,
                    contract.display()
                ),
            )
        })?;
        for b in lock.bundles {
            if b.source == "store" || out.iter().any(|p| p.manifest == b.manifest) {
                continue;
            }
            out.push(Pinned {
                name: b.name,
                version: b.version,
                manifest: b.manifest,
                source: b.source,
            });
        }
    }
    Ok(out)
}

/// Pull `p` by its digest, check it is the pinned bundle, verify it with
/// the signatures it has now, and store it; its signers.
fn refresh_one(
    store: &vcc_trust::store::Store,
    policy: &vcc_trust::policy::Policy,
    p: &Pinned,
    insecure: bool,
) -> Result<(Bundle, Vec<String>), Refusal> {
    let source = vcc_registry::parse_reference(&p.source)
        .map_err(|e| Refusal::new(Code::LockStale, format!("source {}: {e}", p.source)))?;
    // By digest: a tag may have moved since; the pinned bytes have not.
    let by_digest = vcc_registry::parse_reference(&format!(
        "{}/{}@{}",
        source.registry(),
        source.repository(),
        p.manifest
    ))
    .map_err(|e| Refusal::new(Code::LockStale, e))?;
    let registry =
        vcc_registry::Registry::connect(&by_digest, insecure).map_err(registry_refusal)?;
    let staging = store.staging()?;
    let descriptor = registry
        .pull(&by_digest, &staging.layout)
        .map_err(registry_refusal)?;
    if descriptor.digest != p.manifest {
        return Err(Refusal::new(
            Code::LockMismatch,
            format!(
                "the registry served {} when asked for {}",
                descriptor.digest, p.manifest
            ),
        ));
    }
    let bundle = Bundle::read(&staging.layout, &descriptor)?;
    if bundle.config.name != p.name || bundle.config.version != p.version {
        return Err(Refusal::new(
            Code::LockMismatch,
            format!(
                "{} holds {} {}, not {} {}",
                p.manifest, bundle.config.name, bundle.config.version, p.name, p.version
            ),
        ));
    }
    let verified = verify(&bundle, policy, SystemTime::now())?;
    store.import(&bundle, Some(&p.source))?;
    let stored = store.bundle(&p.manifest)?;
    Ok((stored, verified.signers))
}
