//! `vcc bundle`: building, signing, verifying, pushing, pulling and
//! inspecting validator bundles.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::Deserialize;
use serde_json::{Value, json};
use vcc_report::law::exit;
use vcc_runtime::Runtime;
use vcc_trust::bundle::{self, Bundle, Source};
use vcc_trust::keys::PrivateKey;
use vcc_trust::layout::Layout;
use vcc_trust::policy::Policy;
use vcc_trust::store::Store;
use vcc_trust::verify::{Verified, verify};
use vcc_trust::{Code, Refusal};

use crate::args::{Format, TrustArgs};
use crate::output::print_stdout;

/// Say why, with its code, and exit 2.
pub fn refused(command: &str, r: &Refusal) -> i32 {
    eprintln!("vcc {command}: refused: {}: {}", r.code, r.message);
    exit::INVALID
}

/// `vcc-bundle.yaml`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BundleManifest {
    name: String,
    version: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    validators: std::collections::BTreeMap<String, PathBuf>,
    #[serde(default)]
    contracts: std::collections::BTreeMap<String, PathBuf>,
}

pub fn build(runtime: &Runtime, manifest: &Path, out: &Path) -> i32 {
    match build_bundle(runtime, manifest, out) {
        Ok((name, version, digest)) => {
            eprintln!(
                "built {name} {version} into {} (manifest {digest})",
                out.display()
            );
            print_stdout(&format!("{digest}\n"));
            exit::ACCEPTED
        }
        Err(e) => {
            eprintln!("vcc bundle build: {e}");
            exit::INVALID
        }
    }
}

fn build_bundle(
    runtime: &Runtime,
    manifest: &Path,
    out: &Path,
) -> Result<(String, String, String), String> {
    let text =
        std::fs::read_to_string(manifest).map_err(|e| format!("{}: {e}", manifest.display()))?;
    let m: BundleManifest =
        serde_yaml::from_str(&text).map_err(|e| format!("{}: {e}", manifest.display()))?;
    bundle::check_name(&m.name).map_err(|e| format!("{}: name: {e}", manifest.display()))?;
    if out.join("index.json").exists() {
        return Err(format!(
            "{} holds an OCI layout already; build into a new folder",
            out.display()
        ));
    }
    let base = manifest
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut validators = Vec::new();
    for (name, path) in &m.validators {
        bundle::check_item_name(name)
            .map_err(|e| format!("{}: validators: {e}", manifest.display()))?;
        let (bytes, component) = validator_bytes(runtime, base, path)
            .map_err(|e| format!("{}: validators: {name}: {e}", manifest.display()))?;
        let binding = vcc_contract::ValidatorRef {
            component: component.clone(),
            ..Default::default()
        };
        let loaded = runtime
            .loader()
            .load(&binding, Path::new("."))
            .map_err(|e| format!("validator `{name}` ({component}): {e}"))?;
        let d = &loaded.description;
        let describe = json!({
            "name": d.name,
            "version": d.version,
            "summary": d.summary,
            "params_schema": d.params_schema,
        });
        validators.push((name.clone(), bytes, loaded.wit_version.clone(), describe));
    }
    let mut contracts = Vec::new();
    for (name, path) in &m.contracts {
        bundle::check_item_name(name)
            .map_err(|e| format!("{}: contracts: {e}", manifest.display()))?;
        let path = base.join(path);
        let doc =
            vcc_contract::load(&path).map_err(|p| format!("{}: {}", path.display(), p.message))?;
        check_base_contract(&doc, &m.name)?;
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        contracts.push((name.clone(), bytes));
    }
    // SOURCE_DATE_EPOCH makes a rebuild byte-identical (reproducible builds).
    let created = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .map_or_else(SystemTime::now, |s| {
            SystemTime::UNIX_EPOCH + Duration::from_secs(s)
        });
    let source = Source {
        name: m.name.clone(),
        version: m.version.clone(),
        description: m.description,
        created,
        validators,
        contracts,
    };
    let digest = bundle::write(out, &source)?;
    Ok((m.name, m.version, digest))
}

/// A bundle validator's component bytes, and what to load it as: a
/// built-in re-exported by name (`std/NAME`: the component embedded in
/// this vcc, not its native code), a validator project folder (built), or
/// a `.wasm` file.
fn validator_bytes(
    runtime: &Runtime,
    base: &Path,
    path: &Path,
) -> Result<(Vec<u8>, String), String> {
    let text = path.to_string_lossy();
    if text.starts_with("std/") {
        let builtins = runtime.loader().builtins();
        let builtin = builtins.iter().find(|b| b.name == text).ok_or_else(|| {
            format!(
                "no built-in validator `{text}` (`vcc validator list` shows them: {})",
                builtins
                    .iter()
                    .map(|b| b.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
        return Ok((builtin.bytes()?, text.into_owned()));
    }
    let path = base.join(path);
    let wasm = if path.is_dir() {
        eprintln!("building {}", path.display());
        crate::validator::author::build_project(&path)?
    } else {
        path
    };
    let bytes = std::fs::read(&wasm).map_err(|e| format!("{}: {e}", wasm.display()))?;
    Ok((bytes, wasm.display().to_string()))
}

/// A base contract shipped in a bundle: lint-clean, not itself extending
/// another, and naming validators that travel with it (`std/`, or a
/// bundle), never a file path that would mean something else on every
/// machine.
fn check_base_contract(doc: &vcc_contract::Document, _bundle: &str) -> Result<(), String> {
    let errors: Vec<String> = vcc_contract::lint(doc, None, None)
        .into_iter()
        .filter(|p| p.is_error())
        .map(|p| format!("{}: {} {}", p.file, p.code, p.message))
        .collect();
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    if doc.contract.extends.is_some() {
        return Err(format!(
            "{}: a base contract cannot extend another",
            doc.path.display()
        ));
    }
    for (name, v) in &doc.contract.validators {
        if v.builtin().is_none() && v.bundle.is_none() {
            return Err(format!(
                "{}: validator `{name}` is a file ({}); a base contract names `std/` validators or bundle validators (`bundle:`, `validator:`)",
                doc.path.display(),
                v.component
            ));
        }
    }
    Ok(())
}

pub fn sign(dir: &Path, key: &Path, expires: Option<&str>) -> i32 {
    let key = match PrivateKey::read(key) {
        Ok(key) => key,
        Err(r) => return refused("bundle sign", &r),
    };
    let expires = match expires.map(parse_expiry).transpose() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("vcc bundle sign: --expires: {e}");
            return exit::INVALID;
        }
    };
    let mut bundle = match Layout::open(dir).and_then(|l| Bundle::open(&l)) {
        Ok(b) => b,
        Err(r) => return refused("bundle sign", &r),
    };
    match bundle.sign(&key, expires) {
        Ok(()) => {
            eprintln!(
                "signed {} {} ({}) with {}",
                bundle.config.name,
                bundle.config.version,
                bundle.descriptor.digest,
                key.id()
            );
            exit::ACCEPTED
        }
        Err(e) => {
            eprintln!("vcc bundle sign: {e}");
            exit::INVALID
        }
    }
}

/// `90d`, `12h` (from now), or an RFC 3339 time; never now or past: a
/// signature that is born expired counts for nothing, and would only look
/// like a renewal.
fn parse_expiry(text: &str) -> Result<SystemTime, String> {
    let now = SystemTime::now();
    let at = match rfc3339_with_offset(text) {
        Some(at) => at,
        None => humantime::parse_duration(text)
            .map_err(|e| {
                format!("`{text}` is neither a duration (`90d`) nor an RFC 3339 time: {e}")
            })
            .and_then(|d| {
                now.checked_add(d)
                    .ok_or_else(|| format!("`{text}` is too far in the future"))
            })?,
    };
    // Written as RFC 3339 in the Statement, which stops at year 9999.
    let last = humantime::parse_rfc3339("9999-12-31T23:59:59Z").map_err(|e| e.to_string())?;
    if at > last {
        return Err(format!(
            "`{text}` is after 9999-12-31: give a nearer time or a shorter duration"
        ));
    }
    if at <= now {
        return Err(format!(
            "`{text}` is {}, not in the future: the signature would never count; give a later time or a duration such as `90d`",
            humantime::format_rfc3339_seconds(at)
        ));
    }
    Ok(at)
}

/// An RFC 3339 time, with `Z` or a `±HH:MM` offset (humantime reads
/// only UTC).
fn rfc3339_with_offset(text: &str) -> Option<SystemTime> {
    if let Ok(at) = humantime::parse_rfc3339_weak(text) {
        return Some(at);
    }
    let (local, sign, offset) = text
        .rfind(['+', '-'])
        .filter(|&i| i > 10)
        .map(|i| (&text[..i], &text[i..i + 1], &text[i + 1..]))?;
    let (h, m) = offset.split_once(':')?;
    let (h, m): (u64, u64) = (h.parse().ok()?, m.parse().ok()?);
    if h > 23 || m > 59 {
        return None;
    }
    let shift = std::time::Duration::from_secs(h * 3600 + m * 60);
    let local = humantime::parse_rfc3339_weak(local).ok()?;
    // 12:00+02:00 is 10:00 UTC.
    if sign == "+" {
        local.checked_sub(shift)
    } else {
        local.checked_add(shift)
    }
}

/// The trust policy a command needs; `Err` when there is none or it
/// cannot be read.
pub fn policy(trust: &TrustArgs) -> Result<Policy, Refusal> {
    let path = Policy::locate(trust.trust.as_deref()).ok_or_else(|| {
        Refusal::new(
            Code::NotTrusted,
            "there is no trust policy: give --trust FILE, set VCC_TRUST, or write ~/.config/vcc/trust.yaml",
        )
    })?;
    Policy::read(&path)
}

pub fn open_store() -> Result<Store, Refusal> {
    let dir = Store::default_dir().ok_or_else(|| {
        Refusal::new(
            Code::NotInStore,
            "no bundle store: set VCC_STORE_DIR or HOME",
        )
    })?;
    Store::open(&dir)
}

/// A bundle from a layout folder, or pulled from a registry into
/// `staging`; where it came from (`None` for a folder).
pub fn fetch(
    target: &str,
    insecure: bool,
    staging: &Layout,
) -> Result<(Bundle, Option<String>), Refusal> {
    // `DIR`, `DIR:TAG` or `DIR@sha256:…` of an OCI image layout folder.
    if let Some(layout) = local_layout(target) {
        return Ok((layout.open()?, None));
    }
    let reference = vcc_registry::parse_reference(target)
        .map_err(|e| Refusal::new(Code::MalformedBundle, no_layout(target, &e)))?;
    let registry =
        vcc_registry::Registry::connect(&reference, insecure).map_err(registry_refusal)?;
    let descriptor = registry
        .pull(&reference, staging)
        .map_err(registry_refusal)?;
    let bundle = Bundle::read(staging, &descriptor)?;
    Ok((bundle, Some(reference.whole())))
}

/// The layout folder `target` names, unless it names a registry: a
/// folder in the current directory called `HOST:PORT/REPO` (which the
/// repository's author may have committed) never stands in for the
/// registry. Write `./HOST:PORT/REPO` for such a folder.
pub fn local_layout(target: &str) -> Option<vcc_trust::select::Target> {
    if vcc_registry::names_a_registry(target) {
        return None;
    }
    vcc_trust::select::layout_target(target)
}

/// Why `target` is neither a layout folder nor a registry reference: a
/// text that names no registry host (`mirror/oci`, `./x`) is a folder
/// that is not there (or holds no layout), never a name on Docker Hub.
fn no_layout(target: &str, why: &str) -> String {
    if vcc_registry::names_a_registry(target) {
        return format!("{why} (and there is no OCI layout folder `{target}`)");
    }
    if Path::new(target).is_dir() {
        format!("the folder `{target}` holds no OCI layout (no `oci-layout` file)")
    } else {
        format!(
            "no OCI layout folder `{target}`; a registry reference starts with HOST[:PORT]/ (a host with a `.` or a `:`, or `localhost`)"
        )
    }
}

/// A registry failure as a refusal: what arrived keeps its code; a
/// registry that cannot give it is `NOT_IN_STORE` (nothing to trust).
pub fn registry_refusal(e: vcc_registry::Error) -> Refusal {
    match e {
        vcc_registry::Error::Refused(r) => r,
        vcc_registry::Error::Registry(m) => Refusal::new(Code::NotInStore, m),
    }
}

/// A tag that is a semver version (`1.1.0`, `v1.1.0`) must name a bundle
/// of that version: a registry that moved a release tag onto another
/// release's manifest (a rollback in disguise) is refused with
/// `TAG_VERSION_MISMATCH`. Other tags (`latest`, `stable`) and digests
/// cannot mismatch.
pub fn check_tag(reference: &str, bundle: &Bundle) -> Result<(), Refusal> {
    let Some(tag) = vcc_registry::parse_reference(reference)
        .ok()
        .and_then(|r| r.tag().map(str::to_string))
    else {
        return Ok(());
    };
    let Ok(named) = semver::Version::parse(tag.strip_prefix('v').unwrap_or(&tag)) else {
        return Ok(());
    };
    let held = &bundle.config.version;
    if semver::Version::parse(held).is_ok_and(|v| v == named) {
        return Ok(());
    }
    Err(Refusal::new(
        Code::TagVersionMismatch,
        format!(
            "{reference}: the tag names version {named}, and the manifest it points to ({}) is {} {held}: the registry moved the tag onto another release; ask its publisher, or pull by digest",
            bundle.descriptor.digest, bundle.config.name
        ),
    ))
}

/// `vcc bundle pull` has no contract to say where the repository is: the
/// git work tree the command runs in is it, and a trust policy there is
/// refused as `check` refuses one in the deliverable root. Outside any
/// work tree nothing is refused: the folder a platform owner keeps its
/// policy in and pulls from is not a repository a worker writes.
pub fn policy_outside_repository(policy: &Policy) -> Result<(), Refusal> {
    let cwd = std::env::current_dir()
        .map_err(|e| Refusal::new(Code::TrustInRoot, format!("the current folder: {e}")))?;
    match crate::paths::work_tree(&cwd) {
        Some(top) => crate::paths::policy_outside(&policy.path, &[("the repository", top)]),
        None => Ok(()),
    }
}

/// A staging layout in a temp folder, for reading without a store.
fn scratch() -> Result<(tempfile::TempDir, Layout), Refusal> {
    let dir = tempfile::tempdir().map_err(|e| Refusal::new(Code::NotInStore, e.to_string()))?;
    let layout =
        Layout::create(dir.path()).map_err(|e| Refusal::new(Code::NotInStore, e.to_string()))?;
    Ok((dir, layout))
}

pub fn verify_command(target: &str, trust: &TrustArgs, format: Format) -> i32 {
    let result = (|| {
        let policy = policy(trust)?;
        let (_tmp, staging) = scratch()?;
        let (bundle, from) = fetch(target, trust.insecure, &staging)?;
        if let Some(from) = &from {
            check_tag(from, &bundle)?;
        }
        let verified = verify(&bundle, &policy, SystemTime::now());
        Ok::<_, Refusal>((bundle, verified))
    })();
    let (bundle, verified) = match result {
        Ok(r) => r,
        Err(r) => {
            if format == Format::Json {
                print_stdout(&format!(
                    "{}\n",
                    json!({"trusted": false, "code": r.code, "message": r.message})
                ));
            }
            return refused("bundle verify", &r);
        }
    };
    match verified {
        Ok(v) => {
            match format {
                Format::Json => print_stdout(&format!("{}\n", verified_json(&v, &bundle))),
                Format::Human => eprintln!(
                    "trusted: {} {} ({}), signed by {}",
                    v.name,
                    v.version,
                    v.manifest,
                    v.signers.join(", ")
                ),
            }
            exit::ACCEPTED
        }
        Err(r) => {
            if format == Format::Json {
                print_stdout(&format!(
                    "{}\n",
                    json!({"trusted": false, "code": r.code, "message": r.message,
                           "name": bundle.config.name, "version": bundle.config.version,
                           "manifest": bundle.descriptor.digest})
                ));
            }
            refused("bundle verify", &r)
        }
    }
}

fn verified_json(v: &Verified, bundle: &Bundle) -> Value {
    json!({
        "trusted": true,
        "name": v.name,
        "version": v.version,
        "manifest": v.manifest,
        "signers": v.signers,
        "validators": bundle.config.validators.keys().collect::<Vec<_>>(),
        "contracts": bundle.config.contracts.keys().collect::<Vec<_>>(),
    })
}

pub fn push(dir: &Path, reference: &str, insecure: bool) -> i32 {
    let result = (|| {
        let bundle = Bundle::open(&Layout::open(dir)?)?;
        let reference = vcc_registry::parse_reference(reference)
            .map_err(|e| Refusal::new(Code::MalformedBundle, e))?;
        let registry =
            vcc_registry::Registry::connect(&reference, insecure).map_err(registry_refusal)?;
        let digest = registry
            .push(&bundle, &reference)
            .map_err(registry_refusal)?;
        Ok::<_, Refusal>((bundle, reference, digest))
    })();
    match result {
        Ok((bundle, reference, digest)) => {
            eprintln!(
                "pushed {} {} with {} signature(s) to {reference} ({digest})",
                bundle.config.name,
                bundle.config.version,
                bundle.signatures.len()
            );
            print_stdout(&format!("{digest}\n"));
            exit::ACCEPTED
        }
        Err(r) => refused("bundle push", &r),
    }
}

pub fn pull(runtime: &Runtime, source: &str, trust: &TrustArgs) -> i32 {
    let result = (|| {
        let policy = policy(trust)?;
        policy_outside_repository(&policy)?;
        let store = open_store()?;
        let staging = store.staging()?;
        let (bundle, from) = fetch(source, trust.insecure, &staging.layout)?;
        if let Some(from) = &from {
            check_tag(from, &bundle)?;
        }
        // Verified before a byte reaches the store.
        let verified = verify(&bundle, &policy, SystemTime::now())?;
        store.import(&bundle, from.as_deref())?;
        // Read back from the store: a registry pull's staging folder is
        // gone once this closure returns, and precompiling reads layers.
        let bundle = store.bundle(&bundle.descriptor.digest)?;
        Ok::<_, Refusal>((store, bundle, verified))
    })();
    let (store, bundle, verified) = match result {
        Ok(r) => r,
        Err(r) => return refused("bundle pull", &r),
    };
    eprintln!(
        "pulled {} {} ({}), signed by {}, into {}",
        verified.name,
        verified.version,
        verified.manifest,
        verified.signers.join(", "),
        store.dir().display()
    );
    precompile(runtime, &bundle);
    print_stdout(&format!("{}\n", verified.manifest));
    exit::ACCEPTED
}

/// Precompiled now, so the first check is fast (a cache miss is only
/// slower, never wrong).
pub fn precompile(runtime: &Runtime, bundle: &Bundle) {
    if runtime.loader().cache().is_none() {
        return;
    }
    for name in bundle.config.validators.keys() {
        match bundle
            .component(name)
            .map_err(|r| r.to_string())
            .and_then(|b| runtime.loader().precompile(&b))
        {
            Ok(_) => eprintln!("  precompiled {name}"),
            Err(e) => eprintln!("vcc bundle pull: warning: {name} was not precompiled: {e}"),
        }
    }
}

pub fn inspect(target: &str, trust: &TrustArgs, format: Format) -> i32 {
    let (_tmp, staging) = match scratch() {
        Ok(s) => s,
        Err(r) => return refused("bundle inspect", &r),
    };
    let bundle = match fetch(target, trust.insecure, &staging) {
        Ok((b, _)) => b,
        Err(r) => return refused("bundle inspect", &r),
    };
    // Who signed, in the policy's names where it has them.
    let policy = Policy::locate(trust.trust.as_deref()).and_then(|p| Policy::read(&p).ok());
    let verdict = policy
        .as_ref()
        .map(|p| verify(&bundle, p, SystemTime::now()));
    let c = &bundle.config;
    let signatures: Vec<Value> = bundle
        .signatures
        .iter()
        .map(|(d, env)| {
            let statement: Option<vcc_trust::dsse::Statement> = env
                .payload_bytes()
                .and_then(|p| serde_json::from_slice(&p).ok());
            let keyids: Vec<String> = env.signatures.iter().map(|s| s.keyid.clone()).collect();
            let named: Vec<String> = keyids
                .iter()
                .filter_map(|k| {
                    policy
                        .as_ref()
                        .and_then(|p| p.key_name(k))
                        .map(str::to_string)
                })
                .collect();
            json!({
                "manifest": d.digest,
                "keyids": keyids,
                "policy_keys": named,
                "expires": statement.as_ref().and_then(|s| s.predicate.expires.clone()),
            })
        })
        .collect();
    let doc = json!({
        "name": c.name,
        "version": c.version,
        "description": c.description,
        "created": c.created,
        "manifest": bundle.descriptor.digest,
        "validators": c.validators.iter().map(|(n, v)| json!({
            "name": n, "file": v.file, "size": v.size, "sha256": v.sha256, "blake3": v.blake3,
            "wit_version": v.wit_version, "version": v.describe["version"], "summary": v.describe["summary"],
        })).collect::<Vec<_>>(),
        "contracts": c.contracts.iter().map(|(n, f)| json!({
            "name": n, "file": f.file, "size": f.size, "sha256": f.sha256, "blake3": f.blake3,
        })).collect::<Vec<_>>(),
        "signatures": signatures,
        "trust": match &verdict {
            None => Value::Null,
            Some(Ok(v)) => json!({"trusted": true, "signers": v.signers}),
            Some(Err(r)) => json!({"trusted": false, "code": r.code, "message": r.message}),
        },
    });
    match format {
        Format::Json => print_stdout(&format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        )),
        Format::Human => print_stdout(&inspect_text(&doc)),
    }
    exit::ACCEPTED
}

fn inspect_text(doc: &Value) -> String {
    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
    let mut out = format!(
        "{} {}\n  {}\n  created  {}\n  manifest {}\n\nvalidators:\n",
        s(&doc["name"]),
        s(&doc["version"]),
        s(&doc["description"]),
        s(&doc["created"]),
        s(&doc["manifest"])
    );
    for v in doc["validators"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "  {:<20} {:<8} wit {:<6} {}\n  {:<20} {}\n",
            s(&v["name"]),
            s(&v["version"]),
            s(&v["wit_version"]),
            s(&v["sha256"]),
            "",
            s(&v["blake3"])
        ));
    }
    out.push_str("contracts:\n");
    for c in doc["contracts"].as_array().into_iter().flatten() {
        out.push_str(&format!("  {:<20} {}\n", s(&c["name"]), s(&c["blake3"])));
    }
    out.push_str("signatures:\n");
    let sigs = doc["signatures"].as_array().cloned().unwrap_or_default();
    if sigs.is_empty() {
        out.push_str("  (none)\n");
    }
    for sig in sigs {
        let names: Vec<String> = sig["policy_keys"]
            .as_array()
            .into_iter()
            .flatten()
            .map(s)
            .collect();
        out.push_str(&format!(
            "  {}{}{}\n",
            sig["keyids"]
                .as_array()
                .into_iter()
                .flatten()
                .map(s)
                .collect::<Vec<_>>()
                .join(", "),
            if names.is_empty() {
                String::new()
            } else {
                format!(" ({})", names.join(", "))
            },
            sig["expires"]
                .as_str()
                .map(|e| format!(", expires {e}"))
                .unwrap_or_default()
        ));
    }
    match &doc["trust"] {
        Value::Null => out.push_str("trust: no trust policy given\n"),
        t if t["trusted"] == true => out.push_str(&format!(
            "trust: trusted, signed by {}\n",
            t["signers"]
                .as_array()
                .into_iter()
                .flatten()
                .map(s)
                .collect::<Vec<_>>()
                .join(", ")
        )),
        t => out.push_str(&format!(
            "trust: refused: {}: {}\n",
            s(&t["code"]),
            s(&t["message"])
        )),
    }
    out
}
