//! Deliverable paths: relative to the deliverable root, `/`-separated,
//! never absolute, never escaping with `..`.
//!
//! The runtime uses the same rules to match files, so what lint accepts is
//! exactly what a check resolves.

use globset::{GlobBuilder, GlobMatcher};

use crate::problem::Code;

/// A checked deliverable path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathSpec {
    /// A file or a directory (decided by what is on disk), normalised:
    /// no `.` components, no empty components, no trailing `/`.
    Literal(String),
    /// A glob: `*` and `?` stay within one path component, `**` crosses them.
    Glob(String),
}

/// Check and normalise a deliverable path.
pub fn check(path: &str) -> Result<PathSpec, (Code, String)> {
    if path.is_empty() {
        return Err((Code::PathInvalid, "the path is empty".into()));
    }
    if path.contains('\0') {
        return Err((Code::PathInvalid, "the path contains a NUL byte".into()));
    }
    if path.chars().any(char::is_control) {
        return Err((
            Code::PathInvalid,
            "the path contains a control character".into(),
        ));
    }
    if path.starts_with('/') || path.starts_with('\\') || has_drive_prefix(path) {
        return Err((
            Code::PathAbsolute,
            format!("`{path}` is absolute; deliverable paths are relative to the deliverable root"),
        ));
    }
    if path.contains('\\') {
        return Err((
            Code::PathInvalid,
            format!("`{path}` contains `\\`; use `/` as the separator"),
        ));
    }
    let parts: Vec<&str> = path
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect();
    if parts.contains(&"..") {
        return Err((
            Code::PathEscapesRoot,
            format!("`{path}` uses `..`; deliverables must stay inside the deliverable root"),
        ));
    }
    if parts.is_empty() {
        return Err((
            Code::PathInvalid,
            format!("`{path}` names the root itself; name a file, a folder or a glob under it"),
        ));
    }
    let normal = parts.join("/");
    if is_glob(&normal) {
        matcher(&normal).map_err(|err| (Code::PathInvalid, format!("`{path}`: {err}")))?;
        Ok(PathSpec::Glob(normal))
    } else {
        Ok(PathSpec::Literal(normal))
    }
}

fn has_drive_prefix(path: &str) -> bool {
    let b = path.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
}

pub fn is_glob(path: &str) -> bool {
    path.contains(['*', '?', '[', '{'])
}

/// The leading components of a glob that contain no pattern characters.
pub fn glob_prefix(glob: &str) -> String {
    glob.split('/')
        .take_while(|part| !is_glob(part))
        .collect::<Vec<_>>()
        .join("/")
}

/// A path a glob matches, for globs whose last component is a name with
/// `*` and `?` only (`src/**/*.rs` → `src/x.rs`): what excludes are tested
/// against. `None` for other globs.
pub fn example(glob: &str) -> Option<String> {
    let last = glob.rsplit('/').next()?;
    if last.contains(['[', '{']) || last == "**" {
        return None;
    }
    let name = last.replace(['*', '?'], "x");
    let prefix = glob_prefix(glob);
    Some(if prefix.is_empty() {
        name
    } else {
        format!("{prefix}/{name}")
    })
}

/// The matcher for a deliverable glob, with the rules lint checked.
pub fn matcher(glob: &str) -> Result<GlobMatcher, String> {
    GlobBuilder::new(glob)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|err| err.kind().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_normalised() {
        assert_eq!(
            check("./docs//a.md").unwrap(),
            PathSpec::Literal("docs/a.md".into())
        );
        assert_eq!(check("docs/").unwrap(), PathSpec::Literal("docs".into()));
        assert_eq!(
            check("src/**/*.rs").unwrap(),
            PathSpec::Glob("src/**/*.rs".into())
        );
    }

    #[test]
    fn escapes_and_absolute_paths_are_refused() {
        let code = |p: &str| check(p).unwrap_err().0;
        assert_eq!(code("/etc/passwd"), Code::PathAbsolute);
        assert_eq!(code("C:\\x"), Code::PathAbsolute);
        assert_eq!(code("\\\\server\\share"), Code::PathAbsolute);
        assert_eq!(code("../x"), Code::PathEscapesRoot);
        assert_eq!(code("a/../../x"), Code::PathEscapesRoot);
        assert_eq!(code("a/**/../x"), Code::PathEscapesRoot);
        assert_eq!(code(""), Code::PathInvalid);
        assert_eq!(code("./"), Code::PathInvalid);
        assert_eq!(code("a\0b"), Code::PathInvalid);
        assert_eq!(code("a\nb"), Code::PathInvalid);
        assert_eq!(code("a\\b"), Code::PathInvalid);
        assert_eq!(code("a/[b"), Code::PathInvalid);
    }

    #[test]
    fn globs_stay_within_components() {
        let m = matcher("docs/*.md").unwrap();
        assert!(m.is_match("docs/a.md"));
        assert!(!m.is_match("docs/sub/a.md"));
        assert!(matcher("docs/**/*.md").unwrap().is_match("docs/sub/a.md"));
    }
}
