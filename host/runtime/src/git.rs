//! The git commit a deliverable root is at, and whether its work tree has
//! changes against that commit, read from the repository's files: no `git`
//! process, and nothing the repository configures. `git status` runs
//! `core.fsmonitor`, filters and more from `.git/config`, which whoever
//! writes the deliverables can write too; here `.git/config` is not even
//! read, so it changes nothing.
//!
//! A report names the commit it judged and the ledger says whether the
//! tree was dirty; nothing is decided by either (they are the repository's
//! word, and the repository is the worker's), so anything unusual is
//! simply "no commit" or "not known" (`None`), never a guess.
//!
//! The object format follows from `HEAD`'s id (40 hex digits: SHA-1, 64:
//! SHA-256), and the index's own checksum confirms it.

mod index;
mod objects;
mod worktree;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use index::Index;
use objects::Store;

/// Modes of what the index and trees hold: files, links, submodules.
const REGULAR: u32 = 0o100644;
const EXECUTABLE: u32 = 0o100755;
const SYMLINK: u32 = 0o120000;
const GITLINK: u32 = 0o160000;

/// A tree's files, links and submodules, all folders down: path → (mode,
/// id), modes as the index writes them.
type Flat = BTreeMap<Vec<u8>, (u32, Vec<u8>)>;

/// Refs longer than this are not refs.
const MAX_REF_FILE: u64 = 4096;
/// `packed-refs` larger than this are not read.
const MAX_PACKED_REFS: u64 = 64 << 20;

/// A work tree and the repository folders it reads.
struct Repo {
    /// The work tree's top folder: the one holding `.git`.
    top: PathBuf,
    /// This work tree's own folder: `HEAD` and the index.
    git_dir: PathBuf,
    /// Where refs and objects are shared from (`commondir`).
    common: PathBuf,
}

/// `HEAD`'s commit (40 or 64 hex digits) of the work tree holding `dir`.
pub fn head_commit(dir: &Path) -> Option<String> {
    Repo::find(dir)?.head()
}

/// Whether the work tree holding `dir` has changes to tracked files
/// against its `HEAD` commit, staged or not — what `git status
/// --porcelain --untracked-files=no` printing anything means; `None` when
/// that cannot be known without a guess.
///
/// Read like git reads it, without git: the index (versions 2 to 4)
/// against `HEAD`'s tree (through the index's cache tree when its root is
/// valid, else the tree itself, from loose objects or packs), and each
/// tracked file against its index entry (its stat data first, as git
/// does; when that does not settle it, the file hashed as a git blob).
/// Submodules, and entries marked skip-worktree or assume-unchanged, are
/// not looked at in the work tree; an unmerged or intent-to-add entry is
/// a change. No filter, no `.gitattributes`, no configuration applies: a
/// file that only a filter would make equal to its blob is a change.
pub fn dirty(dir: &Path) -> Option<bool> {
    let repo = Repo::find(dir)?;
    let head = repo.head()?;
    let kind = Kind::of_hex(&head)?;
    let head = from_hex(&head)?;
    let index = Index::read(&repo.git_dir.join("index"), kind)?;
    if index
        .entries
        .iter()
        .any(|e| e.stage != 0 || e.intent_to_add)
    {
        return Some(true);
    }
    let store = Store::new(repo.common.join("objects"), kind);
    let tree = store.commit_tree(&head)?;
    let staged = match &index.root_tree {
        Some(root) => *root != tree,
        None => !index.is_tree(&store.flatten(&tree)?),
    };
    if staged {
        return Some(true);
    }
    worktree::differs(&repo.top, &index, kind)
}

impl Repo {
    /// The work tree `dir` is in: the nearest folder above holding `.git`.
    fn find(dir: &Path) -> Option<Repo> {
        let dir = std::fs::canonicalize(dir).ok()?;
        let (top, git) = dir.ancestors().find_map(|a| {
            let git = a.join(".git");
            git.exists().then(|| (a.to_path_buf(), git))
        })?;
        let (git_dir, common) = git_dirs(&git)?;
        Some(Repo {
            top,
            git_dir,
            common,
        })
    }

    fn head(&self) -> Option<String> {
        let head = read_small(&self.git_dir.join("HEAD"), MAX_REF_FILE)?;
        let head = head.trim();
        match head.strip_prefix("ref:") {
            None => is_hash(head).then(|| head.to_string()),
            Some(name) => resolve(&self.common, name.trim()),
        }
    }
}

/// The repository folder of a work tree (`.git` itself, or where a `.git`
/// file points), and the folder its refs are shared from (`commondir`).
fn git_dirs(git: &Path) -> Option<(PathBuf, PathBuf)> {
    let git_dir = if git.is_dir() {
        git.to_path_buf()
    } else {
        let text = read_small(git, MAX_REF_FILE)?;
        let target = text.trim().strip_prefix("gitdir:")?.trim();
        let base = git.parent()?;
        base.join(target)
    };
    let common = match read_small(&git_dir.join("commondir"), MAX_REF_FILE) {
        Some(c) => git_dir.join(c.trim()),
        None => git_dir.clone(),
    };
    Some((git_dir, common))
}

fn resolve(common: &Path, name: &str) -> Option<String> {
    if !name.starts_with("refs/") || name.split('/').any(|p| p == ".." || p.is_empty()) {
        return None;
    }
    if let Some(loose) = read_small(&common.join(name), MAX_REF_FILE) {
        let hash = loose.trim();
        return is_hash(hash).then(|| hash.to_string());
    }
    let packed = read_small(&common.join("packed-refs"), MAX_PACKED_REFS)?;
    packed.lines().find_map(|line| {
        let (hash, refname) = line.split_once(' ')?;
        (refname.trim() == name && is_hash(hash)).then(|| hash.to_string())
    })
}

fn is_hash(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|b| b.is_ascii_hexdigit())
}

fn read_small(path: &Path, cap: u64) -> Option<String> {
    use std::io::Read as _;
    let mut text = String::new();
    vcc_contract::files::open_regular(path)
        .ok()?
        .take(cap + 1)
        .read_to_string(&mut text)
        .ok()?;
    (text.len() as u64 <= cap).then_some(text)
}

/// A repository's object format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Sha1,
    Sha256,
}

impl Kind {
    fn of_hex(id: &str) -> Option<Kind> {
        match id.len() {
            40 => Some(Kind::Sha1),
            64 => Some(Kind::Sha256),
            _ => None,
        }
    }

    /// Bytes in an object id.
    fn len(self) -> usize {
        match self {
            Kind::Sha1 => 20,
            Kind::Sha256 => 32,
        }
    }

    fn hasher(self) -> Hasher {
        match self {
            Kind::Sha1 => Hasher::Sha1(sha1::Sha1::default()),
            Kind::Sha256 => Hasher::Sha256(sha2::Sha256::default()),
        }
    }

    /// The id of an object: its type, its length and its bytes, hashed.
    fn object_id(self, kind: &str, bytes: &[u8]) -> Vec<u8> {
        let mut h = self.hasher();
        h.update(format!("{kind} {}\0", bytes.len()).as_bytes());
        h.update(bytes);
        h.finish()
    }
}

enum Hasher {
    Sha1(sha1::Sha1),
    Sha256(sha2::Sha256),
}

impl Hasher {
    fn update(&mut self, bytes: &[u8]) {
        use sha2::Digest as _;
        match self {
            Hasher::Sha1(h) => h.update(bytes),
            Hasher::Sha256(h) => h.update(bytes),
        }
    }

    fn finish(self) -> Vec<u8> {
        use sha2::Digest as _;
        match self {
            Hasher::Sha1(h) => h.finalize().to_vec(),
            Hasher::Sha256(h) => h.finalize().to_vec(),
        }
    }
}

fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A path as git stores it (`/`-separated, relative) that names a place
/// inside the work tree and outside `.git`: no empty, `.` or `..`
/// component, no `.git` (in any case).
fn safe_path(path: &[u8]) -> bool {
    !path.is_empty()
        && path
            .split(|b| *b == b'/')
            .all(|c| !c.is_empty() && c != b"." && c != b".." && !c.eq_ignore_ascii_case(b".git"))
}

#[cfg(test)]
mod tests;
