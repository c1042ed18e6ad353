//! The deliverable folder as a validator names it: a path resolved under
//! the mount, never above it, and the folders a set of file paths makes.
//!
//! Pure, so it can be fuzzed without a WebAssembly runtime; the runtime's
//! read-only WASI view (`host/runtime/src/vfs.rs`) serves what this says.

use std::collections::HashMap;

/// Why a guest's path names nothing under the mount.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Escape {
    /// An absolute path: the guest names files relative to a descriptor.
    Absolute,
    /// `..` past the mount.
    AboveRoot,
}

/// `base/path` resolved by name (`base` is a folder of the snapshot, `""`
/// for the root), never above the mount. Nothing on disk is consulted: a
/// snapshot has no symlinks, so names are all there is.
pub fn resolve(base: &str, path: &str) -> Result<String, Escape> {
    if path.starts_with('/') {
        return Err(Escape::Absolute);
    }
    let mut parts: Vec<&str> = base.split('/').filter(|p| !p.is_empty()).collect();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(Escape::AboveRoot);
                }
            }
            name => parts.push(name),
        }
    }
    Ok(parts.join("/"))
}

/// The folders of a snapshot: each folder's entries, sorted, as (name,
/// is a folder). The root is `""`.
pub struct Tree {
    dirs: HashMap<String, Vec<(String, bool)>>,
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
        for entries in dirs.values_mut() {
            entries.sort();
            entries.dedup();
        }
        Tree { dirs }
    }

    pub fn is_dir(&self, path: &str) -> bool {
        self.dirs.contains_key(path)
    }

    /// A folder's entries; `None` when `path` is no folder.
    pub fn entries(&self, path: &str) -> Option<&[(String, bool)]> {
        self.dirs.get(path).map(Vec::as_slice)
    }
}
