//! The walk of a deliverable root: folders in parallel, each entry decided
//! by the excludes (and the ignore files found on the way), file types and
//! names checked, folders' metadata kept for the second look. An entry
//! that is not a regular file or a folder is never opened, but what the
//! root digest binds of it is kept: a link's target text, a name's bytes.

use super::*;

/// An entry found by the walk, before hashing.
pub(super) struct Found {
    pub(super) path: String,
    pub(super) stat: StatKey,
}

pub(super) struct Walk {
    pub(super) files: Vec<Found>,
    pub(super) dirs: HashMap<String, StatKey>,
    pub(super) unreadable: Vec<Odd>,
    pub(super) truncated: Option<String>,
    pub(super) excluded: Vec<ExcludedEntry>,
    pub(super) shadowed: HashSet<String>,
}

pub(super) fn kind_of(ft: &FileType) -> &'static str {
    use cap_std::fs::FileTypeExt;
    if ft.is_symlink() {
        "symlink"
    } else if ft.is_fifo() {
        "fifo"
    } else if ft.is_socket() {
        "socket"
    } else if ft.is_block_device() || ft.is_char_device() {
        "device"
    } else {
        "special"
    }
}

/// Depth-first walk holding only the open directories of the current branch
/// (at most `max_depth` descriptors), with an explicit stack: a tree 10,000
/// levels deep cannot overflow anything. Excluded entries are not entered,
/// opened or stat'ed; each folder's ignore files (with `gitignore: true`)
/// stay on the stack while its entries are walked.
pub(super) fn walk(root: &Dir, limits: &WalkLimits, excludes: &Excludes) -> io::Result<Walk> {
    let mut out = Walk {
        files: Vec::new(),
        dirs: HashMap::new(),
        unreadable: Vec::new(),
        truncated: None,
        excluded: Vec::new(),
        shadowed: HashSet::new(),
    };
    out.dirs
        .insert(String::new(), StatKey::of(&root.dir_metadata()?));
    let ignores = ignore_files(root, "", excludes, &mut out.unreadable);
    // The regular files found, by folder, and how many.
    let mut names: HashMap<String, Vec<String>> = HashMap::new();
    let mut pending = 0usize;
    let mut stack: Vec<Level> = vec![Level {
        entries: root.entries()?,
        prefix: String::new(),
        ignores,
    }];
    while let Some(level) = stack.last_mut() {
        let Some(entry) = level.entries.next() else {
            stack.pop();
            continue;
        };
        let prefix = level.prefix.clone();
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                out.unreadable
                    .push(odd(&prefix, "unreadable_dir", err.to_string()));
                stack.pop();
                continue;
            }
        };
        let name = entry.file_name();
        let Some(name) = utf8_name(&name) else {
            let lossy = name.to_string_lossy();
            let shown = if prefix.is_empty() {
                lossy.to_string()
            } else {
                format!("{prefix}/{lossy}")
            };
            // Names that read alike are told apart by their bytes.
            use std::os::unix::ffi::OsStrExt as _;
            let mut entry = odd(&shown, "non_utf8_name", "");
            entry.bound = name.as_bytes().to_vec();
            out.unreadable.push(entry);
            continue;
        };
        let path = if prefix.is_empty() {
            name.to_string()
        } else {
            format!("{prefix}/{name}")
        };
        let ft = match entry.file_type() {
            Ok(ft) => ft,
            Err(err) => {
                out.unreadable
                    .push(odd(&path, "unreadable", err.to_string()));
                continue;
            }
        };
        let layers: Vec<&[IgnoreFile]> = if excludes.gitignore {
            stack.iter().map(|l| l.ignores.as_slice()).collect()
        } else {
            Vec::new()
        };
        // A file vcc writes during the run (a report in the root) is left
        // out only as a regular file: a link of that name is an entry.
        let written = ft.is_file().then(|| excludes.host_file(&path)).flatten();
        if let Some(rule) = written {
            out.shadowed.insert(prefix);
            out.excluded.push(ExcludedEntry {
                path,
                folder: false,
                rule,
            });
            continue;
        }
        if let Decision::Excluded(rule) = excludes.decide(&path, ft.is_dir(), &layers) {
            out.shadowed.insert(prefix);
            out.excluded.push(ExcludedEntry {
                path,
                folder: ft.is_dir(),
                rule,
            });
            continue;
        }
        if ft.is_dir() {
            if stack.len() >= limits.max_depth {
                out.unreadable.push(odd(
                    &path,
                    "too_deep",
                    format!("deeper than {} levels", limits.max_depth),
                ));
                continue;
            }
            let opened = entry.metadata().and_then(|m| Ok((m, entry.open_dir()?)));
            match opened.and_then(|(meta, sub)| Ok((meta, sub.entries()?, sub))) {
                Ok((meta, entries, sub)) => {
                    out.dirs.insert(path.clone(), StatKey::of(&meta));
                    let ignores = ignore_files(&sub, &path, excludes, &mut out.unreadable);
                    stack.push(Level {
                        entries,
                        prefix: path,
                        ignores,
                    });
                }
                Err(err) => out
                    .unreadable
                    .push(odd(&path, "unreadable_dir", err.to_string())),
            }
        } else if ft.is_file() {
            if pending >= limits.max_files {
                out.truncated = Some(format!(
                    "the deliverable root holds more than {} files",
                    limits.max_files
                ));
                break;
            }
            pending += 1;
            // Stat'ed after the walk, a folder per task on all cores.
            names.entry(prefix).or_default().push(name.to_string());
        } else {
            out.unreadable.push(not_a_file(root, &path, &path, &ft));
        }
    }
    let stated = map_all(names.into_iter().collect(), |(folder, names)| {
        stat_folder(root, &out.dirs, &folder, names)
    });
    for (files, lost) in stated {
        out.files.extend(files);
        out.unreadable.extend(lost);
    }
    Ok(out)
}

/// Stat the regular files the walk found in `folder`, by name through the
/// folder opened once (a path per file would resolve every component
/// again). The folder must still be the one the walk read; each file's
/// bytes are checked against this metadata when hashed, and the post-run
/// check compares it again.
pub(super) fn stat_folder(
    root: &Dir,
    dirs: &HashMap<String, StatKey>,
    folder: &str,
    names: Vec<String>,
) -> (Vec<Found>, Vec<Odd>) {
    let path_of = |name: &str| {
        if folder.is_empty() {
            name.to_string()
        } else {
            format!("{folder}/{name}")
        }
    };
    let opened;
    let dir = if folder.is_empty() {
        root
    } else {
        let same = |d: &Dir| {
            let walked = dirs.get(folder);
            matches!(d.dir_metadata(), Ok(m) if walked.is_some_and(|w| (w.dev, w.ino) == (m.dev(), m.ino())))
        };
        match root.open_dir(folder) {
            Ok(d) if same(&d) => {
                opened = d;
                &opened
            }
            other => {
                let why = match other {
                    Err(err) => err.to_string(),
                    Ok(_) => "its folder was replaced while the root was walked".to_string(),
                };
                let lost = names
                    .iter()
                    .map(|n| odd(&path_of(n), "unreadable", why.clone()))
                    .collect();
                return (Vec::new(), lost);
            }
        }
    };
    let mut files = Vec::with_capacity(names.len());
    let mut lost = Vec::new();
    for name in names {
        let path = path_of(&name);
        match dir.symlink_metadata(&name) {
            Ok(m) if m.is_file() => files.push(Found {
                path,
                stat: StatKey::of(&m),
            }),
            Ok(m) => lost.push(not_a_file(dir, &name, &path, &m.file_type())),
            Err(err) => lost.push(odd(&path, "unreadable", err.to_string())),
        }
    }
    (files, lost)
}

/// One open folder of the walk.
pub(super) struct Level {
    pub(super) entries: cap_std::fs::ReadDir,
    pub(super) prefix: String,
    /// Its ignore files, `.ignore` first.
    pub(super) ignores: Vec<IgnoreFile>,
}

/// The ignore files of the folder `dir` (at `folder` in the root), when
/// the contract honours them. One that cannot be read or parsed makes its
/// folder unreadable: what it excludes is unknown, so nothing in the
/// folder can be judged (`bad_ignore_file`).
pub(super) fn ignore_files(
    dir: &Dir,
    folder: &str,
    excludes: &Excludes,
    unreadable_entries: &mut Vec<Odd>,
) -> Vec<IgnoreFile> {
    if !excludes.gitignore {
        return Vec::new();
    }
    let mut files = Vec::new();
    for name in IGNORE_FILES {
        // Only a regular file is read: a symlink is reported by the walk.
        match dir.symlink_metadata(name) {
            Ok(m) if m.is_file() => {}
            _ => continue,
        }
        let read = open_regular(dir, name).and_then(|file| {
            let mut bytes = Vec::new();
            file.take(MAX_IGNORE_FILE + 1).read_to_end(&mut bytes)?;
            if bytes.len() as u64 > MAX_IGNORE_FILE {
                return Err(io::Error::other(format!(
                    "larger than {MAX_IGNORE_FILE} bytes"
                )));
            }
            Ok(bytes)
        });
        let parsed = read
            .map_err(|e| e.to_string())
            .and_then(|bytes| IgnoreFile::parse(folder, name, &bytes));
        match parsed {
            Ok(file) => files.push(file),
            Err(why) => unreadable_entries.push(odd(folder, "bad_ignore_file", why)),
        }
    }
    files
}

pub(super) fn utf8_name(name: &OsString) -> Option<&str> {
    name.to_str()
}

/// An entry of the root at `path` that is neither a regular file nor a
/// folder, found at `name` in `dir`: never opened; a link's target text
/// is read (never followed) for the root digest and the report.
pub(super) fn not_a_file(dir: &Dir, name: &str, path: &str, ft: &FileType) -> Odd {
    let kind = kind_of(ft);
    if !ft.is_symlink() {
        return odd(path, kind, "");
    }
    match dir.read_link_contents(name) {
        Ok(target) => {
            use std::os::unix::ffi::OsStrExt as _;
            let mut entry = odd(path, kind, format!("links to {}", target.to_string_lossy()));
            entry.bound = target.as_os_str().as_bytes().to_vec();
            entry
        }
        Err(err) => odd(path, "unreadable", err.to_string()),
    }
}
