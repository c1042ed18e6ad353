//! Operating the local store: what it holds (`vcc bundle list`), removing
//! a bundle (`rm`), freeing what nothing lists (`gc`), and writing bundles
//! out as an OCI image layout for air-gapped transfer (`save`).
//!
//! Removing writes the index first and deletes blobs after (and only in
//! `gc`), so no index entry ever names a missing blob; `gc` runs under the
//! store's lock, so it never deletes what a pull has written but not yet
//! listed.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use crate::bundle::{self, Bundle};
use crate::layout::{self, Descriptor, Index, Layout, Manifest, annotation, media};
use crate::refusal::{Code, Refusal};
use crate::store::{Store, copy};

/// A stored bundle, as the store's index lists it.
#[derive(Debug, Clone)]
pub struct Entry {
    pub name: String,
    pub version: String,
    pub manifest: String,
    pub source: Option<String>,
}

/// What `gc` removed: (digest, bytes) of each blob, (folder, bytes) of
/// each stale staging folder.
#[derive(Debug, Default)]
pub struct Freed {
    pub blobs: Vec<(String, u64)>,
    pub staging: Vec<(String, u64)>,
}

impl Freed {
    pub fn bytes(&self) -> u64 {
        self.blobs.iter().chain(&self.staging).map(|(_, b)| b).sum()
    }
}

impl Store {
    /// Every stored bundle, by name then version.
    pub fn entries(&self) -> Result<Vec<Entry>, Refusal> {
        let mut out: Vec<Entry> = bundle::listed(self.layout())?
            .into_iter()
            .map(|d| {
                let a = |k: &str| d.annotations.get(k).cloned();
                Entry {
                    name: a(annotation::BUNDLE_NAME).unwrap_or_default(),
                    version: a(annotation::REF_NAME).unwrap_or_default(),
                    source: a(annotation::SOURCE),
                    manifest: d.digest,
                }
            })
            .collect();
        let semver = |v: &str| semver::Version::parse(v).ok();
        out.sort_by(|a, b| {
            (a.name.as_str(), semver(&a.version), a.version.as_str()).cmp(&(
                b.name.as_str(),
                semver(&b.version),
                b.version.as_str(),
            ))
        });
        Ok(out)
    }

    /// The stored bundle `selector` names: `NAME@VERSION` or
    /// `sha256:DIGEST`.
    pub fn select(&self, selector: &str) -> Result<Entry, Refusal> {
        let entries = self.entries()?;
        let found = if selector.starts_with("sha256:") {
            if layout::sha256_hex(selector).is_none() {
                return Err(Refusal::new(
                    Code::MalformedBundle,
                    format!(
                        "`{selector}` is not a sha256 digest (sha256: and 64 lower-case hex digits)"
                    ),
                ));
            }
            entries.iter().find(|e| e.manifest == selector)
        } else {
            let (name, version) = selector.rsplit_once('@').ok_or_else(|| {
                Refusal::new(
                    Code::MalformedBundle,
                    format!(
                        "`{selector}`: name a stored bundle as NAME@VERSION (acme/security@1.2.0) or by its manifest digest (sha256:…)"
                    ),
                )
            })?;
            let all: Vec<&Entry> = entries
                .iter()
                .filter(|e| e.name == name && e.version == version)
                .collect();
            // Two manifests of one version (a rebuild): taking the first
            // could remove the one a lock pins.
            if all.len() > 1 {
                return Err(Refusal::new(
                    Code::MalformedBundle,
                    format!(
                        "`{selector}` names {} stored manifests; name one: {}",
                        all.len(),
                        all.iter()
                            .map(|e| e.manifest.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
            all.first().copied()
        };
        found.cloned().ok_or_else(|| {
            Refusal::new(
                Code::NotInStore,
                format!(
                    "`{selector}` is not in the store {} (`vcc bundle list` shows what is)",
                    self.dir().display()
                ),
            )
        })
    }

    /// Remove a bundle's index entry and its signatures' entries (the
    /// blobs stay until `gc`); how many signature entries went with it.
    pub fn remove(&self, manifest: &str) -> Result<usize, Refusal> {
        let _lock = self.lock()?;
        let mut index = self.layout().index()?;
        let signatures: BTreeSet<String> = index
            .manifests
            .iter()
            .filter(|e| e.artifact_type.as_deref() == Some(media::DSSE))
            .filter(|e| {
                self.layout()
                    .get(e, layout::MAX_MANIFEST)
                    .ok()
                    .and_then(|b| serde_json::from_slice::<Manifest>(&b).ok())
                    .and_then(|m| m.subject)
                    .is_some_and(|s| s.digest == manifest)
            })
            .map(|e| e.digest.clone())
            .collect();
        let before = index.manifests.len();
        index
            .manifests
            .retain(|e| e.digest != manifest && !signatures.contains(&e.digest));
        if index.manifests.len() == before {
            return Err(Refusal::new(
                Code::NotInStore,
                format!("{manifest} is not in the store {}", self.dir().display()),
            ));
        }
        self.layout().set_index(&index).map_err(|e| {
            Refusal::new(Code::NotInStore, format!("{}: {e}", self.dir().display()))
        })?;
        Ok(signatures.len())
    }

    /// Delete every blob no index entry references (directly, or through
    /// a manifest or index it lists) and every staging folder whose pull
    /// is no longer running.
    pub fn gc(&self) -> Result<Freed, Refusal> {
        let _lock = self.lock()?;
        let referenced = self.referenced()?;
        let mut freed = Freed::default();
        let io = |p: &Path, e: std::io::Error| {
            Refusal::new(Code::NotInStore, format!("{}: {e}", p.display()))
        };
        let blobs = self.dir().join("blobs/sha256");
        for file in fs::read_dir(&blobs).map_err(|e| io(&blobs, e))? {
            let file = file.map_err(|e| io(&blobs, e))?;
            let name = file.file_name().to_string_lossy().into_owned();
            let digest = format!("sha256:{name}");
            let stale = if layout::sha256_hex(&digest).is_some() {
                !referenced.contains(&digest)
            } else {
                // A write in progress (`HEX.tmpPID`) is kept while its
                // process lives.
                name.rsplit_once(".tmp")
                    .and_then(|(_, pid)| pid.parse::<u32>().ok())
                    .is_some_and(|pid| !alive(pid))
            };
            if stale {
                let size = file.metadata().map(|m| m.len()).unwrap_or(0);
                fs::remove_file(file.path()).map_err(|e| io(&file.path(), e))?;
                freed.blobs.push((digest, size));
            }
        }
        for dir in fs::read_dir(self.dir()).map_err(|e| io(self.dir(), e))? {
            let dir = dir.map_err(|e| io(self.dir(), e))?;
            let name = dir.file_name().to_string_lossy().into_owned();
            let Some(pid) = name
                .strip_prefix(".staging-")
                .and_then(|rest| rest.split('-').next())
                .and_then(|pid| pid.parse::<u32>().ok())
            else {
                continue;
            };
            if alive(pid) {
                continue;
            }
            let size = folder_size(&dir.path());
            fs::remove_dir_all(dir.path()).map_err(|e| io(&dir.path(), e))?;
            freed.staging.push((name, size));
        }
        Ok(freed)
    }

    /// Every digest the index references. A listed manifest that cannot be
    /// read stops `gc`: what it references is unknown, so nothing could
    /// be deleted safely.
    fn referenced(&self) -> Result<BTreeSet<String>, Refusal> {
        let mut out = BTreeSet::new();
        let mut pending: Vec<Descriptor> = self.layout().index()?.manifests;
        while let Some(entry) = pending.pop() {
            if !out.insert(entry.digest.clone()) {
                continue;
            }
            let cap = if entry.media_type == media::INDEX {
                layout::MAX_INDEX
            } else {
                layout::MAX_MANIFEST
            };
            let bytes = self.layout().get(&entry, cap).map_err(|r| {
                Refusal::new(
                    r.code,
                    format!(
                        "{}; `vcc bundle gc` deletes nothing while a listed manifest cannot be read (remove it with `vcc bundle rm {}`)",
                        r.message, entry.digest
                    ),
                )
            })?;
            // Read as what it is, whatever the entry claims: a manifest
            // whose blobs went uncounted would have them deleted.
            if let Ok(manifest) = serde_json::from_slice::<Manifest>(&bytes) {
                out.insert(manifest.config.digest);
                out.extend(manifest.layers.into_iter().map(|l| l.digest));
            } else if let Ok(index) = serde_json::from_slice::<Index>(&bytes) {
                pending.extend(index.manifests);
            } else {
                return Err(Refusal::new(
                    Code::MalformedBundle,
                    format!(
                        "{} is listed in the store and is neither an image manifest nor an index; `vcc bundle gc` deletes nothing while it is listed (remove it with `vcc bundle rm {}`)",
                        entry.digest, entry.digest
                    ),
                ));
            }
        }
        Ok(out)
    }

    /// Write the stored bundles `manifests` (read and checked) with their
    /// signatures into a new OCI image layout at `dir`, in the store's
    /// shape: each tagged with its version.
    pub fn save(&self, manifests: &[String], dir: &Path) -> Result<Vec<Bundle>, Refusal> {
        if dir.join("index.json").exists() {
            return Err(Refusal::new(
                Code::MalformedBundle,
                format!(
                    "{} holds an OCI layout already; save into a new folder",
                    dir.display()
                ),
            ));
        }
        let bundles = manifests
            .iter()
            .map(|m| self.bundle(m))
            .collect::<Result<Vec<_>, _>>()?;
        let out = Layout::create(dir)
            .map_err(|e| Refusal::new(Code::MalformedBundle, format!("{}: {e}", dir.display())))?;
        for b in &bundles {
            copy(b, &out, None)?;
        }
        Ok(bundles)
    }
}

/// Whether process `pid` still runs (Linux: /proc), so its staging folder
/// is in use. Elsewhere every process counts as running: nothing is freed.
fn alive(pid: u32) -> bool {
    !Path::new("/proc/self").exists() || Path::new(&format!("/proc/{pid}")).exists()
}

fn folder_size(dir: &Path) -> u64 {
    fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => folder_size(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map(|m| m.len()).unwrap_or(0),
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::tests::sample;

    #[test]
    fn rm_then_gc_frees_only_what_nothing_lists() {
        let src = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let store = Store::open(&home.path().join("store")).unwrap();
        let old = sample(&src.path().join("a"), "1.2.0");
        let new = sample(&src.path().join("b"), "1.3.0");
        store.import(&old, None).unwrap();
        store.import(&new, None).unwrap();
        assert!(store.gc().unwrap().blobs.is_empty(), "everything is listed");
        let e = store.select("acme/security@1.2.0").unwrap();
        assert_eq!(e.manifest, old.descriptor.digest);
        store.remove(&e.manifest).unwrap();
        let freed = store.gc().unwrap();
        let gone: Vec<&str> = freed.blobs.iter().map(|(d, _)| d.as_str()).collect();
        assert!(gone.contains(&old.descriptor.digest.as_str()), "{gone:?}");
        // The shared contract layer and 1.3.0 stay readable.
        store.bundle(&new.descriptor.digest).unwrap();
        assert_eq!(
            store.select("acme/security@1.2.0").unwrap_err().code,
            Code::NotInStore
        );
    }
}
