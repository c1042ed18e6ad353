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

/// One file or folder of a package.
pub struct Entry {
    pub name: String,
    pub bytes: Vec<u8>,
    /// A folder entry: it holds no bytes, but unpacking it onto a file's
    /// path replaces the file (GNU tar) or fails (unzip).
    pub folder: bool,
    /// The Unix permission bits unpacking gives the file, when the
    /// archive says them (every tar entry; a zip entry made on Unix).
    pub mode: Option<u32>,
}

/// What a package may hold at most.
#[derive(Clone, Copy)]
pub struct Limits {
    pub entries: usize,
    pub bytes: u64,
}

/// The files and folders of a package (a link is an error, since it could
/// point anywhere). `Err` says why it cannot be read.
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
    if name.starts_with('/') || name.contains('\\') {
        Some("an absolute path (or a backslash)")
    } else if name.contains(':') {
        // `c:notes.md` is a drive on Windows, `notes.md::$DATA` or
        // `notes.md:x` a stream of `notes.md` on NTFS: either lands
        // somewhere the name does not say.
        Some("a `:` (a drive or an NTFS stream on Windows)")
    } else if name.split('/').any(|c| c == "..") {
        Some("a `..` component")
    } else if name
        .split('/')
        .any(|c| !c.is_empty() && c != "." && windows(c).is_empty())
    {
        Some("a component of only dots and spaces (Windows drops them)")
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

/// The path an entry lands on on any of the disks the book names (Linux,
/// macOS, Windows), for comparing names: [`normal`], then what Windows
/// does to each component (trailing dots and spaces dropped), what APFS
/// and HFS+ do (names compared in NFC) and what NTFS and APFS do by
/// default (case ignored). Two names with one fold land on one file. A
/// `:` is refused by [`unsafe_name`] as well.
pub fn fold(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    normal(name)
        .split('/')
        .map(|c| windows(c).nfc().collect::<String>().to_lowercase())
        .collect::<Vec<_>>()
        .join("/")
}

/// A component as Win32 writes it: an NTFS stream (`notes.md::$DATA` is
/// `notes.md` itself, `notes.md:x` a stream of it) written to the file
/// before the `:`, then trailing dots and spaces dropped.
fn windows(component: &str) -> &str {
    let file = component.split(':').next().unwrap_or(component);
    file.trim_end_matches(['.', ' '])
}
