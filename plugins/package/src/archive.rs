//! Reading zip, tar and tar.gz packages the producer wrote, with bounds:
//! an entry count, a total of uncompressed bytes, and each deflate stream
//! inflated with a limit (a zip bomb stops at the limit, it never fills
//! memory). Only what the format says is trusted after it is checked: a
//! zip entry's CRC-32 and size are verified against its inflated bytes.

use miniz_oxide::inflate::{decompress_to_vec_with_limit, decompress_to_vec_zlib_with_limit};

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
        zip(data, limits)
    } else if data.starts_with(&[0x1f, 0x8b]) {
        let tar_bytes = gunzip(data, limits.bytes)?;
        tar(&tar_bytes, limits)
    } else if data.len() >= 262 && &data[257..262] == b"ustar" {
        tar(data, limits)
    } else {
        Err("not a zip, tar or tar.gz package".into())
    }
}

fn u16_at(d: &[u8], at: usize) -> Result<u16, String> {
    d.get(at..at + 2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .ok_or_else(|| "the zip is truncated".to_string())
}

fn u32_at(d: &[u8], at: usize) -> Result<u32, String> {
    d.get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| "the zip is truncated".to_string())
}

/// A zip, read from its central directory (what unzip tools read).
fn zip(d: &[u8], limits: Limits) -> Result<Vec<Entry>, String> {
    // The end of central directory record: 22 bytes plus a comment of at
    // most 65535 bytes, at the end of the file.
    let lowest = d.len().saturating_sub(22 + 0xffff);
    let eocd = (lowest..=d.len().saturating_sub(22))
        .rev()
        .find(|&i| d[i..].starts_with(b"PK\x05\x06"))
        .ok_or("no end of central directory: not a complete zip")?;
    let count = u16_at(d, eocd + 10)? as usize;
    let dir_offset = u32_at(d, eocd + 16)? as usize;
    if count == 0xffff || dir_offset == 0xffff_ffff {
        return Err("a ZIP64 package, which std/package does not read".into());
    }
    if count > limits.entries {
        return Err(format!(
            "{count} entries, more than the {} allowed",
            limits.entries
        ));
    }
    let mut out = Vec::new();
    let mut at = dir_offset;
    let mut total: u64 = 0;
    for _ in 0..count {
        if u32_at(d, at)? != 0x0201_4b50 {
            return Err("a broken central directory".into());
        }
        let flags = u16_at(d, at + 8)?;
        let method = u16_at(d, at + 10)?;
        let crc = u32_at(d, at + 16)?;
        let compressed = u32_at(d, at + 20)? as usize;
        let size = u32_at(d, at + 24)? as u64;
        let name_len = u16_at(d, at + 28)? as usize;
        let extra_len = u16_at(d, at + 30)? as usize;
        let comment_len = u16_at(d, at + 32)? as usize;
        let external = u32_at(d, at + 38)?;
        let local = u32_at(d, at + 42)? as usize;
        let name_bytes = d
            .get(at + 46..at + 46 + name_len)
            .ok_or("the zip is truncated")?;
        let name = String::from_utf8(name_bytes.to_vec())
            .map_err(|_| "an entry name that is not UTF-8".to_string())?;
        at += 46 + name_len + extra_len + comment_len;
        if name.ends_with('/') {
            continue;
        }
        // Unix mode in the high half: a symlink is never a file.
        if (external >> 16) & 0o170000 == 0o120000 {
            return Err(format!("entry `{name}` is a symbolic link"));
        }
        if flags & 1 != 0 {
            return Err(format!("entry `{name}` is encrypted"));
        }
        total += size;
        if total > limits.bytes {
            return Err(format!(
                "more than {} bytes once unpacked (a zip bomb is refused, not unpacked)",
                limits.bytes
            ));
        }
        let local_name = u16_at(d, local + 26)? as usize;
        let local_extra = u16_at(d, local + 28)? as usize;
        // Offsets come from the producer: never let them wrap.
        let raw = local
            .checked_add(30 + local_name + local_extra)
            .and_then(|start| Some(start..start.checked_add(compressed)?))
            .and_then(|range| d.get(range))
            .ok_or_else(|| format!("entry `{name}` is truncated"))?;
        let bytes = match method {
            0 => raw.to_vec(),
            8 => decompress_to_vec_with_limit(raw, size as usize).map_err(|_| {
                format!("entry `{name}` does not inflate to its declared {size} bytes")
            })?,
            m => {
                return Err(format!(
                    "entry `{name}` uses compression method {m}, which std/package does not read"
                ));
            }
        };
        if bytes.len() as u64 != size || crc32fast::hash(&bytes) != crc {
            return Err(format!(
                "entry `{name}` does not match its declared size and CRC-32"
            ));
        }
        out.push(Entry { name, bytes });
    }
    Ok(out)
}

/// A gzip member's payload, inflated up to `limit` bytes.
fn gunzip(d: &[u8], limit: u64) -> Result<Vec<u8>, String> {
    if d.len() < 18 || d[2] != 8 {
        return Err("not a deflate gzip stream".into());
    }
    let flags = d[3];
    let mut at = 10;
    if flags & 4 != 0 {
        at += 2 + u16_at(d, at)? as usize;
    }
    for bit in [8u8, 16] {
        if flags & bit != 0 {
            let end = d
                .get(at..)
                .and_then(|rest| rest.iter().position(|&b| b == 0))
                .ok_or("a broken gzip header")?;
            at += end + 1;
        }
    }
    if flags & 2 != 0 {
        at += 2;
    }
    let body = d.get(at..d.len() - 8).ok_or("a truncated gzip stream")?;
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    decompress_to_vec_with_limit(body, limit)
        .or_else(|_| decompress_to_vec_zlib_with_limit(body, limit))
        .map_err(|_| "the gzip stream does not inflate within the size limit".to_string())
}

/// A POSIX tar (ustar): 512-byte headers, files padded to 512.
fn tar(d: &[u8], limits: Limits) -> Result<Vec<Entry>, String> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut total: u64 = 0;
    while at + 512 <= d.len() {
        let h = &d[at..at + 512];
        if h.iter().all(|&b| b == 0) {
            break;
        }
        let field = |a: usize, b: usize| {
            let f = &h[a..b];
            let end = f.iter().position(|&c| c == 0).unwrap_or(f.len());
            String::from_utf8_lossy(&f[..end]).trim().to_string()
        };
        let size = u64::from_str_radix(&field(124, 136), 8)
            .map_err(|_| "a tar header with a broken size".to_string())?;
        let kind = h[156];
        let prefix = field(345, 500);
        let name = match (prefix.is_empty(), field(0, 100)) {
            (true, n) => n,
            (false, n) => format!("{prefix}/{n}"),
        };
        let start = at + 512;
        let len = usize::try_from(size).map_err(|_| "a tar entry too large".to_string())?;
        let body = start
            .checked_add(len)
            .and_then(|end| d.get(start..end))
            .ok_or_else(|| format!("entry `{name}` is truncated"))?;
        at = start + body.len().div_ceil(512) * 512;
        match kind {
            b'0' | 0 => {}
            b'5' => continue,
            b'1' | b'2' => return Err(format!("entry `{name}` is a link")),
            other => {
                return Err(format!(
                    "entry `{name}` has tar type `{}`, which std/package does not read",
                    other as char
                ));
            }
        }
        total += size;
        if out.len() >= limits.entries || total > limits.bytes {
            return Err(format!(
                "more than {} entries or {} bytes",
                limits.entries, limits.bytes
            ));
        }
        out.push(Entry {
            name,
            bytes: body.to_vec(),
        });
    }
    Ok(out)
}

/// Why an entry name could escape where it is unpacked, if it could.
pub fn unsafe_name(name: &str) -> Option<&'static str> {
    if name.starts_with('/') || name.contains('\\') || name.get(1..2) == Some(":") {
        Some("an absolute path")
    } else if name.split('/').any(|c| c == "..") {
        Some("a `..` component")
    } else if name.split('/').any(str::is_empty) {
        Some("an empty component")
    } else {
        None
    }
}
