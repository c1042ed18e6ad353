//! Tests of test discovery for Rust, Go and JavaScript (a test counts only
//! where its runner builds and runs it) and of statements in GFM table
//! cells and struck text.

use std::collections::BTreeSet;

use crate::defs::{self, Lang};
use crate::discovery::{self, Fs};
use crate::doc::Doc;
use crate::{js_match, js_reg, rs_crate};

/// An in-memory tree of guest paths.
struct Tree {
    files: BTreeSet<String>,
    text: Vec<(String, String)>,
}

impl Tree {
    fn of(files: &[(&str, &str)]) -> Tree {
        Tree {
            files: files.iter().map(|(p, _)| format!("/d/{p}")).collect(),
            text: files
                .iter()
                .map(|(p, t)| (format!("/d/{p}"), t.to_string()))
                .collect(),
        }
    }
}

impl Fs for Tree {
    fn files(&self) -> &BTreeSet<String> {
        &self.files
    }
    fn read(&self, path: &str) -> Result<String, String> {
        self.text
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, t)| t.clone())
            .ok_or_else(|| format!("{path}: missing"))
    }
}

const PACKAGE: &str = "[package]\nname = \"p\"\nversion = \"0.1.0\"\n";
const TEST: &str = "#[cfg(test)]\nmod tests {\n    #[test]\n    fn size() {}\n}\n";

fn rust(files: &[(&str, &str)], file: &str) -> Result<(), String> {
    rs_crate::compiled(&format!("/d/{file}"), &Tree::of(files))
}

#[test]
fn rust_files_reached_from_a_crate_root() {
    let base = [
        ("r/Cargo.toml", PACKAGE),
        (
            "r/src/lib.rs",
            "mod a;\n#[cfg(test)]\nmod b;\nmod inline {\n    mod c;\n}\n#[path = \"other/d.rs\"]\nmod d;\n#[cfg(feature = \"x\")]\nmod e;\n// mod f;\n",
        ),
        ("r/src/a.rs", "mod deep;\n"),
        ("r/src/a/deep.rs", TEST),
        ("r/src/b/mod.rs", TEST),
        ("r/src/inline/c.rs", TEST),
        ("r/src/other/d.rs", TEST),
        ("r/src/e.rs", TEST),
        ("r/src/f.rs", TEST),
        ("r/src/orphan.rs", TEST),
        ("r/src/bin/tool.rs", TEST),
        ("r/tests/it.rs", TEST),
        ("r/tests/suite/main.rs", "mod part;\n"),
        ("r/tests/suite/part.rs", TEST),
        ("r/examples/demo.rs", TEST),
        ("r/benches/speed.rs", TEST),
    ];
    for ok in [
        "r/src/lib.rs",
        "r/src/a.rs",
        "r/src/a/deep.rs",
        "r/src/b/mod.rs",
        "r/src/inline/c.rs",
        "r/src/other/d.rs",
        "r/src/bin/tool.rs",
        "r/tests/it.rs",
        "r/tests/suite/part.rs",
    ] {
        assert!(rust(&base, ok).is_ok(), "{ok}: {:?}", rust(&base, ok));
    }
    for (refused, says) in [
        ("r/src/orphan.rs", "no `mod` declaration reaches it"),
        ("r/src/f.rs", "no `mod` declaration reaches it"),
        ("r/src/e.rs", "cfg(feature = \"x\")"),
        ("r/examples/demo.rs", "examples/"),
        ("r/benches/speed.rs", "benches/"),
    ] {
        let why = rust(&base, refused).expect_err(refused);
        assert!(why.contains(says), "{refused}: {why}");
    }
    // No manifest, a workspace-only manifest, moved targets.
    let why = rust(&[("r/src/lib.rs", TEST)], "r/src/lib.rs").expect_err("no manifest");
    assert!(why.contains("no `Cargo.toml`"), "{why}");
    for manifest in [
        "[workspace]\nmembers = []\n",
        "[package]\nname = \"p\"\nautotests = false\n",
        "[package]\nname = \"p\"\n[lib]\npath = \"src/other.rs\"\n",
        "[package]\nname = \"p\"\n[[test]]\nname = \"it\"\nharness = false\n",
    ] {
        let files = [("r/Cargo.toml", manifest), ("r/src/lib.rs", TEST)];
        assert!(rust(&files, "r/src/lib.rs").is_err(), "{manifest}");
    }
}

#[test]
fn rust_mod_declarations() {
    let src = "#[cfg(test)]\nmod a;\npub(crate) mod b;\nmod c { mod d; }\nfn f() { mod e; }\nconst S: &str = \"mod g;\";\n";
    let code = defs::masked_code(Lang::Rust, src).expect("parses");
    let names: Vec<(String, Vec<String>)> = rs_crate::declarations(&code, src)
        .into_iter()
        .map(|d| (d.name, d.inline))
        .collect();
    assert_eq!(
        names,
        vec![
            ("a".to_string(), vec![]),
            ("b".to_string(), vec![]),
            ("d".to_string(), vec!["c".to_string()]),
        ]
    );
}

#[test]
fn go_folders_the_go_tool_skips() {
    let src = "package p\n";
    let paths = [
        "pkg/pages_test.go",
        "testdata/pages_test.go",
        "pkg/testdata/x/pages_test.go",
        "vendor/pages/pages_test.go",
        "_old/pages_test.go",
        ".hidden/pages_test.go",
        "pkg/_pages_test.go",
        "pkg/pages.go",
        "pkg/PAGES_TEST.GO",
        "pkg/pages_windows_test.go",
    ];
    let mut files: Vec<(&str, &str)> = paths.iter().map(|p| (*p, src)).collect();
    // `go test ./...` needs a module around the test files.
    files.push(("go.mod", "module m\n"));
    files.push((
        "pkg/tagged_test.go",
        "//go:build integration\n\npackage p\n",
    ));
    let tree = Tree::of(&files);
    let go = |entry: &str| discovery::runs(Lang::Go, &format!("/d/{entry}"), entry, &tree);
    assert!(go("pkg/tagged_test.go").is_err(), "a build constraint");
    assert!(go("pkg/pages_windows_test.go").is_err(), "a GOOS suffix");
    assert!(go("pkg/pages_test.go").is_ok());
    for refused in [
        "testdata/pages_test.go",
        "pkg/testdata/x/pages_test.go",
        "vendor/pages/pages_test.go",
        "_old/pages_test.go",
        ".hidden/pages_test.go",
        "pkg/_pages_test.go",
        "pkg/pages.go",
        "pkg/PAGES_TEST.GO",
    ] {
        assert!(go(refused).is_err(), "{refused}");
    }
}

#[test]
fn js_test_files_by_runner_patterns() {
    let js = |files: &[(&str, &str)], file: &str| {
        js_match::matched(&format!("/d/{file}"), &Tree::of(files))
    };
    let none: [(&str, &str); 0] = [];
    for ok in [
        "r/tests/pages.test.js",
        "r/src/pages.spec.tsx",
        "r/a.b.test.ts",
    ] {
        assert!(js(&none, ok).is_ok(), "{ok}: {:?}", js(&none, ok));
    }
    for refused in [
        "r/src/pages_spec_helpers.js",
        "r/src/pages.js",
        "r/__tests__/pages.js",
        "r/node_modules/x/pages.test.js",
        "r/dist/pages.test.js",
        "r/src/pages.test.mjs",
    ] {
        assert!(js(&none, refused).is_err(), "{refused}");
    }
    // Jest alone runs __tests__/ files; its testMatch when set.
    let jest = [("r/jest.config.js", "module.exports = {};\n")];
    assert!(js(&jest, "r/__tests__/pages.js").is_ok());
    let set = [(
        "r/jest.config.js",
        "module.exports = { testMatch: ['**/checks/*.js', \"<rootDir>/e2e/**/*.js\"] };\n",
    )];
    assert!(js(&set, "r/src/checks/pages.js").is_ok());
    assert!(js(&set, "r/e2e/a/pages.js").is_ok());
    assert!(js(&set, "r/src/pages.test.js").is_err());
    let package = [(
        "r/package.json",
        "{\"jest\": {\"testMatch\": [\"**/*.check.js\"]}}",
    )];
    assert!(js(&package, "r/src/a.check.js").is_ok());
    assert!(js(&package, "r/src/a.test.js").is_err());
    // Forms vcc does not read are refused.
    for config in [
        "module.exports = { testMatch: patterns };\n",
        "module.exports = { testRegex: '.*' };\n",
        "module.exports = { roots: ['<rootDir>/src'] };\n",
    ] {
        let files = [("r/jest.config.js", config)];
        assert!(js(&files, "r/src/pages.test.js").is_err(), "{config}");
    }
    let vitest = [(
        "r/vitest.config.ts",
        "export default defineConfig({ test: { include: ['src/**/*.check.ts'] } });\n",
    )];
    assert!(js(&vitest, "r/src/a.check.ts").is_ok());
    assert!(js(&vitest, "r/test/a.check.ts").is_err());
}

#[test]
fn globs_as_micromatch_reads_them() {
    let m = |glob: &str, path: &str| {
        let re = js_match::glob_regex(glob).expect("reads");
        vcc_plugin_common::regex(&re, false)
            .expect("compiles")
            .is_match(path)
    };
    assert!(m("**/?(*.)+(spec|test).[jt]s?(x)", "a/b/x.test.tsx"));
    assert!(m("**/?(*.)+(spec|test).[jt]s?(x)", "test.js"));
    assert!(!m("**/?(*.)+(spec|test).[jt]s?(x)", "a/x_test.js"));
    assert!(m("**/*.{test,spec}.?(c|m)[jt]s?(x)", "x.spec.mjs"));
    assert!(!m("src/*.js", "src/a/b.js"));
    assert!(js_match::glob_regex("!(x).js").is_none());
}

#[test]
fn js_tests_registered_at_load() {
    let registered = |src: &str| {
        let code = defs::masked_code(Lang::Js, src).expect("parses");
        let at = code.find("test(").expect("a call");
        js_reg::registered(&code, at)
    };
    for ok in [
        "test('x', () => {});\n",
        "import x from 'y';\ntest('x', () => {});\n",
        "describe('a', () => {\n  describe('b', function () {\n    test('x', () => {});\n  });\n});\n",
        "setup()\ntest('x', () => {});\n",
        "test('x', () => {\n  for (const it of [1]) {}\n});\n",
    ] {
        assert!(registered(ok).is_ok(), "{ok}");
    }
    for refused in [
        "if (false) {\n  test('x', () => {});\n}\n",
        "if (0) test('x', () => {});\n",
        "false && test('x', () => {});\n",
        "function later() {\n  test('x', () => {});\n}\n",
        "describe('a', () => {\n  if (false) {\n    test('x', () => {});\n  }\n});\n",
        "for (const n of []) {\n  test('x', () => {});\n}\n",
        "helper('a', () => {\n  test('x', () => {});\n});\n",
        "if (x) {} else test('x', () => {});\n",
        "function test(name, f) {}\ntest('x', () => {});\n",
        "const describe = (n, f) => {};\ndescribe('a', () => {\n  test('x', () => {});\n});\n",
        "import { noop as test } from './noop';\ntest('x', () => {});\n",
    ] {
        assert!(registered(refused).is_err(), "{refused}");
    }
    // Through the definitions: a test under `if (false)` names nothing.
    let src = "if (false) {\n  test('test_size', () => {});\n}\ntest('kept', () => {});\n";
    assert!(!defs::defines(Lang::Js, src, "test_size"));
    assert!(defs::defines(Lang::Js, src, "kept"));
}

fn negated(text: &str) -> Vec<(u32, String, bool)> {
    Doc::parse(text)
        .statements
        .iter()
        .map(|s| (s.line, s.key.1.clone(), s.negated))
        .collect()
}

#[test]
fn statements_in_table_cells() {
    let found = negated("# Design\n\n| Rule |\n|---|\n| The server must not log every token. |\n");
    assert!(
        found.contains(&(5, crate::seen::key("log every token"), true)),
        "{found:?}"
    );
    // A table inside hidden HTML stays hidden.
    let found =
        negated("<div hidden>\n\n| Rule |\n|---|\n| The server must not log. |\n\n</div>\n");
    assert!(found.iter().all(|(_, _, n)| !n), "{found:?}");
}

#[test]
fn struck_text_read_both_ways() {
    let log = crate::seen::key("log every token");
    for text in [
        "The server must ~~always~~ not log every token.\n",
        "The server must <del>always</del> not log every token.\n",
        "The server must <s>always</s> not log every token.\n",
        "- The server must ~~always~~ not log every token.\n",
        "<p>The server must <del>always</del> not log every token.</p>\n",
        "| Rule |\n|---|\n| The server must <s>always</s> not log every token. |\n",
        "> The server must <strike>always</strike>\n> not log every token.\n",
    ] {
        let found = negated(text);
        assert!(
            found.iter().any(|(_, p, n)| *p == log && *n),
            "{text:?}: {found:?}"
        );
    }
    // "must ~~not~~ log": struck, it says "must log"; as written, "must
    // not log": both statements are read, and they contradict.
    let found = negated("The server must ~~not~~ log every token.\n");
    assert!(found.iter().any(|(_, p, n)| *p == log && *n), "{found:?}");
    assert!(found.iter().any(|(_, p, n)| *p == log && !*n), "{found:?}");
}

#[test]
fn struck_text_in_code_is_not_struck() {
    // `~~` in a code span strikes nothing: the sentence is read once.
    let found = negated("The server must `~~` not log every token.\n");
    assert_eq!(found.len(), 1, "{found:?}");
}
