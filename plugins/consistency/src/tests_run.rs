//! Tests of what keeps a runner from running a test it collected
//! (`not_run.rs`, and the run-stopping settings of `py_config.rs`,
//! `js_match.rs`, `discovery.rs`).

use std::collections::BTreeSet;

use crate::defs::{Lang, masked_code};
use crate::discovery::{self, Fs};
use crate::{not_run, py_config};

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

fn masked(lang: Lang, text: &str) -> String {
    masked_code(lang, text).unwrap_or_default()
}

const GO_OK: &str = "package p\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) { os.Exit(m.Run()) }\n\nfunc TestSize(t *testing.T) {}\n";

#[test]
fn go_skips_exits_and_cgo_are_refused() {
    let ok = |t: &str| not_run::go(t, &masked(Lang::Go, t));
    assert!(ok(GO_OK).is_ok());
    for bad in [
        "package p\nimport \"testing\"\nfunc TestSize(t *testing.T) { t.Skip(\"later\") }\n",
        "package p\nimport \"testing\"\nfunc helper(t *testing.T) { t.SkipNow() }\n",
        "package p\nimport \"testing\"\nfunc TestMain(m *testing.M) { os.Exit(0) }\n",
        "package p\nimport \"testing\"\nfunc init() { os.Exit(0) }\nfunc TestMain(m *testing.M) { os.Exit(m.Run()) }\n",
        "package p\n// #include <stdio.h>\nimport \"C\"\nimport \"testing\"\n",
        "package p\nimport (\n\t\"C\"\n\t\"testing\"\n)\n",
    ] {
        assert!(ok(bad).is_err(), "{bad}");
    }
    // A skip word in a string or comment is no call.
    assert!(ok("package p\n// t.Skip() is not used\nvar s = \"t.Skip()\"\n").is_ok());
}

#[test]
fn go_module_package_and_arch() {
    let runs = |files: &[(&str, &str)], full: &str| {
        discovery::runs(Lang::Go, &format!("/d/{full}"), full, &Tree::of(files))
    };
    let t = "tests/pages_test.go";
    assert!(runs(&[("go.mod", "module m\n"), (t, GO_OK)], t).is_ok());
    assert!(runs(&[(t, GO_OK)], t).is_err(), "no go.mod");
    assert!(
        runs(
            &[
                ("go.mod", "module m\n"),
                ("tests/go.mod", "module n\n"),
                (t, GO_OK)
            ],
            t
        )
        .is_err(),
        "nested module"
    );
    assert!(
        runs(
            &[
                ("go.mod", "module m\n"),
                ("go.work", "use ./other\n"),
                (t, GO_OK)
            ],
            t
        )
        .is_err(),
        "go.work"
    );
    let skip = "package p\nimport \"testing\"\nfunc helper(t *testing.T) { t.Skip() }\n";
    assert!(
        runs(
            &[
                ("go.mod", "module m\n"),
                (t, GO_OK),
                ("tests/helper_test.go", skip)
            ],
            t
        )
        .is_err(),
        "a sibling test file of the package skips"
    );
    for arch in [
        "arm64be",
        "armbe",
        "amd64p32",
        "mips64p32",
        "ppc",
        "riscv",
        "s390",
        "sparc",
    ] {
        let f = format!("tests/pages_{arch}_test.go");
        assert!(
            runs(&[("go.mod", "module m\n"), (&f, GO_OK)], &f).is_err(),
            "{arch}"
        );
    }
}

#[test]
fn rust_harness_replaced_shadowed_or_refused() {
    let ok = |t: &str| not_run::rust(&masked(Lang::Rust, t));
    assert!(ok("#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn size() {}\n    #[tokio::test]\n    async fn later() {}\n}\n").is_ok());
    for bad in [
        "#![feature(custom_test_frameworks)]\n#![test_runner(run)]\nfn run(_: &[&dyn Fn()]) {}\n",
        "#![test_runner(crate::run)]\n",
        "mod tests {\n    use crate::noop as test;\n    #[test]\n    fn size() {}\n}\n",
        "mod tests {\n    use other::test;\n}\n",
        "macro_rules! test { ($($t:tt)*) => {} }\n",
        "#[test]\nasync fn size() {}\n",
        "#[test]\nfn size(n: u32) {}\n",
        "#[test]\n#[allow(x)]\nfn size<T>() {}\n",
    ] {
        assert!(ok(bad).is_err(), "{bad}");
    }
}

#[test]
fn rust_should_panic_is_refused_as_xfail() {
    let src = "#[cfg(test)]\nmod tests {\n    #[test]\n    #[should_panic]\n    fn size() { assert!(false) }\n}\n";
    let code = masked(Lang::Rust, src);
    let segs = ["tests", "size"];
    assert!(crate::rs_defs::resolve(&crate::rs_defs::read(&code), &segs, true).is_err());
}

#[test]
fn python_module_forms_that_rebind_or_end_the_session() {
    let ok = |t: &str| not_run::python(&masked(Lang::Python, t));
    assert!(
        ok("import os\n\n\ndef test_size():\n    assert os.sep\n\n# ｓ in a comment\nx = \"ｓ\"\n")
            .is_ok()
    );
    for bad in [
        "def test_size():\n    assert False\n\n\ndef test_ｓize():\n    pass\n",
        "match 1:\n    case test_size:\n        pass\n",
        "import sys\nsys.modules[__name__].test_size = None\n",
        "def h():\n    pass\nh.__globals__['test_size'] = h\n",
        "import inspect\ninspect.currentframe().f_globals['test_size'] = None\n",
        "def test_a():\n    raise KeyboardInterrupt\n",
        "import os\ndef test_a():\n    os.abort()\n",
        "import os\ndef test_a():\n    os._exit(0)\n",
    ] {
        assert!(ok(bad).is_err(), "{bad}");
    }
}

#[test]
fn pytest_settings_that_stop_the_run() {
    let config = |ini: &str| -> Result<(), String> {
        let s = py_config::settings("pytest.ini", ini)?.ok_or("no config")?;
        py_config::Config::new(&[(String::new(), "pytest.ini".into(), s)]).map(|_| ())
    };
    assert!(
        config(
            "[pytest]\naddopts = -v --tb=short\nfilterwarnings =\n    ignore::DeprecationWarning\n"
        )
        .is_ok()
    );
    for bad in [
        "[pytest]\naddopts = -x\n",
        "[pytest]\naddopts = --exitfirst\n",
        "[pytest]\naddopts = --maxfail=1\n",
        "[pytest]\nstrict = true\n",
        "[pytest]\nfilterwarnings = error\n",
        "[pytest]\nfilterwarnings =\n    ignore::UserWarning\n    error::DeprecationWarning\n",
        "[pytest]\nrequired_plugins = pytest-never-installed\n",
        "[pytest]\nminversion = 99.0\n",
    ] {
        assert!(config(bad).is_err(), "{bad}");
    }
    // Strict markers: only an unregistered mark stops the run.
    let strict = |ini: &str, code: &str| -> Result<(), String> {
        let s = py_config::settings("pytest.ini", ini)?.ok_or("no config")?;
        py_config::Config::new(&[(String::new(), "pytest.ini".into(), s)])?.unregistered_mark(code)
    };
    let ini = "[pytest]\naddopts = --strict-markers\nmarkers =\n    slow: a slow test\n";
    assert!(
        strict(
            ini,
            "@pytest.mark.slow\n@pytest.mark.parametrize('n', [1])\ndef test_a(n): pass\n"
        )
        .is_ok()
    );
    assert!(strict(ini, "@pytest.mark.fast\ndef test_a(): pass\n").is_err());
    assert!(
        strict(
            "[pytest]\nstrict_markers = true\n",
            "@pytest.mark.slow\ndef test_a(): pass\n"
        )
        .is_err()
    );
    assert!(strict("[pytest]\n", "@pytest.mark.slow\ndef test_a(): pass\n").is_ok());
}

#[test]
fn js_async_describe_and_out_of_sight_config() {
    let ok = |t: &str| not_run::js(&masked(Lang::Js, t));
    assert!(ok("describe('a', () => {\n  test('x', async () => { await null; });\n});\n").is_ok());
    assert!(
        ok("describe('a', async () => {\n  await null;\n  test('x', () => {});\n});\n").is_err()
    );
    assert!(
        ok("describe('a', function () {\n  await null;\n  test('x', () => {});\n});\n").is_err()
    );
    let t = ("tests/pages.test.js", "test('x', () => {});\n");
    let runs = |files: &[(&str, &str)]| {
        discovery::runs(Lang::Js, "/d/tests/pages.test.js", t.0, &Tree::of(files))
    };
    assert!(runs(&[t]).is_ok());
    for key in [
        "setupFiles",
        "setupFilesAfterEnv",
        "preset",
        "modulePathIgnorePatterns",
        "testRunner",
        "testNamePattern",
    ] {
        let pkg = format!("{{\"jest\": {{\"{key}\": [\"x\"]}}}}\n");
        assert!(runs(&[t, ("package.json", &pkg)]).is_err(), "{key}");
    }
    assert!(
        runs(&[
            t,
            ("vitest.workspace.js", "export default ['packages/*'];\n")
        ])
        .is_err()
    );
}
