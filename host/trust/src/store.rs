//! The local bundle store: one OCI image layout holding every bundle that
//! was pulled (and verified before it got here) with its signatures.
//! `$VCC_STORE_DIR`, else `$XDG_DATA_HOME/vcc/store`, else
//! `~/.local/share/vcc/store`. It holds code vcc runs, so, like the
//! component cache, it must be the user's own and writable by nobody else.

use std::path::{Path, PathBuf};

use crate::bundle::{self, Bundle};
use crate::dirs;
use crate::layout::{self, Layout, annotation};
use crate::refusal::{Code, Refusal};
use crate::renewal;

pub struct Store {
    layout: Layout,
}

impl Store {
    pub fn default_dir() -> Option<PathBuf> {
        let var = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        var("VCC_STORE_DIR")
            .or_else(|| var("XDG_DATA_HOME").map(|d| d.join("vcc/store")))
            .or_else(|| var("HOME").map(|h| h.join(".local/share/vcc/store")))
    }

    /// Open (or create) the store in `dir`, if it is safe to trust.
    pub fn open(dir: &Path) -> Result<Store, Refusal> {
        let untrusted = |why: String| {
            Refusal::new(
                Code::NotTrusted,
                format!("refusing the bundle store {}: {why}", dir.display()),
            )
        };
        dirs::create_private(dir).map_err(|e| untrusted(e.to_string()))?;
        dirs::trusted(dir).map_err(untrusted)?;
        let layout = match Layout::open(dir) {
            Ok(layout) => layout,
            Err(_) => Layout::create(dir).map_err(|e| untrusted(e.to_string()))?,
        };
        Ok(Store { layout })
    }

    pub fn dir(&self) -> &Path {
        self.layout.dir()
    }

    /// Copy a (verified) bundle and its signatures in: blobs first, the
    /// index entry last, so a crash leaves no entry without its blobs.
    /// `source`: where it was pulled from (`HOST[:PORT]/REPO:TAG`).
    pub fn import(&self, bundle: &Bundle, source: Option<&str>) -> Result<(), Refusal> {
        let _lock = self.lock()?;
        copy(bundle, &self.layout, source)
    }

    /// Held while the store's index or blobs change (import, `rm`, `gc`),
    /// so `gc` never deletes blobs a pull has written but not yet listed.
    pub(crate) fn lock(&self) -> Result<std::fs::File, Refusal> {
        let path = self.dir().join(".lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .and_then(|f| f.lock().map(|()| f))
            .map_err(|e| Refusal::new(Code::NotInStore, format!("{}: {e}", path.display())))?;
        Ok(file)
    }

    pub(crate) fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The bundle whose manifest has this digest, read and checked.
    pub fn bundle(&self, manifest: &str) -> Result<Bundle, Refusal> {
        let descriptor = bundle::listed(&self.layout)?
            .into_iter()
            .find(|d| d.digest == manifest)
            .ok_or_else(|| {
                Refusal::new(
                    Code::NotInStore,
                    format!(
                        "bundle manifest {manifest} is not in the store {} (run `vcc bundle pull`)",
                        self.dir().display()
                    ),
                )
            })?;
        Bundle::read(&self.layout, &descriptor)
    }

    /// Where a stored bundle was pulled from, if it came from a registry.
    pub fn source_of(&self, manifest: &str) -> Option<String> {
        bundle::listed(&self.layout)
            .ok()?
            .into_iter()
            .find(|d| d.digest == manifest)?
            .annotations
            .get(annotation::SOURCE)
            .cloned()
    }

    /// A folder for a pull in progress, inside the store (so it is as
    /// private as the store), removed when dropped.
    pub fn staging(&self) -> Result<Staging, Refusal> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let dir = self.dir().join(format!(
            ".staging-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let layout = Layout::create(&dir)
            .map_err(|e| Refusal::new(Code::NotInStore, format!("{}: {e}", dir.display())))?;
        Ok(Staging { layout })
    }

    /// (version, manifest digest) of every stored bundle named `name`,
    /// highest version first.
    pub fn versions(&self, name: &str) -> Result<Vec<(semver::Version, String)>, Refusal> {
        let mut out: Vec<(semver::Version, String)> = bundle::listed(&self.layout)?
            .into_iter()
            .filter(|d| {
                d.annotations
                    .get(annotation::BUNDLE_NAME)
                    .map(String::as_str)
                    == Some(name)
            })
            .filter_map(|d| {
                let v = semver::Version::parse(d.annotations.get(annotation::REF_NAME)?).ok()?;
                Some((v, d.digest))
            })
            .collect();
        out.sort_by(|a, b| b.0.cmp(&a.0));
        Ok(out)
    }
}

impl Store {
    /// (name, version, manifest digest, source) of every stored bundle
    /// that came from a registry.
    pub fn sourced(&self) -> Result<Vec<(String, String, String, String)>, Refusal> {
        Ok(bundle::listed(&self.layout)?
            .into_iter()
            .filter_map(|d| {
                let a = |k: &str| d.annotations.get(k).cloned();
                Some((
                    a(annotation::BUNDLE_NAME)?,
                    a(annotation::REF_NAME)?,
                    d.digest.clone(),
                    a(annotation::SOURCE)?,
                ))
            })
            .collect())
    }
}

/// Copy a bundle and its signatures into the layout `to` (the store, or a
/// `vcc bundle save` folder): blobs first, the index entries last, each
/// entry typed and annotated with the bundle's name and version (its tag).
pub fn copy(bundle: &Bundle, to: &Layout, source: Option<&str>) -> Result<(), Refusal> {
    let io = |e: std::io::Error| {
        Refusal::new(
            Code::MalformedBundle,
            format!("{}: {e}", to.dir().display()),
        )
    };
    let mut entries = Vec::new();
    for descriptor in bundle.blobs() {
        if !to.has(&descriptor.digest) {
            let bytes = bundle.layout.get(&descriptor, layout::MAX_LAYER)?;
            to.put(&descriptor.media_type, &bytes).map_err(io)?;
        }
    }
    // The blobs a signature manifest names (its envelope, its config).
    for (descriptor, _) in &bundle.signatures {
        let manifest: layout::Manifest =
            serde_json::from_slice(&bundle.layout.get(descriptor, layout::MAX_MANIFEST)?)
                .map_err(|e| Refusal::new(Code::MalformedBundle, e.to_string()))?;
        for blob in std::iter::once(&manifest.config).chain(&manifest.layers) {
            let bytes = bundle.layout.get(blob, layout::MAX_ENVELOPE)?;
            to.put(&blob.media_type, &bytes).map_err(io)?;
        }
        entries.push(entry_for(descriptor, layout::media::DSSE));
    }
    // Only what vcc sets: a layout handed over is not trusted to say
    // where a bundle came from (`SOURCE`) or what kind of entry it is.
    let mut entry = entry_for(&bundle.descriptor, layout::media::BUNDLE);
    entry
        .annotations
        .insert(annotation::BUNDLE_NAME.into(), bundle.config.name.clone());
    entry
        .annotations
        .insert(annotation::REF_NAME.into(), bundle.config.version.clone());
    if let Some(source) = source {
        entry
            .annotations
            .insert(annotation::SOURCE.into(), source.to_string());
    }
    entries.push(entry);
    let mut index = to.index()?;
    for e in entries {
        match index.manifests.iter_mut().find(|m| m.digest == e.digest) {
            // Pulled again, from elsewhere: remember the newest source.
            Some(known) => known.annotations.extend(e.annotations),
            None => index.manifests.push(e),
        }
    }
    // A renewal replaces what the same key signed before.
    let gone = superseded(to, &index, &bundle.descriptor.digest);
    index.manifests.retain(|m| !gone.contains(&m.digest));
    to.set_index(&index).map_err(io)
}

/// A fresh index entry for a manifest: its digest and size, typed as an
/// image manifest of `artifact_type`, with no annotation from elsewhere.
fn entry_for(d: &layout::Descriptor, artifact_type: &str) -> layout::Descriptor {
    layout::Descriptor {
        media_type: layout::media::MANIFEST.into(),
        digest: d.digest.clone(),
        size: d.size,
        artifact_type: Some(artifact_type.into()),
        annotations: Default::default(),
    }
}

/// A temporary layout for a pull; removed when dropped.
pub struct Staging {
    pub layout: Layout,
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(self.layout.dir());
    }
}

/// The signatures of `subject` in `index` that a later one by the same
/// key replaces (see `renewal`).
fn superseded(layout: &Layout, index: &layout::Index, subject: &str) -> Vec<String> {
    let held: Vec<renewal::Signed> = index
        .manifests
        .iter()
        .filter(|m| m.artifact_type.as_deref() == Some(layout::media::DSSE))
        .filter_map(|m| {
            let manifest = bundle::signature_manifest(layout, m)?;
            if manifest.subject.as_ref()?.digest != subject {
                return None;
            }
            let layer = manifest
                .layers
                .iter()
                .find(|l| l.media_type == layout::media::DSSE)?;
            let bytes = layout.get(layer, layout::MAX_ENVELOPE).ok()?;
            let envelope = serde_json::from_slice(&bytes).ok()?;
            Some(renewal::Signed {
                digest: m.digest.clone(),
                manifest,
                envelope,
            })
        })
        .collect();
    renewal::superseded(&held)
}
