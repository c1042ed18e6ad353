use super::*;
use std::fs;

fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let p = dir.path().join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
    dir
}

/// A snapshot of `dir` with the defaults and no memo.
fn take(dir: &tempfile::TempDir) -> Snapshot {
    Snapshot::take(
        dir.path(),
        WalkLimits::default(),
        Excludes::none(),
        &Memo::default(),
    )
    .unwrap()
}

#[test]
fn hashes_every_file_with_a_stable_root_digest() {
    let dir = tree(&[("a.txt", "hello"), ("docs/b.md", "# B\n")]);
    let snap = take(&dir);
    assert_eq!(snap.files.len(), 2);
    assert_eq!(snap.files["a.txt"].digest, blake3::hash(b"hello"));
    let again = take(&dir);
    assert_eq!(snap.root_digest, again.root_digest);
    fs::write(dir.path().join("a.txt"), "hellO").unwrap();
    let changed = take(&dir);
    assert_ne!(snap.root_digest, changed.root_digest);
}

#[test]
fn an_attached_file_is_judged_from_memory_and_never_a_change() {
    let dir = tree(&[("a.txt", "x"), ("docs/b.md", "x")]);
    let mut snap = take(&dir);
    let before = snap.root_digest;
    snap.attach(".vcc/transcript.jsonl", Arc::from(&b"{}\n"[..]))
        .unwrap();
    assert_ne!(
        snap.root_digest, before,
        "the attached bytes are part of the manifest"
    );
    assert_eq!(&*snap.read(".vcc/transcript.jsonl").unwrap(), b"{}\n");
    let r = snap.resolve(&paths::check(".vcc/transcript.jsonl").unwrap());
    assert_eq!(r.files, vec![".vcc/transcript.jsonl"]);
    assert_eq!(snap.changes(&|_| true), Vec::<String>::new());
    // A path the root holds cannot be attached over, nor under a file.
    for taken in ["a.txt", "docs", "a.txt/x"] {
        let err = snap.attach(taken, Arc::from(&b""[..])).unwrap_err();
        assert!(err.contains("holds this path already"), "{err}");
    }
    // The producer writing a file where the attachment sits is a change.
    fs::create_dir_all(dir.path().join(".vcc")).unwrap();
    fs::write(dir.path().join(".vcc/transcript.jsonl"), "forged").unwrap();
    assert!(
        snap.changes(&|_| true)
            .contains(&".vcc/transcript.jsonl".to_string())
    );
}

/// A reserved path (a transcript the harness did not give): what the
/// producer wrote there is hidden from validators and blocks every
/// deliverable that would hold it; the exact path blocks even when
/// nothing is there, and a folder put in its place hides its files too.
#[test]
fn a_reserved_path_is_never_a_deliverable() {
    let reserved_here = Reserved {
        path: ".vcc/transcript.jsonl".into(),
        why: "no transcript was given".into(),
    };
    let blocked = |snap: &Snapshot, p: &str| -> (Vec<String>, Vec<String>) {
        let r = snap.resolve(&paths::check(p).unwrap());
        let kinds = r
            .blocked
            .iter()
            .map(|u| format!("{} {}", u.path, u.kind))
            .collect();
        (r.files, kinds)
    };
    let reserved = vec![".vcc/transcript.jsonl reserved".to_string()];

    let empty = tree(&[("a.txt", "x"), (".vcc/notes.md", "x")]);
    let mut snap = take(&empty);
    snap.reserve(&reserved_here);
    assert_eq!(
        blocked(&snap, ".vcc/transcript.jsonl"),
        (vec![], reserved.clone())
    );
    // Nothing there: a folder or glob that would hold it is not blocked.
    assert_eq!(
        blocked(&snap, ".vcc"),
        (vec![".vcc/notes.md".into()], vec![])
    );
    assert_eq!(blocked(&snap, "**/*").1, Vec::<String>::new());

    let forged = tree(&[("a.txt", "x"), (".vcc/transcript.jsonl", "forged")]);
    let mut snap = take(&forged);
    let digest = snap.root_digest;
    snap.reserve(&reserved_here);
    assert_eq!(
        snap.root_digest, digest,
        "the file is still part of the tree"
    );
    assert_eq!(
        blocked(&snap, ".vcc/transcript.jsonl"),
        (vec![], reserved.clone())
    );
    assert_eq!(blocked(&snap, ".vcc"), (vec![], reserved.clone()));
    assert_eq!(blocked(&snap, "**/*.jsonl"), (vec![], reserved.clone()));
    assert_eq!(blocked(&snap, "*.txt"), (vec!["a.txt".into()], vec![]));
    assert_eq!(snap.visible().collect::<Vec<_>>(), vec!["a.txt"]);
    assert_eq!(snap.changes(&|_| true), Vec::<String>::new(), "held still");

    let folder = tree(&[(".vcc/transcript.jsonl/session.jsonl", "forged")]);
    let mut snap = take(&folder);
    snap.reserve(&reserved_here);
    assert_eq!(
        blocked(&snap, ".vcc/transcript.jsonl"),
        (vec![], reserved.clone())
    );
    assert!(snap.is_reserved(".vcc/transcript.jsonl/session.jsonl"));
    assert!(!snap.is_reserved(".vcc/transcript.jsonl.bak"));
}

#[test]
fn resolves_files_directories_and_globs() {
    let dir = tree(&[("a.txt", "x"), ("docs/b.md", "x"), ("docs/sub/c.md", "x")]);
    let snap = take(&dir);
    let r = |p: &str| snap.resolve(&paths::check(p).unwrap()).files;
    assert_eq!(r("a.txt"), vec!["a.txt"]);
    assert_eq!(r("docs"), vec!["docs/b.md", "docs/sub/c.md"]);
    assert_eq!(r("docs/*.md"), vec!["docs/b.md"]);
    assert_eq!(r("**/*.md"), vec!["docs/b.md", "docs/sub/c.md"]);
    assert!(r("missing.txt").is_empty());
    assert!(r("doc").is_empty(), "a prefix of a name is not a directory");
}

#[test]
fn symlinks_and_fifos_are_reported_not_followed() {
    let dir = tree(&[("a.txt", "x")]);
    std::os::unix::fs::symlink("/etc/passwd", dir.path().join("out")).unwrap();
    let fifo = std::ffi::CString::new(dir.path().join("pipe").to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let snap = take(&dir);
    assert_eq!(snap.files.keys().collect::<Vec<_>>(), vec!["a.txt"]);
    let kinds: Vec<(&str, &str)> = snap
        .unreadable
        .iter()
        .map(|u| (u.path.as_str(), u.kind.as_str()))
        .collect();
    assert_eq!(kinds, vec![("out", "symlink"), ("pipe", "fifo")]);
    assert_eq!(snap.unreadable[0].detail, "links to /etc/passwd");
    let blocked = snap.resolve(&paths::check("*").unwrap()).blocked;
    assert_eq!(blocked.len(), 2);
}

#[test]
fn every_entry_is_in_the_root_digest() {
    let dir = tree(&[("a.txt", "x")]);
    let digest = |dir: &tempfile::TempDir| take(dir).root_digest;
    let files_only = digest(&dir);
    // Each entry that is not a hashed file changes it, by name and kind.
    fs::create_dir(dir.path().join("empty")).unwrap();
    let with_folder = digest(&dir);
    assert_ne!(with_folder, files_only);
    std::os::unix::fs::symlink("/etc/shadow", dir.path().join("link")).unwrap();
    let with_link = digest(&dir);
    assert_ne!(with_link, with_folder);
    // A link is bound by its target text.
    fs::remove_file(dir.path().join("link")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", dir.path().join("link")).unwrap();
    assert_ne!(digest(&dir), with_link);
    assert_eq!(digest(&dir), digest(&dir));
    // An excluded entry is not in it.
    let excludes = Excludes::new(&["link".into(), "empty/".into()], &[], false).unwrap();
    let left_out = Snapshot::take(
        dir.path(),
        WalkLimits::default(),
        excludes,
        &Memo::default(),
    )
    .unwrap();
    assert_eq!(left_out.root_digest, files_only);
}

#[test]
fn a_link_given_another_target_is_a_change() {
    let dir = tree(&[("a.txt", "x")]);
    std::os::unix::fs::symlink("a.txt", dir.path().join("link")).unwrap();
    let snap = take(&dir);
    assert_eq!(snap.changes(&|_| true), Vec::<String>::new());
    fs::remove_file(dir.path().join("link")).unwrap();
    std::os::unix::fs::symlink("/etc/shadow", dir.path().join("link")).unwrap();
    assert!(
        snap.changes(&|_| true).contains(&"link".to_string()),
        "{:?}",
        snap.changes(&|_| true)
    );
}

#[test]
fn reads_stop_at_the_deadline() {
    let big = "x".repeat((RETAIN_FILE_MAX + 1) as usize);
    let dir = tree(&[("big", &big)]);
    let snap = take(&dir);
    let past = Instant::now() - Duration::from_millis(1);
    assert!(
        snap.read_before("big", past)
            .unwrap_err()
            .contains("budget")
    );
}

#[test]
fn oversized_files_are_not_read() {
    let dir = tree(&[("big.bin", "0123456789")]);
    let limits = WalkLimits {
        max_file_size: 5,
        ..WalkLimits::default()
    };
    let snap = Snapshot::take(dir.path(), limits, Excludes::none(), &Memo::default()).unwrap();
    assert!(snap.files.is_empty());
    assert_eq!(snap.unreadable[0].kind, "too_large");
}

#[test]
fn deep_trees_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = dir.path().to_path_buf();
    for _ in 0..40 {
        p.push("d");
    }
    fs::create_dir_all(&p).unwrap();
    fs::write(p.join("f"), "x").unwrap();
    let limits = WalkLimits {
        max_depth: 10,
        ..WalkLimits::default()
    };
    let snap = Snapshot::take(dir.path(), limits, Excludes::none(), &Memo::default()).unwrap();
    assert!(snap.files.is_empty());
    assert_eq!(snap.unreadable[0].kind, "too_deep");
    assert!(
        !snap
            .resolve(&paths::check("**/f").unwrap())
            .blocked
            .is_empty()
    );
}

#[test]
fn too_many_files_truncates() {
    let dir = tree(&[("a", "1"), ("b", "2"), ("c", "3")]);
    let limits = WalkLimits {
        max_files: 2,
        ..WalkLimits::default()
    };
    let snap = Snapshot::take(dir.path(), limits, Excludes::none(), &Memo::default()).unwrap();
    assert!(snap.truncated.is_some());
}

#[test]
fn any_change_is_seen_even_when_the_bytes_come_back() {
    let dir = tree(&[("a.txt", "one"), ("b.txt", "two"), ("sub/c.txt", "three")]);
    let snap = take(&dir);
    assert!(snap.changes(&|_| true).is_empty());
    // Rewritten with the same bytes: the status-change time moved, and
    // no writer can set it back.
    fs::write(dir.path().join("b.txt"), "TWO").unwrap();
    fs::write(dir.path().join("b.txt"), "two").unwrap();
    assert_eq!(snap.changes(&|_| true), vec!["b.txt"]);
    let snap = take(&dir);
    fs::write(dir.path().join("a.txt"), "ONE").unwrap();
    fs::write(dir.path().join("new.txt"), "3").unwrap();
    fs::remove_file(dir.path().join("b.txt")).unwrap();
    // Files, and the root folder whose entries changed.
    assert_eq!(
        snap.changes(&|_| true),
        vec!["./", "a.txt", "b.txt", "new.txt"]
    );
    // An entry added and removed again leaves its folder changed.
    let snap = take(&dir);
    fs::write(dir.path().join("sub/tmp"), "x").unwrap();
    fs::remove_file(dir.path().join("sub/tmp")).unwrap();
    assert_eq!(snap.changes(&|_| true), vec!["sub/"]);
    // A symlink appearing is a change too.
    let snap = take(&dir);
    std::os::unix::fs::symlink("/etc/passwd", dir.path().join("sneaky")).unwrap();
    assert!(snap.changes(&|_| true).contains(&"sneaky".to_string()));
}

#[test]
fn a_large_file_is_hashed_in_parts_on_all_cores() {
    let dir = tempfile::tempdir().unwrap();
    let data: Vec<u8> = (0..(PARALLEL_MIN as usize + 3 * PART as usize + 17))
        .map(|i| (i * 7 % 251) as u8)
        .collect();
    fs::write(dir.path().join("big"), &data).unwrap();
    let snap = take(&dir);
    assert_eq!(snap.files["big"].digest, blake3::hash(&data));
    // A file that is longer or shorter than its metadata said is a change.
    let hash = |size: u64| hash_open_file(&open_regular(&snap.dir, "big").unwrap(), size);
    let size = data.len() as u64;
    assert_eq!(
        hash(size - 1).unwrap_err().kind(),
        io::ErrorKind::InvalidData
    );
    assert_eq!(
        hash(size + 1).unwrap_err().kind(),
        io::ErrorKind::InvalidData
    );
    assert_eq!(hash(size).unwrap(), blake3::hash(&data));
}

#[test]
fn remembered_digests_spare_reads_and_changes_are_still_seen() {
    let dir = tree(&[("a.md", "alpha"), ("b.md", "beta")]);
    let cache_dir = tempfile::tempdir().unwrap();
    let cache = crate::Cache::open(cache_dir.path()).unwrap();
    let first = take(&dir);
    let files = first
        .files
        .iter()
        .map(|(p, e)| (p.as_str(), &e.stat, &e.digest));
    // As if the first run had started reading well after the files were written.
    let later = (crate::memo::now().0 + 10, 0);
    cache.save_memo(dir.path(), later, files).unwrap();

    let memo = cache.load_memo(dir.path());
    let second =
        Snapshot::take(dir.path(), WalkLimits::default(), Excludes::none(), &memo).unwrap();
    assert_eq!(second.remembered, 2);
    assert_eq!(second.root_digest, first.root_digest);
    // Served on demand, checked against the remembered digest.
    assert_eq!(&*second.read("a.md").unwrap(), b"alpha");

    // Rewritten after a validator read it: the next read gets the bytes
    // that were checked (what every row saw), and the change is seen.
    std::fs::write(dir.path().join("a.md"), "ALPHA").unwrap();
    assert_eq!(&*second.read("a.md").unwrap(), b"alpha");
    assert_eq!(second.changes(&|_| true), ["a.md"]);

    std::fs::write(dir.path().join("b.md"), "BETA").unwrap();
    let third = Snapshot::take(dir.path(), WalkLimits::default(), Excludes::none(), &memo).unwrap();
    assert_eq!(third.remembered, 0, "the rewritten files are hashed again");
    assert_ne!(third.root_digest, first.root_digest);
}

#[test]
fn large_files_are_reread_and_checked() {
    let big = "x".repeat((RETAIN_FILE_MAX + 1) as usize);
    let dir = tree(&[("big", &big)]);
    let snap = take(&dir);
    assert!(snap.files["big"].bytes.is_none());
    assert_eq!(snap.read("big").unwrap().len(), big.len());
    fs::write(dir.path().join("big"), big.replace('x', "y")).unwrap();
    assert!(snap.read("big").unwrap_err().contains("changed"));
}
