//! Go and JavaScript tests as their runners collect them.
//!
//! Go: `go test` compiles `_test.go` files only, and runs `func TestX(t
//! *testing.T)` (and `func FuzzX(f *testing.F)`) at the top level, `X` not
//! starting with a lower-case letter. A build constraint (`//go:build …`,
//! `// +build …`, or a `_GOOS`/`_GOARCH` file-name suffix) is one vcc does
//! not decide: such a file is refused for tests.
//!
//! JavaScript/TypeScript: `describe.skip(…)`, `xdescribe(…)`, `test.skip`,
//! `it.todo`… hold no test that runs, and where a file has `.only(…)` (or
//! `fit`, `fdescribe`) only what it holds runs.

use vcc_plugin_common::regex;

const GOOS: &[&str] = &[
    "aix",
    "android",
    "darwin",
    "dragonfly",
    "freebsd",
    "hurd",
    "illumos",
    "ios",
    "js",
    "linux",
    "nacl",
    "netbsd",
    "openbsd",
    "plan9",
    "solaris",
    "wasip1",
    "windows",
    "zos",
];
/// Every GOARCH the go tool knows (go/build's `knownArch`, including
/// those no port exists for: a suffix of one still excludes the file).
const GOARCH: &[&str] = &[
    "386",
    "amd64",
    "amd64p32",
    "arm",
    "armbe",
    "arm64",
    "arm64be",
    "loong64",
    "mips",
    "mipsle",
    "mips64",
    "mips64le",
    "mips64p32",
    "mips64p32le",
    "ppc",
    "ppc64",
    "ppc64le",
    "riscv",
    "riscv64",
    "s390",
    "s390x",
    "sparc",
    "sparc64",
    "wasm",
];

/// Whether `go test` compiles the file at `path` as a test file: a
/// `_test.go` name without a `_GOOS`/`_GOARCH` suffix, and no build
/// constraint before its `package` line.
pub fn go_file(path: &str, text: &str) -> Result<(), String> {
    let file = path.rsplit('/').next().unwrap_or(path).to_lowercase();
    let Some(stem) = file.strip_suffix("_test.go") else {
        return Err("in a file `go test` does not compile as a test (not `_test.go`)".into());
    };
    let parts: Vec<&str> = stem.split('_').collect();
    if parts.len() > 1
        && let Some(last) = parts.last()
        && (GOOS.contains(last) || GOARCH.contains(last))
    {
        return Err(format!(
            "in a file built only for `{last}` (its name's suffix), a build constraint vcc does not decide"
        ));
    }
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with("package ") {
            break;
        }
        if l.starts_with("//go:build") || l.starts_with("// +build") {
            return Err(format!(
                "in a file with the build constraint `{}`, which vcc does not decide (`go test` may never compile it)",
                l
            ));
        }
    }
    Ok(())
}

/// Whether `name` is a test `go test` runs in the file at `path`.
pub fn go_test(path: &str, text: &str, code: &str, name: &str) -> Result<(), String> {
    go_file(path, text)?;
    let kind = if name.starts_with("Test") {
        "T"
    } else if name.starts_with("Fuzz") {
        "F"
    } else {
        return Err(
            "no test: `go test` runs `TestX(t *testing.T)` and `FuzzX(f *testing.F)`".into(),
        );
    };
    if name[4..].starts_with(|c: char| c.is_lowercase()) {
        return Err(
            "no test: after `Test`, `go test` needs a name not starting in lower case".into(),
        );
    }
    let pattern = format!(
        r"(?m)^func\s+{}\s*\(\s*[A-Za-z_][A-Za-z0-9_]*\s+\*testing\.{kind}\s*\)",
        name.replace(|c: char| !(c.is_alphanumeric() || c == '_'), "")
    );
    match regex(&pattern, false) {
        Ok(re) if re.is_match(code) => Ok(()),
        _ => Err(format!(
            "no top-level `func {name}(t *testing.{kind})`: `go test` does not run it"
        )),
    }
}

/// A byte range of code: (start, end).
type Range = (usize, usize);

/// Byte ranges of the masked JavaScript `code` whose tests do not run,
/// and (when the file has `.only`) the ranges that alone do.
pub fn js_ranges(code: &str) -> (Vec<Range>, Option<Vec<Range>>) {
    let calls = |pattern: &str| -> Vec<Range> {
        let Ok(re) = regex(pattern, false) else {
            return Vec::new();
        };
        re.find_iter(code)
            .map(|m| (m.start(), paren_end(code.as_bytes(), m.end() - 1)))
            .collect()
    };
    let skipped = calls(
        r"(?:\b(?:xdescribe|xcontext|xit|xtest|xspecify)|\b(?:describe|context|it|test|specify)\s*\.\s*(?:skip|todo))\s*\(",
    );
    let only = calls(r"(?:\b(?:fdescribe|fit)|\b(?:describe|context|it|test)\s*\.\s*only)\s*\(");
    (skipped, (!only.is_empty()).then_some(only))
}

/// The end of the call whose `(` is at `open` (the end of the code when
/// it never closes).
fn paren_end(b: &[u8], open: usize) -> usize {
    let mut depth = 0;
    for (k, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return k + 1;
                }
            }
            _ => {}
        }
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_tests_as_go_test_runs_them() {
        let src = "package p\nimport \"testing\"\nfunc TestSize(t *testing.T) {}\nfunc TestNoT() {}\nfunc Testlower(t *testing.T) {}\nfunc (s S) TestM(t *testing.T) {}\n";
        assert!(go_test("a/pages_test.go", src, src, "TestSize").is_ok());
        for name in ["TestNoT", "Testlower", "TestM", "Helper"] {
            assert!(
                go_test("a/pages_test.go", src, src, name).is_err(),
                "{name}"
            );
        }
        assert!(go_test("a/pages.go", src, src, "TestSize").is_err());
        assert!(go_test("a/pages_linux_test.go", src, src, "TestSize").is_err());
        let ignored = format!("//go:build ignore\n\n{src}");
        assert!(go_test("a/pages_test.go", &ignored, &ignored, "TestSize").is_err());
    }

    #[test]
    fn skipped_and_only_ranges() {
        let code = "describe.skip('a', () => { test('x', () => {}); });\ntest('y', () => {});\n";
        let (skipped, only) = js_ranges(code);
        assert_eq!(skipped.len(), 1);
        assert!(skipped[0].0 == 0 && skipped[0].1 > code.find("'x'").unwrap_or(0));
        assert!(only.is_none());
        let (_, only) = js_ranges("it.only('z', () => {});\nit('w', () => {});\n");
        assert_eq!(only.map(|o| o.len()), Some(1));
    }
}
