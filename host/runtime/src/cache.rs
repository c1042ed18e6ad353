//! On-disk cache of precompiled components.
//!
//! Compiling a component with Cranelift takes 80 ms for a small Rust
//! validator and ~20 s for a Python or JavaScript one; loading a precompiled
//! one takes well under a millisecond. Entries are keyed by the component's
//! blake3, the engine's compatibility hash and the vcc version, and written
//! atomically (temporary file, then rename).
//!
//! Deserializing a precompiled artifact runs it as native code, so the host
//! only loads entries it wrote itself. Each entry is two files: `KEY.cwasm`,
//! the artifact exactly as wasmtime wrote it (so `deserialize_file` can map
//! it without a copy), and `KEY.seal`, a small record MAC'd with keyed blake3
//! under a per-cache secret key (a 0600 file created on first use). The seal
//! holds the artifact's MAC, what the component's `describe()` said, and —
//! once the artifact has been checked at least two seconds after it was
//! written — its metadata, so later runs trust it by `stat` instead of
//! hashing megabytes (any write changes ctime; see `memo.rs`). An entry that
//! fails a check — corrupt, torn, or tampered with — is never loaded; it
//! counts as `rejected` and the component is compiled again.
//!
//! The MAC catches corruption and entries from elsewhere; it is no defence
//! against a process of the same user, which can read the key. So the
//! cache is trusted state: a folder that is group- or world-writable, not
//! owned by the current user, or under a folder others can rename things
//! in, is refused outright (the way ssh refuses a loose key file), and
//! `vcc check` refuses a cache inside the deliverable root. The standard
//! validators' code never comes from an entry (it is embedded,
//! precompiled; a decompressed copy of it kept in `std/` is used only if
//! it hashes to the digest in the executable: `std_code.rs`).
//!
//! The cache is bounded (`VCC_CACHE_MAX_SIZE`, default 1 GiB): storing an
//! entry evicts the least recently used ones past the bound (`evict.rs`).

use std::collections::HashSet;
use std::fs;
use std::hash::{Hash, Hasher};
use std::io::{self, Read, Seek, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::stat::{self, StatKey};

/// The default bound on the cache's entries (`VCC_CACHE_MAX_SIZE`).
pub const DEFAULT_MAX_SIZE: u64 = 1 << 30;

/// Version 2 binds a seal to its entry's name: an entry copied under
/// another component's name fails its check (version 1 seals are refused,
/// and their entries compiled again).
const SEAL_MAGIC: &str = "vcc-seal 2";
const KEY_FILE: &str = "cache.key";
/// How often a process waiting for another's compile looks at the lock.
const LOCK_POLL: Duration = Duration::from_millis(20);

pub struct Cache {
    dir: PathBuf,
    key: [u8; 32],
    /// Entries this process loaded or stored: never evicted by it.
    pub(crate) in_use: Mutex<HashSet<String>>,
    /// Eviction keeps the entries under this many bytes.
    pub(crate) max_size: u64,
}

/// What the cache had for a key.
pub enum Lookup {
    Hit(Artifact),
    Miss,
    /// Present but refused (corrupt, tampered, or unreadable).
    Rejected(String),
}

/// A verified entry: the artifact file, opened (the checked inode is the
/// one loaded), and what `describe()` said when it was stored.
pub struct Artifact {
    pub file: fs::File,
    pub description: Option<String>,
}

/// The MAC'd record beside an artifact.
#[derive(Default)]
struct Seal {
    artifact_mac: Option<blake3::Hash>,
    /// The artifact's metadata when it was last checked (not racy).
    stat: Option<StatKey>,
    /// `describe()`'s answer, as JSON on one line.
    description: Option<String>,
}

/// Why a cache could not be used.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// Others could write it: refused, never silently skipped.
    #[error("refusing the component cache {dir}: {why}")]
    Untrusted { dir: String, why: String },
    /// It cannot be created or read: running without it is safe.
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl Cache {
    /// Open (or create, mode 0700) a cache in `dir`, if it is safe to trust.
    pub fn open(dir: &Path) -> Result<Cache, OpenError> {
        vcc_trust::dirs::create_private(dir)?;
        vcc_trust::dirs::trusted(dir).map_err(|why| OpenError::Untrusted {
            dir: dir.display().to_string(),
            why,
        })?;
        let key = load_or_create_key(&dir.join(KEY_FILE))?;
        Ok(Cache {
            dir: dir.to_path_buf(),
            key,
            in_use: Mutex::new(HashSet::new()),
            max_size: max_size_from_env()?,
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

    /// Where cached judge answers are kept, and the key they are sealed
    /// with (derived from the cache's secret, for this use only).
    pub fn judge_store(&self) -> (PathBuf, [u8; 32]) {
        (
            self.dir.join("judge"),
            blake3::derive_key("vcc 2026 judge cache seal", &self.key),
        )
    }

    /// A MAC under this cache's secret key: only this host's records verify.
    pub(crate) fn mac(&self, bytes: &[u8]) -> blake3::Hash {
        blake3::keyed_hash(&self.key, bytes)
    }

    /// [`Cache::mac`] over parts written one after another.
    pub(crate) fn mac_hasher(&self) -> blake3::Hasher {
        blake3::Hasher::new_keyed(&self.key)
    }

    fn path(&self, key: &str, ext: &str) -> PathBuf {
        self.dir.join(format!("{key}.{ext}"))
    }

    /// The right to compile `key`, across processes: the first to miss
    /// holds an exclusive lock on `KEY.lock` while it compiles and stores;
    /// the others wait for it, then find the entry. The kernel drops the
    /// lock when its holder exits, even by SIGKILL, so no one waits on a
    /// dead compiler; one that hangs is waited for `patience` at most, then
    /// compiled around (`None`: compiling anyway is always correct, only
    /// slower). Without a lock file (a read-only cache), `None` at once.
    pub fn compile_lock(&self, key: &str, patience: Duration) -> Option<fs::File> {
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.path(key, "lock"))
            .ok()?;
        let start = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Some(file),
                Err(fs::TryLockError::WouldBlock) if start.elapsed() < patience => {
                    std::thread::sleep(LOCK_POLL);
                }
                Err(_) => return None,
            }
        }
    }

    pub fn get(&self, key: &str) -> Lookup {
        let lookup = self.get_at(key, stat::now());
        if let Lookup::Hit(_) = lookup {
            self.mark_used(key);
        }
        lookup
    }

    /// [`Cache::get`] as if the time were `now` (from [`stat::now`]).
    fn get_at(&self, key: &str, now: (i64, i64)) -> Lookup {
        let path = self.path(key, "cwasm");
        let file = match fs::File::open(&path) {
            Ok(file) => file,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Lookup::Miss,
            Err(err) => return Lookup::Rejected(format!("{}: {err}", path.display())),
        };
        let seal = match self.read_seal(key) {
            Ok(seal) => seal,
            Err(why) => return Lookup::Rejected(why),
        };
        let stat = match file.metadata() {
            Ok(meta) => StatKey::of_std(&meta),
            Err(err) => return Lookup::Rejected(format!("{}: {err}", path.display())),
        };
        if seal.stat != Some(stat) {
            // Not vouched for by metadata: check every byte (read, not
            // mapped: a file truncated under a map would kill vcc).
            let mut mac = blake3::Hasher::new_keyed(&self.key);
            if let Err(err) = mac
                .update_reader(&file)
                .and_then(|_| (&file).seek(io::SeekFrom::Start(0)))
            {
                return Lookup::Rejected(format!("{}: {err}", path.display()));
            }
            // blake3::Hash compares in constant time.
            if seal.artifact_mac != Some(mac.finalize()) {
                return Lookup::Rejected(format!(
                    "{}: integrity check failed (corrupt or modified)",
                    path.display()
                ));
            }
            if !stat::is_racy(&stat, now) {
                // Only a speed-up: a seal that cannot be rewritten is not an error.
                let _ = self.write_seal(
                    key,
                    &Seal {
                        stat: Some(stat),
                        ..seal
                    },
                );
                return Lookup::Hit(Artifact {
                    file,
                    description: self.read_seal(key).ok().and_then(|s| s.description),
                });
            }
        }
        Lookup::Hit(Artifact {
            file,
            description: seal.description,
        })
    }

    /// Store an entry atomically. Failure to write leaves no partial entry.
    pub fn put(&self, key: &str, artifact: &[u8]) -> io::Result<()> {
        self.write_atomically(&self.path(key, "cwasm"), artifact, true)?;
        let seal = Seal {
            artifact_mac: Some(self.mac(artifact)),
            ..Seal::default()
        };
        self.write_seal(key, &seal)?;
        self.mark_used(key);
        self.keep_bounded();
        Ok(())
    }

    /// Remember what an entry's component said from `describe()` (JSON),
    /// so later runs need not instantiate it to ask again.
    pub fn remember_description(&self, key: &str, description: &str) -> io::Result<()> {
        let seal = self.read_seal(key).map_err(io::Error::other)?;
        if seal.artifact_mac.is_none() || description.contains('\n') {
            return Ok(());
        }
        self.write_seal(
            key,
            &Seal {
                description: Some(description.to_string()),
                ..seal
            },
        )
    }

    fn read_seal(&self, key: &str) -> Result<Seal, String> {
        let path = self.path(key, "seal");
        let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let refused = || {
            format!(
                "{}: integrity check failed (not written by this cache)",
                path.display()
            )
        };
        let (header, body) = text.split_once('\n').ok_or_else(refused)?;
        let mac = header
            .strip_prefix(SEAL_MAGIC)
            .map(str::trim)
            .ok_or_else(refused)?;
        // blake3::Hash compares in constant time.
        match blake3::Hash::from_hex(mac) {
            Ok(mac) if mac == self.seal_mac(key, body) => {}
            _ => return Err(refused()),
        }
        let mut seal = Seal::default();
        for line in body.lines() {
            match line.split_once(' ') {
                Some(("artifact", mac)) => seal.artifact_mac = blake3::Hash::from_hex(mac).ok(),
                Some(("stat", stat)) => seal.stat = stat::parse_stat(stat),
                Some(("describe", json)) => seal.description = Some(json.to_string()),
                _ => {}
            }
        }
        Ok(seal)
    }

    fn write_seal(&self, key: &str, seal: &Seal) -> io::Result<()> {
        let mut body = String::new();
        if let Some(mac) = seal.artifact_mac {
            body.push_str(&format!("artifact {}\n", mac.to_hex()));
        }
        if let Some(stat) = &seal.stat {
            body.push_str(&format!("stat {}\n", stat::format_stat(stat)));
        }
        if let Some(json) = &seal.description {
            body.push_str(&format!("describe {json}\n"));
        }
        let text = format!(
            "{SEAL_MAGIC} {}\n{body}",
            self.seal_mac(key, &body).to_hex()
        );
        self.write_atomically(&self.path(key, "seal"), text.as_bytes(), false)
    }

    /// A seal's MAC covers the name of its entry (the component's digest
    /// and the compiler, hashed): the code of one component, sealed, is
    /// never taken for another's.
    fn seal_mac(&self, key: &str, body: &str) -> blake3::Hash {
        self.mac(format!("{key}\n{body}").as_bytes())
    }

    /// Write `bytes` to `path` through a temporary file and a rename.
    pub(crate) fn write_atomically(&self, path: &Path, bytes: &[u8], sync: bool) -> io::Result<()> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = path.with_file_name(format!(
            ".{name}.{}.{}.tmp",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let result = (|| {
            let mut file = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&tmp)?;
            file.write_all(bytes)?;
            if sync {
                file.sync_all()?;
            }
            fs::rename(&tmp, path)
        })();
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        result
    }
}

/// `VCC_CACHE_MAX_SIZE` (`2GiB`, `500MiB`), else the default bound.
fn max_size_from_env() -> io::Result<u64> {
    match std::env::var("VCC_CACHE_MAX_SIZE") {
        Ok(text) if !text.is_empty() => vcc_contract::ByteSize::parse(&text)
            .map(|s| s.0)
            .map_err(|e| io::Error::other(format!("VCC_CACHE_MAX_SIZE={text}: {e}"))),
        _ => Ok(DEFAULT_MAX_SIZE),
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

    fn hit(lookup: Lookup) -> Vec<u8> {
        match lookup {
            Lookup::Hit(mut artifact) => {
                let mut bytes = Vec::new();
                artifact.file.read_to_end(&mut bytes).unwrap();
                bytes
            }
            Lookup::Miss => panic!("expected a hit, got a miss"),
            Lookup::Rejected(why) => panic!("expected a hit, got rejected: {why}"),
        }
    }

    #[test]
    fn round_trips_and_refuses_tampering() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        let key = Cache::key(&blake3::hash(b"component"), 42u64);
        assert!(matches!(cache.get(&key), Lookup::Miss));
        cache.put(&key, b"artifact").unwrap();
        assert_eq!(hit(cache.get(&key)), b"artifact");
        let path = cache.path(&key, "cwasm");
        fs::write(&path, b"artifacT").unwrap();
        assert!(matches!(cache.get(&key), Lookup::Rejected(_)));
        // Another cache (another key) cannot vouch for this one's entries.
        let other = tempfile::tempdir().unwrap();
        let foreign = Cache::open(other.path()).unwrap();
        foreign.put(&key, b"artifact").unwrap();
        for ext in ["cwasm", "seal"] {
            fs::copy(foreign.path(&key, ext), cache.path(&key, ext)).unwrap();
        }
        assert!(matches!(cache.get(&key), Lookup::Rejected(_)));
    }

    #[test]
    fn a_settled_entry_is_trusted_by_metadata_until_it_changes() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        let key = Cache::key(&blake3::hash(b"component"), 42u64);
        cache.put(&key, b"artifact").unwrap();
        cache.remember_description(&key, r#"{"name":"x"}"#).unwrap();
        // An hour old: the rewrite below moves its modification time
        // however soon it comes (no wait for a coarse timestamp tick).
        let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        fs::File::open(cache.path(&key, "cwasm"))
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
        let later = (stat::now().0 + 10, 0);
        // Checked in full, and (not racy any more) its metadata recorded.
        assert_eq!(hit(cache.get_at(&key, later)), b"artifact");
        assert!(cache.read_seal(&key).unwrap().stat.is_some());
        match cache.get_at(&key, later) {
            Lookup::Hit(a) => assert_eq!(a.description.as_deref(), Some(r#"{"name":"x"}"#)),
            _ => panic!("expected a hit"),
        }
        // Rewritten in place with the same size: its times move, so the
        // bytes are checked again and refused.
        fs::write(cache.path(&key, "cwasm"), b"artifacT").unwrap();
        assert!(matches!(cache.get_at(&key, later), Lookup::Rejected(_)));
        // A seal edited by hand fails its own MAC.
        cache.put(&key, b"artifact").unwrap();
        let seal = cache.path(&key, "seal");
        let text = fs::read_to_string(&seal).unwrap();
        fs::write(&seal, text.replace("artifact ", "artifact  ")).unwrap();
        assert!(matches!(cache.get_at(&key, later), Lookup::Rejected(_)));
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
        fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(0o666)).unwrap();
        assert!(Cache::open(dir.path()).is_err());
    }
}
