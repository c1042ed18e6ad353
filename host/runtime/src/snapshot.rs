//! The deliverable snapshot: one walk of the root, every regular file read
//! once and hashed with blake3, in parallel.
//!
//! The walk goes through a cap-std `Dir`, so no path can resolve outside the
//! root. Symlinks are reported and never followed; FIFOs, sockets and devices
//! are reported and never opened; files over the size cap are reported and
//! never read. A criterion whose targets touch any of those is an `error`,
//! never a pass on a partial view.
//!
//! The root digest binds every entry the walk found, not only the files
//! it hashed (see `manifest_digest`): a link, a FIFO or a file too
//! large to hash added to the root is another tree, never the accepted
//! one.
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

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ffi::OsString;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use cap_std::ambient_authority;
use cap_std::fs::{Dir, File, FileExt, FileType, MetadataExt, OpenOptions, OpenOptionsExt};
use rayon::prelude::*;
use vcc_contract::exclude::{IGNORE_FILES, MAX_IGNORE_FILE};
use vcc_contract::paths::{self, PathSpec};
use vcc_contract::{Decision, Excludes, IgnoreFile};
use vcc_report::{ExcludedEntry, UnreadableEntry};

use crate::memo::Memo;
use crate::progress::Progress;
use crate::stat::StatKey;

mod hash;
mod links;
mod read;
mod walk;

#[cfg(test)]
use hash::hash_open_file;
use hash::{hash_file, open_regular, remembered_entry};
use read::ReadBytes;
use walk::{Found, walk};

mod restat;

/// Fewer items than this are worked through on the calling thread: the
/// first parallel call starts the pool (a thread per core, which spin a
/// while before they sleep), and that costs more than stat'ing or
/// looking up a few dozen files (W3, a tiny check, in bench/README.md).
pub(crate) const FEW: usize = 64;

/// `items` mapped by `f`, in order; on all cores only when there are
/// [`FEW`] or more.
pub(crate) fn map_all<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync + Send) -> Vec<R> {
    if items.len() < FEW {
        items.into_iter().map(f).collect()
    } else {
        items.into_par_iter().map(f).collect()
    }
}

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
    /// What the walk itself could not hash (path, kind, what is bound of
    /// it), to compare with a later walk.
    walk_unreadable: HashSet<Mark>,
    /// Every entry of the root that is not a hashed file, as the root
    /// digest binds it: folders, and what was not hashed.
    marks: BTreeSet<Mark>,
    /// Regular files found by the walk but not hashed (too large, …), and
    /// their metadata.
    unhashed: HashMap<String, StatKey>,
    /// Every folder the walk entered (the root is `""`), and its metadata.
    dirs: HashMap<String, StatKey>,
    /// When the walk started (`stat::now`): a folder changed since less
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
    /// Paths kept for a file the caller has not got, and why
    /// ([`Snapshot::reserve`]).
    reserved: BTreeMap<String, String>,
    /// Bytes read for a validator and checked against their digest, kept
    /// for the next criterion that reads the file, within what is left of
    /// the retain budget: twenty criteria over the same 500 files read and
    /// hashed each file twenty times (W1).
    read: Mutex<ReadBytes>,
}

/// A root walked, not yet hashed.
struct Walked {
    root: PathBuf,
    dir: Dir,
    walked_at: (i64, i64),
    walk: walk::Walk,
}

/// The kind of a reserved path, in the entries that block a criterion.
pub const RESERVED: &str = "reserved";

/// A path under the root kept for the caller ([`Snapshot::reserve`]).
#[derive(Debug, Clone)]
pub struct Reserved {
    /// Relative to the root.
    pub path: String,
    /// Why it is empty, said in the rows that cannot read it.
    pub why: String,
}

/// A file hashed (its path and entry), or why not.
type Hashed = Result<(String, FileEntry), UnreadableEntry>;

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
        let taken = Snapshot::walk_root(root, &limits, &excludes)
            .map(|walked| Snapshot::hash_walked(walked, limits, excludes, memo, progress));
        progress.hashing(false);
        taken
    }

    /// [`Snapshot::take_with`], with the memo loaded by `load` on a thread
    /// of its own while the tree is walked: a large memo's read and check
    /// take about as long as the walk (W5, a second run over 100,000
    /// files). Returns the memo too.
    pub fn take_loading(
        root: &Path,
        limits: WalkLimits,
        excludes: Excludes,
        load: impl FnOnce() -> Memo + Send,
        progress: &Progress,
    ) -> Result<(Snapshot, Memo), RootError> {
        progress.hashing(true);
        let (walked, memo) = std::thread::scope(|scope| {
            let loading = scope.spawn(load);
            let walked = Snapshot::walk_root(root, &limits, &excludes);
            // A load that panicked is no memo: every file is hashed.
            (walked, loading.join().unwrap_or_default())
        });
        let taken =
            walked.map(|walked| Snapshot::hash_walked(walked, limits, excludes, &memo, progress));
        progress.hashing(false);
        taken.map(|snapshot| (snapshot, memo))
    }

    fn walk_root(
        root: &Path,
        limits: &WalkLimits,
        excludes: &Excludes,
    ) -> Result<Walked, RootError> {
        let root_error = |source| RootError {
            root: root.display().to_string(),
            source,
        };
        let dir = Dir::open_ambient_dir(root, ambient_authority()).map_err(root_error)?;
        let walked_at = crate::stat::now();
        let walk = walk(&dir, limits, excludes).map_err(root_error)?;
        Ok(Walked {
            root: root.to_path_buf(),
            dir,
            walked_at,
            walk,
        })
    }

    fn hash_walked(
        walked: Walked,
        limits: WalkLimits,
        excludes: Excludes,
        memo: &Memo,
        progress: &Progress,
    ) -> Snapshot {
        let Walked {
            root,
            dir,
            walked_at,
            walk,
        } = walked;
        progress.found(walk.files.len() as u64);

        let budget = AtomicU64::new(limits.retain_budget);
        let remembered = AtomicUsize::new(0);
        // Each with the stat the walk took: a file not hashed keeps it.
        let hashed: Vec<(Hashed, StatKey)> = map_all(walk.files, |found| {
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
        });

        let walk_unreadable: HashSet<Mark> = walk.unreadable.iter().map(Odd::mark).collect();
        let mut marks: BTreeSet<Mark> = walk_unreadable.iter().cloned().collect();
        marks.extend(walk.dirs.keys().filter(|d| !d.is_empty()).map(|d| Mark {
            path: d.clone(),
            kind: "folder".into(),
            bound: Vec::new(),
        }));
        let mut files = BTreeMap::new();
        let mut unhashed = HashMap::new();
        let mut unreadable: Vec<UnreadableEntry> =
            walk.unreadable.into_iter().map(|o| o.entry).collect();
        for (item, stat) in hashed {
            match item {
                Ok((path, entry)) => {
                    files.insert(path, entry);
                }
                Err(entry) => {
                    // A regular file not hashed: its size is bound.
                    marks.insert(Mark {
                        path: entry.path.clone(),
                        kind: entry.kind.clone(),
                        bound: stat.size.to_string().into_bytes(),
                    });
                    unhashed.insert(entry.path.clone(), stat);
                    unreadable.push(entry);
                }
            }
        }
        unreadable.sort_by(|a, b| a.path.cmp(&b.path));
        let root_digest = manifest_digest(&files, &marks);
        let total_bytes = files.values().map(|f| f.size).sum();
        Snapshot {
            root,
            dir,
            limits,
            excludes,
            excluded: walk.excluded,
            shadowed: walk.shadowed,
            files,
            unreadable,
            walk_unreadable,
            marks,
            unhashed,
            dirs: walk.dirs,
            walked_at,
            truncated: walk.truncated,
            root_digest,
            total_bytes,
            remembered: remembered.into_inner(),
            attached: HashSet::new(),
            reserved: BTreeMap::new(),
            read: Mutex::new(ReadBytes {
                left: budget.into_inner(),
                bytes: HashMap::new(),
            }),
        }
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
        self.root_digest = manifest_digest(&self.files, &self.marks);
        self.total_bytes += size;
        Ok(())
    }

    /// Keep `path` for the caller (a transcript the harness did not
    /// give): what the root holds there (a file, or a folder of them)
    /// stays in the snapshot (it is part of the tree, and looked at again
    /// after the run), but no validator sees it, and a deliverable that
    /// would hold it is blocked by it. A deliverable that names exactly
    /// `path` is blocked even when nothing is there: it is about the
    /// caller's file, which is missing.
    pub fn reserve(&mut self, r: &Reserved) {
        self.reserved
            .insert(r.path.trim_start_matches("./").to_string(), r.why.clone());
    }

    /// The reserved path `path` is, or is under.
    fn reserved_at(&self, path: &str) -> Option<&str> {
        self.reserved.keys().map(String::as_str).find(|r| {
            path.strip_prefix(r)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        })
    }

    /// Whether validators are kept from `path` ([`Snapshot::reserve`]).
    pub fn is_reserved(&self, path: &str) -> bool {
        self.reserved_at(path).is_some()
    }

    /// The files validators may see: every hashed file but the reserved.
    pub fn visible(&self) -> impl Iterator<Item = &String> {
        self.files.keys().filter(|p| !self.is_reserved(p))
    }

    /// `files` without the reserved, and the entries of the reserved
    /// paths that held some of them, or that `named` names.
    fn without_reserved(
        &self,
        files: Vec<String>,
        named: Option<&str>,
    ) -> (Vec<String>, Vec<UnreadableEntry>) {
        let mut held = BTreeSet::new();
        let files = files
            .into_iter()
            .filter(|f| match self.reserved_at(f) {
                Some(r) => {
                    held.insert(r.to_string());
                    false
                }
                None => true,
            })
            .collect();
        let blocked = self
            .reserved
            .iter()
            .filter(|(r, _)| held.contains(*r) || named == Some(r.as_str()))
            .map(|(r, why)| unreadable(r, RESERVED, why.as_str()))
            .collect();
        (files, blocked)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl Snapshot {
    /// Paths that are not as they were when the walk saw them: files and
    /// folders whose metadata changed (whatever their bytes are now),
    /// files added or removed, and entries that were not hashed (symlinks,
    /// FIFOs, …) appearing, disappearing or changing kind. A folder is
    /// named with a trailing `/` (an entry was added, removed or renamed
    /// in it).
    ///
    /// A file `judged` does not name counts only when it was added or
    /// removed: no row depends on its bytes. Without a walk when it can be
    /// proved that nothing moved (`restat.rs`).
    pub fn changes(&self, judged: &dyn Fn(&str) -> bool) -> Vec<String> {
        // A file that was found but not hashed is always looked at.
        let judged = |path: &str| judged(path) || self.unhashed.contains_key(path);
        if self.unchanged(&judged) {
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
            // A file no row depends on, changed in place, was never judged
            // (see `check::verdict::look_again`); added, it is a change.
            if before != Some(found.stat) && (before.is_none() || judged(&found.path)) {
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
        // A link given another target is a change, as a file rewritten.
        let now: HashSet<Mark> = walk.unreadable.iter().map(Odd::mark).collect();
        changed.extend(
            now.symmetric_difference(&self.walk_unreadable)
                .map(|m| m.path.clone()),
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
                let (files, reserved) = self.without_reserved(files, Some(p));
                let blocked = self
                    .unreadable
                    .iter()
                    .filter(|u| overlaps(&u.path, p))
                    .cloned()
                    .chain(reserved)
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
                let (files, reserved) = self.without_reserved(files, None);
                let fixed = paths::glob_prefix(g);
                let blocked = self
                    .unreadable
                    .iter()
                    .filter(|u| {
                        matcher.is_match(&u.path)
                            || (may_hold_files(u) && overlaps(&u.path, &fixed))
                            || self.link_hides(u, g, &matcher)
                    })
                    .cloned()
                    .chain(reserved)
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

/// The root digest: blake3 over a line per entry of the root, in byte
/// order of the path (a hashed file before another entry of the same
/// path, then by kind):
///
/// - a hashed file: `path NUL size NUL hex-digest LF`;
/// - any other entry: `path NUL kind NUL length NUL bound LF`, where kind
///   is `folder` or the kind the report gives an entry not hashed
///   (`symlink`, `fifo`, `too_large`, …), and bound is `length` bytes:
///   a link's target text, a non-UTF-8 name's bytes, the decimal size of
///   a regular file not hashed, else nothing.
///
/// Paths cannot contain NUL, a size is digits and a kind is not, and the
/// bound bytes are counted, so the encoding is unambiguous. Excluded
/// entries are not in it (the report lists them and their rules).
fn manifest_digest(files: &BTreeMap<String, FileEntry>, marks: &BTreeSet<Mark>) -> blake3::Hash {
    let mut hasher = blake3::Hasher::new();
    let mut marks = marks.iter().peekable();
    for (path, entry) in files {
        while let Some(mark) = marks.next_if(|m| m.path < *path) {
            mark.write_line(&mut hasher);
        }
        hasher.update(path.as_bytes());
        hasher.update(b"\0");
        hasher.update(entry.size.to_string().as_bytes());
        hasher.update(b"\0");
        hasher.update(entry.digest.to_hex().as_bytes());
        hasher.update(b"\n");
    }
    for mark in marks {
        mark.write_line(&mut hasher);
    }
    hasher.finalize()
}

/// An entry of the root that is not a hashed file, as the root digest
/// binds it (its line in `manifest_digest`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Mark {
    path: String,
    kind: String,
    bound: Vec<u8>,
}

impl Mark {
    fn write_line(&self, hasher: &mut blake3::Hasher) {
        hasher.update(self.path.as_bytes());
        hasher.update(b"\0");
        hasher.update(self.kind.as_bytes());
        hasher.update(b"\0");
        hasher.update(self.bound.len().to_string().as_bytes());
        hasher.update(b"\0");
        hasher.update(&self.bound);
        hasher.update(b"\n");
    }
}

/// An entry the walk did not take as a regular file or a folder: what the
/// report says of it, and what the root digest binds beyond its path and
/// kind (a link's target text, a name's bytes).
struct Odd {
    entry: UnreadableEntry,
    bound: Vec<u8>,
}

impl Odd {
    fn mark(&self) -> Mark {
        Mark {
            path: self.entry.path.clone(),
            kind: self.entry.kind.clone(),
            bound: self.bound.clone(),
        }
    }
}

fn odd(path: &str, kind: &str, detail: impl Into<String>) -> Odd {
    Odd {
        entry: unreadable(path, kind, detail),
        bound: Vec::new(),
    }
}

fn unreadable(path: &str, kind: &str, detail: impl Into<String>) -> UnreadableEntry {
    UnreadableEntry {
        path: path.to_string(),
        kind: kind.to_string(),
        detail: detail.into(),
    }
}

#[cfg(test)]
mod tests;
