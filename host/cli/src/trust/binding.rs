//! What binds a contract beyond its own text (`BindingArgs`): `vcc lock`,
//! and what `vcc check` and `vcc lint` do before a contract is evaluated.
//! (A "gate" is something else: an approval checkpoint, `gates:` in a
//! contract and `vcc check --gate ID`.)
//!
//! Before a check: the trust policy is read (never from the deliverable
//! root) and its contract pins are applied; `vcc.lock` must cover every
//! bundle the contract (and its base) names; each locked bundle is read
//! from the local store (or fetched by the tag the lock records, which
//! must still name the locked manifest), checked byte for byte, verified
//! against the trust policy and compared with the lock; base contracts
//! (`extends`, `--policy`) are composed with the contract, and what
//! weakens them is an error. Any refusal makes the check `invalid` before
//! a validator runs.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use semver::{Version, VersionReq};
use vcc_contract::compose::{Base, compose};
use vcc_contract::{Code, Contract, Document, FieldPath, Level, Problem};
use vcc_report::BundleRef;
use vcc_runtime::{BundleComponent, Runtime};
use vcc_trust::Refusal;
use vcc_trust::bundle::Bundle;
use vcc_trust::lock::{Lock, LockedBundle, LockedFile};
use vcc_trust::policy::Policy;
use vcc_trust::store::Store;
use vcc_trust::verify::{Verified, verify};

use crate::args::{BindingArgs, TrustArgs};
use crate::trust::bundles::{open_store, registry_refusal};

mod bases;
mod lock;
mod resolve;

pub use bases::prepare;
pub use lock::lock;

/// A bundle verified against the trust policy.
struct Resolved {
    bundle: Bundle,
    verified: Verified,
    /// `HOST[:PORT]/REPO:TAG` it was pulled from, or `store`.
    source: String,
}

impl Resolved {
    fn bundle_ref(&self) -> BundleRef {
        BundleRef {
            name: self.verified.name.clone(),
            version: self.verified.version.clone(),
            manifest: self.verified.manifest.clone(),
            signers: self.verified.signers.clone(),
        }
    }
}

/// The bundles a contract names, each with what asks for it.
fn requirements(contract: &Contract) -> BTreeMap<String, Vec<(String, String)>> {
    let mut out: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for (name, v) in &contract.validators {
        if let Some((bundle, _)) = v.from_bundle() {
            out.entry(bundle.to_string()).or_default().push((
                format!("validator `{name}`"),
                v.version.clone().unwrap_or_else(|| "*".into()),
            ));
        }
    }
    if let Some(e) = &contract.extends {
        out.entry(e.bundle.clone()).or_default().push((
            "`extends`".into(),
            e.version.clone().unwrap_or_else(|| "*".into()),
        ));
    }
    out
}

fn parse_reqs(reqs: &[(String, String)]) -> Result<Vec<VersionReq>, Refusal> {
    reqs.iter()
        .map(|(what, r)| {
            VersionReq::parse(r)
                .map_err(|e| Refusal::new(Code::LockStale, format!("{what}: version `{r}`: {e}")))
        })
        .collect()
}

fn satisfies(version: &str, reqs: &[VersionReq]) -> bool {
    Version::parse(version).is_ok_and(|v| reqs.iter().all(|r| r.matches(&v)))
}

/// The trust policy, the store and the registries, as one command uses them.
struct Binding<'a> {
    runtime: &'a Runtime,
    policy: Option<Policy>,
    store: Option<Store>,
    insecure: bool,
    /// `vcc lock --update`: ask the registry for newer versions even when
    /// the store has a match.
    update: bool,
    /// The versions resolving passed over, and why (`vcc lock` prints
    /// them rather than fall back to an older version without a word).
    notes: Vec<String>,
}

impl<'a> Binding<'a> {
    fn new(runtime: &'a Runtime, trust: &TrustArgs) -> Result<Binding<'a>, Refusal> {
        let policy = Policy::locate(trust.trust.as_deref())
            .map(|p| Policy::read(&p))
            .transpose()?;
        Ok(Binding {
            runtime,
            policy,
            store: None,
            insecure: trust.insecure,
            update: false,
            notes: Vec::new(),
        })
    }

    fn policy(&self) -> Result<&Policy, Refusal> {
        self.policy.as_ref().ok_or_else(|| {
            Refusal::new(
                Code::NotTrusted,
                "the contract uses bundles, and there is no trust policy to verify them: give --trust FILE, set VCC_TRUST, or write ~/.config/vcc/trust.yaml",
            )
        })
    }

    fn store(&mut self) -> Result<&Store, Refusal> {
        if self.store.is_none() {
            self.store = Some(open_store()?);
        }
        self.store
            .as_ref()
            .ok_or_else(|| Refusal::new(Code::NotInStore, "no bundle store"))
    }

    /// A stored bundle, read and checked, verified now.
    fn stored(&mut self, manifest: &str) -> Result<Resolved, Refusal> {
        let store = self.store()?;
        let bundle = store.bundle(manifest)?;
        let source = store.source_of(manifest).unwrap_or_else(|| "store".into());
        let verified = verify(&bundle, self.policy()?, SystemTime::now()).map_err(|mut r| {
            // What a re-signing fixes: the store holds the signatures of its
            // last pull, and the registry may hold newer ones.
            if source != "store"
                && matches!(
                    r.code,
                    Code::Expired | Code::ThresholdNotMet | Code::UnknownKey | Code::Unsigned
                )
            {
                r.message.push_str(&format!(
                    " (the store holds the signatures {source} had at its last pull; if the publisher has signed it again, `vcc bundle refresh` fetches them)"
                ));
            }
            r
        })?;
        Ok(Resolved {
            bundle,
            verified,
            source,
        })
    }

    /// Pull `reference`, verify it, keep it in the store; it must be
    /// bundle `name`, and `manifest` when given.
    fn pull(
        &mut self,
        reference: &str,
        name: &str,
        manifest: Option<&str>,
    ) -> Result<Resolved, Refusal> {
        let insecure = self.insecure;
        let policy = self.policy()?.clone();
        let store = self.store()?;
        let staging = store.staging()?;
        let parsed = vcc_registry::parse_reference(reference)
            .map_err(|e| Refusal::new(Code::LockStale, e))?;
        let registry =
            vcc_registry::Registry::connect(&parsed, insecure).map_err(registry_refusal)?;
        let descriptor = registry
            .pull(&parsed, &staging.layout)
            .map_err(registry_refusal)?;
        if let Some(wanted) = manifest
            && descriptor.digest != wanted
        {
            return Err(Refusal::new(
                Code::LockMismatch,
                format!(
                    "the registry serves another manifest for {reference} ({}) than vcc.lock pins ({wanted}): the tag was moved. Ask the bundle's publisher whether they retagged it on purpose; `vcc lock` takes the new manifest only if the policy trusts it and its version is not lower than the lock's (lower only with --allow-downgrade)",
                    descriptor.digest
                ),
            ));
        }
        let bundle = Bundle::read(&staging.layout, &descriptor)?;
        crate::trust::bundles::check_tag(reference, &bundle)?;
        if bundle.config.name != name {
            return Err(Refusal::new(
                Code::NameMismatch,
                format!(
                    "{reference} holds bundle `{}`, not `{name}`",
                    bundle.config.name
                ),
            ));
        }
        verify(&bundle, &policy, SystemTime::now())?;
        store.import(&bundle, Some(reference))?;
        self.stored(&descriptor.digest)
    }

    /// The bundle a lock entry pins: from the store, else fetched by the
    /// tag the lock records, which must still name the locked manifest;
    /// then compared with the lock.
    fn locked(&mut self, entry: &LockedBundle) -> Result<Resolved, Refusal> {
        let resolved = match self.stored(&entry.manifest) {
            Ok(r) => r,
            Err(r) if r.code == Code::NotInStore && entry.source != "store" => {
                self.pull(&entry.source, &entry.name, Some(&entry.manifest))?
            }
            Err(r) => return Err(r),
        };
        let c = &resolved.bundle.config;
        if c.name != entry.name || c.version != entry.version {
            return Err(Refusal::new(
                Code::LockMismatch,
                format!(
                    "vcc.lock pins {} {} at {}, which holds {} {}",
                    entry.name, entry.version, entry.manifest, c.name, c.version
                ),
            ));
        }
        let validators = |n: &str| c.validators.get(n).map(|v| (&v.sha256, &v.blake3));
        let contracts = |n: &str| c.contracts.get(n).map(|f| (&f.sha256, &f.blake3));
        compare_pins(entry, "validator", &entry.validators, validators)?;
        compare_pins(entry, "contract", &entry.contracts, contracts)?;
        Ok(resolved)
    }

    /// Make every validator of a verified bundle loadable.
    fn register(&self, resolved: &Resolved) -> Result<(), Refusal> {
        for (name, entry) in &resolved.bundle.config.validators {
            let bytes = resolved.bundle.component(name)?;
            self.runtime.loader().add_bundle_component(
                &resolved.verified.name,
                name,
                &resolved.verified.version,
                BundleComponent {
                    bytes: std::sync::Arc::new(bytes),
                    blake3: entry.blake3.clone(),
                    bundle: resolved.bundle_ref(),
                },
            );
        }
        Ok(())
    }
}

/// Each file the lock pins must be the one the bundle holds.
fn compare_pins<'a>(
    entry: &LockedBundle,
    what: &str,
    pinned: &BTreeMap<String, LockedFile>,
    held: impl Fn(&str) -> Option<(&'a String, &'a String)>,
) -> Result<(), Refusal> {
    for (name, pin) in pinned {
        let of = format!("{what} `{name}` of {} {}", entry.name, entry.version);
        let Some((sha256, blake3)) = held(name) else {
            return Err(Refusal::new(
                Code::LockMismatch,
                format!("vcc.lock pins {of}, and the bundle holds no {what} `{name}`"),
            ));
        };
        // Name the digest that differs, with both values: the other may
        // well be equal.
        for (field, locked, found) in [
            ("sha256", &pin.sha256, sha256),
            ("blake3", &pin.blake3, blake3),
        ] {
            if locked != found {
                return Err(Refusal::new(
                    Code::LockMismatch,
                    format!(
                        "vcc.lock pins {of} with {field} {locked}, and the bundle holds {field} {found}"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// A base contract carried by a bundle, parsed; `label` names it.
fn base_from(resolved: &Resolved, contract: &str, label: &str) -> Result<Document, Refusal> {
    let bytes = resolved.bundle.contract(contract)?;
    let doc = vcc_contract::parse(Path::new(label), &bytes).map_err(|p| {
        Refusal::new(
            Code::MalformedBundle,
            format!("base contract {label}: {}", p.message),
        )
    })?;
    if doc.contract.extends.is_some() {
        return Err(Refusal::new(
            Code::MalformedBundle,
            format!("base contract {label} extends another; a base cannot"),
        ));
    }
    for (name, v) in &doc.contract.validators {
        if v.builtin().is_none() && v.bundle.is_none() {
            return Err(Refusal::new(
                Code::MalformedBundle,
                format!(
                    "base contract {label}: validator `{name}` is a file ({}), which means nothing outside the bundle",
                    v.component
                ),
            ));
        }
    }
    Ok(doc)
}

/// Bundle bindings name the exact version they were resolved to, so a
/// base's validator and a project's are told apart by version too.
fn pin_versions(contract: &mut Contract, versions: &HashMap<String, String>) {
    for v in contract.validators.values_mut() {
        if let Some(bundle) = &v.bundle
            && let Some(version) = versions.get(bundle)
        {
            v.version = Some(format!("={version}"));
        }
    }
}

/// What a check evaluates, once its bundles are verified and its bases
/// composed.
pub struct Prepared {
    pub doc: Document,
    /// The deliverable root: `--dir`, else the composed contract's.
    pub root: PathBuf,
    /// The bundle each base came from, by the base's label.
    pub base_bundles: HashMap<String, BundleRef>,
    /// The keys the trust policy names for records (`records:`).
    pub record_signers: Option<std::sync::Arc<vcc_runtime::signatures::RecordSigners>>,
    /// blake3 of the trust policy in force, when there is one.
    pub policy_digest: Option<String>,
    /// The trust policy in force (approvals are verified against it).
    pub policy: Option<Policy>,
    /// Where AI judges are answered from.
    pub judging: std::sync::Arc<vcc_judge::Setup>,
}

/// Everything before evaluation (see the module comment), at `root`.
/// `Err`: the problems that make the check invalid.
fn prepare_at(
    runtime: &Runtime,
    doc: Document,
    sources: &vcc_contract::Sources,
    root: &Path,
    binding: &BindingArgs,
) -> Result<Prepared, Vec<Problem>> {
    let file = doc.path.display().to_string();
    let relock = format!("run `vcc lock {}`", doc.path.display());
    let lock_path = Lock::path_for(&doc.path);
    let lock_file = lock_path.display().to_string();
    let refuse = |r: Refusal, file: &str| vec![r.problem(file)];
    // A policy that cannot be read is the policy's problem, not the
    // contract's: the problem names the policy file.
    let mut g = Binding::new(runtime, &binding.trust).map_err(|r| {
        let policy = Policy::locate(binding.trust.trust.as_deref())
            .map_or_else(|| file.clone(), |p| p.display().to_string());
        let mut p = r.problem(&policy);
        if let Some(rest) = p.message.strip_prefix(&format!("{policy}: ")) {
            p.message = rest.to_string();
        }
        vec![p]
    })?;
    if let Some(policy) = &g.policy {
        if crate::paths::inside(&policy.path, root) {
            return Err(refuse(
                Refusal::new(
                    Code::TrustInRoot,
                    format!(
                        "the trust policy {} lies in the deliverable root {}: whoever writes the deliverables could rewrite it; keep it where they cannot",
                        policy.path.display(),
                        root.display()
                    ),
                ),
                &file,
            ));
        }
        // Whoever writes the deliverables writes the repository around
        // them too: the rule `vcc lock` and `vcc bundle pull` apply.
        if let Some(top) = crate::paths::work_tree(root) {
            crate::paths::policy_outside(&policy.path, &[("the repository", top)])
                .map_err(|r| refuse(r, &file))?;
        }
        policy
            .check_contract(&doc.path, &doc.digest)
            .map_err(|r| refuse(r, &file))?;
    }
    let judging = crate::trust::judges::setup(&binding.judge, g.policy.as_ref(), root)
        .map_err(|r| refuse(r, &file))?;
    // The adapters file binds criteria to validators, like the policy
    // binds keys: whoever writes the deliverables must not be able to
    // rebind a MUST to a validator that always passes.
    if let Some(adapters) = binding
        .adapters
        .as_deref()
        .filter(|a| crate::paths::inside(a, root))
    {
        return Err(refuse(
            Refusal::new(
                Code::TrustInRoot,
                format!(
                    "the adapters file {} lies in the deliverable root {}: whoever writes the deliverables could rebind a criterion; keep it where they cannot",
                    adapters.display(),
                    root.display()
                ),
            ),
            &file,
        ));
    }
    // The lock read with the contract: a loop judges both as they were.
    let lock = Lock::from_sources(sources).map_err(|r| refuse(r, &lock_file))?;
    let mut doc = doc;
    let mut bases: Vec<(String, Document)> = Vec::new();
    let mut base_bundles = HashMap::new();
    let mut notes = Vec::new();

    let needs = requirements(&doc.contract);
    match &lock {
        None if binding.locked || !needs.is_empty() => {
            let why = if needs.is_empty() {
                "--locked needs a vcc.lock beside the contract".to_string()
            } else {
                format!(
                    "the contract uses bundle(s) {}, and there is no {} to pin them",
                    needs.keys().cloned().collect::<Vec<_>>().join(", "),
                    lock_path.display()
                )
            };
            let mut p = Refusal::new(Code::LockMissing, why).problem(&file);
            p.help = Some(relock);
            // Say now, not after `vcc lock`, that the contract weakens a
            // base the store holds.
            let mut problems = vec![p];
            problems.extend(weakens_stored_base(&mut g, &doc));
            return Err(problems);
        }
        None => {}
        Some(lock) => {
            // A base the lock records and the contract dropped: every
            // criterion of it is gone.
            if let (None, Some(base)) = (&doc.contract.extends, &lock.extends) {
                let mut p = doc.problem(
                    Code::WeakensBase,
                    Level::Error,
                    &FieldPath::root().key("extends"),
                    format!(
                        "the contract no longer extends {}#{}, which vcc.lock records: that removes every criterion of the base",
                        base.bundle, base.contract
                    ),
                );
                p.help = Some("restore `extends:`; a base can be strengthened, not removed".into());
                notes.push(p);
            }
            let stale = |message: String| {
                let mut p = Refusal::new(Code::LockStale, message).problem(&lock_file);
                p.help = Some(relock.clone());
                vec![p]
            };
            if let Some(e) = &doc.contract.extends {
                let recorded = lock.extends.as_ref();
                if recorded.map(|r| (&r.bundle, &r.contract)) != Some((&e.bundle, &e.contract)) {
                    return Err(stale(format!(
                        "the contract extends {}#{}, which vcc.lock does not record",
                        e.bundle, e.contract
                    )));
                }
            }
            let mut resolved: BTreeMap<String, Resolved> = BTreeMap::new();
            let mut wanted = needs.clone();
            let mut base_doc = None;
            // The base first: it may name more bundles.
            if let Some(e) = doc.contract.extends.clone() {
                let entry = lock.bundle(&e.bundle).ok_or_else(|| {
                    stale(format!("vcc.lock has no entry for bundle `{}`", e.bundle))
                })?;
                let r = g.locked(entry).map_err(|r| refuse(r, &lock_file))?;
                let label = format!("{}#{}@{}", e.bundle, e.contract, r.verified.version);
                let base = base_from(&r, &e.contract, &label).map_err(|r| refuse(r, &file))?;
                for (bundle, reqs) in requirements(&base.contract) {
                    wanted.entry(bundle).or_default().extend(reqs);
                }
                base_bundles.insert(label.clone(), r.bundle_ref());
                resolved.insert(e.bundle.clone(), r);
                base_doc = Some((label, base));
            }
            for (name, reqs) in &wanted {
                let Some(entry) = lock.bundle(name) else {
                    return Err(stale(format!("vcc.lock has no entry for bundle `{name}`")));
                };
                let parsed = parse_reqs(reqs).map_err(|r| refuse(r, &file))?;
                if !satisfies(&entry.version, &parsed) {
                    return Err(stale(format!(
                        "vcc.lock pins {name} {}, which does not meet {}",
                        entry.version,
                        reqs.iter()
                            .map(|(w, r)| format!("{r} ({w})"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
                if !resolved.contains_key(name) {
                    let r = g.locked(entry).map_err(|r| refuse(r, &lock_file))?;
                    resolved.insert(name.clone(), r);
                }
            }
            for (name, v) in &doc.contract.validators {
                if let Some((bundle, validator)) = v.from_bundle()
                    && let Some(entry) = lock.bundle(bundle)
                    && !entry.validators.contains_key(validator)
                {
                    return Err(stale(format!(
                        "validator `{name}`: vcc.lock pins no validator `{validator}` of {bundle} {}",
                        entry.version
                    )));
                }
            }
            for r in resolved.values() {
                g.register(r).map_err(|r| refuse(r, &lock_file))?;
            }
            let versions: HashMap<String, String> = resolved
                .iter()
                .map(|(n, r)| (n.clone(), r.verified.version.clone()))
                .collect();
            pin_versions(&mut doc.contract, &versions);
            if let Some((label, mut base)) = base_doc {
                pin_versions(&mut base.contract, &versions);
                bases.push((label, base));
            }
        }
    }

    if let Some(spec) = &binding.policy {
        let (label, base) = policy_base(&mut g, spec, root).map_err(|r| refuse(r, &file))?;
        if let Some((label, bundle)) = &base.1 {
            base_bundles.insert(label.clone(), bundle.clone());
        }
        bases.push((label, base.0));
    }

    let composed: Vec<Base> = bases
        .iter()
        .map(|(label, d)| Base {
            label: label.clone(),
            doc: d,
        })
        .collect();
    let mut doc = compose(doc, &composed);
    doc.contract.extends = None;
    doc.notes.extend(notes);
    let approvals = crate::trust::approvals::dir_for(&sources.path, binding.approvals.as_deref());
    doc.notes
        .extend(bases::approvals_hidden_from(&doc, &bases, &approvals, root));
    if let Some(policy) = g.policy.as_ref().filter(|p| p.require_signed) {
        let unsigned = vcc_contract::require_signed(&doc, &policy.path);
        doc.notes.extend(unsigned);
    }
    let record_signers = g
        .policy
        .as_ref()
        .map(vcc_runtime::signatures::RecordSigners::of_policy);
    Ok(Prepared {
        doc,
        root: root.to_path_buf(),
        base_bundles,
        record_signers,
        policy_digest: g.policy.as_ref().map(|p| p.digest.clone()),
        policy: g.policy.clone(),
        judging: std::sync::Arc::new(judging),
    })
}

/// The `WEAKENS_BASE` problems of a contract against its base as the local
/// store holds it (no lock yet): nothing when the store has no matching
/// version the policy trusts.
fn weakens_stored_base(g: &mut Binding, doc: &Document) -> Vec<Problem> {
    let Some(e) = &doc.contract.extends else {
        return Vec::new();
    };
    let reqs = requirements(&doc.contract)
        .remove(&e.bundle)
        .unwrap_or_default();
    let Ok(reqs) = parse_reqs(&reqs) else {
        return Vec::new();
    };
    let Ok(Some(resolved)) = g.in_store(&e.bundle, &reqs) else {
        return Vec::new();
    };
    weakening(doc, &resolved, &e.contract)
}

/// The `WEAKENS_BASE` problems of `doc` against base `contract` of a
/// resolved bundle (bundle validators of that bundle pinned to its
/// version on both sides, as a check compares them); a base that cannot
/// be read is the refusal's problem.
fn weakening(doc: &Document, resolved: &Resolved, contract: &str) -> Vec<Problem> {
    let label = format!(
        "{}#{contract}@{}",
        resolved.verified.name, resolved.verified.version
    );
    let mut base = match base_from(resolved, contract, &label) {
        Ok(base) => base,
        Err(r) => return vec![r.problem(&doc.path.display().to_string())],
    };
    let versions = HashMap::from([(
        resolved.verified.name.clone(),
        resolved.verified.version.clone(),
    )]);
    let mut project = doc.clone();
    project.notes.clear();
    pin_versions(&mut project.contract, &versions);
    pin_versions(&mut base.contract, &versions);
    compose(project, &[Base { label, doc: &base }])
        .notes
        .into_iter()
        .filter(|p| p.code == Code::WeakensBase)
        .collect()
}

type PolicyBase = (Document, Option<(String, BundleRef)>);

/// `--policy`: a contract file outside the root, or a bundle's contract
/// (`BUNDLE#CONTRACT` from the store, `REF#CONTRACT` from a registry),
/// resolved on its own: never through the workspace's vcc.lock.
fn policy_base(g: &mut Binding, spec: &str, root: &Path) -> Result<(String, PolicyBase), Refusal> {
    let path = PathBuf::from(spec);
    if path.is_file() {
        if crate::paths::inside(&path, root) {
            return Err(Refusal::new(
                Code::TrustInRoot,
                format!(
                    "the --policy contract {spec} lies in the deliverable root: whoever writes the deliverables could rewrite it"
                ),
            ));
        }
        let mut base = vcc_contract::load(&path)
            .map_err(|p| Refusal::new(Code::MalformedPolicy, format!("{spec}: {}", p.message)))?;
        if let Some(policy) = &g.policy {
            policy.check_contract(&path, &base.digest)?;
        }
        resolve_base_bundles(g, &mut base)?;
        return Ok((format!("policy {spec}"), (base, None)));
    }
    let (bundle_part, contract) = spec.rsplit_once('#').ok_or_else(|| {
        Refusal::new(
            Code::MalformedPolicy,
            format!("--policy {spec}: no such file, and not BUNDLE#CONTRACT or HOST[:PORT]/REPO:TAG#CONTRACT"),
        )
    })?;
    let resolved = if vcc_contract::check_bundle_name(bundle_part).is_ok() {
        g.resolve(bundle_part, &[], None)?
    } else {
        // A layout folder in the deliverable root is the worker's to
        // write: which of its signed bundles a tag names, for one.
        if let Some(layout) = crate::trust::bundles::local_layout(bundle_part)
            && crate::paths::inside(&layout.dir, root)
        {
            return Err(Refusal::new(
                Code::TrustInRoot,
                format!(
                    "the --policy layout {} lies in the deliverable root: whoever writes the deliverables chooses what it holds",
                    layout.dir.display()
                ),
            ));
        }
        let (insecure, policy) = (g.insecure, g.policy()?.clone());
        let store = g.store()?;
        let staging = store.staging()?;
        let (bundle, from) = crate::trust::bundles::fetch(bundle_part, insecure, &staging.layout)?;
        if let Some(from) = &from {
            crate::trust::bundles::check_tag(from, &bundle)?;
        }
        verify(&bundle, &policy, SystemTime::now())?;
        store.import(&bundle, from.as_deref())?;
        let digest = bundle.descriptor.digest.clone();
        drop(staging);
        g.stored(&digest)?
    };
    let label = format!(
        "policy {}#{contract}@{}",
        resolved.verified.name, resolved.verified.version
    );
    let mut base = base_from(&resolved, contract, &label)?;
    g.register(&resolved)?;
    let mut versions = HashMap::from([(
        resolved.verified.name.clone(),
        resolved.verified.version.clone(),
    )]);
    for (name, reqs) in requirements(&base.contract) {
        if name == resolved.verified.name {
            continue;
        }
        let r = g.resolve(&name, &parse_reqs(&reqs)?, None)?;
        g.register(&r)?;
        versions.insert(name, r.verified.version.clone());
    }
    pin_versions(&mut base.contract, &versions);
    let bundle = resolved.bundle_ref();
    Ok((label.clone(), (base, Some((label, bundle)))))
}

/// A policy file's bundle validators, resolved from the store or registry.
fn resolve_base_bundles(g: &mut Binding, base: &mut Document) -> Result<(), Refusal> {
    let mut versions = HashMap::new();
    for (name, reqs) in requirements(&base.contract) {
        let r = g.resolve(&name, &parse_reqs(&reqs)?, None)?;
        g.register(&r)?;
        versions.insert(name, r.verified.version.clone());
    }
    pin_versions(&mut base.contract, &versions);
    Ok(())
}
