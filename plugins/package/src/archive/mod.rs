//! Reading zip, tar and tar.gz packages the producer wrote, with bounds:
//! an entry count, a total of uncompressed bytes, and each deflate stream
//! inflated with a limit (a zip bomb stops at the limit, it never fills
//! memory).
//!
//! The producer is the adversary, and whatever this reader sees
//! differently from `tar`, `unzip` or Python's `tarfile`/`zipfile` is a
//! place to hide a file. So a package is read only when every reader
//! would see the same entries: every gzip member is read and its CRC-32
//! and ISIZE checked, nothing may follow the last member or the tar's end
//! blocks; a zip's end record, central directory and local headers must
//! agree on every entry and tile the file. Anything else is refused
//! (`Err`), never guessed at.

mod gzip;
mod tar;
mod zip;

/// One file of a package.
pub struct Entry {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// What a package may hold at most.
#[derive(Clone, Copy)]
pub struct Limits {
    pub entries: usize,
    pub bytes: u64,
}

/// The files of a package (folders and links are not files: a link is an
/// error, since it could point anywhere). `Err` says why it cannot be read.
pub fn read(data: &[u8], limits: Limits) -> Result<Vec<Entry>, String> {
    if data.starts_with(b"PK\x03\x04") || data.starts_with(b"PK\x05\x06") {
        zip::read(data, limits)
    } else if data.starts_with(&[0x1f, 0x8b]) {
        let tar_bytes = gzip::gunzip(data, limits.bytes)?;
        tar::read(&tar_bytes, limits)
    } else if data.len() >= 262 && &data[257..262] == b"ustar" {
        tar::read(data, limits)
    } else {
        Err("not a zip, tar or tar.gz package".into())
    }
}

fn u16_at(d: &[u8], at: usize) -> Result<u16, String> {
    at.checked_add(2)
        .and_then(|end| d.get(at..end))
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .ok_or_else(|| "the package is truncated".to_string())
}

fn u32_at(d: &[u8], at: usize) -> Result<u32, String> {
    at.checked_add(4)
        .and_then(|end| d.get(at..end))
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| "the package is truncated".to_string())
}

/// Why an entry name could escape where it is unpacked, if it could.
/// `.` and empty components are not here: unpacking drops them, so
/// [`normal`] does too before names are compared.
pub fn unsafe_name(name: &str) -> Option<&'static str> {
    if name.starts_with('/') || name.contains('\\') || name.get(1..2) == Some(":") {
        Some("an absolute path (or a backslash)")
    } else if name.split('/').any(|c| c == "..") {
        Some("a `..` component")
    } else if normal(name).is_empty() {
        Some("no name once unpacked")
    } else if name.chars().any(char::is_control) {
        Some("a control character")
    } else {
        None
    }
}

/// The path an entry is unpacked to, relative to the folder it is
/// unpacked in: `tar` and `unzip` drop `.` and empty components, so
/// `./notes.md` and `a//b` land on `notes.md` and `a/b`.
pub fn normal(name: &str) -> String {
    name.split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect::<Vec<_>>()
        .join("/")
}
