//! `sources`: the source files a report must account for (issue 34).
//!
//! coverage.py never lists a module in a folder without `__init__.py` (nor
//! a file no test imports, unless told its source), so a report can say
//! 100% beside hundreds of untested lines. Every source file of the
//! `sources` deliverables that no report names counts as 0% covered, with
//! its non-blank, non-comment lines as its statements: more than
//! coverage.py's statement count (a statement over several lines, a
//! docstring), never fewer — the stricter reading.
//!
//! Report paths are matched to root paths as the tools write them: a
//! Cobertura class `filename` is relative to one of the report's
//! `<source>` folders (absolute, or relative to where the tool ran), an
//! lcov `SF:` is often absolute. A report path names a root file when it
//! is that path, or ends with `/` and that path.

use std::collections::BTreeSet;

/// Extensions of the files counted as source, and their line comments.
const LANGUAGES: &[(&[&str], &[&str])] = &[
    (&["py", "pyi"], &["#"]),
    (&["rb", "sh"], &["#"]),
    (
        &[
            "rs", "js", "mjs", "cjs", "jsx", "ts", "tsx", "go", "java", "kt", "c", "h", "cc",
            "cpp", "hpp", "cs", "swift", "scala", "php",
        ],
        &["//", "/*", "*"],
    ),
];

/// The comment markers of a source file, or `None` when it is not one.
fn comments(path: &str) -> Option<&'static [&'static str]> {
    let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
    LANGUAGES
        .iter()
        .find(|(exts, _)| exts.contains(&ext.as_str()))
        .map(|(_, c)| *c)
}

/// Whether `path` (a root path) is a source file `sources` counts.
pub fn is_source(path: &str) -> bool {
    comments(path).is_some()
}

/// The lines counted as statements of a source file nobody measured: not
/// blank, not starting with a line comment.
pub fn statements(path: &str, text: &str) -> u64 {
    let markers = comments(path).unwrap_or(&[]);
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !markers.iter().any(|m| l.starts_with(m)))
        .count() as u64
}

/// The root file a report path names, if any: the longest root path that
/// the candidate is, or ends with after a `/`.
pub fn root_path<'a>(candidates: &[String], roots: &'a BTreeSet<String>) -> Option<&'a str> {
    let mut best: Option<&str> = None;
    for candidate in candidates {
        let candidate = normalise(candidate);
        for root in roots {
            let hit = candidate == *root
                || candidate
                    .strip_suffix(root.as_str())
                    .is_some_and(|head| head.ends_with('/'));
            if hit && best.is_none_or(|b| root.len() > b.len()) {
                best = Some(root);
            }
        }
    }
    best
}

/// A report path with `\` as `/`, `./` and `//` and `x/..` folded, so it
/// can be compared with root paths.
pub fn normalise(path: &str) -> String {
    let path = path.trim().replace('\\', "/");
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

/// The names a report path can stand for: itself, and joined to each
/// `<source>` of a Cobertura report.
pub fn candidates(name: &str, sources: &[String]) -> Vec<String> {
    let mut out = vec![normalise(name)];
    for source in sources {
        out.push(normalise(&format!(
            "{}/{name}",
            source.trim_end_matches('/')
        )));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_skip_blank_and_comment_lines() {
        let py = "\"\"\"Doc.\"\"\"\n\n# comment\nimport os\n\ndef f(x):\n    return x  # why\n";
        assert_eq!(statements("pkg/a.py", py), 4);
        assert_eq!(statements("a.rs", "// c\n/* b\n * c */\nfn f() {}\n"), 1);
        assert!(is_source("lib/x.PY") && !is_source("README.md") && !is_source("Makefile"));
    }

    #[test]
    fn report_paths_map_to_root_paths() {
        let roots: BTreeSet<String> = ["src/pkg/a.py", "pkg/a.py", "src/b.py"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        // Cobertura: filename relative to an absolute <source>.
        let c = candidates("pkg/a.py", &["/home/ci/proj/src/".to_string()]);
        assert_eq!(root_path(&c, &roots), Some("src/pkg/a.py"));
        // lcov: an absolute SF.
        let c = candidates("/home/ci/proj/./src/b.py", &[]);
        assert_eq!(root_path(&c, &roots), Some("src/b.py"));
        // A suffix must start at a folder: `xsrc/b.py` is not `src/b.py`.
        assert_eq!(root_path(&candidates("/p/xsrc/b.py", &[]), &roots), None);
        assert_eq!(root_path(&candidates("b.py", &[]), &roots), None);
        assert_eq!(normalise(".\\src\\..\\src//b.py"), "src/b.py");
    }
}
