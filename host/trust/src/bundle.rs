//! Validator bundles: a named, versioned set of validator components and
//! base contracts, as one OCI image manifest in an OCI image layout.
//!
//! - the config blob (`application/vnd.vcc.bundle.config.v1+json`) is the
//!   bundle's own manifest: name, version, created, description, and for
//!   each validator its `describe()` answer, WIT version, size, sha256 and
//!   blake3; for each contract its size and digests;
//! - one layer per component (`application/wasm`) and per contract
//!   (`application/vnd.vcc.contract.v1+yaml`), titled `NAME.wasm` and
//!   `NAME.yaml`;
//! - each signature is a manifest of its own (artifact type
//!   `application/vnd.dsse.envelope.v1+json`) whose `subject` is the bundle
//!   manifest and whose one layer is a DSSE envelope: the OCI 1.1 referrers
//!   model, so signatures travel beside the bundle without changing its
//!   digest, and more signers can sign later.

use std::collections::BTreeMap;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::dsse::{self, Envelope, Predicate, Statement, Subject};
use crate::keys::PrivateKey;
use crate::layout::{self, Descriptor, Layout, Manifest, annotation, media};
use crate::refusal::{Code, Refusal};

/// The config blob's format version (`vcc_bundle`).
pub const FORMAT: u32 = 1;

/// The config blob: what a bundle is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub vcc_bundle: u32,
    pub name: String,
    pub version: String,
    #[serde(default)]
    pub description: String,
    pub created: String,
    #[serde(default)]
    pub validators: BTreeMap<String, ComponentEntry>,
    #[serde(default)]
    pub contracts: BTreeMap<String, FileEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComponentEntry {
    pub file: String,
    pub size: u64,
    pub sha256: String,
    pub blake3: String,
    pub wit_version: String,
    /// What the component's `describe()` said: name, version, summary,
    /// params_schema.
    pub describe: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileEntry {
    pub file: String,
    pub size: u64,
    pub sha256: String,
    pub blake3: String,
}

/// What goes into a new bundle.
pub struct Source {
    pub name: String,
    pub version: String,
    pub description: String,
    pub created: SystemTime,
    /// (name, component bytes, WIT version, describe answer).
    pub validators: Vec<(String, Vec<u8>, String, Value)>,
    /// (name, contract bytes).
    pub contracts: Vec<(String, Vec<u8>)>,
}

pub use vcc_contract::{check_bundle_name as check_name, check_item_name};

fn rfc3339(t: SystemTime) -> String {
    humantime::format_rfc3339_seconds(t).to_string()
}

/// Write `source` as a bundle into a new OCI layout at `dir`; the bundle
/// manifest's digest.
pub fn write(dir: &std::path::Path, source: &Source) -> Result<String, String> {
    check_name(&source.name)?;
    semver::Version::parse(&source.version)
        .map_err(|e| format!("version `{}` is not semver: {e}", source.version))?;
    let layout = Layout::create(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let io = |e: std::io::Error| format!("{}: {e}", dir.display());
    let mut config = Config {
        vcc_bundle: FORMAT,
        name: source.name.clone(),
        version: source.version.clone(),
        description: source.description.clone(),
        created: rfc3339(source.created),
        validators: BTreeMap::new(),
        contracts: BTreeMap::new(),
    };
    let mut layers = Vec::new();
    let titled = |layers: &mut Vec<Descriptor>,
                  name: &str,
                  file: &str,
                  media_type: &str,
                  bytes: &[u8]|
     -> Result<Descriptor, String> {
        check_item_name(name)?;
        let mut d = layout.put(media_type, bytes).map_err(io)?;
        d.annotations
            .insert(annotation::TITLE.into(), file.to_string());
        layers.push(d.clone());
        Ok(d)
    };
    for (name, bytes, wit_version, describe) in &source.validators {
        let file = format!("{name}.wasm");
        let d = titled(&mut layers, name, &file, media::COMPONENT, bytes)?;
        config.validators.insert(
            name.clone(),
            ComponentEntry {
                file,
                size: d.size,
                sha256: d.digest,
                blake3: format!("blake3:{}", blake3::hash(bytes).to_hex()),
                wit_version: wit_version.clone(),
                describe: describe.clone(),
            },
        );
    }
    for (name, bytes) in &source.contracts {
        let file = format!("{name}.yaml");
        let d = titled(&mut layers, name, &file, media::CONTRACT, bytes)?;
        config.contracts.insert(
            name.clone(),
            FileEntry {
                file,
                size: d.size,
                sha256: d.digest,
                blake3: format!("blake3:{}", blake3::hash(bytes).to_hex()),
            },
        );
    }
    let config_bytes = serde_json::to_vec_pretty(&config).map_err(|e| e.to_string())?;
    let manifest = Manifest {
        schema_version: 2,
        media_type: media::MANIFEST.into(),
        artifact_type: Some(media::BUNDLE.into()),
        config: layout.put(media::CONFIG, &config_bytes).map_err(io)?,
        layers,
        subject: None,
        annotations: BTreeMap::from([
            (annotation::TITLE.into(), config.name.clone()),
            (annotation::VERSION.into(), config.version.clone()),
            (annotation::CREATED.into(), config.created.clone()),
        ]),
    };
    let manifest_bytes = serde_json::to_vec_pretty(&manifest).map_err(|e| e.to_string())?;
    let mut entry = layout.put(media::MANIFEST, &manifest_bytes).map_err(io)?;
    entry.artifact_type = Some(media::BUNDLE.into());
    entry
        .annotations
        .insert(annotation::REF_NAME.into(), config.version.clone());
    entry
        .annotations
        .insert(annotation::BUNDLE_NAME.into(), config.name.clone());
    let mut index = layout.index().map_err(|e| e.to_string())?;
    index.manifests.retain(|m| m.digest != entry.digest);
    index.manifests.push(entry.clone());
    layout.set_index(&index).map_err(io)?;
    Ok(entry.digest)
}

/// A bundle read from a layout: every blob checked against its digest.
#[derive(Debug, Clone)]
pub struct Bundle {
    pub layout: Layout,
    /// The bundle manifest's descriptor (digest, size).
    pub descriptor: Descriptor,
    pub manifest: Manifest,
    pub config: Config,
    /// (descriptor of the signature manifest, its envelope).
    pub signatures: Vec<(Descriptor, Envelope)>,
}

/// The bundle manifests a layout's index lists (not yet checked). vcc
/// writes `artifactType` on each index entry; other tools (skopeo) do not,
/// so an entry without one is recognised by its manifest: an OCI manifest
/// of a vcc bundle (read capped). An entry that cannot be read is no
/// bundle here; naming it (`DIR@sha256:…`) says why (`Bundle::read`).
pub fn listed(layout: &Layout) -> Result<Vec<Descriptor>, Refusal> {
    Ok(layout
        .index()?
        .manifests
        .into_iter()
        .filter(|m| match m.artifact_type.as_deref() {
            Some(t) => t == media::BUNDLE,
            None => {
                m.media_type == media::MANIFEST
                    && layout
                        .get(m, layout::MAX_MANIFEST)
                        .is_ok_and(|b| parse_manifest(&b).is_ok())
            }
        })
        .collect())
}

impl Bundle {
    /// The one bundle in a layout written by `vcc bundle build`.
    pub fn open(layout: &Layout) -> Result<Bundle, Refusal> {
        let all = listed(layout)?;
        match all.as_slice() {
            [one] => Bundle::read(layout, one),
            [] => Err(Refusal::new(
                Code::MalformedBundle,
                format!("{} holds no vcc bundle", layout.dir().display()),
            )),
            _ => Err(Refusal::new(
                Code::MalformedBundle,
                format!(
                    "{} holds {} bundles; name one by digest",
                    layout.dir().display(),
                    all.len()
                ),
            )),
        }
    }

    /// The bundle whose manifest `descriptor` names, with its signatures.
    pub fn read(layout: &Layout, descriptor: &Descriptor) -> Result<Bundle, Refusal> {
        let manifest = parse_manifest(&layout.get(descriptor, layout::MAX_MANIFEST)?)?;
        let config = check_config(
            &manifest,
            &layout.get(&manifest.config, layout::MAX_CONFIG)?,
        )?;
        let bundle = Bundle {
            layout: layout.clone(),
            descriptor: descriptor.clone(),
            manifest,
            config,
            signatures: signatures(layout, &descriptor.digest)?,
        };
        // Read (and so check) every layer now: a tampered byte is refused
        // before anything is trusted, used or stored.
        for layer in &bundle.manifest.layers {
            layout.get(layer, layout::MAX_LAYER)?;
        }
        Ok(bundle)
    }

    /// A validator component's bytes (checked against its digests).
    pub fn component(&self, name: &str) -> Result<Vec<u8>, Refusal> {
        let entry = self.config.validators.get(name).ok_or_else(|| {
            Refusal::new(
                Code::NotInStore,
                format!(
                    "bundle {} {} has no validator `{name}` (it has: {})",
                    self.config.name,
                    self.config.version,
                    self.config
                        .validators
                        .keys()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
        let layer = layer_of(&self.manifest, &entry.file, &entry.sha256, media::COMPONENT)?;
        let bytes = self.layout.get(layer, layout::MAX_LAYER)?;
        if format!("blake3:{}", blake3::hash(&bytes).to_hex()) != entry.blake3 {
            return Err(Refusal::new(
                Code::DigestMismatch,
                format!("{}: blake3 does not match the bundle manifest", entry.file),
            ));
        }
        Ok(bytes)
    }

    /// A base contract's bytes (checked).
    pub fn contract(&self, name: &str) -> Result<Vec<u8>, Refusal> {
        let entry = self.config.contracts.get(name).ok_or_else(|| {
            let has: Vec<&str> = self.config.contracts.keys().map(String::as_str).collect();
            let guess = vcc_contract::problem::closest(name, has.iter().copied())
                .map(|g| format!("did you mean `{g}`? "))
                .unwrap_or_default();
            Refusal::new(
                Code::UnknownBase,
                format!(
                    "bundle {} {} has no contract `{name}`; {guess}it has: {}",
                    self.config.name,
                    self.config.version,
                    if has.is_empty() {
                        "none".to_string()
                    } else {
                        has.iter()
                            .map(|c| format!("`{c}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ),
            )
        })?;
        let layer = layer_of(&self.manifest, &entry.file, &entry.sha256, media::CONTRACT)?;
        self.layout.get(layer, layout::MAX_LAYER)
    }

    /// Every blob of the bundle and its signatures: what a copy carries.
    pub fn blobs(&self) -> Vec<Descriptor> {
        let mut all = vec![self.descriptor.clone(), self.manifest.config.clone()];
        all.extend(self.manifest.layers.iter().cloned());
        for (d, _) in &self.signatures {
            all.push(d.clone());
        }
        all
    }

    /// Add a signature by `key` (a DSSE envelope over an in-toto Statement
    /// naming the manifest and every layer by sha256). An older signature
    /// by the same key is replaced: re-signing renews, it does not pile up.
    pub fn sign(&mut self, key: &PrivateKey, expires: Option<SystemTime>) -> Result<(), String> {
        let mut statement = self.statement(expires.map(rfc3339));
        // Microseconds: two signings in one second still have an order.
        statement.predicate.signed =
            Some(humantime::format_rfc3339_micros(SystemTime::now()).to_string());
        let payload = serde_json::to_vec(&statement).map_err(|e| e.to_string())?;
        let envelope = Envelope::sign(dsse::PAYLOAD_TYPE, &payload, key);
        let io = |e: std::io::Error| format!("{}: {e}", self.layout.dir().display());
        let envelope_bytes = serde_json::to_vec_pretty(&envelope).map_err(|e| e.to_string())?;
        let mut layer = self.layout.put(media::DSSE, &envelope_bytes).map_err(io)?;
        layer
            .annotations
            .insert(annotation::TITLE.into(), "signature.dsse.json".into());
        let manifest = Manifest {
            schema_version: 2,
            media_type: media::MANIFEST.into(),
            artifact_type: Some(media::DSSE.into()),
            config: self.layout.put(media::EMPTY, b"{}").map_err(io)?,
            layers: vec![layer],
            subject: Some(Descriptor {
                media_type: media::MANIFEST.into(),
                digest: self.descriptor.digest.clone(),
                size: self.descriptor.size,
                artifact_type: None,
                annotations: BTreeMap::new(),
            }),
            annotations: BTreeMap::from([
                (annotation::KEYID.to_string(), key.id().to_string()),
                (annotation::PUBLIC_KEY.to_string(), key.public().to_pem()),
            ]),
        };
        let bytes = serde_json::to_vec_pretty(&manifest).map_err(|e| e.to_string())?;
        let mut entry = self.layout.put(media::MANIFEST, &bytes).map_err(io)?;
        entry.artifact_type = Some(media::DSSE.into());
        entry
            .annotations
            .insert(annotation::KEYID.into(), key.id().to_string());
        let public = key.public();
        let replaced: Vec<String> = self
            .signatures
            .iter()
            .filter(|(_, env)| env.signed_by(&public))
            .map(|(d, _)| d.digest.clone())
            .collect();
        let mut index = self.layout.index().map_err(|e| e.to_string())?;
        index
            .manifests
            .retain(|m| !replaced.contains(&m.digest) && m.digest != entry.digest);
        index.manifests.push(entry.clone());
        self.layout.set_index(&index).map_err(io)?;
        self.signatures
            .retain(|(d, _)| !replaced.contains(&d.digest));
        self.signatures.push((entry, envelope));
        Ok(())
    }

    /// The in-toto Statement a signer of this bundle signs.
    pub fn statement(&self, expires: Option<String>) -> Statement {
        let mut subject = vec![Subject::sha256(
            &format!("{}@{}", self.config.name, self.config.version),
            layout::sha256_hex(&self.descriptor.digest).unwrap_or(""),
        )];
        for layer in &self.manifest.layers {
            let title = layer
                .annotations
                .get(annotation::TITLE)
                .cloned()
                .unwrap_or_default();
            subject.push(Subject::sha256(
                &title,
                layout::sha256_hex(&layer.digest).unwrap_or(""),
            ));
        }
        Statement {
            type_: dsse::STATEMENT_TYPE.into(),
            subject,
            predicate_type: dsse::PREDICATE_TYPE.into(),
            predicate: Predicate {
                name: self.config.name.clone(),
                version: self.config.version.clone(),
                created: self.config.created.clone(),
                expires,
                signed: None,
            },
        }
    }
}

/// A bundle manifest's bytes, read as an OCI image manifest of a vcc
/// bundle (its layers not yet read).
pub fn parse_manifest(bytes: &[u8]) -> Result<Manifest, Refusal> {
    let malformed = |m: String| Refusal::new(Code::MalformedBundle, m);
    let manifest: Manifest = serde_json::from_slice(bytes)
        .map_err(|e| malformed(format!("the bundle manifest is not an OCI manifest: {e}")))?;
    if manifest.artifact_type.as_deref() != Some(media::BUNDLE)
        || manifest.config.media_type != media::CONFIG
    {
        return Err(malformed("the manifest is not a vcc bundle".into()));
    }
    Ok(manifest)
}

/// The bundle config's bytes, checked against its manifest: a known
/// format, safe names, and every file it names one of the manifest's layers.
pub fn check_config(manifest: &Manifest, bytes: &[u8]) -> Result<Config, Refusal> {
    let malformed = |m: String| Refusal::new(Code::MalformedBundle, m);
    let config: Config = serde_json::from_slice(bytes)
        .map_err(|e| malformed(format!("the bundle's config is not a bundle manifest: {e}")))?;
    if config.vcc_bundle != FORMAT {
        return Err(malformed(format!(
            "bundle format {} (this vcc reads {FORMAT})",
            config.vcc_bundle
        )));
    }
    check_name(&config.name).map_err(malformed)?;
    for layer in &manifest.layers {
        let title = layer
            .annotations
            .get(annotation::TITLE)
            .map(String::as_str)
            .unwrap_or("");
        let stem = title
            .strip_suffix(".wasm")
            .or_else(|| title.strip_suffix(".yaml"))
            .unwrap_or(title);
        if check_item_name(stem).is_err() || title.contains('/') || title.contains("..") {
            return Err(Refusal::new(
                Code::UnsafePath,
                format!("a layer is titled {title:?}: a bundle file name must stay in its folder"),
            ));
        }
    }
    // The config names each file by digest; the layers are those files.
    for (name, entry) in &config.validators {
        check_item_name(name).map_err(malformed)?;
        layer_of(manifest, &entry.file, &entry.sha256, media::COMPONENT)?;
    }
    for (name, entry) in &config.contracts {
        check_item_name(name).map_err(malformed)?;
        layer_of(manifest, &entry.file, &entry.sha256, media::CONTRACT)?;
    }
    Ok(config)
}

/// The layer a config entry names: the right file, digest and media type.
fn layer_of<'a>(
    manifest: &'a Manifest,
    file: &str,
    sha256: &str,
    media_type: &str,
) -> Result<&'a Descriptor, Refusal> {
    manifest
        .layers
        .iter()
        .find(|l| {
            l.annotations.get(annotation::TITLE).map(String::as_str) == Some(file)
                && l.media_type == media_type
        })
        .filter(|l| l.digest == sha256)
        .ok_or_else(|| {
            Refusal::new(
                Code::DigestMismatch,
                format!("{file}: its layer is not the one the bundle manifest names ({sha256})"),
            )
        })
}

/// The manifest of a signature the layout holds.
pub fn signature_manifest(layout: &Layout, entry: &Descriptor) -> Option<Manifest> {
    serde_json::from_slice(&layout.get(entry, layout::MAX_MANIFEST).ok()?).ok()
}

/// The signature envelopes a layout holds for a bundle manifest: index
/// entries whose manifest has it as `subject`.
fn signatures(layout: &Layout, subject: &str) -> Result<Vec<(Descriptor, Envelope)>, Refusal> {
    let mut out: Vec<(Descriptor, Envelope)> = Vec::new();
    for (mut entry, typed) in signature_candidates(layout)? {
        if out.iter().any(|(d, _)| d.digest == entry.digest) {
            continue;
        }
        // An entry vcc typed as a signature must be readable; an untyped
        // one (another tool's) may be any image, and one that cannot be
        // read is simply not a signature: fewer signatures never trust more.
        let bytes = match layout.get(&entry, layout::MAX_MANIFEST) {
            Ok(bytes) => bytes,
            Err(r) if typed => return Err(r),
            Err(_) => continue,
        };
        let Ok(manifest) = serde_json::from_slice::<Manifest>(&bytes) else {
            continue;
        };
        if manifest.artifact_type.as_deref() != Some(media::DSSE) {
            continue;
        }
        entry.artifact_type = Some(media::DSSE.into());
        if manifest.subject.as_ref().map(|s| s.digest.as_str()) != Some(subject) {
            continue;
        }
        for layer in manifest
            .layers
            .iter()
            .filter(|l| l.media_type == media::DSSE)
        {
            // What is not an envelope counts for nothing, like a stranger's
            // signature: anyone who can push beside a bundle could add one,
            // and it must not deny the bundle its real signatures.
            let Ok(envelope) = serde_json::from_slice(&layout.get(layer, layout::MAX_ENVELOPE)?)
            else {
                continue;
            };
            out.push((entry.clone(), envelope));
        }
    }
    Ok(out)
}

/// Index entries that may be signature manifests, and whether vcc typed
/// them so: vcc's (`artifactType` DSSE), untyped manifests (skopeo writes
/// no `artifactType` in a layout's index), and the manifests an image
/// index in the layout lists, one level deep: the referrers tag schema's
/// index (`sha256-<hex>`), which `skopeo copy --all` copies as a tag.
fn signature_candidates(layout: &Layout) -> Result<Vec<(Descriptor, bool)>, Refusal> {
    let untyped_manifest =
        |d: &Descriptor| d.media_type == media::MANIFEST && d.artifact_type.is_none();
    let mut out = Vec::new();
    for entry in layout.index()?.manifests {
        match entry.artifact_type.as_deref() {
            Some(media::DSSE) => out.push((entry, true)),
            Some(_) => {}
            None if entry.media_type == media::MANIFEST => out.push((entry, false)),
            None if entry.media_type == media::INDEX => {
                let Ok(bytes) = layout.get(&entry, layout::MAX_INDEX) else {
                    continue;
                };
                let Ok(index) = serde_json::from_slice::<layout::Index>(&bytes) else {
                    continue;
                };
                out.extend(
                    index
                        .manifests
                        .into_iter()
                        .filter(|d| {
                            untyped_manifest(d) || d.artifact_type.as_deref() == Some(media::DSSE)
                        })
                        .map(|d| (d, false)),
                );
            }
            None => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A bundle with one validator and one contract, in a temp folder.
    pub fn sample(dir: &std::path::Path, version: &str) -> Bundle {
        let source = Source {
            name: "acme/security".into(),
            version: version.into(),
            description: "test".into(),
            created: SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_800_000_000),
            validators: vec![(
                "secrets-scan".into(),
                b"\0asm component bytes".to_vec(),
                "0.1.2".into(),
                serde_json::json!({"name": "secrets-scan"}),
            )],
            contracts: vec![("baseline".into(), b"vcc: 1\nid: baseline\n".to_vec())],
        };
        write(dir, &source).unwrap();
        Bundle::open(&Layout::open(dir).unwrap()).unwrap()
    }

    #[test]
    fn a_bundle_round_trips_and_is_signed_beside_itself() {
        let dir = tempfile::tempdir().unwrap();
        let mut bundle = sample(dir.path(), "1.2.0");
        assert_eq!(bundle.config.name, "acme/security");
        assert_eq!(
            bundle.component("secrets-scan").unwrap(),
            b"\0asm component bytes"
        );
        assert_eq!(
            bundle.contract("baseline").unwrap(),
            b"vcc: 1\nid: baseline\n"
        );
        let key = PrivateKey::generate().unwrap();
        let before = bundle.descriptor.digest.clone();
        bundle.sign(&key, None).unwrap();
        let again = Bundle::open(&bundle.layout).unwrap();
        assert_eq!(
            again.descriptor.digest, before,
            "signing does not change the bundle"
        );
        assert_eq!(again.signatures.len(), 1);
        assert!(again.signatures[0].1.signed_by(&key.public()));
        let statement: Statement =
            serde_json::from_slice(&again.signatures[0].1.payload_bytes().unwrap()).unwrap();
        assert_eq!(statement.subject.len(), 3, "the manifest and both layers");
    }

    #[test]
    fn names_that_would_leave_the_folder_are_refused() {
        assert!(check_name("acme/security").is_ok());
        assert!(check_name("Acme/x").is_err());
        assert!(check_name("acme/../x").is_err());
        assert!(check_item_name("../evil").is_err());
        assert!(check_item_name("secrets-scan").is_ok());
    }
}
