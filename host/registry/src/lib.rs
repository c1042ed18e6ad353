//! Validator bundles to and from OCI registries, through `oci-client`.
//!
//! A pushed bundle is its manifest under the reference's tag, and each
//! signature is a manifest whose `subject` is the bundle: the OCI 1.1
//! referrers model. Registries without the referrers API (like the CNCF
//! distribution server 2.x) are served through the referrers *tag schema*:
//! an image index tagged `sha256-<hex of the bundle manifest>` listing the
//! signatures. Pull asks the referrers API first and falls back to that
//! tag, so signatures travel either way.
//!
//! Nothing downloaded is trusted for its size or digest: a manifest is
//! read to at most its cap (refused when the registry announces more, or
//! as soon as more arrives), a blob is refused before download when its
//! descriptor is over the cap, and everything is checked against its
//! digest. What is pulled lands in a staging layout, for the caller to
//! verify against its trust policy before anything reaches the store.

mod creds;

use std::collections::HashMap;
use std::sync::Mutex;

use futures_util::StreamExt;
use oci_client::client::{ClientConfig, ClientProtocol};
use oci_client::manifest::OciDescriptor;
use oci_client::secrets::RegistryAuth;
use oci_client::{Client, Reference, RegistryOperation};
use vcc_trust::bundle::Bundle;
use vcc_trust::layout::{self, Descriptor, Index, Layout, Manifest, media};
use vcc_trust::renewal;
use vcc_trust::{Code, Refusal};

/// At most this many signatures are fetched for one bundle.
pub const MAX_SIGNATURES: usize = 64;

/// Why a push or pull failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// What arrived is not acceptable (too large, not its digest, not a
    /// bundle).
    #[error("{0}")]
    Refused(Refusal),
    /// The registry could not be reached, refused us, or does not have it.
    #[error("{0}")]
    Registry(String),
}

impl From<Refusal> for Error {
    fn from(r: Refusal) -> Error {
        Error::Refused(r)
    }
}

/// Whether `text` names a registry host: its first `/`-separated part has
/// a `.` or a `:` (`registry.example`, `127.0.0.1:5000`, `[::1]:5000`) or
/// is `localhost`, as Docker decides. Anything else (`mirror/oci`,
/// `./x`, `../x`, `/abs`, `security:1.2.0`) is a folder, never a name
/// on Docker Hub: a mistyped folder must not turn into a login attempt at
/// a registry nobody named (write `docker.io/…` to mean Docker Hub).
pub fn names_a_registry(text: &str) -> bool {
    let Some((first, _)) = text.split_once('/') else {
        return false;
    };
    first != "."
        && first != ".."
        && (first.contains('.') || first.contains(':') || first == "localhost")
}

/// Parse `HOST[:PORT]/REPO:TAG` or `HOST[:PORT]/REPO@sha256:…`; a
/// reference without a host (see [`names_a_registry`]) is refused, never
/// taken to mean Docker Hub.
pub fn parse_reference(text: &str) -> Result<Reference, String> {
    if !names_a_registry(text) {
        return Err(format!(
            "`{text}` names no registry: a reference starts with HOST[:PORT]/ (a host with a `.` or a `:`, or `localhost`)"
        ));
    }
    let reference: Reference = text.parse().map_err(|e| {
        format!("`{text}` is not an OCI reference (HOST[:PORT]/REPO:TAG or HOST[:PORT]/REPO@sha256:…): {e}")
    })?;
    if let Some(digest) = reference.digest()
        && layout::sha256_hex(digest).is_none()
    {
        return Err(format!(
            "`{text}`: only sha256 digests are used for bundles"
        ));
    }
    Ok(reference)
}

/// Whether `registry` (`HOST[:PORT]`) is this machine: plain HTTP to it
/// never leaves the machine.
pub fn is_loopback(registry: &str) -> bool {
    let host = match registry.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(rest),
        None => registry.rsplit_once(':').map_or(registry, |(h, _)| h),
    };
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// A connection to one registry.
pub struct Registry {
    client: Client,
    http: reqwest::Client,
    auth: RegistryAuth,
    scheme: &'static str,
    runtime: tokio::runtime::Runtime,
    /// Bearer tokens by repository (`None`: the registry wants none).
    tokens: Mutex<HashMap<String, Option<String>>>,
}

impl Registry {
    /// Talk to the registry `reference` names: HTTPS, or plain HTTP when
    /// `insecure` is given or the registry is on a loopback address.
    pub fn connect(reference: &Reference, insecure: bool) -> Result<Registry, Error> {
        // One TLS provider for the process (an error means one is set).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let registry = reference.resolve_registry().to_string();
        let plain = insecure || is_loopback(&registry);
        let protocol = if plain {
            ClientProtocol::HttpsExcept(vec![registry.clone()])
        } else {
            ClientProtocol::Https
        };
        let client = Client::new(ClientConfig {
            protocol,
            platform_resolver: None,
            connect_timeout: Some(std::time::Duration::from_secs(30)),
            read_timeout: Some(std::time::Duration::from_secs(120)),
            user_agent: concat!("vcc/", env!("CARGO_PKG_VERSION")),
            ..ClientConfig::default()
        });
        let http = reqwest::Client::builder()
            .user_agent(concat!("vcc/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(std::time::Duration::from_secs(30))
            .read_timeout(std::time::Duration::from_secs(120))
            .build()
            .map_err(|e| Error::Registry(format!("cannot make an HTTP client: {e}")))?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::Registry(format!("cannot start the network runtime: {e}")))?;
        Ok(Registry {
            client,
            http,
            auth: creds::for_registry(&registry).map_err(Error::Registry)?,
            scheme: if plain { "http" } else { "https" },
            runtime,
            tokens: Mutex::new(HashMap::new()),
        })
    }

    /// Push a bundle and its signatures under `reference` (its tag);
    /// the bundle manifest's digest.
    pub fn push(&self, bundle: &Bundle, reference: &Reference) -> Result<String, Error> {
        self.runtime.block_on(self.push_async(bundle, reference))
    }

    /// Pull the bundle `reference` names, with every signature the
    /// registry holds for it, into `staging`; its manifest descriptor.
    /// Nothing is verified against a trust policy here.
    pub fn pull(&self, reference: &Reference, staging: &Layout) -> Result<Descriptor, Error> {
        self.runtime.block_on(self.pull_async(reference, staging))
    }

    /// The tags of the reference's repository (the first page the
    /// registry gives, read to at most 4 MiB).
    pub fn tags(&self, reference: &Reference) -> Result<Vec<String>, Error> {
        self.runtime.block_on(async {
            let url = format!(
                "{}://{}/v2/{}/tags/list",
                self.scheme,
                reference.resolve_registry(),
                reference.repository()
            );
            let Some(bytes) = self
                .get_capped(reference, &url, "application/json", layout::MAX_MANIFEST)
                .await?
            else {
                return Ok(Vec::new());
            };
            #[derive(serde::Deserialize)]
            struct Tags {
                #[serde(default)]
                tags: Option<Vec<String>>,
            }
            let tags: Tags = serde_json::from_slice(&bytes)
                .map_err(|e| Error::Registry(format!("GET {url}: {e}")))?;
            Ok(tags.tags.unwrap_or_default())
        })
    }

    fn registry_error(&self, what: &str, e: impl std::fmt::Display) -> Error {
        Error::Registry(format!("{what}: {e}"))
    }

    /// A failed login: a connection that could not be made (nothing
    /// listening, no route, no such host) says so with the OS's reason,
    /// told apart from a registry that refused the credentials.
    fn login_error(
        &self,
        reference: &Reference,
        e: oci_client::errors::OciDistributionError,
    ) -> Error {
        let host = reference.resolve_registry();
        match &e {
            oci_client::errors::OciDistributionError::RequestError(r) if r.is_connect() => {
                Error::Registry(format!("cannot connect to {host}: {}", causes(r)))
            }
            _ => self.registry_error(&format!("cannot log in to {host}"), e),
        }
    }

    async fn push_async(&self, bundle: &Bundle, reference: &Reference) -> Result<String, Error> {
        let repo = |digest: &str| {
            Reference::with_digest(
                reference.resolve_registry().to_string(),
                reference.repository().to_string(),
                digest.to_string(),
            )
        };
        self.client
            .auth(reference, &self.auth, RegistryOperation::Push)
            .await
            .map_err(|e| self.login_error(reference, e))?;
        let mut blobs = vec![bundle.manifest.config.clone()];
        blobs.extend(bundle.manifest.layers.iter().cloned());
        let mut signature_manifests = Vec::new();
        for (descriptor, _) in &bundle.signatures {
            let bytes = bundle.layout.get(descriptor, layout::MAX_MANIFEST)?;
            let manifest: Manifest = serde_json::from_slice(&bytes).map_err(|e| {
                Refusal::new(Code::MalformedBundle, format!("a signature manifest: {e}"))
            })?;
            blobs.push(manifest.config.clone());
            blobs.extend(manifest.layers.iter().cloned());
            signature_manifests.push((descriptor.clone(), bytes, manifest));
        }
        for blob in &blobs {
            let exists = self
                .client
                .blob_exists(reference, &blob.digest)
                .await
                .unwrap_or(false);
            if !exists {
                let bytes = bundle.layout.get(blob, layout::MAX_LAYER)?;
                self.client
                    .push_blob(reference, bytes, &blob.digest)
                    .await
                    .map_err(|e| {
                        self.registry_error(&format!("pushing blob {}", blob.digest), e)
                    })?;
            }
        }
        let manifest_bytes = bundle
            .layout
            .get(&bundle.descriptor, layout::MAX_MANIFEST)?;
        self.put_manifest(
            reference,
            manifest_bytes,
            media::MANIFEST,
            &bundle.descriptor.digest,
        )
        .await?;
        if signature_manifests.is_empty() {
            return Ok(bundle.descriptor.digest.clone());
        }
        for (descriptor, bytes, _) in &signature_manifests {
            self.put_manifest(
                &repo(&descriptor.digest),
                bytes.clone(),
                media::MANIFEST,
                &descriptor.digest,
            )
            .await?;
        }
        // The referrers tag schema: an index of the signatures, tagged by
        // the subject's digest, merged with what is there already.
        let tag = referrers_tag(&bundle.descriptor.digest);
        let tagged = Reference::with_tag(
            reference.resolve_registry().to_string(),
            reference.repository().to_string(),
            tag,
        );
        let mut index = match self
            .get_manifest(&tagged, &format!("{},{}", media::INDEX, media::MANIFEST))
            .await?
        {
            Some(bytes) => serde_json::from_slice::<Index>(&bytes).unwrap_or_default(),
            None => Index::default(),
        };
        // Renewals: what a pushed signature replaces (the same key, proven,
        // signed later) leaves the list; the new ones go first, so a reader
        // that stops at its cap sees them.
        let mut held: Vec<renewal::Signed> = Vec::new();
        for (descriptor, _, manifest) in &signature_manifests {
            if let Some((_, envelope)) = bundle
                .signatures
                .iter()
                .find(|(d, _)| d.digest == descriptor.digest)
            {
                held.push(renewal::Signed {
                    digest: descriptor.digest.clone(),
                    manifest: manifest.clone(),
                    envelope: envelope.clone(),
                });
            }
        }
        for entry in &index.manifests {
            if !held.iter().any(|h| h.digest == entry.digest)
                && let Some((manifest, envelope)) =
                    self.signature(reference, &repo(&entry.digest)).await?
            {
                held.push(renewal::Signed {
                    digest: entry.digest.clone(),
                    manifest,
                    envelope,
                });
            }
        }
        let gone = renewal::superseded(&held);
        index.manifests.retain(|m| !gone.contains(&m.digest));
        for (descriptor, _, _) in signature_manifests.iter().rev() {
            if !index
                .manifests
                .iter()
                .any(|m| m.digest == descriptor.digest)
            {
                let mut entry = descriptor.clone();
                entry.artifact_type = Some(media::DSSE.into());
                entry.annotations.clear();
                index.manifests.insert(0, entry);
            }
        }
        let index_bytes = serde_json::to_vec(&index).map_err(|e| Error::Registry(e.to_string()))?;
        let index_digest = layout::sha256(&index_bytes);
        self.put_manifest(&tagged, index_bytes, media::INDEX, &index_digest)
            .await?;
        Ok(bundle.descriptor.digest.clone())
    }

    /// A signature the registry holds, by its manifest reference: its
    /// manifest and envelope, checked against their digests; `None` when it
    /// is missing or is not one.
    async fn signature(
        &self,
        reference: &Reference,
        by_digest: &Reference,
    ) -> Result<Option<(Manifest, vcc_trust::dsse::Envelope)>, Error> {
        let Some(digest) = by_digest.digest() else {
            return Ok(None);
        };
        let Some(bytes) = self.get_manifest(by_digest, media::MANIFEST).await? else {
            return Ok(None);
        };
        let Ok(manifest) = serde_json::from_slice::<Manifest>(&bytes) else {
            return Ok(None);
        };
        let Some(layer) = manifest.layers.iter().find(|l| l.media_type == media::DSSE) else {
            return Ok(None);
        };
        if layout::sha256(&bytes) != digest
            || layout::sha256_hex(&layer.digest).is_none()
            || layer.size > layout::MAX_ENVELOPE
        {
            return Ok(None);
        }
        let url = format!(
            "{}://{}/v2/{}/blobs/{}",
            self.scheme,
            reference.resolve_registry(),
            reference.repository(),
            layer.digest
        );
        let Some(envelope_bytes) = self
            .get_capped(reference, &url, "*/*", layout::MAX_ENVELOPE)
            .await?
        else {
            return Ok(None);
        };
        if layout::sha256(&envelope_bytes) != layer.digest {
            return Ok(None);
        }
        Ok(serde_json::from_slice(&envelope_bytes)
            .ok()
            .map(|envelope| (manifest, envelope)))
    }

    async fn put_manifest(
        &self,
        reference: &Reference,
        bytes: Vec<u8>,
        media_type: &str,
        digest: &str,
    ) -> Result<(), Error> {
        let content_type = reqwest::header::HeaderValue::from_str(media_type)
            .map_err(|e| Error::Registry(e.to_string()))?;
        self.client
            .push_manifest_raw(reference, bytes, content_type)
            .await
            .map_err(|e| {
                self.registry_error(&format!("pushing manifest {digest} to {reference}"), e)
            })?;
        Ok(())
    }

    async fn pull_async(
        &self,
        reference: &Reference,
        staging: &Layout,
    ) -> Result<Descriptor, Error> {
        let accept = format!("{},{}", media::MANIFEST, media::INDEX);
        let bytes = self
            .get_manifest(reference, &accept)
            .await?
            .ok_or_else(|| {
                Error::Registry(format!("{reference}: the registry has no such manifest"))
            })?;
        let digest = layout::sha256(&bytes);
        if let Some(wanted) = reference.digest()
            && wanted != digest
        {
            return Err(Refusal::new(
                Code::DigestMismatch,
                format!("the registry answered {reference} with another manifest ({digest})"),
            )
            .into());
        }
        let manifest: Manifest = serde_json::from_slice(&bytes).map_err(|e| {
            Refusal::new(
                Code::MalformedBundle,
                format!("{reference} is not an OCI image manifest: {e}"),
            )
        })?;
        if manifest.artifact_type.as_deref() != Some(media::BUNDLE) {
            return Err(Refusal::new(
                Code::MalformedBundle,
                format!(
                    "{reference} is not a vcc bundle (artifact type {:?})",
                    manifest.artifact_type
                ),
            )
            .into());
        }
        let by_digest = |d: &str| {
            Reference::with_digest(
                reference.resolve_registry().to_string(),
                reference.repository().to_string(),
                d.to_string(),
            )
        };
        self.fetch_blob(reference, &manifest.config, layout::MAX_CONFIG, staging)
            .await?;
        for layer in &manifest.layers {
            self.fetch_blob(reference, layer, layout::MAX_LAYER, staging)
                .await?;
        }
        let io = |e: std::io::Error| Error::Registry(format!("{}: {e}", staging.dir().display()));
        let mut entry = staging.put(media::MANIFEST, &bytes).map_err(io)?;
        entry.artifact_type = Some(media::BUNDLE.into());
        let mut entries = vec![entry.clone()];
        // Signatures: the referrers API, else the tag schema. Each listed
        // manifest is fetched by digest and kept only if it really is a
        // DSSE signature whose subject is this bundle (copies by other
        // tools may drop `artifactType` from index entries).
        let listed = self.referrers(reference, &digest).await?;
        // Only what says it is a signature counts toward the cap (copies
        // that drop `artifactType` say nothing, and are read too).
        let candidates = listed
            .into_iter()
            .filter(|c| c.artifact_type.as_deref().is_none_or(|t| t == media::DSSE));
        for candidate in candidates.take(MAX_SIGNATURES) {
            if layout::sha256_hex(&candidate.digest).is_none()
                || candidate.size > layout::MAX_MANIFEST
            {
                continue;
            }
            let Some(sig_bytes) = self
                .get_manifest(&by_digest(&candidate.digest), media::MANIFEST)
                .await?
            else {
                continue;
            };
            if layout::sha256(&sig_bytes) != candidate.digest {
                continue;
            }
            let Ok(sig) = serde_json::from_slice::<Manifest>(&sig_bytes) else {
                continue;
            };
            if sig.artifact_type.as_deref() != Some(media::DSSE)
                || sig.subject.as_ref().map(|s| s.digest.as_str()) != Some(digest.as_str())
            {
                continue;
            }
            self.fetch_blob(reference, &sig.config, layout::MAX_ENVELOPE, staging)
                .await?;
            for layer in &sig.layers {
                self.fetch_blob(reference, layer, layout::MAX_ENVELOPE, staging)
                    .await?;
            }
            let mut sig_entry = staging.put(media::MANIFEST, &sig_bytes).map_err(io)?;
            sig_entry.artifact_type = Some(media::DSSE.into());
            entries.push(sig_entry);
        }
        let mut index = staging.index()?;
        for e in entries {
            if !index.manifests.iter().any(|m| m.digest == e.digest) {
                index.manifests.push(e);
            }
        }
        staging.set_index(&index).map_err(io)?;
        Ok(entry)
    }

    /// The descriptors the registry lists as referrers of `digest`.
    async fn referrers(
        &self,
        reference: &Reference,
        digest: &str,
    ) -> Result<Vec<Descriptor>, Error> {
        let url = format!(
            "{}://{}/v2/{}/referrers/{digest}",
            self.scheme,
            reference.resolve_registry(),
            reference.repository()
        );
        let native = self
            .get_capped(reference, &url, media::INDEX, layout::MAX_MANIFEST)
            .await?;
        let bytes = match native {
            Some(bytes) => Some(bytes),
            None => {
                let tagged = Reference::with_tag(
                    reference.resolve_registry().to_string(),
                    reference.repository().to_string(),
                    referrers_tag(digest),
                );
                self.get_manifest(&tagged, media::INDEX).await?
            }
        };
        Ok(bytes
            .and_then(|b| serde_json::from_slice::<Index>(&b).ok())
            .map(|i| i.manifests)
            .unwrap_or_default())
    }

    async fn get_manifest(
        &self,
        reference: &Reference,
        accept: &str,
    ) -> Result<Option<Vec<u8>>, Error> {
        let target = reference.digest().or(reference.tag()).unwrap_or("latest");
        let url = format!(
            "{}://{}/v2/{}/manifests/{target}",
            self.scheme,
            reference.resolve_registry(),
            reference.repository()
        );
        self.get_capped(reference, &url, accept, layout::MAX_MANIFEST)
            .await
    }

    /// A GET read to at most `cap` bytes; `None` on 404.
    async fn get_capped(
        &self,
        reference: &Reference,
        url: &str,
        accept: &str,
        cap: u64,
    ) -> Result<Option<Vec<u8>>, Error> {
        let mut request = self.http.get(url).header("Accept", accept);
        request = match self.token(reference).await? {
            Some(token) => request.bearer_auth(token),
            None => match &self.auth {
                RegistryAuth::Basic(user, password) => request.basic_auth(user, Some(password)),
                _ => request,
            },
        };
        let mut response = request.send().await.map_err(|e| {
            if e.is_connect() {
                Error::Registry(format!(
                    "cannot connect to {}: {}",
                    reference.resolve_registry(),
                    causes(&e)
                ))
            } else {
                self.registry_error(&format!("GET {url}"), e)
            }
        })?;
        let status = response.status();
        if status == reqwest::StatusCode::NOT_FOUND {
            return Ok(None);
        }
        if !status.is_success() {
            return Err(Error::Registry(format!("GET {url}: {status}")));
        }
        if let Some(length) = response.content_length()
            && length > cap
        {
            return Err(too_large(url, length, cap));
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| self.registry_error(&format!("GET {url}"), e))?
        {
            bytes.extend_from_slice(&chunk);
            if bytes.len() as u64 > cap {
                return Err(too_large(url, bytes.len() as u64, cap));
            }
        }
        Ok(Some(bytes))
    }

    /// A pull token for the reference's repository, asked for once.
    async fn token(&self, reference: &Reference) -> Result<Option<String>, Error> {
        let repo = reference.repository().to_string();
        if let Some(known) = self.tokens.lock().ok().and_then(|t| t.get(&repo).cloned()) {
            return Ok(known);
        }
        let token = self
            .client
            .auth(reference, &self.auth, RegistryOperation::Pull)
            .await
            .map_err(|e| self.login_error(reference, e))?;
        if let Ok(mut tokens) = self.tokens.lock() {
            tokens.insert(repo, token.clone());
        }
        Ok(token)
    }

    /// Download one blob into `staging`: refused before download when its
    /// descriptor is over `cap`, stopped as soon as more than its size
    /// arrives, and checked against its digest.
    async fn fetch_blob(
        &self,
        reference: &Reference,
        descriptor: &Descriptor,
        cap: u64,
        staging: &Layout,
    ) -> Result<(), Error> {
        if layout::sha256_hex(&descriptor.digest).is_none() {
            return Err(Refusal::new(
                Code::MalformedBundle,
                format!(
                    "{} is not a sha256 digest",
                    serde_json::Value::from(descriptor.digest.as_str())
                ),
            )
            .into());
        }
        if descriptor.size > cap {
            return Err(too_large(&descriptor.digest, descriptor.size, cap));
        }
        if staging.get(descriptor, cap).is_ok() {
            return Ok(());
        }
        self.token(reference).await?;
        let oci = OciDescriptor {
            media_type: descriptor.media_type.clone(),
            digest: descriptor.digest.clone(),
            size: descriptor.size as i64,
            ..OciDescriptor::default()
        };
        let mut stream = self
            .client
            .pull_blob_stream(reference, &oci)
            .await
            .map_err(|e| self.registry_error(&format!("GET blob {}", descriptor.digest), e))?;
        if let Some(length) = stream.content_length
            && length > descriptor.size
        {
            return Err(too_large(&descriptor.digest, length, descriptor.size));
        }
        let mut bytes = Vec::with_capacity(descriptor.size as usize);
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| {
                Error::Refused(Refusal::new(
                    Code::DigestMismatch,
                    format!("blob {}: {e}", descriptor.digest),
                ))
            })?;
            bytes.extend_from_slice(&chunk);
            if bytes.len() as u64 > descriptor.size {
                return Err(too_large(
                    &descriptor.digest,
                    bytes.len() as u64,
                    descriptor.size,
                ));
            }
        }
        if layout::sha256(&bytes) != descriptor.digest {
            return Err(Refusal::new(
                Code::DigestMismatch,
                format!(
                    "the registry sent other bytes for blob {}",
                    descriptor.digest
                ),
            )
            .into());
        }
        staging
            .put(&descriptor.media_type, &bytes)
            .map_err(|e| Error::Registry(format!("{}: {e}", staging.dir().display())))?;
        Ok(())
    }
}

/// An error with every cause under it (`error sending request: …:
/// Connection refused (os error 111)`): reqwest's own text leaves out why.
fn causes(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = cause.source();
    }
    out
}

fn too_large(what: &str, size: u64, cap: u64) -> Error {
    Error::Refused(Refusal::new(
        Code::TooLarge,
        format!("{what} is {size} bytes or more, over its {cap}-byte cap; not downloaded"),
    ))
}

/// The referrers tag schema's tag for a subject digest.
pub fn referrers_tag(digest: &str) -> String {
    digest.replace(':', "-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_and_loopback() {
        assert!(parse_reference("127.0.0.1:5000/acme/security:1.2.0").is_ok());
        assert!(
            parse_reference(&format!(
                "reg.example/acme/security@sha256:{}",
                "a".repeat(64)
            ))
            .is_ok()
        );
        assert!(parse_reference("reg.example/acme/security@sha512:abc").is_err());
        assert!(is_loopback("127.0.0.1:5000"));
        assert!(is_loopback("localhost:5000"));
        assert!(is_loopback("[::1]:5000"));
        assert!(!is_loopback("reg.example:5000"));
        assert!(!is_loopback("10.0.0.1"));
        assert_eq!(referrers_tag("sha256:ab"), "sha256-ab");
    }

    #[test]
    fn a_reference_without_a_host_is_a_folder() {
        for registry in [
            "registry.example/acme/security:1.2.0",
            "127.0.0.1:5000/acme/security:1.2.0",
            "localhost/acme/security:1.2.0",
            "docker.io/acme/security:1.2.0",
        ] {
            assert!(names_a_registry(registry), "{registry}");
            assert!(parse_reference(registry).is_ok(), "{registry}");
        }
        // A host, though oci-client does not parse bracketed IPv6.
        assert!(names_a_registry("[::1]:5000/acme/security:1.2.0"));
        for folder in [
            "mirror/oci",
            "./x",
            "../x",
            "/abs/oci",
            "security:1.2.0",
            "acme/security:1.2.0",
            "./mirror.d/oci",
        ] {
            assert!(!names_a_registry(folder), "{folder}");
            let e = parse_reference(folder).unwrap_err();
            assert!(e.contains("names no registry"), "{e}");
        }
    }
}
