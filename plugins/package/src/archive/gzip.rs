//! gzip (RFC 1952): every member, as `gzip -d` and Python's `gzip` read
//! them. A `.tar.gz` may be several members one after the other; `tar xzf`
//! unpacks them all, so all are read. Each member's CRC-32 and ISIZE are
//! checked, and anything after the last member (even zeros, which gzip
//! skips with a warning) makes the stream unreadable: a reader that stops
//! early and one that reads on must never see different files.

use miniz_oxide::inflate::stream::{InflateState, inflate};
use miniz_oxide::{DataFormat, MZFlush, MZStatus};

use super::u16_at;

/// The payloads of every member, one after the other, up to `limit` bytes.
pub fn gunzip(d: &[u8], limit: u64) -> Result<Vec<u8>, String> {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut out = Vec::new();
    let mut at = 0;
    let mut member = 0;
    while at < d.len() {
        member += 1;
        let rest = &d[at..];
        if !rest.starts_with(&[0x1f, 0x8b]) {
            return Err(format!(
                "{} byte(s) after gzip member {} that are not a gzip member",
                rest.len(),
                member - 1
            ));
        }
        let body = header_end(rest)?;
        let start = out.len();
        let used = inflate_raw(&rest[body..], &mut out, limit)?;
        let trailer = body + used;
        let crc = super::u32_at(rest, trailer)
            .map_err(|_| format!("gzip member {member} has no CRC-32 and size trailer"))?;
        let isize = super::u32_at(rest, trailer + 4)
            .map_err(|_| format!("gzip member {member} has no size trailer"))?;
        let payload = &out[start..];
        if crc32fast::hash(payload) != crc {
            return Err(format!("gzip member {member} does not match its CRC-32"));
        }
        // ISIZE is the size modulo 2^32 (RFC 1952 2.3.1).
        if payload.len() as u32 != isize {
            return Err(format!(
                "gzip member {member} does not match its declared size"
            ));
        }
        at += trailer + 8;
    }
    Ok(out)
}

/// Where a member's deflate data starts.
fn header_end(d: &[u8]) -> Result<usize, String> {
    if d.len() < 18 || d[2] != 8 {
        return Err("not a deflate gzip stream".into());
    }
    let flags = d[3];
    // Reserved bits: gzip refuses them, so does this.
    if flags & 0xe0 != 0 {
        return Err("a gzip header with reserved flags set".into());
    }
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
    if at > d.len() {
        return Err("a truncated gzip header".into());
    }
    if flags & 2 != 0 {
        // FHCRC: gzip checks the header's CRC-16 (the low half of the
        // CRC-32 of every header byte before it) and unpacks nothing if
        // it is wrong; Python's gzip skips it. The stricter reader wins.
        let want = u16_at(d, at).map_err(|_| "a truncated gzip header".to_string())?;
        let got = (crc32fast::hash(&d[..at]) & 0xffff) as u16;
        if want != got {
            return Err(format!(
                "a gzip header whose CRC-16 is {want:#06x}, not {got:#06x} (gzip refuses it)"
            ));
        }
        at += 2;
    }
    Ok(at)
}

/// Inflate one raw deflate stream onto `out` (never past `limit` bytes
/// in all); how many input bytes it took.
fn inflate_raw(input: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<usize, String> {
    let mut state = InflateState::new_boxed(DataFormat::Raw);
    let mut consumed = 0;
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let r = inflate(&mut state, &input[consumed..], &mut chunk, MZFlush::None);
        consumed += r.bytes_consumed;
        if out.len() + r.bytes_written > limit {
            return Err("the gzip stream does not inflate within the size limit".into());
        }
        out.extend_from_slice(&chunk[..r.bytes_written]);
        match r.status {
            Ok(MZStatus::StreamEnd) => return Ok(consumed),
            Ok(_) if r.bytes_consumed > 0 || r.bytes_written > 0 => {}
            _ => return Err("a broken or truncated gzip stream".into()),
        }
    }
}
