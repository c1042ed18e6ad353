//! zip (PKWARE APPNOTE), read from its central directory as `unzip` and
//! Python's `zipfile` do, and reconciled with everything else in the file
//! that a reader could take instead: the end record's counts and sizes,
//! each local header (a streaming reader trusts those), data descriptors.
//! The entries' local records must tile the file from its first byte to
//! the central directory, which must end where the end record starts: an
//! entry in one place and not the other, a gap, an overlap or a record the
//! end record does not count is refused. ZIP64, the Info-ZIP Unicode path
//! field and non-ASCII names not flagged UTF-8 (read as CP437 by `unzip`
//! and `zipfile`) are refused too.

use miniz_oxide::inflate::decompress_to_vec_with_limit;

use super::{Entry, Limits, u16_at, u32_at};

/// What the end of central directory record says.
struct End {
    at: usize,
    count: usize,
    dir_size: usize,
    dir_offset: usize,
}

/// One central directory record.
struct Central {
    name: String,
    name_bytes: Vec<u8>,
    flags: u16,
    method: u16,
    crc: u32,
    compressed: usize,
    size: u64,
    external: u32,
    /// The high byte of "version made by": the system whose attributes
    /// `external` holds.
    made_on: u8,
    local: usize,
}

pub fn read(d: &[u8], limits: Limits) -> Result<Vec<Entry>, String> {
    let end = end_record(d)?;
    let dir = directory(d, &end, limits)?;
    let mut spans = Vec::new();
    let mut out = Vec::new();
    let mut total: u64 = 0;
    for c in &dir {
        let (span_end, raw) = local(d, c)?;
        spans.push((c.local, span_end, c.name.as_str()));
        if c.name.ends_with('/') {
            if c.size != 0 {
                return Err(format!("folder `{}` has {} bytes of data", c.name, c.size));
            }
            out.push(Entry {
                name: c.name.clone(),
                bytes: Vec::new(),
                folder: true,
                mode: unix_mode(c),
            });
            continue;
        }
        // Unix mode in the high half: a symlink is never a file.
        if (c.external >> 16) & 0o170000 == 0o120000 {
            return Err(format!("entry `{}` is a symbolic link", c.name));
        }
        total += c.size;
        if total > limits.bytes {
            return Err(format!(
                "more than {} bytes once unpacked (a zip bomb is refused, not unpacked)",
                limits.bytes
            ));
        }
        let bytes = match c.method {
            0 if raw.len() as u64 == c.size => raw.to_vec(),
            0 => return Err(format!("stored entry `{}` has two sizes", c.name)),
            8 => decompress_to_vec_with_limit(raw, c.size as usize).map_err(|_| {
                format!(
                    "entry `{}` does not inflate to its declared {} bytes",
                    c.name, c.size
                )
            })?,
            m => {
                return Err(format!(
                    "entry `{}` uses compression method {m}, which std/package does not read",
                    c.name
                ));
            }
        };
        if bytes.len() as u64 != c.size || crc32fast::hash(&bytes) != c.crc {
            return Err(format!(
                "entry `{}` does not match its declared size and CRC-32",
                c.name
            ));
        }
        out.push(Entry {
            name: c.name.clone(),
            bytes,
            folder: false,
            mode: unix_mode(c),
        });
    }
    tile(&mut spans, end.dir_offset)?;
    Ok(out)
}

/// The end record: the last one in the file, its comment running exactly
/// to the end, on disk 0, counting what the directory holds.
fn end_record(d: &[u8]) -> Result<End, String> {
    // 22 bytes plus a comment of at most 65535 bytes, at the end.
    let lowest = d.len().saturating_sub(22 + 0xffff);
    let at = (lowest..=d.len().saturating_sub(22))
        .rev()
        .find(|&i| d[i..].starts_with(b"PK\x05\x06"))
        .ok_or("no end of central directory: not a complete zip")?;
    if at + 22 + u16_at(d, at + 20)? as usize != d.len() {
        return Err("the end record's comment does not end the file".into());
    }
    if at >= 20 && d[at - 20..].starts_with(b"PK\x06\x07") {
        return Err("a ZIP64 package, which std/package does not read".into());
    }
    if u16_at(d, at + 4)? != 0 || u16_at(d, at + 6)? != 0 {
        return Err("a zip split over several disks".into());
    }
    let here = u16_at(d, at + 8)?;
    let count = u16_at(d, at + 10)?;
    let dir_size = u32_at(d, at + 12)?;
    let dir_offset = u32_at(d, at + 16)?;
    if count == 0xffff || dir_size == 0xffff_ffff || dir_offset == 0xffff_ffff {
        return Err("a ZIP64 package, which std/package does not read".into());
    }
    if here != count {
        return Err(format!(
            "the end record counts {here} entries on this disk and {count} in all"
        ));
    }
    let end = End {
        at,
        count: count as usize,
        dir_size: dir_size as usize,
        dir_offset: dir_offset as usize,
    };
    // Nothing before the first entry and nothing between the directory
    // and the end record (zipfile and unzip would shift every offset).
    if end.dir_offset.checked_add(end.dir_size) != Some(end.at) {
        return Err(format!(
            "the central directory ({} bytes at {}) does not end where the end record starts ({})",
            end.dir_size, end.dir_offset, end.at
        ));
    }
    Ok(end)
}

/// Every record of the central directory, which must fill exactly the
/// bytes the end record gives it and number exactly what it counts.
fn directory(d: &[u8], end: &End, limits: Limits) -> Result<Vec<Central>, String> {
    let mut out = Vec::new();
    let mut at = end.dir_offset;
    while at < end.at {
        if u32_at(d, at)? != 0x0201_4b50 {
            return Err("a broken central directory".into());
        }
        if out.len() >= limits.entries {
            return Err(format!("more than the {} entries allowed", limits.entries));
        }
        let flags = u16_at(d, at + 8)?;
        let needed = u16_at(d, at + 6)?;
        let name_len = u16_at(d, at + 28)? as usize;
        let extra_len = u16_at(d, at + 30)? as usize;
        let comment_len = u16_at(d, at + 32)? as usize;
        if u16_at(d, at + 34)? != 0 {
            return Err("a zip split over several disks".into());
        }
        let name_bytes = d
            .get(at + 46..at + 46 + name_len)
            .ok_or("the zip is truncated")?
            .to_vec();
        let name = name(&name_bytes, flags)?;
        let extra = d
            .get(at + 46 + name_len..at + 46 + name_len + extra_len)
            .ok_or("the zip is truncated")?;
        extra_fields(extra, &name)?;
        version_needed(needed, &name)?;
        // Bits 1-2 are deflate options, 3 a data descriptor, 11 UTF-8
        // names: any other (encryption, patches) is not read.
        if flags & !0b0000_1000_0000_1110 != 0 {
            return Err(format!(
                "entry `{name}` has flags {flags:#06x} (encrypted?)"
            ));
        }
        let c = Central {
            flags,
            method: u16_at(d, at + 10)?,
            crc: u32_at(d, at + 16)?,
            compressed: u32_at(d, at + 20)? as usize,
            size: u64::from(u32_at(d, at + 24)?),
            external: u32_at(d, at + 38)?,
            made_on: d.get(at + 5).copied().ok_or("the zip is truncated")?,
            local: u32_at(d, at + 42)? as usize,
            name,
            name_bytes,
        };
        if c.compressed == 0xffff_ffff || c.size == 0xffff_ffff || c.local == 0xffff_ffff {
            return Err("a ZIP64 package, which std/package does not read".into());
        }
        out.push(c);
        at += 46 + name_len + extra_len + comment_len;
    }
    if at != end.at {
        return Err("the central directory overruns its size".into());
    }
    if out.len() != end.count {
        return Err(format!(
            "the end record counts {} entries, the central directory holds {}",
            end.count,
            out.len()
        ));
    }
    Ok(out)
}

/// An entry name as `unzip` and `zipfile` decode it: UTF-8 when flagged,
/// CP437 otherwise, so only ASCII is the same either way.
fn name(bytes: &[u8], flags: u16) -> Result<String, String> {
    let text = String::from_utf8(bytes.to_vec())
        .map_err(|_| "an entry name that is not UTF-8".to_string())?;
    if flags & 0x0800 == 0 && !text.is_ascii() {
        return Err(format!(
            "entry `{text}` has a non-ASCII name not flagged UTF-8 (unzip reads it as CP437)"
        ));
    }
    Ok(text)
}

/// The version of UnZip 6.00 (as Debian builds it, with bzip2): it skips
/// an entry that needs more ("need PK compat. v5.1 (can do v4.6)", exit
/// 81, nothing unpacked); Python's zipfile reads up to 6.3. The stricter
/// wins.
const UNZIP_CAN_DO: u8 = 46;

/// "Version needed to extract", in the local header and the directory
/// alike: at most what UnZip can do, and not VMS's (UnZip asks before
/// unpacking those elsewhere).
fn version_needed(v: u16, name: &str) -> Result<(), String> {
    let [version, system] = v.to_le_bytes();
    if version > UNZIP_CAN_DO {
        return Err(format!(
            "entry `{name}` needs zip version {}.{} to be unpacked; UnZip 6.00 unpacks up to {}.{} and skips it",
            version / 10,
            version % 10,
            UNZIP_CAN_DO / 10,
            UNZIP_CAN_DO % 10
        ));
    }
    if system == 2 {
        return Err(format!(
            "entry `{name}` needs VMS to be unpacked (UnZip asks before unpacking it)"
        ));
    }
    Ok(())
}

/// The Unix permission bits `unzip` gives the entry: the high half of
/// the external attributes, when it was made on a system whose attributes
/// UnZip reads as Unix modes (Unix, Atari, QDOS, Acorn, BeOS, Tandem,
/// AtheOS); a zero mode is applied as zero.
fn unix_mode(c: &Central) -> Option<u32> {
    matches!(c.made_on, 3 | 5 | 12 | 13 | 16 | 17 | 30).then_some((c.external >> 16) & 0o7777)
}

/// Extra fields: ZIP64 sizes and the Info-ZIP Unicode path (which
/// replaces the name for some readers and not others) are refused.
fn extra_fields(mut extra: &[u8], name: &str) -> Result<(), String> {
    while !extra.is_empty() {
        let id =
            u16_at(extra, 0).map_err(|_| format!("entry `{name}` has a broken extra field"))?;
        let len = u16_at(extra, 2)
            .map_err(|_| format!("entry `{name}` has a broken extra field"))?
            as usize;
        match id {
            0x0001 => return Err("a ZIP64 package, which std/package does not read".into()),
            0x7075 => {
                return Err(format!(
                    "entry `{name}` carries a second (Unicode path) name"
                ));
            }
            _ => {}
        }
        extra = extra
            .get(4 + len..)
            .ok_or_else(|| format!("entry `{name}` has a broken extra field"))?;
    }
    Ok(())
}

/// The entry's local header, checked against its central record; where
/// its record ends (after any data descriptor) and its compressed bytes.
fn local<'a>(d: &'a [u8], c: &Central) -> Result<(usize, &'a [u8]), String> {
    let n = &c.name;
    let at = c.local;
    if u32_at(d, at)? != 0x0403_4b50 {
        return Err(format!(
            "entry `{n}` has no local header where the directory says"
        ));
    }
    version_needed(u16_at(d, at + 4)?, n)?;
    let flags = u16_at(d, at + 6)?;
    let method = u16_at(d, at + 8)?;
    let crc = u32_at(d, at + 14)?;
    let compressed = u32_at(d, at + 18)? as usize;
    let size = u64::from(u32_at(d, at + 22)?);
    let name_len = u16_at(d, at + 26)? as usize;
    let extra_len = u16_at(d, at + 28)? as usize;
    let name = d
        .get(at + 30..at + 30 + name_len)
        .ok_or("the zip is truncated")?;
    if name != c.name_bytes.as_slice() {
        return Err(format!(
            "entry `{n}` has another name in its local header (`{}`)",
            String::from_utf8_lossy(name)
        ));
    }
    if flags != c.flags || method != c.method {
        return Err(format!(
            "entry `{n}`'s local header and directory record disagree"
        ));
    }
    let extra = d
        .get(at + 30 + name_len..at + 30 + name_len + extra_len)
        .ok_or("the zip is truncated")?;
    extra_fields(extra, n)?;
    let described = flags & 0x0008 != 0;
    let same = (crc, compressed, size) == (c.crc, c.compressed, c.size);
    let deferred = (crc, compressed, size) == (0, 0, 0);
    if !(same || described && deferred) {
        return Err(format!(
            "entry `{n}`'s local header gives another size or CRC-32 than the directory"
        ));
    }
    let start = at + 30 + name_len + extra_len;
    let raw = start
        .checked_add(c.compressed)
        .and_then(|e| d.get(start..e))
        .ok_or_else(|| format!("entry `{n}` is truncated"))?;
    let mut end = start + c.compressed;
    if described {
        // A data descriptor: an optional signature, CRC-32, both sizes.
        let sig = u32_at(d, end)? == 0x0807_4b50;
        let fields = if sig { end + 4 } else { end };
        let (dcrc, dcomp, dsize) = (
            u32_at(d, fields)?,
            u32_at(d, fields + 4)?,
            u32_at(d, fields + 8)?,
        );
        if (dcrc, dcomp as usize, u64::from(dsize)) != (c.crc, c.compressed, c.size) {
            return Err(format!(
                "entry `{n}`'s data descriptor disagrees with the directory"
            ));
        }
        end = fields + 12;
    }
    Ok((end, raw))
}

/// The entries' records, in file order, must cover every byte from the
/// start of the file to the central directory, each once.
fn tile(spans: &mut [(usize, usize, &str)], dir_offset: usize) -> Result<(), String> {
    spans.sort_by_key(|s| s.0);
    let mut cursor = 0;
    for &(start, end, name) in spans.iter() {
        if start != cursor {
            return Err(if start < cursor {
                format!("entry `{name}` overlaps another entry's bytes")
            } else {
                format!(
                    "{} byte(s) before entry `{name}` that the central directory does not list (a hidden entry?)",
                    start - cursor
                )
            });
        }
        cursor = end;
    }
    if cursor > dir_offset {
        return Err("the last entry overlaps the central directory".into());
    }
    if cursor < dir_offset {
        return Err(format!(
            "{} byte(s) between the last entry and the central directory that it does not list (a hidden entry?)",
            dir_offset - cursor
        ));
    }
    Ok(())
}
