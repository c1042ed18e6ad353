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
/// at least that name's `least` of them (see [`candidates`]), or the
/// whole root path. Two root files equally close: none (both then count
/// as unreported, the stricter reading).
pub fn root_path<'a>(candidates: &[Candidate], roots: &'a BTreeSet<String>) -> Option<&'a str> {
    let mut best: Option<(usize, &str)> = None;
    let mut tied = false;
    for root in roots {
        let whole = root.split('/').count();
        let score = candidates
            .iter()
            .map(|c| common_tail(&c.name, root))
            .zip(candidates)
            .filter(|(tail, c)| *tail >= c.least || (c.whole && *tail == whole))
            .map(|(tail, _)| tail)
            .max()
            .unwrap_or(0);
        if score == 0 {
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

/// A name a report path can stand for, and how many of its trailing
/// components a root path must share to be that file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub name: String,
    pub least: usize,
    /// Whether a root path equal to its last components (however few) is
    /// this file: only when the report has at most one `<source>`, which
    /// may be the root itself. With several, a site-packages source would
    /// claim every top-level root file its class path spells.
    pub whole: bool,
}

/// The names a report path can stand for. Without Cobertura `<source>`s:
/// the path itself; a relative one must match whole (`pkg/core.py` is
/// never `other/core.py`), an absolute one by its file name at least.
///
/// With `<source>`s, the path is relative to one of them, as coverage.py,
/// pycobertura and GitLab read it: each source is tried, and the path
/// alone is not a name (`requests/api.py` of a source in site-packages is
/// not the root's `vendor/requests/api.py`). A file under a source must
/// share with a root path the whole path written and the source's own
/// folder (`<source>/ci/proj/src</source>` + `pkg/mod.py` is the root's
/// `src/pkg/mod.py` or `out/src/pkg/mod.py`), unless the root path is the
/// path written itself (the source is the root). So a source outside the
/// project never maps a file into the root by a shared file name alone.
pub fn candidates(name: &str, sources: &[String]) -> Vec<Candidate> {
    let name = normalise(name);
    let parts = |p: &str| p.split('/').filter(|s| !s.is_empty()).count();
    if sources.is_empty() {
        let least = if name.starts_with('/') {
            1
        } else {
            parts(&name)
        };
        return vec![Candidate {
            name,
            least,
            whole: true,
        }];
    }
    let several = sources.len() > 1;
    let mut found: Vec<Candidate> = Vec::new();
    for source in sources {
        let absolute = source.trim().replace('\\', "/").starts_with('/');
        // A relative source (`.`, `src`) is where the tool ran, which
        // nothing says: beside other sources, any class could be under
        // it, so with several sources one makes the report ambiguous, and
        // it maps nothing (its files count as unreported).
        if several && !absolute {
            return Vec::new();
        }
        let source = normalise(source);
        let joined = normalise(&format!("{source}/{name}"));
        // Alone, a relative source's joined path must match whole, as a
        // relative name does.
        let least = if absolute {
            parts(&name) + usize::from(parts(&source) > 0)
        } else {
            parts(&joined)
        };
        let tail = |c: &Candidate| last(&c.name, c.least);
        let candidate = Candidate {
            name: joined,
            least,
            whole: !several,
        };
        // Two sources that end alike (`/ci/proj/src`, `/tmp/x/src`) hold
        // the same class path at the same root file: which one ran is
        // unknowable, so neither is that file.
        if found.iter().any(|c| tail(c) == tail(&candidate)) {
            return Vec::new();
        }
        found.push(candidate);
    }
    found
}

/// The last `n` components of a path.
fn last(path: &str, n: usize) -> String {
    let parts: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    parts[parts.len().saturating_sub(n)..].join("/")
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
        // Each source is tried; the class path alone is no name: a source
        // outside the project maps nothing by the file name it shares.
        let c = candidates(
            "app/main.py",
            &[
                "/usr/lib/python3/site-packages".into(),
                "/home/ci/proj/src".into(),
            ],
        );
        let vendored: BTreeSet<String> = ["out/vendor/app/main.py", "out/src/app/x.py"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(root_path(&c, &vendored), None);
        let project: BTreeSet<String> = ["out/src/app/main.py".to_string()].into();
        assert_eq!(root_path(&c, &project), Some("out/src/app/main.py"));
        // A top-level root file is not a site-packages class's just
        // because its path spells the class path, beside another source.
        let top: BTreeSet<String> = ["requests/api.py".to_string()].into();
        let c = candidates(
            "requests/api.py",
            &["/usr/lib/python3/site-packages".into(), "/ci/proj".into()],
        );
        assert_eq!(root_path(&c, &top), None);
        // A relative source beside others makes every class ambiguous.
        let c = candidates(
            "requests/api.py",
            &["/usr/lib/python3/site-packages".into(), ".".into()],
        );
        assert!(c.is_empty());
        // Two sources ending alike: the class is in neither.
        let c = candidates("app/main.py", &["/ci/proj/src".into(), "/tmp/x/src".into()]);
        assert!(c.is_empty());
        // The source is the root itself: the path written is the root path.
        let c = candidates("src/app/main.py", &["/builds/g/proj".into()]);
        let at_root: BTreeSet<String> = ["src/app/main.py".to_string()].into();
        assert_eq!(root_path(&c, &at_root), Some("src/app/main.py"));
        // A relative source joins the path and must match whole.
        let c = candidates("main.py", &["src/app".into()]);
        assert_eq!(root_path(&c, &project), Some("out/src/app/main.py"));
        assert_eq!(root_path(&c, &vendored), None);
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
