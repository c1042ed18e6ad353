//! Writing what vcc produces: machine output on stdout, and files that
//! readers see whole or not at all.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Machine output; a closed pipe (`vcc … | head`) is not an error.
pub fn print_stdout(text: &str) {
    let mut out = io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// Write a file so that readers see the old content or the new, never part.
///
/// The bytes go to a new file beside `path` first, under a random name,
/// created only if nothing is there (`O_EXCL`: never through a link), then
/// renamed over `path`. A report may be asked for inside a folder the
/// worker writes; a predictable temporary name there is a link the worker
/// plants in advance, and writing through it would put the report's bytes
/// wherever the link points (a missing deliverable, say).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    std::fs::create_dir_all(&dir).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot create the folder {}: {e}", dir.display()),
        )
    })?;
    // 0666 less the umask, as `File::create` would (a temporary file is
    // 0600 by default, and a report is for other readers too).
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
        .tempfile_in(&dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    // A temporary file not persisted is removed when dropped.
    tmp.persist(path).map(drop).map_err(|e| e.error)
}

/// Whether `path` is a temporary file [`write_atomically`] makes for
/// `target`: `.NAME.XXXXXX.tmp` beside it.
pub fn is_temporary_of(path: &Path, target: &Path) -> bool {
    let (Some(name), Some(target_name)) = (path.file_name(), target.file_name()) else {
        return false;
    };
    let (name, target_name) = (name.to_string_lossy(), target_name.to_string_lossy());
    path.parent() == target.parent()
        && name.starts_with(&format!(".{target_name}."))
        && name.ends_with(".tmp")
}

#[cfg(test)]
mod tests {
    use super::{is_temporary_of, write_atomically};

    /// A link planted where a report's temporary file could be is never
    /// written through: the report lands at its path, the link's target
    /// is untouched (and a missing one not created).
    #[test]
    fn a_planted_link_is_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let report = dir.path().join("junit.xml");
        let victim = dir.path().join("RELEASE_NOTES.md");
        // Every name the old writer could have used (`.NAME.PID.tmp`).
        for pid in [std::process::id(), 1, 2] {
            std::os::unix::fs::symlink(&victim, dir.path().join(format!(".junit.xml.{pid}.tmp")))
                .unwrap();
        }
        write_atomically(&report, b"<testsuites/>").unwrap();
        assert_eq!(std::fs::read(&report).unwrap(), b"<testsuites/>");
        assert!(!victim.exists(), "the report was written through a link");
        // Nothing of its own left behind: only the planted links.
        for entry in std::fs::read_dir(dir.path()).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().to_string();
            let planted = entry.file_type().unwrap().is_symlink();
            assert!(name == "junit.xml" || planted, "left behind: {name}");
        }
        // Readable as a file `File::create` made would be.
        let control = dir.path().join("control");
        std::fs::File::create(&control).unwrap();
        let mode = |p: &std::path::Path| {
            std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(p).unwrap().permissions())
        };
        assert_eq!(mode(&report), mode(&control));
    }

    #[test]
    fn the_temporary_files_of_a_report_are_known() {
        let report = std::path::Path::new("/w/out/junit.xml");
        assert!(is_temporary_of(
            std::path::Path::new("/w/out/.junit.xml.Ab3x9Z.tmp"),
            report
        ));
        assert!(!is_temporary_of(
            std::path::Path::new("/w/.junit.xml.Ab3x9Z.tmp"),
            report
        ));
        assert!(!is_temporary_of(
            std::path::Path::new("/w/out/junit.xml.tmp"),
            report
        ));
        assert!(!is_temporary_of(
            std::path::Path::new("/w/out/.junit.xmlx.tmp"),
            report
        ));
    }
}
