//! Python tests as a plain `pytest` run collects and runs them
//! (`py_collect.rs`, `py_config.rs`): each red-team forgery of issue 34
//! (round 3) and the rule it stands for.

use super::*;
use crate::py_config::{self, Config, glob};
use vcc_sdk::native::Files;
use vcc_sdk::{MOUNT, Status};

const SPEC: &str = "# Requirements\n\n- REQ-1: a page holds at most 100 records.\n";

/// A repository under `out/repo` with `files`, traced by
/// `tests/...::name`; the findings' messages, or `None` on a pass.
fn trace(files: &[(&str, &str)], entry: &str) -> Option<String> {
    let matrix = format!(
        "| Requirement | Implementation | Tests |\n|---|---|---|\n| REQ-1 | src/pages.py | {entry} |\n"
    );
    let mut all: Vec<(&str, String, &str)> = vec![
        ("spec", "out/spec.md".into(), SPEC),
        ("d", "out/repo/TRACE.md".into(), &matrix),
        ("d", "out/repo/src/pages.py".into(), "PAGE_SIZE = 100\n"),
    ];
    for (p, t) in files {
        all.push(("d", format!("out/repo/{p}"), t));
    }
    let mut f = Files::default();
    for (id, path, text) in &all {
        let full = format!("{MOUNT}/{path}");
        f.add(id, &full, text.as_bytes().to_vec());
        f.set_digest(&full, &format!("bytes:{text}"));
    }
    let params = r#"{"trace_matrix": true, "specification": ["spec"]}"#;
    let o = f
        .run(|| Consistency::validate(f.criterion("AC-1", params, &["d"])))
        .unwrap();
    match o.status {
        Status::Pass => None,
        _ => Some(
            o.findings
                .iter()
                .map(|f| f.message.clone())
                .collect::<Vec<_>>()
                .join("\n"),
        ),
    }
}

fn refused(files: &[(&str, &str)], entry: &str, why: &str) {
    match trace(files, entry) {
        None => panic!("accepted: {files:?} {entry}"),
        Some(m) => assert!(m.contains(why), "{m}\n(wanted `{why}`)"),
    }
}

fn accepted(files: &[(&str, &str)], entry: &str) {
    if let Some(m) = trace(files, entry) {
        panic!("refused {files:?} {entry}: {m}");
    }
}

const T: &str = "tests/test_pages.py";

#[test]
fn plain_tests_still_pass() {
    accepted(
        &[(T, "def test_size():\n    pass\n")],
        "tests/test_pages.py::test_size",
    );
    accepted(
        &[(
            T,
            "import pytest\n\nclass TestPages:\n    @pytest.mark.parametrize(\"n\", [1, 100])\n    @pytest.mark.slow\n    def test_size(self, n):\n        assert n\n\n    def test_skipped(self):\n        pytest.skip(\"other test\")\n",
        )],
        "tests/test_pages.py::TestPages::test_size",
    );
    accepted(
        &[(
            T,
            "import unittest\nfrom unittest import mock\n\nclass Base(unittest.TestCase):\n    pass\n\nclass PageTests(Base):\n    @mock.patch(\"os.getcwd\")\n    def test_size(self, m):\n        pass\n\nif __name__ == \"__main__\":\n    unittest.main()\n",
        )],
        "tests/test_pages.py::PageTests::test_size",
    );
    accepted(
        &[
            (
                "tests/pages_test.py",
                "pytestmark = [pytest.mark.slow, pytest.mark.usefixtures(\"db\")]\n\ndef test_size(db):\n    pass\n",
            ),
            (
                "tests/conftest.py",
                "import pytest\nimport re\n\ncollect_ignore = [\"legacy\"]\nWORD = re.compile(\"x\")\n\n@pytest.fixture\ndef db():\n    yield 1\n",
            ),
            (
                "pytest.ini",
                "[pytest]\naddopts = -ra -q --strict-markers\nmarkers =\n    slow: slow\n",
            ),
        ],
        "tests/pages_test.py::test_size",
    );
}

#[test]
fn skip_and_xfail_marks_are_refused() {
    for (src, why) in [
        (
            "import pytest\n\n@pytest.mark.skip(reason=\"later\")\ndef test_size():\n    pass\n",
            "`@pytest.mark.skip`",
        ),
        (
            "import pytest\n\n@pytest.mark.skipif(True, reason=\"x\")\ndef test_size():\n    pass\n",
            "skips it",
        ),
        (
            "import pytest\n\n@pytest.mark.xfail(run=False)\ndef test_size():\n    pass\n",
            "expected failure",
        ),
        (
            "import pytest\n\n@pytest.mark.xfail\ndef test_size():\n    pass\n",
            "expected failure",
        ),
        (
            "from pytest import mark\n\n@mark.skip\ndef test_size():\n    pass\n",
            "skips it",
        ),
        (
            "import pytest\npytestmark = pytest.mark.skip(reason=\"later\")\n\ndef test_size():\n    pass\n",
            "line 2 holds `skip`",
        ),
        (
            "import pytest\npytestmark = [pytest.mark.slow, pytest.mark.xfail]\n\ndef test_size():\n    pass\n",
            "holds `xfail`",
        ),
        (
            "import pytest\n\ndef test_size():\n    pytest.skip(\"later\")\n",
            "line 4 holds `skip`",
        ),
        (
            "import pytest\npytest.importorskip(\"nothing\")\n\ndef test_size():\n    pass\n",
            "`importorskip`",
        ),
        (
            "import os\nos._exit(0)\n\ndef test_size():\n    pass\n",
            "`_exit`",
        ),
        (
            "import pytest\n\n@pytest.fixture(autouse=True)\ndef later():\n    pytest.skip(\"x\")\n\ndef test_size():\n    pass\n",
            "line 5 holds `skip`",
        ),
        (
            "def test_size():\n    pass\n\ntest_size.__test__ = False\n",
            "not bound",
        ),
        (
            "import pytest\n\n@pytest.fixture(autouse=True)\ndef later():\n    getattr(pytest, \"sk\" + \"ip\")(\"x\")\n\ndef test_size():\n    pass\n",
            "`getattr`",
        ),
        (
            "import pytest\n\n@pytest.mark.__getattr__(\"skip\")\ndef test_size():\n    pass\n",
            "cannot tell it returns the test",
        ),
        (
            "import pytest\npytestmark = pytest.mark.__getattr__(\"skip\")\n\ndef test_size():\n    pass\n",
            "`pytestmark` set to something vcc cannot read",
        ),
        (
            "def pytest_generate_tests(metafunc):\n    metafunc.parametrize(\"n\", [])\n\ndef test_size():\n    pass\n",
            "`pytest_generate_tests`",
        ),
        (
            "CODE = compile(\"import pytest; pytest.skip()\", \"x\", \"exec\")\n\ndef test_size():\n    pass\n",
            "holds `compile`",
        ),
        (
            "from _pytest.outcomes import Skipped\n\ndef test_size():\n    raise Skipped()\n",
            "`_pytest`",
        ),
        (
            "__test__ = False\n\ndef test_size():\n    pass\n",
            "`__test__`",
        ),
    ] {
        refused(&[(T, src)], "tests/test_pages.py::test_size", why);
    }
    for (src, why) in [
        (
            "import unittest\n\n@unittest.skip(\"later\")\nclass PagesTest(unittest.TestCase):\n    def test_size(self):\n        pass\n",
            "`@unittest.skip`",
        ),
        (
            "import unittest\n\nclass PagesTest(unittest.TestCase):\n    @unittest.skipIf(True, \"x\")\n    def test_size(self):\n        pass\n",
            "skips it",
        ),
        (
            "import unittest\n\nclass PagesTest(unittest.TestCase):\n    @unittest.expectedFailure\n    def test_size(self):\n        pass\n",
            "expected failure",
        ),
        (
            "import unittest\n\nclass PagesTest(unittest.TestCase):\n    def setUp(self):\n        self.skipTest(\"x\")\n\n    def test_size(self):\n        pass\n",
            "`skipTest`",
        ),
        (
            "import pytest\n\nclass PagesTest:\n    pass\n\nclass TestPages:\n    pytestmark = pytest.mark.skip\n\n    def test_size(self):\n        pass\n",
            "line 7 holds `skip`",
        ),
        (
            "class TestPages:\n    __test__ = False\n\n    def test_size(self):\n        pass\n",
            "`__test__`",
        ),
        (
            "import pytest\n\n@pytest.mark.skip\nclass Base:\n    pass\n\nclass TestPages(Base):\n    def test_size(self):\n        pass\n",
            "`@pytest.mark.skip` on `Base`",
        ),
    ] {
        let cls = if src.contains("PagesTest(") {
            "PagesTest"
        } else {
            "TestPages"
        };
        refused(
            &[(T, src)],
            &format!("tests/test_pages.py::{cls}::test_size"),
            why,
        );
    }
}

#[test]
fn other_tests_count_only_for_what_they_do_at_import() {
    let e = "tests/test_pages.py::test_size";
    // Another test's skip mark or skip call concerns that test alone.
    accepted(
        &[(
            T,
            "import pytest\n\n@pytest.mark.skip\ndef test_other():\n    pytest.skip(\"x\")\n\nclass TestMore:\n    pytestmark = pytest.mark.xfail\n\n    def test_more(self):\n        pytest.skip()\n\ndef test_size():\n    pass\n",
        )],
        e,
    );
    for (src, why) in [
        (
            "import pytest\n\n@pytest.fixture(autouse=True)\ndef test_other():\n    pytest.skip(\"x\")\n\ndef test_size():\n    pass\n",
            "line 5 holds `skip`",
        ),
        (
            "import os\n\ndef test_other(x=os._exit(0)):\n    pass\n\ndef test_size():\n    pass\n",
            "line 3 holds `_exit`",
        ),
        (
            "import os\n\nclass TestOther:\n    os._exit(0)\n\ndef test_size():\n    pass\n",
            "line 4 holds `_exit`",
        ),
        (
            "import pytest\n\ndef test_helper(f):\n    pytest.skip(\"x\", allow_module_level=True)\n\n@test_helper\ndef test_other():\n    pass\n\ndef test_size():\n    pass\n",
            "line 4 holds `skip`",
        ),
    ] {
        refused(&[(T, src)], e, why);
    }
    // A bare method name two collected classes define: refused (which
    // one runs is not told).
    refused(
        &[(
            T,
            "import unittest\n\nclass A(unittest.TestCase):\n    def test_size(self):\n        pass\n\n@unittest.skip(\"x\")\nclass B(A):\n    def test_size(self):\n        pass\n",
        )],
        e,
        "not bound at module level",
    );
}

#[test]
fn classes_pytest_does_not_collect() {
    let e = "tests/test_pages.py::TestPages::test_size";
    refused(
        &[(
            T,
            "class TestPages(dict):\n    def test_size(self):\n        pass\n",
        )],
        e,
        "derives from `dict`",
    );
    refused(
        &[(
            T,
            "from base import Base\n\nclass TestPages(Base):\n    def test_size(self):\n        pass\n",
        )],
        e,
        "derives from `Base`",
    );
    refused(
        &[(
            T,
            "class TestPages(metaclass=M):\n    def test_size(self):\n        pass\n",
        )],
        e,
        "derives from `metaclass=M`",
    );
    refused(
        &[(
            T,
            "class Base:\n    def __init__(self):\n        pass\n\n\nclass TestPages(Base):\n    def test_size(self):\n        pass\n",
        )],
        e,
        "inherits `__init__` from `Base`",
    );
    refused(
        &[(
            T,
            "class Base:\n    def __new__(cls):\n        pass\n\nclass Mid(Base):\n    pass\n\nclass TestPages(Mid):\n    def test_size(self):\n        pass\n",
        )],
        e,
        "inherits `__new__`",
    );
    refused(
        &[(
            T,
            "class Base:\n    pass\n\nclass Base:\n    def __init__(self):\n        pass\n\nclass TestPages(Base):\n    def test_size(self):\n        pass\n",
        )],
        e,
        "inherits `__init__` from `Base`",
    );
    refused(
        &[(
            T,
            "class Base:\n    pass\n\nBase = dict\n\nclass TestPages(Base):\n    def test_size(self):\n        pass\n",
        )],
        e,
        "derives from `Base`",
    );
    accepted(
        &[(
            T,
            "class Base:\n    def helper(self):\n        pass\n\nclass TestPages(Base, object):\n    def test_size(self):\n        pass\n",
        )],
        e,
    );
}

#[test]
fn decorators_and_parameters_vcc_cannot_tell() {
    let e = "tests/test_pages.py::test_size";
    for (src, why) in [
        (
            "def later(f):\n    return None\n\n@later\ndef test_size():\n    pass\n",
            "`@later` on `test_size`",
        ),
        (
            "import functools\n\n@functools.lru_cache\ndef test_size():\n    pass\n",
            "cannot tell it returns the test",
        ),
        (
            "import pytest\n\n@pytest.mark.parametrize(\"n\", [])\ndef test_size(n):\n    pass\n",
            "literal list",
        ),
        (
            "import pytest\nCASES = []\n\n@pytest.mark.parametrize(\"n\", CASES)\ndef test_size(n):\n    pass\n",
            "literal list",
        ),
        (
            "import pytest\n\n@pytest.mark.parametrize(\"n\", [x for x in ()])\ndef test_size(n):\n    pass\n",
            "literal list",
        ),
        (
            "import pytest\n\n@pytest.mark.parametrize(\"n\", [pytest.param(1, marks=pytest.mark.skip)])\ndef test_size(n):\n    pass\n",
            "holds `skip`",
        ),
        ("def test_size():\n    yield 1\n", "yields"),
    ] {
        refused(&[(T, src)], e, why);
    }
    accepted(
        &[(
            T,
            "import pytest\n\n@pytest.mark.parametrize(argnames=\"n\", argvalues=(1,), ids=[\"one\"])\ndef test_size(n):\n    pass\n",
        )],
        e,
    );
}

#[test]
fn files_and_folders_pytest_does_not_collect() {
    let body = "def test_size():\n    pass\n";
    refused(
        &[("tests/pages_check.py", body)],
        "tests/pages_check.py::test_size",
        "matches none of `python_files`",
    );
    refused(
        &[("build/test_pages.py", body)],
        "build/test_pages.py::test_size",
        "`norecursedirs`",
    );
    refused(
        &[(".hidden/test_pages.py", body)],
        ".hidden/test_pages.py::test_size",
        "`norecursedirs`",
    );
    refused(
        &[
            ("env/test_pages.py", body),
            ("env/pyvenv.cfg", "home = /usr\n"),
        ],
        "env/test_pages.py::test_size",
        "virtualenv",
    );
    refused(
        &[
            (T, body),
            (
                "tests/conftest.py",
                "collect_ignore = [\"test_pages.py\"]\n",
            ),
        ],
        "tests/test_pages.py::test_size",
        "`collect_ignore` holds `test_pages.py`",
    );
    refused(
        &[(T, body), ("conftest.py", "collect_ignore = [\"tests\"]\n")],
        "tests/test_pages.py::test_size",
        "holds `tests`",
    );
    refused(
        &[
            (T, body),
            ("conftest.py", "collect_ignore_glob = [\"*/test_p*.py\"]\n"),
        ],
        "tests/test_pages.py::test_size",
        "`collect_ignore_glob`",
    );
    refused(
        &[
            (T, body),
            (
                "conftest.py",
                "collect_ignore = []\ncollect_ignore.append(\"tests\")\n",
            ),
        ],
        "tests/test_pages.py::test_size",
        "in a way vcc does not evaluate",
    );
    refused(
        &[(T, body), ("conftest.py", "collect_ignore = [name()]\n")],
        "tests/test_pages.py::test_size",
        "not a list of plain strings",
    );
    refused(
        &[
            (T, body),
            (
                "tests/conftest.py",
                "def pytest_collection_modifyitems(items):\n    items.clear()\n",
            ),
        ],
        "tests/test_pages.py::test_size",
        "`pytest_collection_modifyitems`",
    );
    refused(
        &[(T, body), ("conftest.py", "pytest_plugins = [\"x\"]\n")],
        "tests/test_pages.py::test_size",
        "`pytest_plugins`",
    );
    refused(
        &[
            (T, body),
            (
                "conftest.py",
                "from plugin import pytest_collection_modifyitems\n",
            ),
        ],
        "tests/test_pages.py::test_size",
        "`pytest_collection_modifyitems`",
    );
    refused(
        &[(T, "from helpers import *\n\ndef test_size():\n    pass\n")],
        "tests/test_pages.py::test_size",
        "imports `*`",
    );
    refused(
        &[
            (T, body),
            ("tests/__init__.py", "import sys\nsys.exit(0)\n"),
        ],
        "tests/test_pages.py::test_size",
        "tests/__init__.py line 2 holds `exit`",
    );
    for ignore in ["../tests/test_pages.py", ".", "./"] {
        refused(
            &[
                (T, body),
                (
                    "tests/conftest.py",
                    &format!("collect_ignore = [\"{ignore}\"]\n"),
                ),
            ],
            "tests/test_pages.py::test_size",
            "pytest does not collect the file",
        );
    }
    accepted(
        &[
            (T, body),
            (
                "conftest.py",
                "collect_ignore = [\"other\", \"tests/test_other.py\"]\n",
            ),
        ],
        "tests/test_pages.py::test_size",
    );
}

#[test]
fn fixtures_imported_from_local_modules() {
    let skipping =
        "import pytest\n\n@pytest.fixture(autouse=True)\ndef auto():\n    pytest.skip(\"x\")\n";
    let e = "tests/test_pages.py::test_size";
    refused(
        &[
            (
                T,
                "from helpers import auto\n\ndef test_size():\n    pass\n",
            ),
            ("tests/helpers.py", skipping),
        ],
        e,
        "tests/helpers.py, which names `fixture`",
    );
    refused(
        &[
            (T, "from .fx import auto\n\ndef test_size():\n    pass\n"),
            ("tests/fx/__init__.py", skipping),
        ],
        e,
        "tests/fx/__init__.py",
    );
    refused(
        &[
            (T, "from lib.fx import auto\n\ndef test_size():\n    pass\n"),
            ("src/lib/fx.py", skipping),
        ],
        e,
        "src/lib/fx.py",
    );
    refused(
        &[
            (T, "def test_size():\n    pass\n"),
            ("conftest.py", "from tests.fx import auto\n"),
            ("tests/fx.py", skipping),
        ],
        e,
        "conftest.py line 1 imports from out/repo/tests/fx.py",
    );
    // The code under test, and libraries not in the deliverables, are fine.
    accepted(
        &[(
            T,
            "import os\nfrom pages import PAGE_SIZE\nfrom unittest import mock\n\ndef test_size():\n    assert PAGE_SIZE\n",
        )],
        e,
    );
}

#[test]
fn test_files_cited_whole() {
    let e = "tests/test_pages.py";
    accepted(
        &[(
            T,
            "def test_size():\n    pass\n\nclass TestMore:\n    def test_more(self):\n        pass\n",
        )],
        e,
    );
    refused(
        &[(
            T,
            "import pytest\n\ndef test_size():\n    pass\n\n@pytest.mark.skip\ndef test_other():\n    pass\n",
        )],
        e,
        "`@pytest.mark.skip` on `test_other`",
    );
    refused(
        &[(
            T,
            "import pytest\npytestmark = pytest.mark.skip\n\ndef test_size():\n    pass\n",
        )],
        e,
        "holds `skip`",
    );
    refused(
        &[(T, "def helper():\n    pass\n")],
        e,
        "no test function or class pytest collects",
    );
    refused(
        &[("tests/pages_check.py", "def test_size():\n    pass\n")],
        "tests/pages_check.py",
        "python_files",
    );
}

#[test]
fn configuration_files_are_read() {
    let body = "def test_size():\n    pass\n\ndef check_size():\n    pass\n\nclass CheckPages:\n    def check_one(self):\n        pass\n";
    let e = "tests/test_pages.py::test_size";
    refused(
        &[
            (T, body),
            ("pytest.ini", "[pytest]\npython_functions = check_*\n"),
        ],
        e,
        "pytest.ini line 2 sets `python_functions = check_*`",
    );
    accepted(
        &[
            (T, body),
            ("pytest.ini", "[pytest]\npython_functions = check_*\n"),
        ],
        "tests/test_pages.py::check_size",
    );
    refused(
        &[
            (T, body),
            (
                "pyproject.toml",
                "[project]\nname = \"x\"\ndependencies = [\"pytest>=8\"]\n\n[tool.pytest.ini_options]\npython_functions = [\"check\"]\n",
            ),
        ],
        e,
        "is no test",
    );
    refused(
        &[
            (T, body),
            (
                "tox.ini",
                "[tox]\nenvlist = py3\n\n[pytest]\npython_functions =\n    check_\n",
            ),
        ],
        e,
        "is no test",
    );
    refused(
        &[
            (T, body),
            (
                "tests/setup.cfg",
                "[tool:pytest]\npython_files = check_*.py\n",
            ),
        ],
        e,
        "python_files",
    );
    refused(
        &[
            (T, body),
            ("pytest.toml", "[pytest]\npython_classes = [\"Check\"]\n"),
        ],
        "tests/test_pages.py::TestX::test_size",
        "",
    );
    accepted(
        &[
            (T, body),
            (
                "pytest.toml",
                "[pytest]\npython_classes = [\"Check\"]\npython_functions = \"check\"\n",
            ),
        ],
        "tests/test_pages.py::CheckPages::check_one",
    );
    refused(
        &[(T, body), ("pytest.ini", "[pytest]\ntestpaths = src\n")],
        e,
        "`testpaths`",
    );
    accepted(
        &[(T, body), ("pytest.ini", "[pytest]\ntestpaths = tests\n")],
        e,
    );
    refused(
        &[
            (T, body),
            ("pytest.ini", "[pytest]\naddopts = -k nothing\n"),
        ],
        e,
        "`addopts` holds `-k`",
    );
    refused(
        &[
            (T, body),
            ("pytest.ini", "[pytest]\naddopts = --ignore=tests\n"),
        ],
        e,
        "`--ignore=tests`",
    );
    refused(
        &[(T, body), ("pytest.ini", "[pytest]\nplugin_setting = 1\n")],
        e,
        "`plugin_setting` is a pytest setting vcc does not evaluate",
    );
    refused(
        &[
            (T, body),
            ("pytest.ini", "[pytest]\nnorecursedirs = tests\n"),
        ],
        e,
        "`norecursedirs`",
    );
    refused(
        &[
            (T, body),
            (
                "pyproject.toml",
                "[tool]\npytest.ini_options.addopts = \"-k x\"\n",
            ),
        ],
        e,
        "in a form vcc does not read",
    );
    refused(
        &[
            (T, body),
            ("pytest.ini", "[pytest]\npython_functions = check_ # test\n"),
        ],
        e,
        "a quote, escape or comment character",
    );
    // `[ pytest ]` is no section pytest reads: its names are not applied.
    refused(
        &[
            ("tests/pages_check.py", body),
            ("pytest.ini", "[ pytest ]\npython_files = *.py\n"),
        ],
        "tests/pages_check.py::test_size",
        "python_files",
    );
    refused(
        &[
            (T, body),
            (
                "pytest.toml",
                "[pytest]\npython_functions = [\"\"\"check\"\"\"]\n",
            ),
        ],
        e,
        "multi-line string",
    );
    // A setup.cfg or tox.ini without the section is no configuration.
    accepted(
        &[
            (T, body),
            ("setup.cfg", "[metadata]\nname = x\n"),
            ("tox.ini", "[tox]\n"),
        ],
        e,
    );
}

#[test]
fn config_reading_and_globs() {
    let s = py_config::settings("pyproject.toml", "[tool.pytest.ini_options]\naddopts = \"-q  -ra\"\ntestpaths = [\n  \"tests\", # the tests\n  \"more\",\n]\n").unwrap().unwrap();
    assert_eq!(s["addopts"].1, vec!["-q", "-ra"]);
    assert_eq!(
        s["testpaths"],
        (3, vec!["tests".to_string(), "more".to_string()])
    );
    assert!(
        py_config::settings("pyproject.toml", "[project]\nname = \"x\"\n")
            .unwrap()
            .is_none()
    );
    assert!(
        py_config::settings("pytest.ini", "").unwrap().is_some(),
        "pytest.ini always counts"
    );
    assert!(
        py_config::settings(
            "pyproject.toml",
            "[tool.pytest.ini_options]\naddopts = \"\"\"-q\"\"\"\n"
        )
        .is_err()
    );
    let c = Config::new(&[]).unwrap();
    assert!(c.names.function("test_x") && !c.names.function("check_x"));
    assert!(glob("test_*.py", "test_pages.py") && !glob("test_*.py", "pages_test.py"));
    assert!(glob("*_test.py", "pages_test.py") && glob("a*b?c", "a/xbyc") && !glob("a?", "a"));
}
