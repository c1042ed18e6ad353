//! Folders that hold code or trust vcc relies on (the component cache, the
//! bundle store): the current user's own, writable by nobody else.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

/// Create `dir` (mode 0700) if it does not exist yet.
pub fn create_private(dir: &Path) -> std::io::Result<()> {
    if !dir.exists() {
        fs::create_dir_all(dir)?;
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Whether `dir` is safe to take code from: the folder is the current
/// user's and nobody else can write it, and no folder above it lets
/// another user replace it (each is owned by the user or root, and either
/// writable by its owner only or sticky, like `/tmp`). `Err` says why not.
pub fn trusted(dir: &Path) -> Result<(), String> {
    let dir = fs::canonicalize(dir).map_err(|e| e.to_string())?;
    // SAFETY: getuid has no preconditions and cannot fail.
    let me = unsafe { libc::getuid() };
    let meta = fs::metadata(&dir).map_err(|e| e.to_string())?;
    if meta.uid() != me {
        return Err(format!(
            "it is owned by uid {}, not by the current user (uid {me})",
            meta.uid()
        ));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(format!(
            "it is {}-writable; run `chmod go-w {}`",
            if meta.mode() & 0o002 != 0 {
                "world"
            } else {
                "group"
            },
            dir.display()
        ));
    }
    for above in dir.ancestors().skip(1) {
        let meta = fs::metadata(above).map_err(|e| e.to_string())?;
        if meta.uid() != me && meta.uid() != 0 {
            return Err(format!(
                "{} above it is owned by uid {}: that user could replace it",
                above.display(),
                meta.uid()
            ));
        }
        if meta.mode() & 0o022 != 0 && meta.mode() & 0o1000 == 0 {
            return Err(format!(
                "{} above it is writable by others and not sticky: they could replace it",
                above.display()
            ));
        }
    }
    Ok(())
}
