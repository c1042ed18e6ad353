//! Ed25519 keys: a private key in PKCS#8 PEM (RFC 8410, mode 0600), a
//! public key in SPKI PEM, and a key id — the sha256 of the public key's
//! SPKI DER — which names a key in signatures.
//!
//! A private key is written as PKCS#8 v1 (the seed alone, as `openssl
//! genpkey -algorithm ed25519` writes it): OpenSSL 3.0 and Python's
//! `cryptography` refuse the v2 form (RFC 5958 `OneAsymmetricKey`, the
//! public key appended) that vcc wrote before. Both forms are read.

use std::fs;
use std::io::{Read as _, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;
use ed25519_dalek::pkcs8::{
    DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey, KeypairBytes,
};
use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use sha2::{Digest, Sha256};

use crate::Refusal;
use crate::refusal::Code;

/// The most of a public key file read: a PEM key is a few hundred bytes.
pub const MAX_KEY_FILE: u64 = 64 * 1024;

/// A public key and its id.
#[derive(Debug, Clone)]
pub struct PublicKey {
    key: VerifyingKey,
    id: String,
}

/// A private key and its id.
pub struct PrivateKey {
    key: SigningKey,
    id: String,
}

fn key_id(key: &VerifyingKey) -> String {
    let der = key
        .to_public_key_der()
        .map(|d| d.as_bytes().to_vec())
        .unwrap_or_default();
    format!("sha256:{:x}", Sha256::digest(der))
}

/// Only the id: a private key is never printed.
impl std::fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrivateKey")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl PublicKey {
    /// Read an SPKI PEM public key. A private key given where a public key
    /// belongs is refused by name: it would mean the private key was
    /// copied somewhere it does not belong.
    pub fn from_pem(pem: &str, what: &str) -> Result<PublicKey, Refusal> {
        if pem.contains("PRIVATE KEY") {
            return Err(Refusal::new(
                Code::PrivateKeyGiven,
                format!(
                    "{what} is a private key; give the public key (NAME.pub), and keep the private key secret"
                ),
            ));
        }
        let key = VerifyingKey::from_public_key_pem(pem.trim()).map_err(|e| {
            Refusal::new(
                Code::MalformedKey,
                format!("{what} is not an Ed25519 public key in SPKI PEM: {e}"),
            )
        })?;
        Ok(PublicKey {
            id: key_id(&key),
            key,
        })
    }

    /// A public key file. A PEM key is a few hundred bytes: a path that
    /// names something endless (`/dev/zero`) is refused after
    /// [`MAX_KEY_FILE`] bytes, not read into memory.
    pub fn read(path: &Path) -> Result<PublicKey, Refusal> {
        let bad = |e: String| Refusal::new(Code::MalformedKey, format!("{}: {e}", path.display()));
        let mut bytes = Vec::new();
        fs::File::open(path)
            .and_then(|f| f.take(MAX_KEY_FILE + 1).read_to_end(&mut bytes))
            .map_err(|e| bad(e.to_string()))?;
        if bytes.len() as u64 > MAX_KEY_FILE {
            return Err(bad(format!("over {MAX_KEY_FILE} bytes: not a public key")));
        }
        let text = String::from_utf8(bytes).map_err(|_| bad("not UTF-8: not a PEM key".into()))?;
        PublicKey::from_pem(&text, &path.display().to_string())
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// The 32 bytes of the Ed25519 public key (what signed-note key ids
    /// hash).
    pub fn raw(&self) -> [u8; 32] {
        self.key.to_bytes()
    }

    pub fn to_pem(&self) -> String {
        self.key
            .to_public_key_pem(LineEnding::LF)
            .unwrap_or_default()
    }

    /// Whether `sig` is this key's signature of `message` (strict: no
    /// malleable or small-order signatures).
    pub fn verifies(&self, message: &[u8], sig: &[u8]) -> bool {
        let Ok(bytes) = <[u8; 64]>::try_from(sig) else {
            return false;
        };
        self.key
            .verify_strict(message, &Signature::from_bytes(&bytes))
            .is_ok()
    }
}

impl PrivateKey {
    /// A new key from the operating system's randomness.
    pub fn generate() -> std::io::Result<PrivateKey> {
        let mut seed = [0u8; 32];
        std::io::Read::read_exact(&mut fs::File::open("/dev/urandom")?, &mut seed)?;
        let key = SigningKey::from_bytes(&seed);
        Ok(PrivateKey {
            id: key_id(&key.verifying_key()),
            key,
        })
    }

    /// Read a PKCS#8 PEM private key, v1 or v2 (a v2 key's public key must
    /// be the seed's). One that others could read is refused, as ssh
    /// refuses a loose key file.
    pub fn read(path: &Path) -> Result<PrivateKey, Refusal> {
        let bad = |m: String| Refusal::new(Code::MalformedKey, format!("{}: {m}", path.display()));
        let text = fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
        if text.contains("PUBLIC KEY") {
            return Err(bad(
                "this is a public key; signing needs the private key (NAME.key)".into(),
            ));
        }
        let meta = fs::metadata(path).map_err(|e| bad(e.to_string()))?;
        {
            use std::os::unix::fs::MetadataExt;
            if meta.mode() & 0o077 != 0 {
                return Err(bad(format!(
                    "the private key is readable by others (mode {:o}); run `chmod 600 {}`",
                    meta.mode() & 0o777,
                    path.display()
                )));
            }
        }
        let key = SigningKey::from_pkcs8_pem(text.trim())
            .map_err(|e| bad(format!("not an Ed25519 private key in PKCS#8 PEM: {e}")))?;
        Ok(PrivateKey {
            id: key_id(&key.verifying_key()),
            key,
        })
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn public(&self) -> PublicKey {
        PublicKey {
            key: self.key.verifying_key(),
            id: self.id.clone(),
        }
    }

    pub fn sign(&self, message: &[u8]) -> Vec<u8> {
        self.key.sign(message).to_bytes().to_vec()
    }

    /// Write `NAME.key` (mode 0600, never over an existing file) and
    /// `NAME.pub`; their paths.
    pub fn write(&self, name: &Path) -> std::io::Result<(PathBuf, PathBuf)> {
        let private = name.with_extension("key");
        let public = name.with_extension("pub");
        // v1: no public key in the file (see the module's doc).
        let v1 = KeypairBytes {
            secret_key: self.key.to_bytes(),
            public_key: None,
        };
        let pem = v1
            .to_pkcs8_pem(LineEnding::LF)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&private)?;
        file.write_all(pem.as_bytes())?;
        file.sync_all()?;
        fs::write(&public, self.public().to_pem())?;
        Ok((private, public))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_sign() {
        let dir = tempfile::tempdir().unwrap();
        let key = PrivateKey::generate().unwrap();
        let (private, public) = key.write(&dir.path().join("platform")).unwrap();
        let back = PrivateKey::read(&private).unwrap();
        let pubkey = PublicKey::read(&public).unwrap();
        assert_eq!(back.id(), key.id());
        assert_eq!(pubkey.id(), key.id());
        assert!(key.id().starts_with("sha256:"));
        let sig = back.sign(b"message");
        assert!(pubkey.verifies(b"message", &sig));
        assert!(!pubkey.verifies(b"messagE", &sig));
        assert!(
            key.write(&dir.path().join("platform")).is_err(),
            "never overwritten"
        );
    }

    /// What `vcc key generate` wrote before: PKCS#8 v2, the public key
    /// appended (`[1]`). Its seed is 32 bytes of 7s.
    const V2_KEY: &str = "-----BEGIN PRIVATE KEY-----\nMFECAQEwBQYDK2VwBCIEIAcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcH\ngSEA6kpsY+KcUgq+9VB7Ey7F+ZVHdq6+vnuSQh7qaRRG0iw=\n-----END PRIVATE KEY-----\n";

    #[test]
    fn keys_are_written_as_pkcs8_v1_and_v2_keys_are_still_read() {
        let dir = tempfile::tempdir().unwrap();
        let key = PrivateKey::generate().unwrap();
        let (private, _) = key.write(&dir.path().join("new")).unwrap();
        let text = std::fs::read_to_string(&private).unwrap();
        // RFC 8410's example is v1: SEQUENCE of 46 bytes, version 0.
        assert!(
            text.starts_with("-----BEGIN PRIVATE KEY-----\nMC4CAQAw"),
            "{text}"
        );
        let old = dir.path().join("old.key");
        std::fs::write(&old, V2_KEY).unwrap();
        std::fs::set_permissions(&old, std::os::unix::fs::PermissionsExt::from_mode(0o600))
            .unwrap();
        let read = PrivateKey::read(&old).unwrap();
        let seed = SigningKey::from_bytes(&[7u8; 32]);
        assert_eq!(read.id(), key_id(&seed.verifying_key()));
        // A v2 key whose public key is not its seed's is refused.
        let other = V2_KEY.replacen("gSEA6kps", "gSEA6kpt", 1);
        std::fs::write(&old, other).unwrap();
        let refused = PrivateKey::read(&old).unwrap_err();
        assert_eq!(refused.code, Code::MalformedKey);
    }

    #[test]
    fn the_wrong_kind_of_pem_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let key = PrivateKey::generate().unwrap();
        let (private, public) = key.write(&dir.path().join("k")).unwrap();
        let given = PublicKey::read(&private).unwrap_err();
        assert_eq!(given.code, Code::PrivateKeyGiven);
        assert_eq!(
            PrivateKey::read(&public).unwrap_err().code,
            Code::MalformedKey
        );
        let garbage = PublicKey::from_pem(
            "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
            "x",
        );
        assert_eq!(garbage.unwrap_err().code, Code::MalformedKey);
        std::fs::set_permissions(
            &private,
            std::os::unix::fs::PermissionsExt::from_mode(0o644),
        )
        .unwrap();
        assert!(
            PrivateKey::read(&private)
                .unwrap_err()
                .message
                .contains("chmod 600")
        );
    }

    #[test]
    fn an_endless_key_file_is_refused_after_its_cap() {
        // A trust policy naming /dev/zero as a key file: refused, not read
        // until memory runs out.
        let refused = PublicKey::read(Path::new("/dev/zero")).unwrap_err();
        assert_eq!(refused.code, Code::MalformedKey);
        assert_eq!(
            refused.message,
            "/dev/zero: over 65536 bytes: not a public key"
        );
    }
}
