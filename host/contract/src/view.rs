//! The deliverable folder as a validator names it: a path resolved under
//! the mount, never above it, and the folders a set of file paths makes.
//!
//! Pure, so it can be fuzzed without a WebAssembly runtime; the runtime's
//! read-only WASI view (`host/runtime/src/vfs.rs`) serves what this says.

use std::collections::HashMap;
use std::sync::Arc;

/// Why a guest's path names nothing in the snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Miss {
    /// An absolute path: the guest names files relative to a descriptor.
    Absolute,
    /// `..` past the mount.
    AboveRoot,
    /// A component that is not there.
    NoEntry,
    /// A file used as a folder (`notes.md/x`, `notes.md/..`, `notes.md/`).
    NotDirectory,
}

/// The folders of a snapshot: each folder's entries, sorted, as (name,
/// is a folder). The root is `""`. A folder's entries are shared, so a
/// listing a guest holds open costs the host no copy of them.
pub struct Tree {
    dirs: HashMap<String, Arc<[(String, bool)]>>,
}

impl Tree {
    /// The folders that `/`-separated file paths (in sorted order, as a
    /// snapshot keeps them) make.
    pub fn of<'a>(files: impl IntoIterator<Item = &'a String>) -> Tree {
        let mut dirs: HashMap<String, Vec<(String, bool)>> = HashMap::new();
        dirs.insert(String::new(), Vec::new());
        for path in files {
            let mut parent = String::new();
            let parts: Vec<&str> = path.split('/').collect();
            for (i, part) in parts.iter().enumerate() {
                let is_dir = i + 1 < parts.len();
                let here = if parent.is_empty() {
                    part.to_string()
                } else {
                    format!("{parent}/{part}")
                };
                let entries = dirs.entry(parent.clone()).or_default();
                // Files arrive in path order, so a folder's entry, once
                // pushed, is the last one with its name.
                if entries.last().is_none_or(|(name, _)| name != part) {
                    entries.push((part.to_string(), is_dir));
                }
                if is_dir {
                    dirs.entry(here.clone()).or_default();
                }
                parent = here;
            }
        }
        let dirs = dirs
            .into_iter()
            .map(|(dir, mut entries)| {
                entries.sort();
                entries.dedup();
                (dir, Arc::from(entries))
            })
            .collect();
        Tree { dirs }
    }

    pub fn is_dir(&self, path: &str) -> bool {
        self.dirs.contains_key(path)
    }

    /// Whether `path` is a file of the snapshot.
    pub fn is_file(&self, path: &str) -> bool {
        let (parent, name) = path.rsplit_once('/').unwrap_or(("", path));
        self.dirs.get(parent).is_some_and(|entries| {
            entries
                .binary_search_by(|(n, _)| n.as_str().cmp(name))
                .is_ok_and(|i| !entries[i].1)
        })
    }

    /// `base/path` resolved component by component (`base` is a folder of
    /// the snapshot, `""` for the root), as POSIX would: every component
    /// but the last must be a folder, `..` never leaves the mount, and a
    /// trailing `/` needs a folder. Returns (path, is a folder). Nothing
    /// on disk is consulted: a snapshot has no symlinks, so names are all
    /// there is.
    pub fn resolve(&self, base: &str, path: &str) -> Result<(String, bool), Miss> {
        if path.starts_with('/') {
            return Err(Miss::Absolute);
        }
        // Built up in place: a path of 100,000 components costs linear time.
        let mut here = base.trim_matches('/').to_string();
        let mut is_dir = true;
        for part in path.split('/') {
            if !is_dir {
                // Anything after a file, even `.`, `..` or a trailing `/`.
                return Err(Miss::NotDirectory);
            }
            match part {
                "" | "." => {}
                ".." => {
                    if here.is_empty() {
                        return Err(Miss::AboveRoot);
                    }
                    here.truncate(here.rfind('/').unwrap_or(0));
                }
                name => {
                    if !here.is_empty() {
                        here.push('/');
                    }
                    here.push_str(name);
                    if self.is_file(&here) {
                        is_dir = false;
                    } else if !self.is_dir(&here) {
                        return Err(Miss::NoEntry);
                    }
                }
            }
        }
        Ok((here, is_dir))
    }

    /// A folder's entries; `None` when `path` is no folder.
    pub fn entries(&self, path: &str) -> Option<&Arc<[(String, bool)]>> {
        self.dirs.get(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> Tree {
        let files: Vec<String> = ["a.md", "docs/b.md", "docs/sub/c.md", "docs-x/d.md"]
            .iter()
            .map(|p| p.to_string())
            .collect();
        Tree::of(&files)
    }

    #[test]
    fn paths_resolve_by_name_and_never_above_the_mount() {
        let t = tree();
        assert_eq!(t.resolve("", "docs/b.md"), Ok(("docs/b.md".into(), false)));
        assert_eq!(
            t.resolve("docs", "./sub/../b.md"),
            Ok(("docs/b.md".into(), false))
        );
        assert_eq!(t.resolve("docs", ".."), Ok((String::new(), true)));
        assert_eq!(
            t.resolve("docs/sub", "../../a.md"),
            Ok(("a.md".into(), false))
        );
        assert_eq!(t.resolve("", "docs//sub/"), Ok(("docs/sub".into(), true)));
        assert_eq!(t.resolve("", ".."), Err(Miss::AboveRoot));
        assert_eq!(t.resolve("docs", "../../etc/passwd"), Err(Miss::AboveRoot));
        assert_eq!(t.resolve("", "/etc/passwd"), Err(Miss::Absolute));
        assert_eq!(t.resolve("", "nope/../a.md"), Err(Miss::NoEntry));
        assert_eq!(t.resolve("", "a.md/"), Err(Miss::NotDirectory));
        assert_eq!(t.resolve("", "a.md/.."), Err(Miss::NotDirectory));
        assert_eq!(t.resolve("", "a.md\0"), Err(Miss::NoEntry));
    }

    #[test]
    fn a_path_of_many_components_resolves_in_linear_time() {
        let t = tree();
        let long = format!("{}a.md", "docs/../".repeat(100_000));
        assert_eq!(t.resolve("", &long), Ok(("a.md".into(), false)));
    }
}
