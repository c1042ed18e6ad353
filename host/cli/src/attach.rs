//! Files from outside the deliverable root judged as if they were under
//! it: the transcript a hook attaches, and `vcc check --attach
//! GUEST_PATH=FILE` for a CI job that keeps the agent's transcript
//! elsewhere. Each file is read once into memory; what validators read is
//! what was hashed, and the report names where it came from.

use std::io::Read as _;
use std::path::Path;
use std::sync::Arc;

use vcc_runtime::Attached;

/// An attached file is read whole into memory: at most this large.
pub const MAX_ATTACHED: u64 = 256 << 20;

/// `GUEST_PATH=FILE`, read: where validators see it, and its bytes.
pub fn parse(spec: &str) -> Result<Attached, String> {
    let (guest, file) = spec.split_once('=').ok_or_else(|| {
        format!(
            "--attach {spec}: write GUEST_PATH=FILE, e.g. --attach .vcc/transcript.jsonl=/tmp/session.jsonl"
        )
    })?;
    if let Err((_, why)) = vcc_contract::paths::check(guest) {
        return Err(format!(
            "--attach {spec}: `{guest}` is not a path under the root: {why}"
        ));
    }
    if guest.contains(['*', '?', '[']) {
        return Err(format!(
            "--attach {spec}: `{guest}` is a pattern; give the one path validators see the file at"
        ));
    }
    read(guest, Path::new(file)).map_err(|why| format!("--attach {spec}: {why}"))
}

/// Read `file` to be seen at `guest` (a path relative to the root).
pub fn read(guest: &str, file: &Path) -> Result<Attached, String> {
    let bytes = read_capped(file, MAX_ATTACHED)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    Ok(Attached {
        path: guest.trim_start_matches("./").to_string(),
        source: file.display().to_string(),
        bytes: Arc::from(bytes),
    })
}

/// A file's bytes, refused when larger than `cap`.
pub fn read_capped(path: &Path, cap: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    vcc_contract::files::open_regular(path)?
        .take(cap + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(std::io::Error::other(format!("over {cap} bytes")));
    }
    Ok(bytes)
}
