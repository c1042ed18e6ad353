//! Against real repositories made with the `git` CLI: each state is read
//! here first, then asked of `git status`, and the two must agree.

use std::path::Path;
use std::process::Command;

use super::*;

/// `git ARGS` in `dir`, with no configuration but the repository's.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(["-c", "commit.gpgsign=false", "-c", "gc.auto=0"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What vcc reads, which must be what git says (asked after: `git
/// status` may rewrite the index).
fn dirty_as_git_says(dir: &Path, expected: bool) {
    let ours = dirty(dir);
    let theirs = !git(dir, &["status", "--porcelain", "--untracked-files=no"]).is_empty();
    assert_eq!(theirs, expected, "git says otherwise in {}", dir.display());
    assert_eq!(ours, Some(expected), "{}", dir.display());
}

/// A repository with a few files in folders, committed.
fn repo(args: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut init = vec!["init", "-q", "-b", "main"];
    init.extend_from_slice(args);
    git(dir.path(), &init);
    let p = dir.path();
    std::fs::create_dir_all(p.join("src/deep/er")).unwrap();
    std::fs::write(p.join("README.md"), "# hello\n").unwrap();
    std::fs::write(p.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
    std::fs::write(p.join("src/deep/er/data.txt"), "x".repeat(3000)).unwrap();
    std::fs::write(p.join("a.c"), "int main;\n").unwrap();
    git(p, &["add", "-A"]);
    git(p, &["commit", "-qm", "first"]);
    dir
}

fn commit_all(p: &Path, message: &str) {
    git(p, &["add", "-A"]);
    git(p, &["commit", "-qm", message]);
}

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

#[test]
fn clean_modified_staged_and_deleted() {
    let r = repo(&[]);
    let p = r.path();
    dirty_as_git_says(p, false);
    dirty_as_git_says(&p.join("src/deep"), false);
    // Same size, other bytes, the old modification time put back.
    let lib = p.join("src/lib.rs");
    let mtime = std::fs::metadata(&lib).unwrap().modified().unwrap();
    std::fs::write(&lib, "pub fn g() {}\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&lib)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    dirty_as_git_says(p, true);
    git(p, &["add", "src/lib.rs"]);
    dirty_as_git_says(p, true);
    git(p, &["commit", "-qm", "g"]);
    dirty_as_git_says(p, false);
    std::fs::remove_file(p.join("a.c")).unwrap();
    dirty_as_git_says(p, true);
    git(p, &["checkout", "--", "a.c"]);
    dirty_as_git_says(p, false);
    // Touched, not changed: the stat data no longer settles it, the
    // content does.
    std::fs::write(p.join("README.md"), "# hello\n").unwrap();
    dirty_as_git_says(p, false);
    // An untracked file is not a change.
    std::fs::write(p.join("new.txt"), "new\n").unwrap();
    dirty_as_git_says(p, false);
}

#[test]
fn mode_links_and_kinds() {
    let r = repo(&[]);
    let p = r.path();
    std::os::unix::fs::symlink("src/lib.rs", p.join("link")).unwrap();
    commit_all(p, "link");
    dirty_as_git_says(p, false);
    std::fs::remove_file(p.join("link")).unwrap();
    std::os::unix::fs::symlink("README.md", p.join("link")).unwrap();
    dirty_as_git_says(p, true);
    git(p, &["checkout", "--", "link"]);
    dirty_as_git_says(p, false);
    // The execute bit.
    use std::os::unix::fs::PermissionsExt as _;
    let a = p.join("a.c");
    std::fs::set_permissions(&a, std::fs::Permissions::from_mode(0o755)).unwrap();
    dirty_as_git_says(p, true);
    std::fs::set_permissions(&a, std::fs::Permissions::from_mode(0o644)).unwrap();
    dirty_as_git_says(p, false);
    // A FIFO where a file was: a change, and never opened.
    std::fs::remove_file(&a).unwrap();
    let c = std::ffi::CString::new(a.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo(3) on a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    assert_eq!(dirty(p), Some(true));
    std::fs::remove_file(&a).unwrap();
    git(p, &["checkout", "--", "a.c"]);
    // A tracked folder replaced by a link to a copy of it: its files
    // are gone, as git sees it.
    let copy = p.join("copy");
    std::fs::create_dir_all(copy.join("deep/er")).unwrap();
    std::fs::copy(p.join("src/lib.rs"), copy.join("lib.rs")).unwrap();
    std::fs::copy(
        p.join("src/deep/er/data.txt"),
        copy.join("deep/er/data.txt"),
    )
    .unwrap();
    std::fs::rename(p.join("src"), p.join("src.real")).unwrap();
    std::os::unix::fs::symlink("copy", p.join("src")).unwrap();
    dirty_as_git_says(p, true);
}

#[test]
fn packed_objects_with_offset_and_reference_deltas() {
    let r = repo(&[]);
    let p = r.path();
    // Many similar trees and files: gc stores most as deltas.
    for i in 0..12 {
        std::fs::write(
            p.join("src/deep/er/data.txt"),
            format!("{}{i}", "x".repeat(3000)),
        )
        .unwrap();
        std::fs::write(p.join(format!("f{i}.txt")), format!("file {i}\n")).unwrap();
        commit_all(p, &format!("c{i}"));
    }
    for (repack, delta) in [
        (vec!["gc", "-q", "--aggressive"], "OFS"),
        (
            vec![
                "-c",
                "repack.useDeltaBaseOffset=false",
                "repack",
                "-a",
                "-d",
                "-f",
                "-q",
            ],
            "REF",
        ),
    ] {
        git(p, &["prune", "--expire=now"]);
        git(p, &repack);
        let objects = p.join(".git/objects");
        let loose = std::fs::read_dir(&objects)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().len() == 2)
            .count();
        assert_eq!(loose, 0, "{delta}: every object is in a pack");
        let idx = std::fs::read_dir(objects.join("pack"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "idx"))
            .unwrap();
        let listed = git(p, &["verify-pack", "-v", idx.to_str().unwrap()]);
        assert!(listed.contains("chain length"), "{delta}: no deltas");
        dirty_as_git_says(p, false);
        // The tree itself, not the cache tree, against the index.
        let repo = Repo::find(p).unwrap();
        let head = from_hex(&repo.head().unwrap()).unwrap();
        let store = Store::new(repo.common.join("objects"), Kind::Sha1);
        let tree = store.flatten(&store.commit_tree(&head).unwrap()).unwrap();
        let index = Index::read(&repo.git_dir.join("index"), Kind::Sha1).unwrap();
        assert!(index.is_tree(&tree), "{delta}");
        assert_eq!(tree.len(), 16);
        // Every commit's tree, as `git ls-tree` lists it: the older ones
        // are stored as deltas on the newer.
        for commit in git(p, &["rev-list", "HEAD"]).lines() {
            let listed: Flat = git(p, &["ls-tree", "-r", "--full-tree", commit])
                .lines()
                .map(|l| {
                    let (meta, path) = l.split_once('\t').unwrap();
                    let mut meta = meta.split(' ');
                    let mode = u32::from_str_radix(meta.next().unwrap(), 8).unwrap();
                    let id = from_hex(meta.nth(1).unwrap()).unwrap();
                    (path.as_bytes().to_vec(), (mode, id))
                })
                .collect();
            let id = from_hex(commit).unwrap();
            let ours = store.flatten(&store.commit_tree(&id).unwrap()).unwrap();
            assert_eq!(ours, listed, "{delta}: commit {commit}");
        }
        std::fs::write(p.join("f3.txt"), "changed\n").unwrap();
        git(p, &["add", "f3.txt"]);
        let index = Index::read(&repo.git_dir.join("index"), Kind::Sha1).unwrap();
        assert!(!index.is_tree(&tree), "{delta}");
        dirty_as_git_says(p, true);
        git(p, &["reset", "-q", "--hard"]);
    }
}

#[test]
fn without_a_cache_tree_the_head_tree_is_read() {
    let r = repo(&[]);
    let p = r.path();
    // `git rm --cached` then `git add` invalidates the cache tree's root.
    git(p, &["rm", "-q", "--cached", "a.c"]);
    git(p, &["add", "a.c"]);
    let repo = Repo::find(p).unwrap();
    let index = Index::read(&repo.git_dir.join("index"), Kind::Sha1).unwrap();
    assert_eq!(index.root_tree, None, "the cache tree's root is invalid");
    dirty_as_git_says(p, false);
    git(p, &["rm", "-q", "--cached", "a.c"]);
    dirty_as_git_says(p, true);
}

#[test]
fn a_sha256_repository() {
    let r = repo(&["--object-format=sha256"]);
    let p = r.path();
    assert_eq!(head_commit(p).unwrap().len(), 64);
    dirty_as_git_says(p, false);
    std::fs::write(p.join("README.md"), "# changed\n").unwrap();
    dirty_as_git_says(p, true);
    git(p, &["checkout", "--", "README.md"]);
    std::fs::write(p.join("a.c"), "int main2;\n").unwrap();
    commit_all(p, "two");
    git(p, &["gc", "-q"]);
    git(p, &["rm", "-q", "--cached", "a.c"]);
    git(p, &["add", "a.c"]);
    dirty_as_git_says(p, false);
    std::fs::write(p.join("src/lib.rs"), "pub fn f() { }\n").unwrap();
    dirty_as_git_says(p, true);
}

#[test]
fn index_version_4_skip_worktree_and_intent_to_add() {
    let r = repo(&[]);
    let p = r.path();
    git(p, &["update-index", "--index-version", "4"]);
    dirty_as_git_says(p, false);
    std::fs::write(p.join("src/deep/er/data.txt"), "y").unwrap();
    dirty_as_git_says(p, true);
    git(p, &["checkout", "--", "."]);
    // Sparse checkout's flag: the file is absent on purpose.
    git(p, &["update-index", "--skip-worktree", "a.c"]);
    std::fs::remove_file(p.join("a.c")).unwrap();
    dirty_as_git_says(p, false);
    git(p, &["update-index", "--no-skip-worktree", "a.c"]);
    dirty_as_git_says(p, true);
    git(p, &["checkout", "--", "a.c"]);
    // `git add -N`: a file to add is a change.
    std::fs::write(p.join("new.txt"), "new\n").unwrap();
    git(p, &["add", "-N", "new.txt"]);
    dirty_as_git_says(p, true);
}

#[test]
fn a_conflict_is_a_change() {
    let r = repo(&[]);
    let p = r.path();
    git(p, &["checkout", "-q", "-b", "other"]);
    std::fs::write(p.join("a.c"), "int other;\n").unwrap();
    commit_all(p, "other");
    git(p, &["checkout", "-q", "main"]);
    std::fs::write(p.join("a.c"), "int mine;\n").unwrap();
    commit_all(p, "mine");
    let merged = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(["merge", "-q", "other"])
        .current_dir(p)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(!merged.status.success(), "a conflict");
    dirty_as_git_says(p, true);
}

#[test]
fn submodules_are_not_looked_into() {
    let r = repo(&[]);
    let p = r.path();
    let head = head_commit(p).unwrap();
    let gitlink = format!("160000,{head},sub");
    git(p, &["update-index", "--add", "--cacheinfo", &gitlink]);
    git(p, &["commit", "-qm", "sub"]);
    std::fs::create_dir(p.join("sub")).unwrap();
    dirty_as_git_says(p, false);
}

#[test]
fn a_linked_work_tree() {
    let r = repo(&[]);
    let p = r.path();
    let other = tempfile::tempdir().unwrap();
    let wt = other.path().join("wt");
    git(p, &["worktree", "add", "-q", wt.to_str().unwrap()]);
    dirty_as_git_says(&wt, false);
    std::fs::write(wt.join("a.c"), "int changed;\n").unwrap();
    dirty_as_git_says(&wt, true);
    dirty_as_git_says(p, false);
}

#[test]
fn nothing_the_configuration_says_is_run_or_believed() {
    let r = repo(&[]);
    let p = r.path();
    let elsewhere = tempfile::tempdir().unwrap();
    let marker = elsewhere.path().join("fsmonitor-ran");
    let script = p.join(".git/fsmonitor.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\ntouch '{}'\n", marker.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut config = std::fs::read_to_string(p.join(".git/config")).unwrap();
    config.push_str(&format!(
        "[core]\n\tfsmonitor = {}\n\tfilemode = false\n[filter \"x\"]\n\tclean = touch {}\n",
        script.display(),
        marker.display()
    ));
    std::fs::write(p.join(".git/config"), config).unwrap();
    std::fs::write(p.join(".gitattributes"), "* filter=x\n").unwrap();
    assert_eq!(dirty(p), Some(false));
    std::fs::write(p.join("a.c"), "changed\n").unwrap();
    assert_eq!(dirty(p), Some(true));
    assert!(!marker.exists(), "something the configuration names ran");
}

/// An index entry `path` (version 2, SHA-1), checksummed.
fn index_with(path: &[u8], mode: u32) -> Vec<u8> {
    let mut out = b"DIRC\0\0\0\x02\0\0\0\x01".to_vec();
    out.extend_from_slice(&[0; 24]);
    out.extend_from_slice(&mode.to_be_bytes());
    out.extend_from_slice(&[0; 12]);
    out.extend_from_slice(&[0x11; 20]);
    out.extend_from_slice(&(path.len() as u16).to_be_bytes());
    out.extend_from_slice(path);
    let padded = (62 + path.len() + 8) & !7;
    out.resize(12 + padded, 0);
    let mut h = Kind::Sha1.hasher();
    h.update(&out);
    out.extend(h.finish());
    out
}

#[test]
fn hostile_indexes_are_not_read() {
    let good = index_with(b"a.c", 0o100644);
    let index = Index::parse(&good, Kind::Sha1).unwrap();
    assert_eq!(index.entries[0].path, b"a.c");
    for (path, mode) in [
        (&b"../../etc/passwd"[..], 0o100644),
        (b"/etc/passwd", 0o100644),
        (b".git/config", 0o100644),
        (b"sub/.GIT/hooks/x", 0o100644),
        (b"a//b", 0o100644),
        (b"dir", 0o040000),
        (b"odd", 0o100600),
    ] {
        assert!(
            Index::parse(&index_with(path, mode), Kind::Sha1).is_none(),
            "{}",
            String::from_utf8_lossy(path)
        );
    }
    // A wrong checksum, a truncated index, the other object format.
    let mut bad = good.clone();
    *bad.last_mut().unwrap() ^= 1;
    assert!(Index::parse(&bad, Kind::Sha1).is_none());
    assert!(Index::parse(&good[..good.len() - 25], Kind::Sha1).is_none());
    assert!(Index::parse(&good, Kind::Sha256).is_none());
    // A split index (a `link` extension vcc does not read).
    let mut split = good[..good.len() - 20].to_vec();
    split.extend_from_slice(b"link\0\0\0\x14");
    split.extend_from_slice(&[0; 20]);
    let mut h = Kind::Sha1.hasher();
    h.update(&split);
    split.extend(h.finish());
    assert!(Index::parse(&split, Kind::Sha1).is_none());
}

#[test]
fn not_a_repository_or_no_commit_is_not_known() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(dirty(dir.path()), None);
    git(dir.path(), &["init", "-q"]);
    assert_eq!(dirty(dir.path()), None);
}
