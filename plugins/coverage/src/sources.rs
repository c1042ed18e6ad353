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
//! lcov `SF:` is often absolute: see `root_path`.

use std::collections::BTreeSet;

/// Extensions of the files counted as source, and their line comments:
/// every extension the supported tools measure, generously (red team 34:
/// coverage.py measures `.pyw` as well as `.py`; c8/istanbul `.mts`,
/// `.cts`, `.vue`, `.svelte`; gcov `.cxx`, `.hh`; kcov `.bash`, `.zsh`;
/// SimpleCov `.rake`; scoverage `.sc`; JaCoCo/Kover `.kts`). Counting a
/// file no tool would measure only makes the total lower, the stricter
/// reading.
const LANGUAGES: &[(&[&str], &[&str])] = &[
    (&["py", "pyi", "pyw", "pyx", "pxd"], &["#"]),
    (
        &[
            "rb", "rake", "gemspec", "ru", "sh", "bash", "zsh", "ksh", "pl", "pm", "r", "jl", "ex",
            "exs", "cr", "nim",
        ],
        &["#"],
    ),
    (
        &[
            "rs", "js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts", "vue", "svelte", "go",
            "java", "kt", "kts", "groovy", "c", "h", "cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx",
            "h++", "ipp", "tpp", "inl", "m", "mm", "cs", "fs", "swift", "scala", "sc", "php",
            "dart", "zig", "d",
        ],
        &["//", "/*", "*"],
    ),
    (&["lua", "hs"], &["--"]),
    (&["erl", "hrl"], &["%"]),
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

/// The root file a report entry names, if any. Its path was written on
/// another machine (absolute, or relative to where the tool ran or to a
/// Cobertura `<source>`), so it is compared from the end: the root file
/// sharing the most trailing path components with one of its names, and
/// at least the whole of a relative name (`pkg/core.py` is never
/// `other/core.py`). Two root files equally close: none (both then count
/// as unreported, the stricter reading).
pub fn root_path<'a>(candidates: &[String], roots: &'a BTreeSet<String>) -> Option<&'a str> {
    let names: Vec<String> = candidates.iter().map(|c| normalise(c)).collect();
    let first = names.first()?;
    let least = if first.starts_with('/') {
        1
    } else {
        first.split('/').count()
    };
    let mut best: Option<(usize, &str)> = None;
    let mut tied = false;
    for root in roots {
        let score = names
            .iter()
            .map(|n| common_tail(n, root))
            .max()
            .unwrap_or(0);
        if score < least {
            continue;
        }
        match best {
            Some((b, _)) if b > score => {}
            Some((b, _)) if b == score => tied = true,
            _ => {
                best = Some((score, root));
                tied = false;
            }
        }
    }
    if tied { None } else { best.map(|(_, r)| r) }
}

/// How many trailing path components two paths share.
fn common_tail(a: &str, b: &str) -> usize {
    a.rsplit('/')
        .zip(b.rsplit('/'))
        .take_while(|(x, y)| x == y && !x.is_empty())
        .count()
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
    fn every_extension_a_supported_tool_measures_is_source() {
        for p in [
            "tools/migrate.pyw",
            "a.mts",
            "a.cts",
            "a.vue",
            "a.svelte",
            "a.cxx",
            "a.hh",
            "a.bash",
            "a.zsh",
            "tasks.rake",
            "a.sc",
            "build.kts",
        ] {
            assert!(is_source(p), "{p}");
        }
        assert_eq!(statements("t.pyw", "# c\nimport os\n"), 1);
    }

    #[test]
    fn report_paths_map_to_root_paths() {
        let roots: BTreeSet<String> = ["out/src/pkg/a.py", "out/src/b.py", "out/tests/b.py"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        // Cobertura: filename relative to an absolute <source> elsewhere.
        let c = candidates("pkg/a.py", &["/home/ci/proj/src/".to_string()]);
        assert_eq!(root_path(&c, &roots), Some("out/src/pkg/a.py"));
        // lcov: an absolute SF; the closest of two `b.py`.
        let c = candidates("/home/ci/proj/./src/b.py", &[]);
        assert_eq!(root_path(&c, &roots), Some("out/src/b.py"));
        // A relative name must match whole: `x/a.py` is not `pkg/a.py`.
        assert_eq!(root_path(&candidates("x/a.py", &[]), &roots), None);
        // Two equally close: neither.
        assert_eq!(root_path(&candidates("/elsewhere/b.py", &[]), &roots), None);
        // Component by component: `xsrc/b.py` shares only `b.py`.
        let one: BTreeSet<String> = ["src/b.py".to_string()].into();
        assert_eq!(
            root_path(&candidates("/p/xsrc/b.py", &[]), &one),
            Some("src/b.py")
        );
        assert_eq!(root_path(&candidates("xsrc/b.py", &[]), &one), None);
        assert_eq!(normalise(".\\src\\..\\src//b.py"), "src/b.py");
    }
}
