//! The ledger on disk: `FILE` holds one entry per line (compact JSON, the
//! leaf bytes of the Merkle tree); `FILE.checkpoints` holds one signed
//! checkpoint per line, after each append made with a key; `FILE.state`
//! remembers the tree's right edge, so an append costs the same at entry
//! 100,000 as at entry 10.
//!
//! Appends are serialised by an exclusive `flock` on `FILE`, write a whole
//! line with one `write` on an `O_APPEND` descriptor, and `fsync` it (and
//! the folder when the file is created) before the state and checkpoint
//! follow. A process killed at any point leaves every earlier entry whole;
//! at worst the last line is cut off (a full disk, a power cut): a *torn
//! tail*, which readers ignore and never take for an entry, appends refuse
//! to build on, and `vcc ledger repair` removes. The state is only a
//! cache: when it does not describe the file (a kill between the entry and
//! the state), the tree is rebuilt from the entries.

use std::fs::{File, OpenOptions};
use std::io::{self, Read as _, Seek as _, SeekFrom, Write as _};
use std::os::fd::AsRawFd as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use serde::{Deserialize, Serialize};
use vcc_trust::keys::PrivateKey;

use crate::entry::Entry;
use crate::merkle::{Frontier, Hash, leaf_hash};
use crate::note::{Checkpoint, Note};

/// A ledger line is at most this long (an entry names criteria and
/// digests, never file contents).
pub const MAX_LINE: usize = 4 << 20;

#[derive(Debug)]
pub enum Error {
    Io(PathBuf, io::Error),
    /// The file ends with a line cut off mid-write.
    TornTail {
        bytes: u64,
    },
    /// A line is not an entry this vcc can read.
    Unreadable {
        seq: u64,
        why: String,
    },
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Io(path, e) => write!(f, "{}: {e}", path.display()),
            Error::TornTail { bytes } => write!(
                f,
                "the ledger ends with a torn line ({bytes} bytes cut off mid-write, by a crash or a full disk); nothing is appended after it: run `vcc ledger repair` to remove it"
            ),
            Error::Unreadable { seq, why } => write!(f, "line {} (seq {seq}): {why}", seq + 1),
        }
    }
}

/// The ledger at a path.
#[derive(Debug, Clone)]
pub struct Ledger {
    pub path: PathBuf,
}

/// What an append did.
#[derive(Debug, Clone)]
pub struct Appended {
    pub seq: u64,
    pub root: Hash,
    pub checkpoint: Option<String>,
}

/// The tree state kept beside the file.
#[derive(Serialize, Deserialize)]
struct State {
    size: u64,
    /// Bytes of the file the state describes.
    bytes: u64,
    frontier: Vec<String>,
    origin: Option<String>,
}

/// The file's entries as read: every whole line, and a torn tail.
pub struct Lines {
    pub lines: Vec<Vec<u8>>,
    pub torn_tail: Option<u64>,
}

/// A checkpoint line of `FILE.checkpoints`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StoredCheckpoint {
    pub size: u64,
    pub note: String,
}

impl Ledger {
    pub fn new(path: &Path) -> Ledger {
        Ledger {
            path: path.to_path_buf(),
        }
    }

    pub fn checkpoints_path(&self) -> PathBuf {
        sibling(&self.path, "checkpoints")
    }

    fn state_path(&self) -> PathBuf {
        sibling(&self.path, "state")
    }

    fn io(&self, e: io::Error) -> Error {
        Error::Io(self.path.clone(), e)
    }

    /// Append `entry` (its `seq` and `prev_root` are set here), and with
    /// `key` a signed checkpoint of the new tree.
    pub fn append(&self, mut entry: Entry, key: Option<&PrivateKey>) -> Result<Appended, Error> {
        let created = !self.path.exists();
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .mode(0o644)
            .open(&self.path)
            .map_err(|e| self.io(e))?;
        lock(&file).map_err(|e| self.io(e))?;
        if created {
            sync_folder(&self.path).map_err(|e| self.io(e))?;
        }
        let length = file.metadata().map_err(|e| self.io(e))?.len();
        let (mut frontier, origin) = match self.read_state(length) {
            Some(state) => state,
            None => self.rebuild(&mut file, length)?,
        };
        entry.seq = frontier.size();
        entry.prev_root = B64.encode(frontier.root());
        let mut line = entry.to_line();
        if line.len() > MAX_LINE {
            return Err(Error::Unreadable {
                seq: entry.seq,
                why: format!("the entry is over {MAX_LINE} bytes"),
            });
        }
        line.push('\n');
        // One write of the whole line: a reader sees all of it or none.
        file.write_all(line.as_bytes()).map_err(|e| self.io(e))?;
        file.sync_all().map_err(|e| self.io(e))?;
        let leaf = leaf_hash(&line.as_bytes()[..line.len() - 1]);
        frontier.push(leaf);
        let origin = origin.unwrap_or_else(|| origin_of(&leaf));
        let root = frontier.root();
        self.write_state(&frontier, length + line.len() as u64, &origin);
        let checkpoint = match key {
            Some(key) => {
                let cp = Checkpoint {
                    origin: origin.clone(),
                    size: frontier.size(),
                    root,
                };
                let note = Note::sign(&cp.body(), &origin, key).text();
                self.store_checkpoint(&StoredCheckpoint {
                    size: cp.size,
                    note: note.clone(),
                })?;
                Some(note)
            }
            None => None,
        };
        Ok(Appended {
            seq: entry.seq,
            root,
            checkpoint,
        })
    }

    fn store_checkpoint(&self, cp: &StoredCheckpoint) -> Result<(), Error> {
        let path = self.checkpoints_path();
        let io = |e| Error::Io(path.clone(), e);
        let mut file = OpenOptions::new()
            .append(true)
            .create(true)
            .mode(0o644)
            .open(&path)
            .map_err(io)?;
        let mut line = serde_json::to_string(cp).unwrap_or_default();
        line.push('\n');
        file.write_all(line.as_bytes()).map_err(io)?;
        file.sync_all().map_err(io)
    }

    /// The state, when it describes exactly `length` bytes of the file.
    fn read_state(&self, length: u64) -> Option<(Frontier, Option<String>)> {
        let text = std::fs::read(self.state_path()).ok()?;
        let state: State = serde_json::from_slice(&text).ok()?;
        if state.bytes != length {
            return None;
        }
        let hashes: Option<Vec<Hash>> = state
            .frontier
            .iter()
            .map(|h| B64.decode(h).ok().and_then(|b| b.try_into().ok()))
            .collect();
        let frontier = Frontier::restore(state.size, &hashes?)?;
        Some((frontier, state.origin))
    }

    /// Only a cache: losing it costs one rebuild.
    fn write_state(&self, frontier: &Frontier, bytes: u64, origin: &str) {
        let state = State {
            size: frontier.size(),
            bytes,
            frontier: frontier.hashes().iter().map(|h| B64.encode(h)).collect(),
            origin: Some(origin.to_string()),
        };
        let path = self.state_path();
        let tmp = sibling(&self.path, &format!("state.{}.tmp", std::process::id()));
        let written = std::fs::write(&tmp, serde_json::to_vec(&state).unwrap_or_default())
            .and_then(|()| std::fs::rename(&tmp, &path));
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }

    /// The tree of the entries in the (locked) file; a torn tail refuses.
    fn rebuild(&self, file: &mut File, length: u64) -> Result<(Frontier, Option<String>), Error> {
        file.seek(SeekFrom::Start(0)).map_err(|e| self.io(e))?;
        let mut bytes = Vec::with_capacity(length as usize);
        file.take(length)
            .read_to_end(&mut bytes)
            .map_err(|e| self.io(e))?;
        let lines = split(&bytes);
        if let Some(torn) = lines.torn_tail {
            return Err(Error::TornTail { bytes: torn });
        }
        let mut frontier = Frontier::default();
        let mut origin = None;
        for line in &lines.lines {
            let leaf = leaf_hash(line);
            origin.get_or_insert_with(|| origin_of(&leaf));
            frontier.push(leaf);
        }
        Ok((frontier, origin))
    }

    /// Every whole line of the file, and the size of a torn tail.
    pub fn read(&self) -> Result<Lines, Error> {
        let bytes = std::fs::read(&self.path).map_err(|e| self.io(e))?;
        Ok(split(&bytes))
    }

    /// The stored checkpoints (absent file: none); `Err` names a line that
    /// is not one.
    pub fn checkpoints(&self) -> Result<Vec<StoredCheckpoint>, Error> {
        let path = self.checkpoints_path();
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::Io(path, e)),
        };
        parse_checkpoints(&bytes).map_err(|(i, e)| Error::Unreadable {
            seq: i,
            why: format!("{} is not a checkpoint line: {e}", path.display()),
        })
    }

    /// Remove a torn tail (under the lock); how many bytes were removed.
    pub fn repair(&self) -> Result<u64, Error> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&self.path)
            .map_err(|e| self.io(e))?;
        lock(&file).map_err(|e| self.io(e))?;
        let lines = self.read()?;
        let Some(torn) = lines.torn_tail else {
            return Ok(0);
        };
        let length = file.metadata().map_err(|e| self.io(e))?.len();
        file.set_len(length - torn).map_err(|e| self.io(e))?;
        file.sync_all().map_err(|e| self.io(e))?;
        let _ = std::fs::remove_file(self.state_path());
        Ok(torn)
    }
}

/// The lines of a checkpoints file; `Err`: the first line that is not one.
pub fn parse_checkpoints(bytes: &[u8]) -> Result<Vec<StoredCheckpoint>, (u64, String)> {
    split(bytes)
        .lines
        .iter()
        .enumerate()
        .map(|(i, l)| serde_json::from_slice(l).map_err(|e| (i as u64, e.to_string())))
        .collect()
}

/// The log's origin line: named by its first entry, so two ledgers never
/// share one.
pub fn origin_of(first_leaf: &Hash) -> String {
    let hex: String = first_leaf[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("vcc-ledger/{hex}")
}

/// Whole lines (without their newline) and the length of what follows the
/// last newline, if anything does.
pub fn split(bytes: &[u8]) -> Lines {
    let mut lines = Vec::new();
    let mut start = 0;
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'\n' {
            lines.push(bytes[start..i].to_vec());
            start = i + 1;
        }
    }
    let torn_tail = (start < bytes.len()).then(|| (bytes.len() - start) as u64);
    Lines { lines, torn_tail }
}

fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".");
    name.push(suffix);
    path.with_file_name(name)
}

/// An exclusive lock, released when the file is closed (also when the
/// process dies).
fn lock(file: &File) -> io::Result<()> {
    loop {
        // SAFETY: flock(2) on a descriptor this process owns; no memory.
        let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        if r == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Make a new file's name durable: fsync its folder.
fn sync_folder(path: &Path) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    File::open(dir)?.sync_all()
}
