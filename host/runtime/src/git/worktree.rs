//! Each tracked file against its index entry, as `git status` compares
//! them: by kind and execute bit, then by the stat data the index keeps
//! (when it matches, and the file was not changed in the second the index
//! was written, the file is what the index says), else by hashing the
//! file as a git blob. Links are compared by their target. Nothing is
//! followed: a file under a linked folder is not there (git says the
//! same), and only regular files are opened (never a FIFO).

use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs::Metadata;
use std::io::ErrorKind;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _};
use std::path::Path;

use super::index::{Index, Stat};
use super::{EXECUTABLE, GITLINK, Kind, SYMLINK};

/// A tracked file larger than this is not hashed: whether it changed is
/// then not known.
const MAX_HASHED: u64 = 4 << 30;

/// Whether some tracked file differs from its index entry; `None` when
/// one cannot be read.
pub(super) fn differs(top: &Path, index: &Index, kind: Kind) -> Option<bool> {
    let mut folders: HashSet<Vec<u8>> = HashSet::new();
    for e in &index.entries {
        if e.mode == GITLINK || e.skip_worktree || e.assume_valid {
            continue;
        }
        if !in_real_folders(top, &e.path, &mut folders)? {
            return Some(true);
        }
        let path = top.join(OsStr::from_bytes(&e.path));
        let meta = match std::fs::symlink_metadata(&path) {
            Ok(m) => m,
            Err(e) if gone(&e) => return Some(true),
            Err(_) => return None,
        };
        let kind_matches = if e.mode == SYMLINK {
            meta.file_type().is_symlink()
        } else {
            meta.file_type().is_file() && ((meta.mode() & 0o100 != 0) == (e.mode == EXECUTABLE))
        };
        if !kind_matches {
            return Some(true);
        }
        if same_stat(&e.stat, &meta) && !racy(&e.stat, index.written) {
            continue;
        }
        let id = if e.mode == SYMLINK {
            let target = std::fs::read_link(&path).ok()?;
            kind.object_id("blob", target.as_os_str().as_bytes())
        } else {
            blob_id(&path, &meta, kind)?
        };
        if id != e.id {
            return Some(true);
        }
    }
    Some(false)
}

/// Whether every folder above `path` is a real folder (not a link, not a
/// file); `None` when one cannot be looked at.
fn in_real_folders(top: &Path, path: &[u8], checked: &mut HashSet<Vec<u8>>) -> Option<bool> {
    let mut end = 0;
    while let Some(slash) = path[end..].iter().position(|b| *b == b'/') {
        end += slash;
        let folder = &path[..end];
        end += 1;
        if checked.contains(folder) {
            continue;
        }
        match std::fs::symlink_metadata(top.join(OsStr::from_bytes(folder))) {
            Ok(m) if m.file_type().is_dir() => {
                checked.insert(folder.to_vec());
            }
            Ok(_) => return Some(false),
            Err(e) if gone(&e) => return Some(false),
            Err(_) => return None,
        }
    }
    Some(true)
}

fn gone(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory)
}

/// The stat data git compares (`core.checkStat` at its default; the
/// device is not compared, as git is built by default).
fn same_stat(s: &Stat, m: &Metadata) -> bool {
    s.mtime == (m.mtime() as u32, m.mtime_nsec() as u32)
        && s.ctime == (m.ctime() as u32, m.ctime_nsec() as u32)
        && s.ino == m.ino() as u32
        && s.uid == m.uid()
        && s.gid == m.gid()
        && s.size == m.size() as u32
}

/// A file changed in the second its index was written can still match
/// its stat data ("racy git"): its content decides.
fn racy(s: &Stat, written: (i64, i64)) -> bool {
    i64::from(s.mtime.0) >= written.0
}

/// The file's bytes as a git blob's id; `None` when it cannot be read
/// whole (too large, replaced or changed while it is read).
fn blob_id(path: &Path, seen: &Metadata, kind: Kind) -> Option<Vec<u8>> {
    use std::io::Read as _;
    if seen.size() > MAX_HASHED {
        return None;
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let meta = file.metadata().ok()?;
    if !meta.file_type().is_file() || meta.ino() != seen.ino() || meta.dev() != seen.dev() {
        return None;
    }
    let size = meta.size();
    let mut h = kind.hasher();
    h.update(format!("blob {size}\0").as_bytes());
    let mut read = 0u64;
    let mut buf = vec![0u8; 256 << 10];
    let mut file = file.take(size + 1);
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        h.update(&buf[..n]);
        read += n as u64;
    }
    (read == size).then(|| h.finish())
}
