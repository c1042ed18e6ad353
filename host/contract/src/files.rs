//! Opening a file a user named without letting the file stall us.
//!
//! `open(2)` on a FIFO waits for a writer, so a contract or component path
//! that points at one would hang vcc before it read a byte. Files are opened
//! non-blocking and refused unless they are regular files; reads of a
//! regular file ignore the flag.

use std::fs::File;
use std::io;
use std::path::Path;

/// Open `path` for reading if it is a regular file (symlinks followed).
pub fn open_regular(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        return Err(io::Error::other(format!(
            "not a regular file (a {})",
            kind_name(&kind)
        )));
    }
    Ok(file)
}

fn kind_name(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "FIFO";
        }
        if kind.is_socket() {
            return "socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "device";
        }
    }
    if kind.is_dir() {
        "directory"
    } else {
        "special file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifos_and_directories_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.yaml");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let err = open_regular(&fifo).unwrap_err();
        assert_eq!(err.to_string(), "not a regular file (a FIFO)");
        let err = open_regular(dir.path()).unwrap_err();
        assert_eq!(err.to_string(), "not a regular file (a directory)");
        std::fs::write(dir.path().join("a.yaml"), "x").unwrap();
        assert!(open_regular(&dir.path().join("a.yaml")).is_ok());
    }
}
