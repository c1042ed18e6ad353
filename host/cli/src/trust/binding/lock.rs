//! `vcc lock CONTRACT`: resolve the bundles a contract (and its bases)
//! uses, verify each against the trust policy, and pin them in vcc.lock.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use semver::{Version, VersionReq};
use vcc_contract::{Code, Document};
use vcc_report::law::exit;
use vcc_runtime::Runtime;
use vcc_trust::Refusal;
use vcc_trust::lock::{Lock, LockedBase, LockedBundle, LockedFile};

use super::{Binding, Resolved, base_from, parse_reqs, requirements, satisfies, weakening};
use crate::args::LockArgs;

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
    let mut notes = Vec::new();
    let written = write_lock(runtime, &doc, args, &mut notes);
    // What was passed over, and why, whether or not a lock was written.
    for note in &notes {
        eprintln!("{note}");
    }
    match written {
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
        Err(r) => crate::trust::bundles::refused("lock", &r),
    }
}

/// Resolve, verify and write the lock; `notes` gets what was passed over
/// and what moved down.
fn write_lock(
    runtime: &Runtime,
    doc: &Document,
    args: &LockArgs,
    notes: &mut Vec<String>,
) -> Result<(PathBuf, Lock), Refusal> {
    let mut g = Binding::new(runtime, &args.trust)?;
    g.update = args.update;
    if let Some(policy) = &g.policy {
        policy_outside_the_project(&policy.path, doc)?;
    }
    // The versions the lock holds now: never moved below without
    // --allow-downgrade. A lock that does not read cannot say what it
    // holds, so it is not silently replaced.
    let held = Lock::read_for(&doc.path).map_err(|r| {
        Refusal::new(
            Code::LockStale,
            format!(
                "{}; remove it to lock afresh (nothing then guards against moving to a lower version)",
                r.message
            ),
        )
    })?;
    let floor = |name: &str| {
        held.as_ref()
            .and_then(|l| l.bundle(name))
            .and_then(|b| Version::parse(&b.version).ok())
    };
    let mut take = |g: &mut Binding, name: &str, reqs: &[VersionReq]| {
        let floor = floor(name);
        let r = g.resolve(name, reqs, floor.as_ref());
        notes.append(&mut g.notes);
        let r = r?;
        not_lower(name, &r, floor.as_ref(), args.allow_downgrade, notes)?;
        Ok::<_, Refusal>(r)
    };
    let mut wanted = requirements(&doc.contract);
    let mut resolved: BTreeMap<String, Resolved> = BTreeMap::new();
    if let Some(e) = &doc.contract.extends {
        let reqs = parse_reqs(wanted.get(&e.bundle).map(Vec::as_slice).unwrap_or_default())?;
        let r = take(&mut g, &e.bundle, &reqs)?;
        let label = format!("{}#{}@{}", e.bundle, e.contract, r.verified.version);
        let base = base_from(&r, &e.contract, &label)?;
        // A lock is a promise that the contract runs as its base says: one
        // that weakens the base is refused here, not only at lint.
        if let Some(p) = weakening(doc, &r, &e.contract).first() {
            return Err(Refusal::new(
                Code::WeakensBase,
                // The file the problem is in (the team's, or the base's
                // label for a part taken from it), and a field, never
                // an empty one.
                format!(
                    "{}: {}{}: {}",
                    p.file,
                    p.field
                        .as_deref()
                        .filter(|f| !f.is_empty())
                        .unwrap_or("the contract"),
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
                let r = take(&mut g, name, &parsed)?;
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

/// `DOWNGRADE` when `r` is lower than the version vcc.lock holds, unless
/// `allow` (`--allow-downgrade`), and then a note says so.
fn not_lower(
    name: &str,
    r: &Resolved,
    floor: Option<&Version>,
    allow: bool,
    notes: &mut Vec<String>,
) -> Result<(), Refusal> {
    let (Some(floor), Ok(version)) = (floor, Version::parse(&r.verified.version)) else {
        return Ok(());
    };
    if &version >= floor {
        return Ok(());
    }
    if !allow {
        return Err(Refusal::new(
            Code::Downgrade,
            format!(
                "vcc.lock holds {name} {floor}, and the highest version the trust policy trusts now is {version} ({}): a lower version is never taken without a word; give --allow-downgrade to move down on purpose",
                r.source
            ),
        ));
    }
    notes.push(format!(
        "moved {name} down from {floor} to {version} (--allow-downgrade)"
    ));
    Ok(())
}

/// A trust policy the project's writers could rewrite is no policy:
/// `TRUST_IN_ROOT` when it lies in the contract's deliverable root, its
/// folder, or the git work tree holding it.
fn policy_outside_the_project(policy: &Path, doc: &Document) -> Result<(), Refusal> {
    let folder = doc
        .path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let mut places = vec![
        ("the deliverable root", doc.default_root()),
        ("the contract's folder", folder.clone()),
    ];
    if let Some(top) = crate::paths::work_tree(&folder) {
        places.push(("the contract's repository", top));
    }
    crate::paths::policy_outside(policy, &places)
}
