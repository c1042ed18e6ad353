//! Keeping the component cache bounded: `vcc cache stats|prune|clear`, and
//! least-recently-used eviction after every new entry.
//!
//! Each entry is `KEY.cwasm`, `KEY.seal` and `KEY.used`, an empty file
//! whose modification time is the entry's last use (touching the artifact
//! itself would move its ctime and cost a full re-check on the next run;
//! see `cache.rs`). Eviction never removes an entry this process loaded or
//! stored, nor one any run used in the last minute: it may be loading it
//! right now. Removing a file another process has open or mapped is safe
//! on Unix (the inode lives until it is closed); that run just compiles
//! again next time.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::cache::Cache;

/// An entry used this recently may be in use by another run.
const IN_USE_GRACE: Duration = Duration::from_secs(60);

/// What the cache holds.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CacheStats {
    pub dir: String,
    /// Precompiled components.
    pub entries: usize,
    pub entry_bytes: u64,
    /// Remembered file digests and params checks (`memo/`).
    pub memos: usize,
    pub memo_bytes: u64,
    /// The bound eviction keeps the entries under.
    pub max_size: u64,
    /// Seconds since the least and the most recently used entry was used.
    pub oldest_use_secs: Option<u64>,
    pub newest_use_secs: Option<u64>,
}

/// What a prune or clear did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Pruned {
    pub removed: usize,
    pub removed_bytes: u64,
    pub memos_removed: usize,
    pub kept: usize,
    pub kept_bytes: u64,
    /// Entries that would have gone but are in use.
    pub in_use: usize,
}

struct Entry {
    key: String,
    bytes: u64,
    used: SystemTime,
}

impl Cache {
    /// Record a use of `key` (a hit or a store) for eviction.
    pub(crate) fn mark_used(&self, key: &str) {
        if let Ok(mut in_use) = self.in_use.lock() {
            in_use.insert(key.to_string());
        }
        let path = self.dir().join(format!("{key}.used"));
        // Only eviction order depends on it: a failure is not an error.
        let _ = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(SystemTime::now()));
    }

    /// After a new entry: evict the least recently used past the bound.
    pub(crate) fn keep_bounded(&self) {
        let _ = self.prune(None, Some(self.max_size));
    }

    pub fn stats(&self) -> io::Result<CacheStats> {
        let entries = self.entries()?;
        let (memos, memo_bytes) = self
            .memos()?
            .iter()
            .fold((0, 0), |(n, b), (_, size, _)| (n + 1, b + size));
        let now = SystemTime::now();
        let age = |t: SystemTime| now.duration_since(t).unwrap_or_default().as_secs();
        Ok(CacheStats {
            dir: self.dir().display().to_string(),
            entries: entries.len(),
            entry_bytes: entries.iter().map(|e| e.bytes).sum(),
            memos,
            memo_bytes,
            max_size: self.max_size,
            oldest_use_secs: entries.iter().map(|e| e.used).min().map(age),
            newest_use_secs: entries.iter().map(|e| e.used).max().map(age),
        })
    }

    /// Remove entries (and memos) not used for `older_than`, then the least
    /// recently used entries until the rest fit in `max_size`. Entries in
    /// use are kept, and counted.
    pub fn prune(&self, older_than: Option<Duration>, max_size: Option<u64>) -> io::Result<Pruned> {
        let now = SystemTime::now();
        let mut entries = self.entries()?;
        // Most recently used first: eviction takes from the end.
        entries.sort_by(|a, b| b.used.cmp(&a.used).then_with(|| a.key.cmp(&b.key)));
        let in_use: HashSet<String> = self.in_use.lock().map(|s| s.clone()).unwrap_or_default();
        let busy = |e: &Entry| {
            in_use.contains(&e.key) || now.duration_since(e.used).unwrap_or_default() < IN_USE_GRACE
        };
        let mut pruned = Pruned::default();
        let mut total: u64 = entries.iter().map(|e| e.bytes).sum();
        let mut kept = Vec::new();
        for entry in entries.into_iter() {
            let stale =
                older_than.is_some_and(|d| now.duration_since(entry.used).unwrap_or_default() > d);
            if stale && !busy(&entry) {
                total -= entry.bytes;
                self.remove(&entry, &mut pruned)?;
            } else {
                if stale {
                    pruned.in_use += 1;
                }
                kept.push(entry);
            }
        }
        if let Some(max) = max_size {
            // `kept` is most recent first: walk it from the end.
            let mut survivors = Vec::new();
            while let Some(entry) = kept.pop() {
                if total > max && !busy(&entry) {
                    total -= entry.bytes;
                    self.remove(&entry, &mut pruned)?;
                } else {
                    if total > max {
                        pruned.in_use += 1;
                    }
                    survivors.push(entry);
                }
            }
            kept = survivors;
        }
        pruned.kept = kept.len();
        pruned.kept_bytes = kept.iter().map(|e| e.bytes).sum();
        if let Some(d) = older_than {
            for (path, _, modified) in self.memos()? {
                if now.duration_since(modified).unwrap_or_default() > d {
                    remove_file(&path)?;
                    pruned.memos_removed += 1;
                }
            }
        }
        Ok(pruned)
    }

    /// Remove every entry and memo; the cache's key stays.
    pub fn clear(&self) -> io::Result<Pruned> {
        let mut pruned = Pruned::default();
        for entry in self.entries()? {
            self.remove(&entry, &mut pruned)?;
        }
        for (path, _, _) in self.memos()? {
            remove_file(&path)?;
            pruned.memos_removed += 1;
        }
        // The std validators' decompressed code (std_code.rs): the next run
        // that uses one decompresses it again.
        match fs::remove_dir_all(self.dir().join("std")) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        Ok(pruned)
    }

    fn remove(&self, entry: &Entry, pruned: &mut Pruned) -> io::Result<()> {
        // The artifact first: an entry without it is a miss, never a hit.
        for ext in ["cwasm", "seal", "used", "lock"] {
            remove_file(&self.dir().join(format!("{}.{ext}", entry.key)))?;
        }
        pruned.removed += 1;
        pruned.removed_bytes += entry.bytes;
        Ok(())
    }

    /// Every entry: a `KEY.cwasm` whose name is a cache key.
    fn entries(&self) -> io::Result<Vec<Entry>> {
        let mut entries = Vec::new();
        for item in fs::read_dir(self.dir())? {
            let item = item?;
            let name = item.file_name();
            let Some(key) = name.to_str().and_then(|n| n.strip_suffix(".cwasm")) else {
                continue;
            };
            if key.len() != 64 || !key.bytes().all(|b| b.is_ascii_hexdigit()) {
                continue;
            }
            let meta = item.metadata()?;
            let side = |ext: &str| fs::metadata(self.dir().join(format!("{key}.{ext}"))).ok();
            let used = side("used")
                .and_then(|m| m.modified().ok())
                .or_else(|| meta.modified().ok())
                .unwrap_or(SystemTime::UNIX_EPOCH);
            let bytes = meta.len() + side("seal").map_or(0, |m| m.len());
            entries.push(Entry {
                key: key.to_string(),
                bytes,
                used,
            });
        }
        Ok(entries)
    }

    /// The files of `memo/` and `judge/` (cached judge answers, small and
    /// pruned by age like memos): path, size, modification time.
    fn memos(&self) -> io::Result<Vec<(std::path::PathBuf, u64, SystemTime)>> {
        let mut memos = Vec::new();
        for folder in ["memo", "judge"] {
            let items = match fs::read_dir(self.dir().join(folder)) {
                Ok(items) => items,
                Err(err) if err.kind() == io::ErrorKind::NotFound => continue,
                Err(err) => return Err(err),
            };
            for item in items {
                let item = item?;
                let meta = item.metadata()?;
                if meta.is_file() {
                    memos.push((
                        item.path(),
                        meta.len(),
                        meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                    ));
                }
            }
        }
        Ok(memos)
    }
}

/// Remove a file that may already be gone (another run pruned it).
fn remove_file(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(err) if err.kind() != io::ErrorKind::NotFound => Err(err),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::Lookup;

    fn old(cache: &Cache, key: &str, secs: u64) {
        let path = cache.dir().join(format!("{key}.used"));
        let f = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .unwrap();
        f.set_modified(SystemTime::now() - Duration::from_secs(secs))
            .unwrap();
    }

    fn key(n: u8) -> String {
        Cache::key(&blake3::hash(&[n]), 1u64)
    }

    #[test]
    fn least_recently_used_entries_go_first_and_entries_in_use_stay() {
        let dir = tempfile::tempdir().unwrap();
        let writer = Cache::open(dir.path()).unwrap();
        for n in 0..4 {
            writer.put(&key(n), &vec![n; 1000]).unwrap();
        }
        // Another process: it has used none of them.
        let cache = Cache::open(dir.path()).unwrap();
        for (n, age) in [(0, 400), (1, 100), (2, 300), (3, 200)] {
            old(&cache, &key(n), age);
        }
        assert_eq!(cache.stats().unwrap().entries, 4);
        let pruned = cache.prune(None, Some(2500)).unwrap();
        assert_eq!((pruned.removed, pruned.kept), (2, 2));
        assert!(matches!(cache.get(&key(0)), Lookup::Miss));
        assert!(matches!(cache.get(&key(2)), Lookup::Miss));
        assert!(matches!(cache.get(&key(1)), Lookup::Hit(_)));
        // key(1) is in use by this process now; key(3) was used 200 s ago.
        let pruned = cache.prune(None, Some(0)).unwrap();
        assert_eq!((pruned.removed, pruned.kept, pruned.in_use), (1, 1, 1));
        assert!(matches!(cache.get(&key(1)), Lookup::Hit(_)));
        // An entry used within the last minute is in use by some run.
        let other = Cache::open(dir.path()).unwrap();
        assert_eq!(other.prune(None, Some(0)).unwrap().removed, 0);
        assert_eq!(other.clear().unwrap().removed, 1);
        assert_eq!(other.stats().unwrap().entries, 0);
    }

    #[test]
    fn older_than_removes_entries_and_memos_not_used_since() {
        let dir = tempfile::tempdir().unwrap();
        let writer = Cache::open(dir.path()).unwrap();
        writer.put(&key(1), b"one").unwrap();
        writer.put(&key(2), b"two").unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        old(&cache, &key(1), 10 * 86400);
        old(&cache, &key(2), 3600);
        let pruned = cache.prune(Some(Duration::from_secs(86400)), None).unwrap();
        assert_eq!((pruned.removed, pruned.kept), (1, 1));
        assert!(matches!(cache.get(&key(1)), Lookup::Miss));
        assert!(!dir.path().join(format!("{}.seal", key(1))).exists());
        assert!(dir.path().join("cache.key").exists());
    }

    #[test]
    fn a_new_entry_evicts_past_the_bound() {
        let dir = tempfile::tempdir().unwrap();
        let mut writer = Cache::open(dir.path()).unwrap();
        writer.max_size = 1500;
        writer.put(&key(1), &[1; 1000]).unwrap();
        // A later run stores another; the first was used long ago.
        let mut later = Cache::open(dir.path()).unwrap();
        later.max_size = 1500;
        old(&later, &key(1), 3600);
        later.put(&key(2), &[2; 1000]).unwrap();
        let stats = later.stats().unwrap();
        assert_eq!(stats.entries, 1);
        assert!(matches!(later.get(&key(2)), Lookup::Hit(_)));
    }
}
