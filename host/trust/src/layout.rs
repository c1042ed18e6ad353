//! OCI image layouts (image-spec v1.1): `oci-layout`, `index.json` and
//! content-addressed `blobs/sha256/…`. A bundle is written as one, so any
//! OCI tool (skopeo, oras, crane) can copy it; the local store is one too.
//!
//! Every blob read is capped in size before it is read and checked against
//! its digest after; a digest is checked for form before it names a file.

use std::collections::BTreeMap;
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::refusal::{Code, Refusal};

/// Media types, and why:
pub mod media {
    /// An OCI image manifest: every registry and OCI tool handles it.
    pub const MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
    pub const INDEX: &str = "application/vnd.oci.image.index.v1+json";
    /// The artifact type of a bundle manifest (OCI 1.1 artifacts): not a
    /// container image, so no runtime will try to run it.
    pub const BUNDLE: &str = "application/vnd.vcc.bundle.v1";
    /// The config blob: the bundle's own manifest (names, digests, describe).
    pub const CONFIG: &str = "application/vnd.vcc.bundle.config.v1+json";
    /// A validator component: WebAssembly's registered media type.
    pub const COMPONENT: &str = "application/wasm";
    /// A base contract.
    pub const CONTRACT: &str = "application/vnd.vcc.contract.v1+yaml";
    /// A DSSE envelope (the in-toto attestation media type).
    pub const DSSE: &str = "application/vnd.dsse.envelope.v1+json";
    /// The empty config of a signature manifest (`{}`).
    pub const EMPTY: &str = "application/vnd.oci.empty.v1+json";
}

/// Annotation keys (OCI pre-defined, plus vcc's own).
pub mod annotation {
    pub const TITLE: &str = "org.opencontainers.image.title";
    pub const VERSION: &str = "org.opencontainers.image.version";
    pub const CREATED: &str = "org.opencontainers.image.created";
    pub const REF_NAME: &str = "org.opencontainers.image.ref.name";
    /// The bundle name, on index entries of the local store.
    pub const BUNDLE_NAME: &str = "dev.vcc.bundle.name";
    /// Where the local store's copy was pulled from.
    pub const SOURCE: &str = "dev.vcc.bundle.source";
    /// The key id of a signature manifest (on it, and on its index entry).
    pub const KEYID: &str = "dev.vcc.signature.keyid";
    /// The signer's public key (PEM), on a signature manifest: what a
    /// renewal is proven against (see `renewal`).
    pub const PUBLIC_KEY: &str = "dev.vcc.signature.publickey";
}

/// Size caps, checked before a byte is read. A bundle manifest is a few
/// KiB (each layer ~300 bytes).
pub const MAX_MANIFEST: u64 = 1 << 20;
/// A layout's index.json (the store lists every bundle it holds).
pub const MAX_INDEX: u64 = 16 << 20;
pub const MAX_CONFIG: u64 = 4 << 20;
pub const MAX_ENVELOPE: u64 = 1 << 20;
/// As the runtime's component cap.
pub const MAX_LAYER: u64 = 128 << 20;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Descriptor {
    pub media_type: String,
    pub digest: String,
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_type: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub schema_version: u32,
    pub media_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_type: Option<String>,
    pub config: Descriptor,
    pub layers: Vec<Descriptor>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<Descriptor>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Index {
    pub schema_version: u32,
    /// Optional in image-spec (skopeo leaves it out of a layout's
    /// index.json); vcc always writes it.
    #[serde(default = "index_media_type")]
    pub media_type: String,
    pub manifests: Vec<Descriptor>,
}

fn index_media_type() -> String {
    media::INDEX.into()
}

impl Default for Index {
    fn default() -> Self {
        Index {
            schema_version: 2,
            media_type: media::INDEX.into(),
            manifests: Vec::new(),
        }
    }
}

/// `sha256:<hex>` of bytes.
pub fn sha256(bytes: &[u8]) -> String {
    format!("sha256:{:x}", Sha256::digest(bytes))
}

/// The hex of a well-formed `sha256:<64 lowercase hex>` digest.
pub fn sha256_hex(digest: &str) -> Option<&str> {
    digest.strip_prefix("sha256:").filter(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// A descriptor of `bytes`.
pub fn describe(media_type: &str, bytes: &[u8]) -> Descriptor {
    Descriptor {
        media_type: media_type.to_string(),
        digest: sha256(bytes),
        size: bytes.len() as u64,
        artifact_type: None,
        annotations: BTreeMap::new(),
    }
}

/// An OCI image layout on disk.
#[derive(Debug, Clone)]
pub struct Layout {
    dir: PathBuf,
}

impl Layout {
    /// Create a layout (the folder may exist, but must not be a layout yet).
    pub fn create(dir: &Path) -> std::io::Result<Layout> {
        fs::create_dir_all(dir.join("blobs/sha256"))?;
        write_atomically(
            &dir.join("oci-layout"),
            br#"{"imageLayoutVersion":"1.0.0"}"#,
        )?;
        let layout = Layout {
            dir: dir.to_path_buf(),
        };
        if !dir.join("index.json").exists() {
            layout.set_index(&Index::default())?;
        }
        Ok(layout)
    }

    /// Open an existing layout.
    pub fn open(dir: &Path) -> Result<Layout, Refusal> {
        let marker = fs::read_to_string(dir.join("oci-layout")).map_err(|e| {
            Refusal::new(
                Code::MalformedBundle,
                format!(
                    "{} is not an OCI image layout (oci-layout: {e})",
                    dir.display()
                ),
            )
        })?;
        let version: serde_json::Value = serde_json::from_str(&marker).unwrap_or_default();
        if version["imageLayoutVersion"] != "1.0.0" {
            return Err(Refusal::new(
                Code::MalformedBundle,
                format!("{}: unsupported oci-layout {marker}", dir.display()),
            ));
        }
        Ok(Layout {
            dir: dir.to_path_buf(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn index(&self) -> Result<Index, Refusal> {
        let bytes = read_capped(&self.dir.join("index.json"), MAX_INDEX)?;
        serde_json::from_slice(&bytes).map_err(|e| {
            Refusal::new(
                Code::MalformedBundle,
                format!("{}/index.json: {e}", self.dir.display()),
            )
        })
    }

    pub fn set_index(&self, index: &Index) -> std::io::Result<()> {
        let text = serde_json::to_vec_pretty(index).map_err(std::io::Error::other)?;
        write_atomically(&self.dir.join("index.json"), &text)
    }

    fn blob_path(&self, digest: &str) -> Result<PathBuf, Refusal> {
        let hex = sha256_hex(digest).ok_or_else(|| {
            Refusal::new(
                Code::MalformedBundle,
                format!(
                    "{} is not a sha256 digest",
                    vcc_contract::problem::quoted(digest)
                ),
            )
        })?;
        Ok(self.dir.join("blobs/sha256").join(hex))
    }

    /// Store a blob; its descriptor.
    pub fn put(&self, media_type: &str, bytes: &[u8]) -> std::io::Result<Descriptor> {
        let descriptor = describe(media_type, bytes);
        let path = self
            .blob_path(&descriptor.digest)
            .map_err(std::io::Error::other)?;
        if !path.exists() {
            write_atomically(&path, bytes)?;
        }
        Ok(descriptor)
    }

    /// A blob's bytes: at most `max` (and at most what the descriptor
    /// says), and exactly its digest.
    pub fn get(&self, descriptor: &Descriptor, max: u64) -> Result<Vec<u8>, Refusal> {
        if descriptor.size > max {
            return Err(Refusal::new(
                Code::TooLarge,
                format!(
                    "{} ({}) is {} bytes, over the {max}-byte cap",
                    descriptor.digest, descriptor.media_type, descriptor.size
                ),
            ));
        }
        let bytes = read_capped(&self.blob_path(&descriptor.digest)?, descriptor.size)?;
        if bytes.len() as u64 != descriptor.size || sha256(&bytes) != descriptor.digest {
            return Err(Refusal::new(
                Code::DigestMismatch,
                format!(
                    "blob {} does not match its digest and size: it was changed",
                    descriptor.digest
                ),
            ));
        }
        Ok(bytes)
    }

    /// Whether a blob is present (not checked).
    pub fn has(&self, digest: &str) -> bool {
        self.blob_path(digest).is_ok_and(|p| p.exists())
    }
}

/// A file's bytes, refusing more than `max` (read no further than that).
fn read_capped(path: &Path, max: u64) -> Result<Vec<u8>, Refusal> {
    // A FIFO would block the read forever, a device never end: a layout
    // handed over holds regular files or nothing.
    let meta = fs::metadata(path)
        .map_err(|e| Refusal::new(Code::MalformedBundle, format!("{}: {e}", path.display())))?;
    if !meta.is_file() {
        return Err(Refusal::new(
            Code::MalformedBundle,
            format!("{} is not a regular file", path.display()),
        ));
    }
    let file = fs::File::open(path)
        .map_err(|e| Refusal::new(Code::MalformedBundle, format!("{}: {e}", path.display())))?;
    let mut bytes = Vec::new();
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Refusal::new(Code::MalformedBundle, format!("{}: {e}", path.display())))?;
    if bytes.len() as u64 > max {
        return Err(Refusal::new(
            Code::TooLarge,
            format!("{} is over the {max}-byte cap", path.display()),
        ));
    }
    Ok(bytes)
}

/// Write a file so that readers see the old content or the new, never part.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let result = (|| {
        let mut file = fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_are_capped_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::create(dir.path()).unwrap();
        let d = layout.put("text/plain", b"hello").unwrap();
        assert_eq!(layout.get(&d, 100).unwrap(), b"hello");
        assert_eq!(layout.get(&d, 3).unwrap_err().code, Code::TooLarge);
        let hex = sha256_hex(&d.digest).unwrap().to_string();
        fs::write(dir.path().join("blobs/sha256").join(hex), b"hellO").unwrap();
        assert_eq!(layout.get(&d, 100).unwrap_err().code, Code::DigestMismatch);
        let evil = Descriptor {
            digest: "sha256:../../etc/passwd".into(),
            ..d
        };
        assert_eq!(
            layout.get(&evil, 100).unwrap_err().code,
            Code::MalformedBundle
        );
        assert!(Layout::open(dir.path()).is_ok());
        assert!(Layout::open(&dir.path().join("blobs")).is_err());
    }
}
