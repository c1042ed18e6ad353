//! The git commit a deliverable root is at, read from the repository's
//! files (no `git` process): `HEAD`, a loose ref or `packed-refs`, in a
//! repository or a linked work tree. A report names the commit it judged;
//! nothing is decided by it, so anything unusual is simply "no commit".

use std::path::{Path, PathBuf};

/// Refs longer than this are not refs.
const MAX_REF_FILE: u64 = 4096;
/// `packed-refs` larger than this are not read.
const MAX_PACKED_REFS: u64 = 64 << 20;

/// `HEAD`'s commit (40 or 64 hex digits) of the work tree holding `dir`.
pub fn head_commit(dir: &Path) -> Option<String> {
    let dir = std::fs::canonicalize(dir).ok()?;
    let git = dir
        .ancestors()
        .map(|a| a.join(".git"))
        .find(|g| g.exists())?;
    let (git_dir, common) = git_dirs(&git)?;
    let head = read_small(&git_dir.join("HEAD"), MAX_REF_FILE)?;
    let head = head.trim();
    match head.strip_prefix("ref:") {
        None => is_hash(head).then(|| head.to_string()),
        Some(name) => resolve(&common, name.trim()),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loose_packed_and_detached_heads() {
        let repo = tempfile::tempdir().unwrap();
        let git = repo.path().join(".git");
        std::fs::create_dir_all(git.join("refs/heads")).unwrap();
        let a = "a".repeat(40);
        let b = "b".repeat(40);
        std::fs::write(git.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(git.join("refs/heads/main"), format!("{a}\n")).unwrap();
        std::fs::create_dir_all(repo.path().join("sub/dir")).unwrap();
        assert_eq!(head_commit(&repo.path().join("sub/dir")), Some(a));
        std::fs::write(git.join("HEAD"), "ref: refs/heads/packed\n").unwrap();
        std::fs::write(
            git.join("packed-refs"),
            format!("# pack-refs with: peeled\n{b} refs/heads/packed\n"),
        )
        .unwrap();
        assert_eq!(head_commit(repo.path()), Some(b.clone()));
        std::fs::write(git.join("HEAD"), format!("{b}\n")).unwrap();
        assert_eq!(head_commit(repo.path()), Some(b));
        std::fs::write(git.join("HEAD"), "ref: refs/../../etc/passwd\n").unwrap();
        assert_eq!(head_commit(repo.path()), None);
    }
}
