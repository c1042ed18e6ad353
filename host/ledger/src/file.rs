//! The ledger on disk: `FILE` holds one entry per line (compact JSON, the
//! leaf bytes of the Merkle tree); `FILE.checkpoints` holds one signed
//! checkpoint per line, after each append made with a key;
//! `FILE.checked` records which checkpoints were found signed
//! (`checked.rs`); `FILE.removed` keeps what `repair` removed. Writing
//! them (append, repair) is `append.rs`; this module reads them.
//!
//! A process killed at any point leaves every earlier entry whole; at
//! worst the last line is cut off (a full disk, a power cut): a *torn
//! tail*, which readers ignore and never take for an entry, appends refuse
//! to build on, and `vcc ledger repair` removes. Nothing beside the file
//! stands for its entries: the tree is always computed from them (a
//! `FILE.state` left by an older vcc is not read).

use std::fs::{File, OpenOptions};
use std::io::{self, Write as _};
use std::os::fd::AsRawFd as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::merkle::Hash;

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
    /// A line of `FILE.checkpoints` (`line`, from 1) is not a checkpoint.
    BadCheckpoint {
        path: PathBuf,
        line: u64,
        why: String,
    },
    /// `FILE.checkpoints` ends with a line cut off mid-write.
    TornCheckpoint {
        path: PathBuf,
        bytes: u64,
    },
    /// `vcc ledger verify` calls the log broken: nothing is built on it.
    Broken {
        path: PathBuf,
        seq: u64,
        kind: &'static str,
        message: String,
    },
    /// The log is signed (it has checkpoints) and the append has no key:
    /// its entry would be covered by no checkpoint.
    KeyNeeded {
        path: PathBuf,
        checkpoints: usize,
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
            Error::BadCheckpoint { path, line, why } => write!(
                f,
                "{} line {line}: not a checkpoint line: {why}",
                path.display()
            ),
            Error::TornCheckpoint { path, bytes } => write!(
                f,
                "{} ends with a torn line ({bytes} bytes cut off mid-write); nothing is appended after it: run `vcc ledger repair` to remove it",
                path.display()
            ),
            Error::Broken {
                path,
                seq,
                kind,
                message,
            } => write!(
                f,
                "the ledger {} is broken ({kind} at seq {seq}): {message}",
                path.display()
            ),
            Error::KeyNeeded { path, checkpoints } => write!(
                f,
                "the ledger {} is signed ({checkpoints} checkpoint(s)): an entry appended without --ledger-key would be covered by no checkpoint, and the next signed append would refuse the log; give --ledger-key (or $VCC_LEDGER_KEY)",
                path.display()
            ),
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

    pub(crate) fn io(&self, e: io::Error) -> Error {
        Error::Io(self.path.clone(), e)
    }

    /// Add a checkpoint line to `FILE.checkpoints` (one write, synced).
    pub(crate) fn store_checkpoint(&self, cp: &StoredCheckpoint) -> Result<(), Error> {
        let path = self.checkpoints_path();
        let io = |e| Error::Io(path.clone(), e);
        let mut file = OpenOptions::new()
            .append(true)
            .create(true)
            .mode(0o644)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .map_err(io)?;
        let mut line = serde_json::to_string(cp).unwrap_or_default();
        line.push('\n');
        file.write_all(line.as_bytes()).map_err(io)?;
        file.sync_all().map_err(io)
    }

    /// Every whole line of the file, and the size of a torn tail.
    pub fn read(&self) -> Result<Lines, Error> {
        let bytes = std::fs::read(&self.path).map_err(|e| self.io(e))?;
        Ok(split(&bytes))
    }

    /// The stored checkpoints (absent file: none); `Err` names a line that
    /// is not one.
    pub fn checkpoints(&self) -> Result<Vec<StoredCheckpoint>, Error> {
        let bytes = self.checkpoint_bytes()?;
        self.checkpoints_of(&bytes)
    }

    /// The bytes of `FILE.checkpoints` (absent file: none).
    pub(crate) fn checkpoint_bytes(&self) -> Result<Vec<u8>, Error> {
        let path = self.checkpoints_path();
        match std::fs::read(&path) {
            Ok(b) => Ok(b),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(Error::Io(path, e)),
        }
    }

    pub(crate) fn checkpoints_of(&self, bytes: &[u8]) -> Result<Vec<StoredCheckpoint>, Error> {
        parse_checkpoints(bytes).map_err(|(i, why)| Error::BadCheckpoint {
            path: self.checkpoints_path(),
            line: i + 1,
            why,
        })
    }
}

/// The lines of a checkpoints file; `Err`: the first line that is not one.
pub fn parse_checkpoints(bytes: &[u8]) -> Result<Vec<StoredCheckpoint>, (u64, String)> {
    split(bytes)
        .lines
        .iter()
        .enumerate()
        .map(|(i, l)| serde_json::from_slice(l).map_err(|e| (i as u64, in_line(&e))))
        .collect()
}

/// A JSON error in one line of a ledger file: serde's "at line 1 column
/// N" is of that line alone, and would read as the file's line 1.
pub fn in_line(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let place = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&place) {
        Some(what) if e.line() == 1 => format!("{what} at column {}", e.column()),
        _ => text,
    }
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

pub(crate) fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".");
    name.push(suffix);
    path.with_file_name(name)
}

/// An exclusive lock, released when the file is closed (also when the
/// process dies).
pub(crate) fn lock(file: &File) -> io::Result<()> {
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
pub(crate) fn sync_folder(path: &Path) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    File::open(dir)?.sync_all()
}
