//! The deliverable snapshot: one walk of the root, every regular file read
//! once and hashed with blake3, in parallel.
//!
//! The walk goes through a cap-std `Dir`, so no path can resolve outside the
//! root. Symlinks are reported and never followed; FIFOs, sockets and devices
//! are reported and never opened; files over the size cap are reported and
//! never read. A criterion whose targets touch any of those is an `error`,
//! never a pass on a partial view.
//!
//! Small files keep their bytes in memory (within a budget), so validators
//! are served exactly the bytes that were hashed. Larger files are re-read on
//! demand and their digest checked again before a validator sees them.
//!
//! Files are read, never memory-mapped: a mapped file that the producer of
//! the deliverables truncates kills the reader with SIGBUS. A file that
//! shrinks or grows while it is hashed is a change.
//!
//! After the validators ran, [`Snapshot::changes`] walks the root again
//! and compares the metadata of every file and folder (device, inode, size,
//! modification and status-change times): any difference is a change,
//! whatever the bytes are now. The status-change time cannot be set back
//! by a writer, so a file rewritten and restored during the run is caught.
//! When nothing changed, that is proved without a second walk
//! (`snapshot/restat.rs`).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::OsString;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use cap_std::ambient_authority;
use cap_std::fs::{
    Dir, File, FileExt, FileType, Metadata, MetadataExt, OpenOptions, OpenOptionsExt,
};
use rayon::prelude::*;
use vcc_contract::exclude::{IGNORE_FILES, MAX_IGNORE_FILE};
use vcc_contract::paths::{self, PathSpec};
use vcc_contract::{Decision, Excludes, IgnoreFile};
use vcc_report::{ExcludedEntry, UnreadableEntry};

use crate::memo::Memo;
use crate::progress::Progress;

mod restat;

/// Bounds on what one walk will take on.
#[derive(Debug, Clone)]
pub struct WalkLimits {
    pub max_files: usize,
    pub max_depth: usize,
    pub max_file_size: u64,
    /// Total bytes of small files kept in memory for validators.
    pub retain_budget: u64,
}

impl Default for WalkLimits {
    fn default() -> Self {
        WalkLimits {
            max_files: 1_000_000,
            max_depth: 256,
            max_file_size: 4 << 30,
            retain_budget: 64 << 20,
        }
    }
}

/// Files at most this large are kept in memory (if the budget allows).
const RETAIN_FILE_MAX: u64 = 8 << 20;
/// Files larger than this are hashed on all cores: each core reads and
/// hashes its own parts of the file (subtrees of the BLAKE3 tree).
const PARALLEL_MIN: u64 = 16 << 20;
/// A part one core reads and hashes, at most.
const PART: u64 = 8 << 20;
/// One read.
const CHUNK: usize = 1 << 20;

/// What identifies one version of a file without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatKey {
    pub(crate) dev: u64,
    pub(crate) ino: u64,
    pub(crate) size: u64,
    pub(crate) mtime: (i64, i64),
    pub(crate) ctime: (i64, i64),
}

impl StatKey {
    /// An attached file's: no walk of the root ever finds it.
    const ATTACHED: StatKey = StatKey {
        dev: 0,
        ino: 0,
        size: 0,
        mtime: (0, 0),
        ctime: (0, 0),
    };

    fn of(m: &Metadata) -> StatKey {
        StatKey {
            dev: m.dev(),
            ino: m.ino(),
            size: m.len(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        }
    }

    pub(crate) fn of_std(m: &std::fs::Metadata) -> StatKey {
        use std::os::unix::fs::MetadataExt;
        StatKey {
            dev: m.dev(),
            ino: m.ino(),
            size: m.len(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        }
    }
}

#[derive(Debug, Clone)]
pub struct FileEntry {
    pub size: u64,
    pub digest: blake3::Hash,
    /// The hashed bytes, when small enough to keep.
    pub bytes: Option<Arc<[u8]>>,
    pub(crate) stat: StatKey,
}

impl FileEntry {
    pub fn digest_string(&self) -> String {
        digest_string(&self.digest)
    }
}

pub fn digest_string(hash: &blake3::Hash) -> String {
    format!("blake3:{}", hash.to_hex())
}

/// The hashed state of a deliverable root.
pub struct Snapshot {
    root: PathBuf,
    dir: Dir,
    limits: WalkLimits,
    excludes: Excludes,
    /// What the walk left out, in walk order: never hashed, never visible.
    pub excluded: Vec<ExcludedEntry>,
    /// Folders that directly hold an excluded entry (see `changes`).
    shadowed: HashSet<String>,
    /// Relative `/`-separated path → entry, in byte order.
    pub files: BTreeMap<String, FileEntry>,
    /// Entries not hashed, and why.
    pub unreadable: Vec<UnreadableEntry>,
    /// What the walk itself could not hash (path, kind), to compare with a
    /// later walk.
    walk_unreadable: HashSet<(String, String)>,
    /// Regular files found by the walk but not hashed (too large, …), and
    /// their metadata.
    unhashed: HashMap<String, StatKey>,
    /// Every folder the walk entered (the root is `""`), and its metadata.
    dirs: HashMap<String, StatKey>,
    /// When the walk started (`memo::now`): a folder changed since less
    /// than the racy margin before is walked again by `changes`.
    walked_at: (i64, i64),
    /// Set when the walk stopped early (too many files): nothing can be
    /// judged on a partial tree.
    pub truncated: Option<String>,
    pub root_digest: blake3::Hash,
    pub total_bytes: u64,
    /// Files whose digest came from the memo of an earlier run, unread.
    pub remembered: usize,
    /// Paths of files attached from outside the root ([`Snapshot::attach`]).
    pub attached: HashSet<String>,
}

/// A file hashed (its path and entry), or why not.
type Hashed = Result<(String, FileEntry), UnreadableEntry>;

/// An entry found by the walk, before hashing.
struct Found {
    path: String,
    stat: StatKey,
}

struct Walk {
    files: Vec<Found>,
    dirs: HashMap<String, StatKey>,
    unreadable: Vec<UnreadableEntry>,
    truncated: Option<String>,
    excluded: Vec<ExcludedEntry>,
    shadowed: HashSet<String>,
}

/// A snapshot could not be taken at all (the root is unusable).
#[derive(Debug, thiserror::Error)]
#[error("cannot read the deliverable root {root}: {source}")]
pub struct RootError {
    pub root: String,
    #[source]
    pub source: io::Error,
}

impl Snapshot {
    /// Walk and hash `root`. A file whose metadata is as `memo` recorded it
    /// keeps the recorded digest and is not read (see `memo.rs`); its bytes
    /// are read, and checked against that digest, only if a validator asks.
    /// `excludes` says what the walk leaves out.
    pub fn take(
        root: &Path,
        limits: WalkLimits,
        excludes: Excludes,
        memo: &Memo,
    ) -> Result<Snapshot, RootError> {
        Snapshot::take_with(root, limits, excludes, memo, &Progress::default())
    }

    /// [`Snapshot::take`], counting files and bytes in `progress`.
    pub fn take_with(
        root: &Path,
        limits: WalkLimits,
        excludes: Excludes,
        memo: &Memo,
        progress: &Progress,
    ) -> Result<Snapshot, RootError> {
        progress.hashing(true);
        let taken = Snapshot::walk_and_hash(root, limits, excludes, memo, progress);
        progress.hashing(false);
        taken
    }

    fn walk_and_hash(
        root: &Path,
        limits: WalkLimits,
        excludes: Excludes,
        memo: &Memo,
        progress: &Progress,
    ) -> Result<Snapshot, RootError> {
        let root_error = |source| RootError {
            root: root.display().to_string(),
            source,
        };
        let dir = Dir::open_ambient_dir(root, ambient_authority()).map_err(root_error)?;
        let walked_at = crate::memo::now();
        let walk = walk(&dir, &limits, &excludes).map_err(root_error)?;
        progress.found(walk.files.len() as u64);

        let budget = AtomicU64::new(limits.retain_budget);
        let remembered = AtomicUsize::new(0);
        // Each with the stat the walk took: a file not hashed keeps it.
        let hashed: Vec<(Hashed, StatKey)> = walk
            .files
            .into_par_iter()
            .map(|found| {
                let size = found.stat.size;
                let stat = found.stat;
                let hashed = match memo.get(&found.path, &found.stat) {
                    Some(digest) if size <= limits.max_file_size => {
                        remembered.fetch_add(1, Ordering::Relaxed);
                        Ok((found.path, remembered_entry(found.stat, digest)))
                    }
                    _ => hash_file(&dir, found, &limits, &budget),
                };
                progress.hashed(size);
                (hashed, stat)
            })
            .collect();

        let walk_unreadable = walk
            .unreadable
            .iter()
            .map(|u| (u.path.clone(), u.kind.clone()))
            .collect();
        let mut files = BTreeMap::new();
        let mut unhashed = HashMap::new();
        let mut unreadable = walk.unreadable;
        for (item, stat) in hashed {
            match item {
                Ok((path, entry)) => {
                    files.insert(path, entry);
                }
                Err(entry) => {
                    unhashed.insert(entry.path.clone(), stat);
                    unreadable.push(entry);
                }
            }
        }
        unreadable.sort_by(|a, b| a.path.cmp(&b.path));
        let root_digest = manifest_digest(&files);
        let total_bytes = files.values().map(|f| f.size).sum();
        Ok(Snapshot {
            root: root.to_path_buf(),
            dir,
            limits,
            excludes,
            excluded: walk.excluded,
            shadowed: walk.shadowed,
            files,
            unreadable,
            walk_unreadable,
            unhashed,
            dirs: walk.dirs,
            walked_at,
            truncated: walk.truncated,
            root_digest,
            total_bytes,
            remembered: remembered.into_inner(),
            attached: HashSet::new(),
        })
    }

    /// A file from outside the root (an agent's transcript), judged as if
    /// it were at `path` under the root. Its bytes are held in memory, so
    /// what a validator reads is exactly what was hashed, whatever happens
    /// to the file later. The path must be free in the root.
    pub fn attach(&mut self, path: &str, bytes: Arc<[u8]>) -> Result<(), String> {
        let mut ancestors = path.match_indices('/').map(|(i, _)| &path[..i]);
        let taken = self.files.contains_key(path)
            || self.unhashed.contains_key(path)
            || self.dirs.contains_key(path)
            || ancestors.any(|a| self.files.contains_key(a) || self.unhashed.contains_key(a));
        if taken {
            return Err(format!(
                "{path}: the deliverable root holds this path already; an attached file cannot take its place"
            ));
        }
        let size = bytes.len() as u64;
        self.files.insert(
            path.to_string(),
            FileEntry {
                size,
                digest: blake3::hash(&bytes),
                bytes: Some(bytes),
                stat: StatKey::ATTACHED,
            },
        );
        self.attached.insert(path.to_string());
        self.root_digest = manifest_digest(&self.files);
        self.total_bytes += size;
        Ok(())
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The bytes of a file, exactly as hashed: from memory, or re-read and
    /// checked against the digest.
    pub fn read(&self, path: &str) -> Result<Arc<[u8]>, String> {
        self.read_before(path, Instant::now() + Duration::from_secs(3600))
    }

    /// Like [`Snapshot::read`], but a re-read stops at `deadline`: a guest
    /// asking for a huge file cannot keep the host busy past its budget.
    pub fn read_before(&self, path: &str, deadline: Instant) -> Result<Arc<[u8]>, String> {
        let entry = self
            .files
            .get(path)
            .ok_or_else(|| format!("{path}: not a file of the snapshot"))?;
        if let Some(bytes) = &entry.bytes {
            return Ok(bytes.clone());
        }
        if Instant::now() >= deadline {
            return Err(format!("{path}: the run's time budget is spent"));
        }
        let mut file = open_regular(&self.dir, path).map_err(|e| format!("{path}: {e}"))?;
        let mut bytes = Vec::with_capacity(entry.size as usize);
        let mut chunk = vec![0u8; 4 << 20];
        loop {
            let n = file.read(&mut chunk).map_err(|e| format!("{path}: {e}"))?;
            if n == 0 {
                break;
            }
            bytes.extend_from_slice(&chunk[..n]);
            if bytes.len() as u64 > entry.size {
                return Err(format!("{path}: changed since it was hashed"));
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "{path}: the run's time budget ran out while reading"
                ));
            }
        }
        if blake3::hash(&bytes) != entry.digest {
            return Err(format!("{path}: changed since it was hashed"));
        }
        Ok(bytes.into())
    }
}

impl Snapshot {
    /// Paths that are not as they were when the walk saw them: files and
    /// folders whose metadata changed (whatever their bytes are now),
    /// files added or removed, and entries that were not hashed (symlinks,
    /// FIFOs, …) appearing, disappearing or changing kind. A folder is
    /// named with a trailing `/` (an entry was added, removed or renamed
    /// in it).
    pub fn changes(&self) -> Vec<String> {
        if self.unchanged() {
            return Vec::new();
        }
        let walk = match walk(&self.dir, &self.limits, &self.excludes) {
            Ok(walk) => walk,
            Err(err) => return vec![format!("(the root could not be walked again: {err})")],
        };
        let mut changed = Vec::new();
        let mut present = HashSet::new();
        for found in &walk.files {
            present.insert(found.path.as_str());
            let before = self
                .files
                .get(&found.path)
                .map(|e| e.stat)
                .or_else(|| self.unhashed.get(&found.path).copied());
            if before != Some(found.stat) {
                changed.push(found.path.clone());
            }
        }
        changed.extend(
            self.files
                .keys()
                .chain(self.unhashed.keys())
                .filter(|p| !present.contains(p.as_str()) && !self.attached.contains(*p))
                .cloned(),
        );
        let folder = |path: &str| {
            if path.is_empty() {
                "./".to_string()
            } else {
                format!("{path}/")
            }
        };
        // A folder holding excluded entries changes whenever one of them is
        // written (a build writing `target/`, a log): its own times are not
        // compared, only what it holds that is not excluded (the files and
        // folders compared above and below).
        for (path, stat) in &walk.dirs {
            let shadowed = self.shadowed.contains(path) || walk.shadowed.contains(path);
            if self.dirs.get(path) != Some(stat) && !(shadowed && self.dirs.contains_key(path)) {
                changed.push(folder(path));
            }
        }
        changed.extend(
            self.dirs
                .keys()
                .filter(|p| !walk.dirs.contains_key(*p))
                .map(|p| folder(p)),
        );
        let now: HashSet<(String, String)> = walk
            .unreadable
            .iter()
            .map(|u| (u.path.clone(), u.kind.clone()))
            .collect();
        changed.extend(
            now.symmetric_difference(&self.walk_unreadable)
                .map(|(path, _)| path.clone()),
        );
        changed.sort();
        changed.dedup();
        changed
    }

    /// The files a deliverable path names, and the unreadable entries that
    /// would have been part of it.
    pub fn resolve(&self, spec: &PathSpec) -> Resolved {
        match spec {
            PathSpec::Literal(p) => {
                let files: Vec<String> = if self.files.contains_key(p) {
                    vec![p.clone()]
                } else {
                    let prefix = format!("{p}/");
                    self.files
                        .range(prefix.clone()..)
                        .take_while(|(k, _)| k.starts_with(&prefix))
                        .map(|(k, _)| k.clone())
                        .collect()
                };
                let blocked = self
                    .unreadable
                    .iter()
                    .filter(|u| overlaps(&u.path, p))
                    .cloned()
                    .collect();
                Resolved { files, blocked }
            }
            PathSpec::Glob(g) => {
                // lint checked the glob; an error here matches nothing and
                // blocks the criterion rather than passing it.
                let Ok(matcher) = paths::matcher(g) else {
                    return Resolved {
                        files: Vec::new(),
                        blocked: vec![UnreadableEntry {
                            path: g.clone(),
                            kind: "bad_glob".into(),
                            detail: String::new(),
                        }],
                    };
                };
                let files = self
                    .files
                    .keys()
                    .filter(|k| matcher.is_match(k.as_str()))
                    .cloned()
                    .collect();
                let fixed = paths::glob_prefix(g);
                let blocked = self
                    .unreadable
                    .iter()
                    .filter(|u| {
                        matcher.is_match(&u.path)
                            || (may_hold_files(u) && overlaps(&u.path, &fixed))
                    })
                    .cloned()
                    .collect();
                Resolved { files, blocked }
            }
        }
    }
}

impl Snapshot {
    /// An excluded entry that holds what a deliverable path names (the
    /// path, a folder above it, or a match of the glob): why a deliverable
    /// is missing when it is.
    pub fn hidden_by(&self, spec: &PathSpec) -> Option<&ExcludedEntry> {
        let holds = |e: &ExcludedEntry, p: &str| {
            e.path == p || (e.folder && p.starts_with(&format!("{}/", e.path)))
        };
        match spec {
            PathSpec::Literal(p) => self.excluded.iter().find(|e| holds(e, p)),
            PathSpec::Glob(g) => {
                let matcher = paths::matcher(g).ok()?;
                let fixed = paths::glob_prefix(g);
                self.excluded.iter().find(|e| {
                    matcher.is_match(&e.path)
                        || (e.folder && !fixed.is_empty() && overlaps(&e.path, &fixed))
                })
            }
        }
    }
}

pub struct Resolved {
    pub files: Vec<String>,
    pub blocked: Vec<UnreadableEntry>,
}

/// Could this entry hide files a glob would have matched?
fn may_hold_files(entry: &UnreadableEntry) -> bool {
    matches!(
        entry.kind.as_str(),
        "unreadable_dir" | "too_deep" | "non_utf8_name" | "bad_ignore_file"
    )
}

/// Is one path inside the other (or the same)? `""` contains everything.
fn overlaps(a: &str, b: &str) -> bool {
    let inside = |x: &str, y: &str| y.is_empty() || x == y || x.starts_with(&format!("{y}/"));
    inside(a, b) || inside(b, a)
}

/// The manifest digest: blake3 over, for each file in path byte order,
/// `path NUL size NUL hex-digest LF`. Paths cannot contain NUL, so the
/// encoding is unambiguous.
fn manifest_digest(files: &BTreeMap<String, FileEntry>) -> blake3::Hash {
    let mut hasher = blake3::Hasher::new();
    for (path, entry) in files {
        hasher.update(path.as_bytes());
        hasher.update(b"\0");
        hasher.update(entry.size.to_string().as_bytes());
        hasher.update(b"\0");
        hasher.update(entry.digest.to_hex().as_bytes());
        hasher.update(b"\n");
    }
    hasher.finalize()
}

fn unreadable(path: &str, kind: &str, detail: impl Into<String>) -> UnreadableEntry {
    UnreadableEntry {
        path: path.to_string(),
        kind: kind.to_string(),
        detail: detail.into(),
    }
}

fn kind_of(ft: &FileType) -> &'static str {
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
fn walk(root: &Dir, limits: &WalkLimits, excludes: &Excludes) -> io::Result<Walk> {
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
                    .push(unreadable(&prefix, "unreadable_dir", err.to_string()));
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
            out.unreadable.push(unreadable(&shown, "non_utf8_name", ""));
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
                    .push(unreadable(&path, "unreadable", err.to_string()));
                continue;
            }
        };
        let layers: Vec<&[IgnoreFile]> = if excludes.gitignore {
            stack.iter().map(|l| l.ignores.as_slice()).collect()
        } else {
            Vec::new()
        };
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
                out.unreadable.push(unreadable(
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
                Err(err) => {
                    out.unreadable
                        .push(unreadable(&path, "unreadable_dir", err.to_string()))
                }
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
            out.unreadable.push(unreadable(&path, kind_of(&ft), ""));
        }
    }
    let stated: Vec<(Vec<Found>, Vec<UnreadableEntry>)> = names
        .into_par_iter()
        .map(|(folder, names)| stat_folder(root, &out.dirs, &folder, names))
        .collect();
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
fn stat_folder(
    root: &Dir,
    dirs: &HashMap<String, StatKey>,
    folder: &str,
    names: Vec<String>,
) -> (Vec<Found>, Vec<UnreadableEntry>) {
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
                    .map(|n| unreadable(&path_of(n), "unreadable", why.clone()))
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
            Ok(m) => lost.push(unreadable(&path, kind_of(&m.file_type()), "")),
            Err(err) => lost.push(unreadable(&path, "unreadable", err.to_string())),
        }
    }
    (files, lost)
}

/// One open folder of the walk.
struct Level {
    entries: cap_std::fs::ReadDir,
    prefix: String,
    /// Its ignore files, `.ignore` first.
    ignores: Vec<IgnoreFile>,
}

/// The ignore files of the folder `dir` (at `folder` in the root), when
/// the contract honours them. One that cannot be read or parsed makes its
/// folder unreadable: what it excludes is unknown, so nothing in the
/// folder can be judged (`bad_ignore_file`).
fn ignore_files(
    dir: &Dir,
    folder: &str,
    excludes: &Excludes,
    unreadable_entries: &mut Vec<UnreadableEntry>,
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
            Err(why) => unreadable_entries.push(unreadable(folder, "bad_ignore_file", why)),
        }
    }
    files
}

fn utf8_name(name: &OsString) -> Option<&str> {
    name.to_str()
}

/// Open a regular file without blocking, whatever it has become since the
/// walk (a FIFO swapped in must not hang the host).
fn open_regular(dir: &Dir, path: &str) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    let file = dir.open_with(path, &options)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::other("is no longer a regular file"));
    }
    Ok(file)
}

/// A file known from the memo: its digest, and no bytes (read on demand,
/// and checked, if a validator asks).
fn remembered_entry(stat: StatKey, digest: blake3::Hash) -> FileEntry {
    FileEntry {
        size: stat.size,
        digest,
        bytes: None,
        stat,
    }
}

fn hash_file(dir: &Dir, found: Found, limits: &WalkLimits, budget: &AtomicU64) -> Hashed {
    let Found { path, stat } = found;
    let fail = |kind: &str, detail: String| unreadable(&path, kind, detail);
    if stat.size > limits.max_file_size {
        return Err(fail(
            "too_large",
            format!(
                "{} bytes, over the {} byte cap",
                stat.size, limits.max_file_size
            ),
        ));
    }
    let mut file = open_regular(dir, &path).map_err(|e| fail("unreadable", e.to_string()))?;
    let meta = file
        .metadata()
        .map_err(|e| fail("unreadable", e.to_string()))?;
    if StatKey::of(&meta) != stat {
        return Err(fail("changed_during_walk", String::new()));
    }
    let size = stat.size;
    let retain = size <= RETAIN_FILE_MAX
        && budget
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(size)
            })
            .is_ok();
    let read_error = |e: io::Error| unreadable(&path, "unreadable", e.to_string());
    let (digest, bytes) = if retain {
        let mut bytes = Vec::with_capacity(size as usize);
        (&mut file)
            .take(size + 1)
            .read_to_end(&mut bytes)
            .map_err(read_error)?;
        if bytes.len() as u64 != size {
            return Err(fail(
                "changed_during_walk",
                "size changed while reading".into(),
            ));
        }
        (blake3::hash(&bytes), Some(Arc::from(bytes)))
    } else {
        let digest = hash_open_file(&file, size).map_err(|e| match e.kind() {
            io::ErrorKind::InvalidData => fail("changed_during_walk", e.to_string()),
            _ => read_error(e),
        })?;
        (digest, None)
    };
    Ok((
        path,
        FileEntry {
            size,
            digest,
            bytes,
            stat,
        },
    ))
}

/// Hash exactly `size` bytes of an open file by reading it (never by
/// mapping it: a mapped file truncated by its writer would kill vcc with
/// SIGBUS). A file shorter or longer than `size` is refused as changed
/// (`InvalidData`); a file rewritten in place is caught by the second look.
fn hash_open_file(file: &File, size: u64) -> io::Result<blake3::Hash> {
    if size > PARALLEL_MIN {
        let left = blake3::hazmat::left_subtree_len(size);
        let (l, r) = rayon::join(|| part(file, 0, left), || part(file, left, size - left));
        // One more byte past the end means the file grew.
        if file.read_at(&mut [0u8], size)? != 0 {
            return Err(changed_while_hashed());
        }
        return Ok(blake3::hazmat::merge_subtrees_root(
            &l?,
            &r?,
            blake3::hazmat::Mode::Hash,
        ));
    }
    let mut hasher = blake3::Hasher::new();
    if io::copy(&mut file.take(size + 1), &mut hasher)? != size {
        return Err(changed_while_hashed());
    }
    Ok(hasher.finalize())
}

/// The chaining value of the BLAKE3 subtree of `len` bytes at `offset`:
/// halves hashed on two cores (rayon), down to parts one core reads.
fn part(file: &File, offset: u64, len: u64) -> io::Result<blake3::hazmat::ChainingValue> {
    use blake3::hazmat::{HasherExt, Mode, left_subtree_len, merge_subtrees_non_root};
    if len <= PART {
        let mut hasher = blake3::Hasher::new();
        hasher.set_input_offset(offset);
        let mut buf = vec![0u8; CHUNK];
        let mut at = offset;
        while at < offset + len {
            let want = usize::try_from(offset + len - at).map_or(CHUNK, |w| w.min(CHUNK));
            let n = file.read_at(&mut buf[..want], at)?;
            if n == 0 {
                return Err(changed_while_hashed());
            }
            hasher.update(&buf[..n]);
            at += n as u64;
        }
        return Ok(hasher.finalize_non_root());
    }
    let left = left_subtree_len(len);
    let (l, r) = rayon::join(
        || part(file, offset, left),
        || part(file, offset + left, len - left),
    );
    Ok(merge_subtrees_non_root(&l?, &r?, Mode::Hash))
}

/// The error of a file that changed while it was read (`InvalidData` marks
/// it apart from I/O errors).
fn changed_while_hashed() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "changed while it was hashed")
}

#[cfg(test)]
mod tests {
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
        assert_eq!(snap.changes(), Vec::<String>::new());
        // A path the root holds cannot be attached over, nor under a file.
        for taken in ["a.txt", "docs", "a.txt/x"] {
            let err = snap.attach(taken, Arc::from(&b""[..])).unwrap_err();
            assert!(err.contains("holds this path already"), "{err}");
        }
        // The producer writing a file where the attachment sits is a change.
        fs::create_dir_all(dir.path().join(".vcc")).unwrap();
        fs::write(dir.path().join(".vcc/transcript.jsonl"), "forged").unwrap();
        assert!(
            snap.changes()
                .contains(&".vcc/transcript.jsonl".to_string())
        );
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
        let blocked = snap.resolve(&paths::check("*").unwrap()).blocked;
        assert_eq!(blocked.len(), 2);
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
        assert!(snap.changes().is_empty());
        // Rewritten with the same bytes: the status-change time moved, and
        // no writer can set it back.
        fs::write(dir.path().join("b.txt"), "TWO").unwrap();
        fs::write(dir.path().join("b.txt"), "two").unwrap();
        assert_eq!(snap.changes(), vec!["b.txt"]);
        let snap = take(&dir);
        fs::write(dir.path().join("a.txt"), "ONE").unwrap();
        fs::write(dir.path().join("new.txt"), "3").unwrap();
        fs::remove_file(dir.path().join("b.txt")).unwrap();
        // Files, and the root folder whose entries changed.
        assert_eq!(snap.changes(), vec!["./", "a.txt", "b.txt", "new.txt"]);
        // An entry added and removed again leaves its folder changed.
        let snap = take(&dir);
        fs::write(dir.path().join("sub/tmp"), "x").unwrap();
        fs::remove_file(dir.path().join("sub/tmp")).unwrap();
        assert_eq!(snap.changes(), vec!["sub/"]);
        // A symlink appearing is a change too.
        let snap = take(&dir);
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join("sneaky")).unwrap();
        assert!(snap.changes().contains(&"sneaky".to_string()));
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

        std::fs::write(dir.path().join("b.md"), "BETA").unwrap();
        let third =
            Snapshot::take(dir.path(), WalkLimits::default(), Excludes::none(), &memo).unwrap();
        assert_eq!(third.remembered, 1, "the rewritten file is hashed again");
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
}
