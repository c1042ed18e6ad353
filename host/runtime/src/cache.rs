//! On-disk cache of precompiled components.
//!
//! Compiling a component with Cranelift takes 80 ms for a small Rust
//! validator and ~20 s for a Python or JavaScript one; loading a precompiled
//! one takes well under a millisecond. Entries are keyed by the component's
//! blake3, the engine's compatibility hash and the vcc version, and written
//! atomically (temporary file, then rename).
//!
//! Deserializing a precompiled artifact runs it as native code, so the host
//! only loads entries it wrote itself: each entry carries a keyed blake3 MAC
//! under a per-cache secret key (a 0600 file created on first use). An entry
//! that fails the check — corrupt, torn, or tampered with — is never loaded;
//! it counts as `rejected` and the component is compiled again.

use std::fs;
use std::hash::{Hash, Hasher};
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

const MAGIC: &[u8; 8] = b"VCCCWASM";
const KEY_FILE: &str = "cache.key";

pub struct Cache {
    dir: PathBuf,
    key: [u8; 32],
}

/// What the cache had for a key.
pub enum Lookup {
    Hit(Artifact),
    Miss,
    /// Present but refused (corrupt, tampered, or unreadable).
    Rejected(String),
}

/// A verified entry's precompiled bytes, mapped from the cache file.
pub struct Artifact {
    map: memmap2::Mmap,
    header: usize,
}

impl std::ops::Deref for Artifact {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.map[self.header..]
    }
}

impl Cache {
    /// Open (or create) a cache in `dir`.
    pub fn open(dir: &Path) -> io::Result<Cache> {
        fs::create_dir_all(dir)?;
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
        let key = load_or_create_key(&dir.join(KEY_FILE))?;
        Ok(Cache {
            dir: dir.to_path_buf(),
            key,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The default location: `$VCC_CACHE_DIR`, else `$XDG_CACHE_HOME/vcc`,
    /// else `~/.cache/vcc`.
    pub fn default_dir() -> Option<PathBuf> {
        if let Some(dir) = std::env::var_os("VCC_CACHE_DIR").filter(|d| !d.is_empty()) {
            return Some(PathBuf::from(dir));
        }
        if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
            return Some(PathBuf::from(dir).join("vcc"));
        }
        std::env::var_os("HOME")
            .filter(|d| !d.is_empty())
            .map(|home| PathBuf::from(home).join(".cache").join("vcc"))
    }

    /// The cache key of a component under an engine configuration.
    pub fn key(component_digest: &blake3::Hash, engine_hash: impl Hash) -> String {
        let mut hasher = Blake3StdHasher(blake3::Hasher::new());
        hasher.0.update(b"vcc ");
        hasher.0.update(env!("CARGO_PKG_VERSION").as_bytes());
        hasher.0.update(component_digest.as_bytes());
        engine_hash.hash(&mut hasher);
        hasher.0.finalize().to_hex().to_string()
    }

    /// A MAC under this cache's secret key: only this host's records verify.
    pub(crate) fn mac(&self, bytes: &[u8]) -> blake3::Hash {
        blake3::keyed_hash(&self.key, bytes)
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.cwasm"))
    }

    pub fn get(&self, key: &str) -> Lookup {
        let path = self.path(key);
        let file = match fs::File::open(&path) {
            Ok(file) => file,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Lookup::Miss,
            Err(err) => return Lookup::Rejected(format!("{}: {err}", path.display())),
        };
        // Mapped, not read: a 50 MB Python artifact is checked and handed to
        // wasmtime without a heap copy. Entries are replaced by rename, never
        // rewritten in place, so the mapping cannot shrink under us (only a
        // process of the same user, which owns the 0700 folder, could).
        // SAFETY: see above; the map is read-only.
        let map = match unsafe { memmap2::Mmap::map(&file) } {
            Ok(map) => map,
            Err(err) => return Lookup::Rejected(format!("{}: {err}", path.display())),
        };
        let header = MAGIC.len() + 32;
        if map.len() < header || &map[..MAGIC.len()] != MAGIC {
            return Lookup::Rejected(format!("{}: not a vcc cache entry", path.display()));
        }
        let mut mac = [0u8; 32];
        mac.copy_from_slice(&map[MAGIC.len()..header]);
        // blake3::Hash compares in constant time.
        if self.mac(&map[header..]) != blake3::Hash::from(mac) {
            return Lookup::Rejected(format!(
                "{}: integrity check failed (corrupt or modified)",
                path.display()
            ));
        }
        Lookup::Hit(Artifact { map, header })
    }

    /// Store an entry atomically. Failure to write leaves no partial entry.
    pub fn put(&self, key: &str, artifact: &[u8]) -> io::Result<()> {
        let mac = blake3::keyed_hash(&self.key, artifact);
        let final_path = self.path(key);
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let tmp = self.dir.join(format!(
            ".{key}.{}.{}.tmp",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let result = (|| {
            let mut file = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&tmp)?;
            file.write_all(MAGIC)?;
            file.write_all(mac.as_bytes())?;
            file.write_all(artifact)?;
            file.sync_all()?;
            fs::rename(&tmp, &final_path)
        })();
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        result
    }
}

/// The cache's secret key: created once with 32 bytes from the OS, readable
/// by the owner only. A key file anyone else can write is not trusted.
fn load_or_create_key(path: &Path) -> io::Result<[u8; 32]> {
    match fs::read(path) {
        Ok(bytes) => {
            let meta = fs::metadata(path)?;
            // SAFETY: getuid has no preconditions and cannot fail.
            let me = unsafe { libc::getuid() };
            if meta.uid() != me || meta.mode() & 0o077 != 0 {
                return Err(io::Error::other(format!(
                    "{}: must be owned by the current user with mode 0600",
                    path.display()
                )));
            }
            bytes
                .try_into()
                .map_err(|_| io::Error::other(format!("{}: not a 32-byte key", path.display())))
        }
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            let mut key = [0u8; 32];
            fs::File::open("/dev/urandom")?.read_exact(&mut key)?;
            let tmp = path.with_extension(format!("tmp{}", std::process::id()));
            let mut file = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&tmp)?;
            file.write_all(&key)?;
            file.sync_all()?;
            // Two first runs at once: the first link wins and both use its
            // key (a rename would let the second silently replace it).
            let linked = fs::hard_link(&tmp, path);
            let _ = fs::remove_file(&tmp);
            match linked {
                Ok(()) => {}
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
                Err(err) => return Err(err),
            }
            load_or_create_key(path)
        }
        Err(err) => Err(err),
    }
}

/// Feeds `Hash` implementations into blake3, for a stable key.
struct Blake3StdHasher(blake3::Hasher);

impl Hasher for Blake3StdHasher {
    fn finish(&self) -> u64 {
        let hash = self.0.finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&hash.as_bytes()[..8]);
        u64::from_le_bytes(first)
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_tampering() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        let key = Cache::key(&blake3::hash(b"component"), 42u64);
        assert!(matches!(cache.get(&key), Lookup::Miss));
        cache.put(&key, b"artifact").unwrap();
        match cache.get(&key) {
            Lookup::Hit(bytes) => assert_eq!(&*bytes, b"artifact"),
            _ => panic!("expected a hit"),
        }
        let path = cache.path(&key);
        let mut bytes = fs::read(&path).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        fs::write(&path, bytes).unwrap();
        assert!(matches!(cache.get(&key), Lookup::Rejected(_)));
        // Another cache (another key) cannot vouch for this one's entries.
        let other = tempfile::tempdir().unwrap();
        let foreign = Cache::open(other.path()).unwrap();
        foreign.put(&key, b"artifact").unwrap();
        fs::copy(foreign.path(&key), cache.path(&key)).unwrap();
        assert!(matches!(cache.get(&key), Lookup::Rejected(_)));
    }

    #[test]
    fn keys_depend_on_component_and_engine() {
        let a = Cache::key(&blake3::hash(b"a"), 1u64);
        assert_eq!(a, Cache::key(&blake3::hash(b"a"), 1u64));
        assert_ne!(a, Cache::key(&blake3::hash(b"b"), 1u64));
        assert_ne!(a, Cache::key(&blake3::hash(b"a"), 2u64));
    }

    #[test]
    fn a_key_file_others_can_write_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        Cache::open(dir.path()).unwrap();
        let key = dir.path().join(KEY_FILE);
        fs::set_permissions(&key, fs::Permissions::from_mode(0o666)).unwrap();
        assert!(Cache::open(dir.path()).is_err());
    }
}
