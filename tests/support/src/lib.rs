//! Support for the end-to-end tests: fixture components (built from
//! `tests/guests` by this crate's build script), scratch deliverable trees,
//! and digests of trees to prove a run changed nothing.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

pub mod barrier;
pub mod judge_server;

/// Fixture component paths, one constant per crate in `tests/guests`.
pub mod fixtures {
    include!(concat!(env!("OUT_DIR"), "/fixtures.rs"));
}

/// A temporary folder holding a contract and its deliverables.
pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Scratch {
        Scratch {
            dir: tempfile::tempdir().expect("create a temporary folder"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Write a file (creating folders), returning its path.
    pub fn write(&self, relative: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.dir.path().join(relative);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("create folders");
        }
        fs::write(&path, contents).expect("write a file");
        path
    }

    /// Copy a fixture component into the folder, returning its file name.
    pub fn component(&self, fixture: &str, name: &str) -> String {
        fs::copy(fixture, self.dir.path().join(name)).expect("copy a fixture");
        name.to_string()
    }
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch::new()
    }
}

/// Path → blake3 of every entry under `root` (symlinks by their target
/// text, folders as entries, files over 64 MiB by size, mtime and inode),
/// to show a run left a tree untouched.
pub fn digests(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let rel = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .display()
                .to_string();
            let Ok(meta) = fs::symlink_metadata(&path) else {
                continue;
            };
            let digest = if meta.file_type().is_symlink() {
                format!(
                    "symlink:{}",
                    fs::read_link(&path)
                        .map(|t| t.display().to_string())
                        .unwrap_or_default()
                )
            } else if meta.is_dir() {
                todo.push(path.clone());
                "dir".to_string()
            } else if meta.is_file() && meta.len() > 64 << 20 {
                // Huge (sparse) fixtures: any write changes size or mtime.
                use std::os::unix::fs::MetadataExt;
                format!(
                    "large:{}:{}.{}:{}",
                    meta.len(),
                    meta.mtime(),
                    meta.mtime_nsec(),
                    meta.ino()
                )
            } else if meta.is_file() {
                blake3::hash(&fs::read(&path).unwrap_or_default())
                    .to_hex()
                    .to_string()
            } else {
                "special".to_string()
            };
            out.insert(rel, digest);
        }
    }
    out
}

/// A cache folder shared by one test binary, so each fixture compiles once.
pub fn shared_cache(target_tmp: &str) -> PathBuf {
    Path::new(target_tmp).join("vcc-component-cache")
}

/// `blake3:<hex>` of a file.
pub fn file_digest(path: &Path) -> String {
    format!(
        "blake3:{}",
        blake3::hash(&fs::read(path).expect("read a file")).to_hex()
    )
}

/// Make a FIFO (named pipe) at `path`.
pub fn make_fifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).expect("no NUL in the path");
    // SAFETY: a valid NUL-terminated path; mkfifo has no other preconditions.
    assert_eq!(
        unsafe { libc::mkfifo(c.as_ptr(), 0o600) },
        0,
        "mkfifo {}",
        path.display()
    );
}

/// Open a FIFO for writing once a reader has opened it, polling (never
/// blocking) for at most `patience`; `None` if no reader came.
pub fn open_fifo_writer(path: &Path, patience: std::time::Duration) -> Option<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let start = std::time::Instant::now();
    while start.elapsed() < patience {
        match fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
        {
            Ok(file) => return Some(file),
            // ENXIO: no reader yet.
            Err(_) => std::thread::sleep(std::time::Duration::from_millis(20)),
        }
    }
    None
}

/// Wait (polling, at most `patience`) until process `pid` has a thread
/// named `name` (Linux: /proc/PID/task/*/comm). Lets a test act while vcc
/// is inside a validator run without any cooperation from the guest.
pub fn wait_for_thread(pid: u32, name: &str, patience: std::time::Duration) -> bool {
    let start = std::time::Instant::now();
    while start.elapsed() < patience {
        let tasks = fs::read_dir(format!("/proc/{pid}/task"));
        let found = tasks.into_iter().flatten().flatten().any(|task| {
            fs::read_to_string(task.path().join("comm")).is_ok_and(|comm| comm.trim() == name)
        });
        if found {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    false
}

/// Nest `depth` folders named `d` under `dir` (fd-relative, as the full path
/// is longer than PATH_MAX), with a file `f.md` at the bottom.
pub fn nest(dir: &Path, depth: usize) {
    use std::os::unix::ffi::OsStrExt;
    let top = std::ffi::CString::new(dir.as_os_str().as_bytes()).unwrap();
    let d = c"d";
    // SAFETY: plain POSIX calls on descriptors this function owns and closes.
    unsafe {
        let mut fd = libc::open(top.as_ptr(), libc::O_DIRECTORY | libc::O_RDONLY);
        assert!(fd >= 0);
        for _ in 0..depth {
            assert_eq!(libc::mkdirat(fd, d.as_ptr(), 0o755), 0);
            let next = libc::openat(fd, d.as_ptr(), libc::O_DIRECTORY | libc::O_RDONLY);
            assert!(next >= 0);
            libc::close(fd);
            fd = next;
        }
        let f = libc::openat(fd, c"f.md".as_ptr(), libc::O_CREAT | libc::O_WRONLY, 0o644);
        assert!(f >= 0);
        libc::close(f);
        libc::close(fd);
    }
}

/// Make a character device node at `path` that is /dev/null (1, 3); needs
/// CAP_MKNOD.
pub fn make_dev_null(path: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).expect("no NUL in the path");
    // SAFETY: a valid NUL-terminated path; mknod has no other preconditions.
    let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o600, libc::makedev(1, 3)) };
    if made == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Whether the tests run as root (permission bits then do not apply).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}
