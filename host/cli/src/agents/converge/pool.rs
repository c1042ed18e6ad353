//! The budget pool file behind `$VCC_BUDGET_FILE`: changed only under an
//! exclusive lock (on a `.lock` file beside it, since the pool itself is
//! replaced on every write), and replaced atomically, so the command and
//! any child can read it whole at any time.

use std::fs::TryLockError;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use vcc_report::delegation::{POOL_FORMAT, Pool};

/// A pool larger than this is not read (a child's entry is ~500 bytes).
const MAX_POOL_FILE: u64 = 16 << 20;
/// How long a loop waits for the pool's lock before it gives up.
const LOCK_WAIT: Duration = Duration::from_secs(2);
const LOCK_RETRY: Duration = Duration::from_millis(5);

pub struct PoolFile {
    path: PathBuf,
}

impl PoolFile {
    pub fn at(path: &Path) -> PoolFile {
        PoolFile {
            path: path.to_path_buf(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Read the pool, let `change` edit it, write it back: all under the
    /// lock, so siblings joining at once see each other's grants.
    pub fn update<T>(&self, change: impl FnOnce(&mut Pool) -> T) -> Result<T, String> {
        let _lock = self.lock()?;
        let mut pool = self.read()?;
        let out = change(&mut pool);
        self.write_locked(&pool)?;
        Ok(out)
    }

    /// Write a pool, replacing what is there (the parent, each run).
    pub fn replace(&self, pool: &Pool) -> Result<(), String> {
        let _lock = self.lock()?;
        self.write_locked(pool)
    }

    pub fn read(&self) -> Result<Pool, String> {
        let mut text = String::new();
        std::fs::File::open(&self.path)
            .and_then(|f| f.take(MAX_POOL_FILE + 1).read_to_string(&mut text))
            .map_err(|e| format!("{}: {e}", self.path.display()))?;
        if text.len() as u64 > MAX_POOL_FILE {
            return Err(format!(
                "{}: over {MAX_POOL_FILE} bytes",
                self.path.display()
            ));
        }
        let pool: Pool = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not a budget pool: {e}", self.path.display()))?;
        if pool.format != POOL_FORMAT {
            return Err(format!(
                "{}: format {:?}, expected {POOL_FORMAT:?}",
                self.path.display(),
                pool.format
            ));
        }
        Ok(pool)
    }

    /// Replaced by a rename, so a reader sees the old pool or the new one,
    /// whole. Not synced to disk: the pool lives as long as the loop, and
    /// it is written at every look at the usage (4 times a second).
    fn write_locked(&self, pool: &Pool) -> Result<(), String> {
        let text = serde_json::to_string_pretty(pool).map_err(|e| e.to_string())?;
        let mut tmp = self.path.as_os_str().to_owned();
        tmp.push(format!(".{}.tmp", std::process::id()));
        let tmp = PathBuf::from(tmp);
        std::fs::write(&tmp, format!("{text}\n"))
            .and_then(|()| std::fs::rename(&tmp, &self.path))
            .map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                format!("{}: {e}", self.path.display())
            })
    }

    /// The exclusive lock, held until the file is dropped. Every honest
    /// holder keeps it for one read and one write, so a lock still held
    /// after LOCK_WAIT is someone keeping it on purpose: the command can
    /// open the lock file too, and a loop that waited for it would never
    /// look at the usage or the clock again. An error, which stops the loop.
    fn lock(&self) -> Result<std::fs::File, String> {
        let mut name = self.path.as_os_str().to_owned();
        name.push(".lock");
        let name = PathBuf::from(name);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&name)
            .map_err(|e| format!("{}: {e}", name.display()))?;
        let give_up = Instant::now() + LOCK_WAIT;
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(file),
                Err(TryLockError::WouldBlock) if Instant::now() < give_up => {
                    std::thread::sleep(LOCK_RETRY);
                }
                Err(TryLockError::WouldBlock) => {
                    return Err(format!(
                        "cannot lock {}: held by another process for over {} s",
                        name.display(),
                        LOCK_WAIT.as_secs()
                    ));
                }
                Err(TryLockError::Error(e)) => {
                    return Err(format!("cannot lock {}: {e}", name.display()));
                }
            }
        }
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
