//! `vcc lock CONTRACT`: resolve the bundles a contract (and its bases)
//! uses, verify each against the trust policy, and pin them in vcc.lock.

use super::*;

/// `vcc lock CONTRACT`.
pub fn lock(runtime: &Runtime, args: &LockArgs) -> i32 {
    let doc = match vcc_contract::load(&args.contract) {
        Ok(doc) => doc,
        Err(p) => {
            eprintln!("vcc lock: {}: {} {}", p.file, p.code, p.message);
            return exit::INVALID;
        }
    };
    // Not linted here: a contract that extends a base refers to the base's
    // deliverables and validators, which only the composed contract has
    // (`vcc lint` and `vcc check` lint that).
    match write_lock(runtime, &doc, &args.trust) {
        Ok((path, lock)) => {
            for b in &lock.bundles {
                eprintln!(
                    "locked {} {} ({}), signed by {}, from {}",
                    b.name,
                    b.version,
                    b.manifest,
                    b.signers.join(", "),
                    b.source
                );
            }
            eprintln!("wrote {}", path.display());
            exit::ACCEPTED
        }
        Err(r) => crate::bundles::refused("lock", &r),
    }
}

pub(super) fn write_lock(
    runtime: &Runtime,
    doc: &Document,
    trust: &TrustArgs,
) -> Result<(PathBuf, Lock), Refusal> {
    let mut g = Gate::new(runtime, trust)?;
    let mut wanted = requirements(&doc.contract);
    let mut resolved: BTreeMap<String, Resolved> = BTreeMap::new();
    if let Some(e) = &doc.contract.extends {
        let reqs = parse_reqs(wanted.get(&e.bundle).map(Vec::as_slice).unwrap_or_default())?;
        let r = g.resolve(&e.bundle, &reqs)?;
        let label = format!("{}#{}@{}", e.bundle, e.contract, r.verified.version);
        let base = base_from(&r, &e.contract, &label)?;
        // A lock is a promise that the contract runs as its base says: one
        // that weakens the base is refused here, not only at lint.
        if let Some(p) = weakening(doc, &r, &e.contract).first() {
            return Err(Refusal::new(
                Code::WeakensBase,
                format!(
                    "{}{}: {}",
                    p.field.as_deref().unwrap_or("the contract"),
                    p.line.map(|l| format!(" (line {l})")).unwrap_or_default(),
                    p.message
                ),
            ));
        }
        for (bundle, reqs) in requirements(&base.contract) {
            wanted.entry(bundle).or_default().extend(reqs);
        }
        resolved.insert(e.bundle.clone(), r);
    }
    for (name, reqs) in &wanted {
        let parsed = parse_reqs(reqs)?;
        match resolved.get(name) {
            Some(r) if !satisfies(&r.verified.version, &parsed) => {
                return Err(Refusal::new(
                    Code::LockStale,
                    format!(
                        "{name} {} (taken for `extends`) does not meet {}",
                        r.verified.version,
                        reqs.iter()
                            .map(|(w, r)| format!("{r} ({w})"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
            Some(_) => {}
            None => {
                let r = g.resolve(name, &parsed)?;
                resolved.insert(name.clone(), r);
            }
        }
    }
    for (name, v) in &doc.contract.validators {
        if let Some((bundle, validator)) = v.from_bundle()
            && let Some(r) = resolved.get(bundle)
            && !r.bundle.config.validators.contains_key(validator)
        {
            return Err(Refusal::new(
                Code::NotInStore,
                format!(
                    "validator `{name}`: bundle {bundle} {} has no validator `{validator}` (it has: {})",
                    r.verified.version,
                    r.bundle
                        .config
                        .validators
                        .keys()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
    }
    let lock = Lock {
        vcc_lock: vcc_trust::lock::FORMAT,
        bundles: resolved
            .iter()
            .map(|(name, r)| {
                let c = &r.bundle.config;
                LockedBundle {
                    name: name.clone(),
                    version: c.version.clone(),
                    requirement: wanted
                        .get(name)
                        .map(|reqs| {
                            reqs.iter()
                                .map(|(_, r)| r.clone())
                                .collect::<Vec<_>>()
                                .join(", ")
                        })
                        .unwrap_or_default(),
                    source: r.source.clone(),
                    manifest: r.verified.manifest.clone(),
                    signers: r.verified.signers.clone(),
                    validators: c
                        .validators
                        .iter()
                        .map(|(n, v)| {
                            (
                                n.clone(),
                                LockedFile {
                                    sha256: v.sha256.clone(),
                                    blake3: v.blake3.clone(),
                                },
                            )
                        })
                        .collect(),
                    contracts: c
                        .contracts
                        .iter()
                        .map(|(n, f)| {
                            (
                                n.clone(),
                                LockedFile {
                                    sha256: f.sha256.clone(),
                                    blake3: f.blake3.clone(),
                                },
                            )
                        })
                        .collect(),
                }
            })
            .collect(),
        extends: doc.contract.extends.as_ref().map(|e| LockedBase {
            bundle: e.bundle.clone(),
            contract: e.contract.clone(),
        }),
    };
    let path = Lock::path_for(&doc.path);
    crate::output::write_atomically(&path, lock.to_yaml().as_bytes())
        .map_err(|e| Refusal::new(Code::LockStale, format!("{}: {e}", path.display())))?;
    Ok((path, lock))
}
