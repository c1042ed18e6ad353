//! POSIX tar (ustar, and GNU's `ustar  ` headers without GNU extensions):
//! 512-byte headers, files padded to 512, two zero blocks at the end.
//! Every header's checksum is checked (GNU tar and Python's `tarfile`
//! refuse a bad one), names are taken as written (never trimmed, never
//! re-decoded), and nothing but zeros may follow the end blocks: `tar -i`
//! would read on, `tar` would not, so what lies there is refused.

use super::{Entry, Limits};

pub fn read(d: &[u8], limits: Limits) -> Result<Vec<Entry>, String> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut total: u64 = 0;
    loop {
        let Some(h) = d.get(at..at + 512) else {
            // No end blocks: what is left must be nothing or zeros.
            return trailing(&d[at..], out);
        };
        if h.iter().all(|&b| b == 0) {
            return trailing(&d[at..], out);
        }
        check_sum(h)?;
        let name = header_name(h)?;
        let numbers = numbers(h, &name)?;
        let size = numbers.size;
        let start = at + 512;
        let len = usize::try_from(size).map_err(|_| "a tar entry too large".to_string())?;
        let body = start
            .checked_add(len)
            .and_then(|end| d.get(start..end))
            .ok_or_else(|| format!("entry `{name}` is truncated"))?;
        at = start + body.len().div_ceil(512) * 512;
        match h[156] {
            b'0' | 0 if name.ends_with('/') => {
                // Python's tarfile makes this a folder, GNU tar a file.
                return Err(format!("entry `{name}` is a file named like a folder"));
            }
            b'0' | 0 => {}
            b'5' if size == 0 => {
                out.push(Entry {
                    name,
                    bytes: Vec::new(),
                    folder: true,
                    mode: Some(numbers.mode),
                });
                continue;
            }
            b'5' => return Err(format!("folder `{name}` has {size} bytes of data")),
            b'1' | b'2' => return Err(format!("entry `{name}` is a link")),
            other => {
                return Err(format!(
                    "entry `{name}` has tar type `{}`, which std/package does not read",
                    other.escape_ascii()
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
            folder: false,
            mode: Some(numbers.mode),
        });
    }
}

/// The entries, if nothing but zeros follows them.
fn trailing(rest: &[u8], out: Vec<Entry>) -> Result<Vec<Entry>, String> {
    match rest.iter().position(|&b| b != 0) {
        None => Ok(out),
        Some(_) => Err(
            "data after the tar's end blocks (or a partial block), which some readers unpack and others do not"
                .into(),
        ),
    }
}

/// The header checksum: the sum of its bytes with the checksum field
/// read as spaces (POSIX; GNU tar and tarfile also accept signed bytes,
/// so both sums are allowed).
fn check_sum(h: &[u8]) -> Result<(), String> {
    let want = octal(&h[148..156]).ok_or("a tar header with a broken checksum field")?;
    let blank = |i: usize| (148..156).contains(&i);
    let unsigned: u64 = h
        .iter()
        .enumerate()
        .map(|(i, &b)| if blank(i) { 32 } else { u64::from(b) })
        .sum();
    let signed: i64 = h
        .iter()
        .enumerate()
        .map(|(i, &b)| if blank(i) { 32 } else { i64::from(b as i8) })
        .sum();
    if want == unsigned || i64::try_from(want).ok() == Some(signed) {
        Ok(())
    } else {
        Err("a tar header whose checksum does not match".into())
    }
}

/// The name as unpacked: the ustar prefix, a `/`, the name; bytes up to
/// the first NUL, which must be UTF-8.
fn header_name(h: &[u8]) -> Result<String, String> {
    let text = |f: &[u8]| -> Result<String, String> {
        let end = f.iter().position(|&c| c == 0).unwrap_or(f.len());
        String::from_utf8(f[..end].to_vec()).map_err(|_| "an entry name that is not UTF-8".into())
    };
    let name = text(&h[0..100])?;
    let prefix = if &h[257..265] == b"ustar  \0" {
        // GNU headers keep times there, not a prefix; tarfile would read
        // them as one, GNU tar would not: only zeros are the same to both.
        if h[345..500].iter().any(|&b| b != 0) {
            return Err(format!(
                "entry `{name}` is a GNU header with data where ustar keeps a prefix"
            ));
        }
        String::new()
    } else {
        text(&h[345..500])?
    };
    Ok(if prefix.is_empty() {
        name
    } else {
        format!("{prefix}/{name}")
    })
}

/// The numbers of a header that unpacking uses.
struct Numbers {
    mode: u32,
    size: u64,
}

/// Every number field of a header, read as GNU tar and Python's tarfile
/// both read it, or the reason one of them refuses it: GNU tar exits 2
/// ("numeric value expected"), tarfile stops ("invalid header"), so a
/// field only one of them reads (or neither) makes the archive unreadable.
fn numbers(h: &[u8], name: &str) -> Result<Numbers, String> {
    // (field, offset, length, GNU's base-256 allowed)
    const FIELDS: [(&str, usize, usize, bool); 7] = [
        ("mode", 100, 8, false),
        ("uid", 108, 8, true),
        ("gid", 116, 8, true),
        ("size", 124, 12, true),
        ("mtime", 136, 12, true),
        ("devmajor", 329, 8, false),
        ("devminor", 337, 8, false),
    ];
    let mut got = [0u64; 7];
    for (i, (field, at, len, base256)) in FIELDS.iter().enumerate() {
        got[i] = number(&h[*at..at + len], *base256).ok_or_else(|| {
            format!(
                "entry `{name}` has `{}` in its {field} field, which GNU tar or Python's tarfile refuses",
                h[*at..at + len].escape_ascii()
            )
        })?;
    }
    Ok(Numbers {
        // Only the permission bits: GNU tar and tarfile ignore the rest.
        mode: (got[0] & 0o7777) as u32,
        size: got[3],
    })
}

/// A number field as both readers take it: octal digits after optional
/// spaces, ended by a NUL or a space with only NULs and spaces after (an
/// all-NUL field is 0), or where `base256` GNU's positive base-256 (a
/// first byte of 0x80). A negative base-256 number (0xff: GNU refuses a
/// -1 uid or gid), `+`, `_`, blanks only or any other byte is refused.
fn number(f: &[u8], base256: bool) -> Option<u64> {
    if f.first() == Some(&0x80) {
        if !base256 {
            return None;
        }
        return f[1..]
            .iter()
            .try_fold(0u64, |n, &b| n.checked_mul(256)?.checked_add(u64::from(b)));
    }
    if f.iter().all(|&b| b == 0) {
        return Some(0);
    }
    let start = f.iter().position(|&b| b != b' ')?;
    let digits = f[start..]
        .iter()
        .take_while(|b| (b'0'..=b'7').contains(b))
        .count();
    let rest = &f[start + digits..];
    if digits == 0 || rest.iter().any(|&b| b != 0 && b != b' ') {
        return None;
    }
    f[start..start + digits].iter().try_fold(0u64, |n, &b| {
        n.checked_mul(8)?.checked_add(u64::from(b - b'0'))
    })
}

/// The checksum field, which neither reader takes as base-256.
fn octal(f: &[u8]) -> Option<u64> {
    number(f, false)
}
