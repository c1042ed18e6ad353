//! The index (`.git/index`, git's "dircache"), versions 2, 3 and 4: its
//! entries with their stat data and flags, and the root of its cache-tree
//! extension. Every other extension is skipped, except one git itself
//! must understand (a lowercase signature: a split or sparse index),
//! which makes the index unreadable here.

use std::path::Path;

use super::{EXECUTABLE, Flat, GITLINK, Kind, REGULAR, SYMLINK, safe_path};

/// An index larger than this is not read (git's own for two million
/// files is about 200 MiB).
const MAX_INDEX: u64 = 1 << 30;

/// Stat data as the index keeps it: each field cut to 32 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stat {
    pub ctime: (u32, u32),
    pub mtime: (u32, u32),
    pub ino: u32,
    pub uid: u32,
    pub gid: u32,
    pub size: u32,
}

#[derive(Debug, Clone)]
pub(super) struct Entry {
    pub path: Vec<u8>,
    pub mode: u32,
    pub id: Vec<u8>,
    /// 0, or 1–3 for a path in conflict.
    pub stage: u8,
    pub stat: Stat,
    /// `git update-index --assume-unchanged`: not looked at in the tree.
    pub assume_valid: bool,
    /// Sparse checkout: not in the work tree, on purpose.
    pub skip_worktree: bool,
    /// `git add -N`: a file to add, not in any tree yet.
    pub intent_to_add: bool,
}

pub(super) struct Index {
    pub entries: Vec<Entry>,
    /// The tree the whole index makes, when its cache tree knows it.
    pub root_tree: Option<Vec<u8>>,
    /// When the index was written (seconds, nanoseconds): a file changed
    /// in that same second may still match its stat data.
    pub written: (i64, i64),
}

impl Index {
    pub fn read(path: &Path, kind: Kind) -> Option<Index> {
        use std::io::Read as _;
        use std::os::unix::fs::MetadataExt as _;
        let file = vcc_contract::files::open_regular(path).ok()?;
        let meta = file.metadata().ok()?;
        if meta.len() > MAX_INDEX {
            return None;
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        file.take(MAX_INDEX + 1).read_to_end(&mut bytes).ok()?;
        let mut index = Index::parse(&bytes, kind)?;
        index.written = (meta.mtime(), meta.mtime_nsec());
        Some(index)
    }

    pub(super) fn parse(bytes: &[u8], kind: Kind) -> Option<Index> {
        let body_len = bytes.len().checked_sub(kind.len())?;
        let (body, trailer) = bytes.split_at(body_len);
        // `index.skipHash` leaves the checksum zero; otherwise it must
        // hold, which also confirms the object format.
        if trailer.iter().any(|b| *b != 0) {
            let mut h = kind.hasher();
            h.update(body);
            if h.finish() != trailer {
                return None;
            }
        }
        let mut c = Cursor { bytes: body, at: 0 };
        if c.take(4)? != b"DIRC" {
            return None;
        }
        let version = c.u32()?;
        if !(2..=4).contains(&version) {
            return None;
        }
        let count = c.u32()? as usize;
        // Each entry takes at least 40 bytes of stat data and its id.
        if count > body.len() / (40 + kind.len()) {
            return None;
        }
        let mut entries: Vec<Entry> = Vec::with_capacity(count);
        for _ in 0..count {
            let previous = entries.last().map_or(&[][..], |e: &Entry| &e.path);
            let entry = c.entry(kind, version, previous)?;
            // Sorted by path, then stage, each once: git refuses others.
            if let Some(last) = entries.last()
                && (last.path.as_slice(), last.stage) >= (entry.path.as_slice(), entry.stage)
            {
                return None;
            }
            entries.push(entry);
        }
        let mut root_tree = None;
        while c.at < body.len() {
            let signature = c.take(4)?;
            let size = c.u32()? as usize;
            let data = c.take(size)?;
            match signature {
                b"TREE" => root_tree = cache_tree_root(data, kind)?,
                // A lowercase signature: an extension a reader must
                // understand (`link`: a split index, `sdir`: a sparse
                // one). Not read here, so the index is not known.
                s if s[0].is_ascii_lowercase() => return None,
                _ => {}
            }
        }
        Some(Index {
            entries,
            root_tree,
            written: (0, 0),
        })
    }

    /// Whether the index (stage 0, every entry) is exactly `tree`: the
    /// same paths, modes and ids.
    pub fn is_tree(&self, tree: &Flat) -> bool {
        self.entries.len() == tree.len()
            && self.entries.iter().all(|e| {
                tree.get(&e.path)
                    .is_some_and(|(mode, id)| *mode == e.mode && *id == e.id)
            })
    }
}

/// The cache tree's root: `Some(id)` when it is valid, `None` when it is
/// not (an entry count of -1). `None` outside: not a cache tree.
fn cache_tree_root(data: &[u8], kind: Kind) -> Option<Option<Vec<u8>>> {
    let mut c = Cursor { bytes: data, at: 0 };
    // The root's path is empty.
    if c.until(0)? != b"" {
        return None;
    }
    let count = std::str::from_utf8(c.until(b' ')?).ok()?;
    let count: i64 = count.parse().ok()?;
    std::str::from_utf8(c.until(b'\n')?)
        .ok()?
        .parse::<u32>()
        .ok()?;
    if count < 0 {
        return Some(None);
    }
    Some(Some(c.take(kind.len())?.to_vec()))
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let out = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(out)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_be_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_be_bytes(self.take(2)?.try_into().ok()?))
    }

    /// The bytes up to `end`, which is skipped.
    fn until(&mut self, end: u8) -> Option<&'a [u8]> {
        let rest = self.bytes.get(self.at..)?;
        let n = rest.iter().position(|b| *b == end)?;
        self.at += n + 1;
        Some(&rest[..n])
    }

    /// Version 4's prefix length: git's offset varint.
    fn varint(&mut self) -> Option<usize> {
        let mut byte = self.take(1)?[0];
        let mut value = usize::from(byte & 0x7f);
        while byte & 0x80 != 0 {
            byte = self.take(1)?[0];
            value = value
                .checked_add(1)?
                .checked_mul(128)?
                .checked_add(usize::from(byte & 0x7f))?;
        }
        Some(value)
    }

    fn entry(&mut self, kind: Kind, version: u32, previous: &[u8]) -> Option<Entry> {
        let start = self.at;
        let ctime = (self.u32()?, self.u32()?);
        let mtime = (self.u32()?, self.u32()?);
        let _dev = self.u32()?;
        let ino = self.u32()?;
        let mode = self.u32()?;
        let uid = self.u32()?;
        let gid = self.u32()?;
        let size = self.u32()?;
        let id = self.take(kind.len())?.to_vec();
        let flags = self.u16()?;
        let extended = flags & 0x4000 != 0;
        if extended && version < 3 {
            return None;
        }
        let extra = if extended { self.u16()? } else { 0 };
        let path = if version == 4 {
            let strip = self.varint()?;
            let keep = previous.len().checked_sub(strip)?;
            let mut path = previous[..keep].to_vec();
            path.extend_from_slice(self.until(0)?);
            path
        } else {
            let header = self.at - start;
            let name = self.until(0)?.to_vec();
            // NUL-padded to a multiple of 8 bytes, at least one NUL.
            let padded = (header + name.len() + 8) & !7;
            self.at = start.checked_add(padded)?;
            if self.at > self.bytes.len() {
                return None;
            }
            name
        };
        let named = usize::from(flags & 0x0fff);
        if named != 0x0fff && named != path.len() {
            return None;
        }
        // A sparse index's folders (mode 040000) and anything else that
        // is not a file, a link or a submodule: not read here.
        if !matches!(mode, REGULAR | EXECUTABLE | SYMLINK | GITLINK) || !safe_path(&path) {
            return None;
        }
        Some(Entry {
            path,
            mode,
            id,
            stage: ((flags >> 12) & 3) as u8,
            stat: Stat {
                ctime,
                mtime,
                ino,
                uid,
                gid,
                size,
            },
            assume_valid: flags & 0x8000 != 0,
            skip_worktree: extra & 0x4000 != 0,
            intent_to_add: extra & 0x2000 != 0,
        })
    }
}
