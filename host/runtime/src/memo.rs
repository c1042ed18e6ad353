//! Digests remembered by file metadata, so a second run over an unchanged
//! tree does not read it again (as `git status` trusts its index).
//!
//! One memo per scope (a deliverable root, or the path of the `vcc`
//! executable itself), kept in the component cache and MAC'd with its key, so only
//! this host's own records are believed. An entry is used only when the
//! file's device, inode, size, mtime and ctime are exactly as recorded, and
//! its ctime is well before the moment the recording run started reading:
//! a file written in the same clock tick as it was hashed could change
//! without its timestamps showing it ("racily clean", in git's words), so
//! it is hashed again. Every write to a file sets its ctime to the current
//! time, and ctime cannot be set back by a user, so a file changed after
//! it was hashed never matches its entry.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::cache::Cache;
use crate::stat::{StatKey, is_racy};
// The snapshot's tests read the clock here, where it used to be.
#[cfg(test)]
pub(crate) use crate::stat::now;

/// A memo file: this, the MAC (32 bytes) of the folder's path and the
/// body, then the body: per file, the path's length (u32), the path, the
/// seven numbers of its [`StatKey`] (u64/i64) and its digest (32 bytes),
/// little-endian. Binary, because the text form's hex digests and decimal
/// numbers were a sixth of a second run over 100,000 files (W5).
const MAGIC: &[u8] = b"vcc-memo 2\n";
const MAC_LEN: usize = 32;
/// The fixed part of a record after its path: seven numbers and a digest.
const RECORD_TAIL: usize = 7 * 8 + 32;

/// What a memo knew when it was loaded.
#[derive(Default)]
pub struct Memo {
    entries: HashMap<Box<str>, (StatKey, blake3::Hash)>,
}

impl Memo {
    /// The remembered digest of `path`, if its metadata is unchanged.
    pub fn get(&self, path: &str, stat: &StatKey) -> Option<blake3::Hash> {
        match self.entries.get(path) {
            Some((known, digest)) if known == stat => Some(*digest),
            _ => None,
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl Cache {
    fn memo_path(&self, folder: &Path) -> PathBuf {
        let id = blake3::hash(folder.as_os_str().as_encoded_bytes());
        self.dir().join("memo").join(format!("{}.bin", id.to_hex()))
    }

    /// The MAC covers the folder: a memo copied under another folder's
    /// name is not believed.
    fn memo_mac(&self, folder: &Path, body: &[u8]) -> blake3::Hash {
        let mut keyed = self.mac_hasher();
        keyed.update(folder.as_os_str().as_encoded_bytes());
        keyed.update(b"\n");
        keyed.update(body);
        keyed.finalize()
    }

    /// Whether `folder`'s memo is large enough to be worth loading on a
    /// thread of its own (about 10,000 files).
    pub fn memo_is_large(&self, folder: &Path) -> bool {
        fs::metadata(self.memo_path(folder)).is_ok_and(|m| m.len() > 1 << 20)
    }

    /// The memo of `folder` (canonical path); empty when there is none or
    /// it fails its check.
    pub fn load_memo(&self, folder: &Path) -> Memo {
        let Ok(bytes) = fs::read(self.memo_path(folder)) else {
            return Memo::default();
        };
        let Some(rest) = bytes.strip_prefix(MAGIC) else {
            return Memo::default();
        };
        let Some((mac, body)) = rest.split_first_chunk::<MAC_LEN>() else {
            return Memo::default();
        };
        // blake3::Hash compares in constant time.
        if blake3::Hash::from_bytes(*mac) != self.memo_mac(folder, body) {
            return Memo::default();
        }
        Memo {
            entries: parse_records(body).unwrap_or_default(),
        }
    }

    /// Record the digests of `folder`'s files, hashed by a run that started
    /// reading at `started` (from [`now`]). Racy entries are left out.
    pub fn save_memo<'a>(
        &self,
        folder: &Path,
        started: (i64, i64),
        files: impl Iterator<Item = (&'a str, &'a StatKey, &'a blake3::Hash)>,
    ) -> io::Result<()> {
        let mut body = Vec::new();
        for (path, stat, digest) in files {
            let Ok(len) = u32::try_from(path.len()) else {
                continue;
            };
            if is_racy(stat, started) {
                continue;
            }
            body.extend_from_slice(&len.to_le_bytes());
            body.extend_from_slice(path.as_bytes());
            for n in [stat.dev, stat.ino, stat.size] {
                body.extend_from_slice(&n.to_le_bytes());
            }
            for n in [stat.mtime.0, stat.mtime.1, stat.ctime.0, stat.ctime.1] {
                body.extend_from_slice(&n.to_le_bytes());
            }
            body.extend_from_slice(digest.as_bytes());
        }
        let path = self.memo_path(folder);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        let mac = self.memo_mac(folder, &body);
        let mut file = Vec::with_capacity(MAGIC.len() + MAC_LEN + body.len());
        file.extend_from_slice(MAGIC);
        file.extend_from_slice(mac.as_bytes());
        file.extend_from_slice(&body);
        self.write_atomically(&path, &file, false)
    }
}

/// The records of a memo's body; `None` if any is cut short or not UTF-8
/// (the MAC held, so that is a bug, and the memo is simply not used).
fn parse_records(mut body: &[u8]) -> Option<HashMap<Box<str>, (StatKey, blake3::Hash)>> {
    let mut entries = HashMap::new();
    while !body.is_empty() {
        let (len, rest) = body.split_first_chunk::<4>()?;
        let len = u32::from_le_bytes(*len) as usize;
        let (path, rest) = rest.split_at_checked(len)?;
        let (tail, rest) = rest.split_at_checked(RECORD_TAIL)?;
        let n = |i: usize| -> Option<[u8; 8]> { tail.get(i * 8..i * 8 + 8)?.try_into().ok() };
        let u = |i| n(i).map(u64::from_le_bytes);
        let s = |i| n(i).map(i64::from_le_bytes);
        let stat = StatKey {
            dev: u(0)?,
            ino: u(1)?,
            size: u(2)?,
            mtime: (s(3)?, s(4)?),
            ctime: (s(5)?, s(6)?),
        };
        let digest: [u8; 32] = tail.get(56..)?.try_into().ok()?;
        let path = std::str::from_utf8(path).ok()?;
        entries.insert(path.into(), (stat, blake3::Hash::from_bytes(digest)));
        body = rest;
    }
    Some(entries)
}

const PARAMS_MAGIC: &str = "vcc-params 1";
/// Params checks remembered at most (any beyond are not written).
const MAX_VALID_PARAMS: usize = 4096;

impl Cache {
    fn params_path(&self) -> PathBuf {
        self.dir().join("memo").join("valid-params.txt")
    }

    /// Keys of params checks that passed (see `vcc_contract::params_key`);
    /// empty when there is no record or it fails its check.
    pub fn load_valid_params(&self) -> HashSet<blake3::Hash> {
        let Ok(text) = fs::read_to_string(self.params_path()) else {
            return HashSet::new();
        };
        let Some((header, body)) = text.split_once('\n') else {
            return HashSet::new();
        };
        // blake3::Hash compares in constant time.
        match header
            .strip_prefix(PARAMS_MAGIC)
            .map(str::trim)
            .map(blake3::Hash::from_hex)
        {
            Some(Ok(mac)) if mac == self.mac(body.as_bytes()) => {}
            _ => return HashSet::new(),
        }
        body.lines()
            .filter_map(|l| blake3::Hash::from_hex(l).ok())
            .collect()
    }

    pub fn save_valid_params(&self, keys: &HashSet<blake3::Hash>) -> io::Result<()> {
        let mut body = String::new();
        for key in keys.iter().take(MAX_VALID_PARAMS) {
            body.push_str(&key.to_hex());
            body.push('\n');
        }
        let path = self.params_path();
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        let text = format!(
            "{PARAMS_MAGIC} {}\n{body}",
            self.mac(body.as_bytes()).to_hex()
        );
        self.write_atomically(&path, text.as_bytes(), false)
    }
}

const DESCRIBED_MAGIC: &str = "vcc-described 1";

impl Cache {
    fn described_path(&self, digest: &blake3::Hash) -> PathBuf {
        self.dir()
            .join("memo")
            .join(format!("described-{}.json", digest.to_hex()))
    }

    /// What a built-in validator's `describe()` answered, kept by the
    /// digest of its component: `describe()` is a pure function of the
    /// component (time and randomness are fixed), and asking costs an
    /// instance per run, more than the rest of a tiny check's guest work.
    /// The MAC covers the digest, so an answer copied under another
    /// component's name is refused.
    pub fn load_described(&self, digest: &blake3::Hash) -> Option<String> {
        let text = fs::read_to_string(self.described_path(digest)).ok()?;
        let (header, body) = text.split_once('\n')?;
        let mac = blake3::Hash::from_hex(header.strip_prefix(DESCRIBED_MAGIC)?.trim()).ok()?;
        // blake3::Hash compares in constant time.
        (mac == self.described_mac(digest, body)).then(|| body.to_string())
    }

    pub fn save_described(&self, digest: &blake3::Hash, description: &str) -> io::Result<()> {
        let path = self.described_path(digest);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        let mac = self.described_mac(digest, description);
        let text = format!("{DESCRIBED_MAGIC} {}\n{description}", mac.to_hex());
        self.write_atomically(&path, text.as_bytes(), false)
    }

    fn described_mac(&self, digest: &blake3::Hash, body: &str) -> blake3::Hash {
        self.mac(format!("{}\n{body}", digest.to_hex()).as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(ctime: i64) -> StatKey {
        StatKey {
            dev: 1,
            ino: 2,
            size: 3,
            mtime: (4, 5),
            ctime: (ctime, 6),
        }
    }

    #[test]
    fn a_description_is_believed_only_under_its_own_digest() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        let (one, two) = (blake3::hash(b"one"), blake3::hash(b"two"));
        assert_eq!(cache.load_described(&one), None);
        cache.save_described(&one, "{\"schema\":1}").unwrap();
        assert_eq!(
            cache.load_described(&one).as_deref(),
            Some("{\"schema\":1}")
        );
        // Copied under another component's name: refused.
        fs::copy(cache.described_path(&one), cache.described_path(&two)).unwrap();
        assert_eq!(cache.load_described(&two), None);
        // Edited: refused.
        let path = cache.described_path(&one);
        let text = fs::read_to_string(&path).unwrap().replace("1}", "2}");
        fs::write(&path, text).unwrap();
        assert_eq!(cache.load_described(&one), None);
    }

    #[test]
    fn remembers_only_settled_files_and_refuses_tampering() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        let folder = Path::new("/some/root");
        assert!(cache.load_memo(folder).is_empty());
        let digest = blake3::hash(b"bytes");
        let (old, racy) = (stat(1_000), stat(2_000));
        let files = [
            ("old file.txt", &old, &digest),
            ("racy.txt", &racy, &digest),
        ];
        cache
            .save_memo(folder, (2_001, 0), files.into_iter())
            .unwrap();
        let memo = cache.load_memo(folder);
        assert_eq!(memo.get("old file.txt", &old), Some(digest));
        // Changed metadata, or a file hashed within the racy margin: hash again.
        assert_eq!(memo.get("old file.txt", &stat(1_001)), None);
        assert_eq!(memo.get("racy.txt", &racy), None);
        assert!(cache.load_memo(Path::new("/another/root")).is_empty());

        let path = cache.memo_path(folder);
        // Copied under another root's name: not believed there.
        let another = Path::new("/another/root");
        fs::copy(&path, cache.memo_path(another)).unwrap();
        assert!(cache.load_memo(another).is_empty());
        let bytes = fs::read(&path).unwrap();
        let at = bytes.windows(8).position(|w| w == b"old file").unwrap();
        let mut tampered = bytes.clone();
        tampered[at..at + 3].copy_from_slice(b"new");
        fs::write(&path, tampered).unwrap();
        assert!(
            cache.load_memo(folder).is_empty(),
            "a tampered memo is ignored"
        );
    }

    #[test]
    fn any_path_round_trips_and_a_cut_memo_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        let folder = Path::new("/root");
        let digest = blake3::hash(b"bytes");
        let old = stat(1_000);
        let names = ["a\nb", "sp ace", "ünï", ""];
        let files = names.iter().map(|n| (*n, &old, &digest));
        cache.save_memo(folder, (5_000, 0), files).unwrap();
        let memo = cache.load_memo(folder);
        assert_eq!(memo.len(), names.len());
        for n in names {
            assert_eq!(memo.get(n, &old), Some(digest), "{n:?}");
        }
        assert_eq!(parse_records(&[1, 0, 0, 0, b'x']), None);
    }
}
