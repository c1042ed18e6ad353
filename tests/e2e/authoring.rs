//! Writing validators: `vcc validator new|build|test|inspect`, the SDK
//! conformance suite in Rust, Python and JavaScript (C and Zig:
//! other_languages.rs), and the precompiled
//! cache for the large Python and JavaScript components.
//!
//! Python and JavaScript builds need componentize-py and componentize-js:
//! `bash sdk/install-tools.sh` installs them (the README's test command runs
//! it first).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use vcc_test_support::{Scratch, fixtures};

use crate::{Run, copy_dir, repo, shared_cache};

/// Run vcc for an author. A Rust validator build runs cargo; it must not
/// share the outer `cargo test`'s target folder (cargo would wait on its lock).
pub(crate) fn author(args: &[&str], envs: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vcc"));
    cmd.args(args)
        .env("VCC_CACHE_DIR", shared_cache())
        .env("NO_COLOR", "1")
        .env_remove("CARGO_TARGET_DIR");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let output = cmd.output().expect("run vcc");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

pub(crate) fn build(dir: &Path) -> PathBuf {
    // A cache of its own: what is in it after the build, the build put there.
    let cache = tempfile::tempdir().unwrap();
    let cache_dir = cache.path().join("cache");
    let run = author(
        &["validator", "build", dir.to_str().unwrap()],
        &[("VCC_CACHE_DIR", cache_dir.to_str().unwrap())],
    );
    assert_eq!(
        run.code,
        0,
        "vcc validator build {} failed (for Python and JavaScript, run `bash sdk/install-tools.sh` first):\n{}",
        dir.display(),
        run.stderr
    );
    let line = run
        .stderr
        .lines()
        .find(|l| l.starts_with("built "))
        .expect("a `built` line");
    assert!(
        run.stderr.contains("digest: \"blake3:"),
        "build prints the pin to paste: {}",
        run.stderr
    );
    let component = PathBuf::from(
        line.trim_start_matches("built ")
            .split(" (")
            .next()
            .unwrap(),
    );
    // W11: the build leaves the cache warm, so the first check that uses
    // the component compiles nothing.
    assert!(
        run.stderr.contains("compiled it into the component cache"),
        "{}",
        run.stderr
    );
    let scratch = Scratch::new();
    scratch.write("notes.md", "# Notes\n");
    let contract = scratch.write(
        "contract.yaml",
        format!(
            "vcc: 1\nid: warm\ndeliverables:\n  - {{ id: notes, path: notes.md }}\nvalidators:\n  v: {{ component: {:?} }}\ncriteria:\n  - {{ id: AC-1, severity: must, validator: v, targets: [notes] }}\n",
            component.display().to_string()
        ),
    );
    let first = crate::vcc_with_cache(
        &cache_dir,
        &["check", contract.to_str().unwrap(), "--format", "json"],
    );
    let stats = &first.json()["runtime"]["cache"];
    assert_eq!(
        stats["misses"], 0,
        "the first check after the build compiled: {stats}"
    );
    assert_eq!(stats["hits"], 1, "{stats}");
    component
}

/// new → build → test for a language, then the conformance suite; returns
/// the conformance component.
pub(crate) fn sdk_round_trip(lang: &str) -> PathBuf {
    let scratch = Scratch::new();
    let dir = scratch.path().join(format!("todo-{lang}"));
    let run = author(
        &[
            "validator",
            "new",
            "--lang",
            lang,
            "no-todo",
            dir.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    for file in [
        "vcc-validator.yaml",
        "cases/pass-clean/case.yaml",
        "cases/fail-todo/files/notes.md",
    ] {
        assert!(dir.join(file).is_file(), "{file} was not written");
    }
    reproducibility(lang, &scratch, &dir);
    let run = author(&["validator", "test", dir.to_str().unwrap()], &[]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("2 of 2 case(s) match"),
        "{}",
        run.stdout
    );

    let example = repo().join(format!("sdk/{lang}/examples/conformance"));
    let component = build(&example);
    let cases = repo().join("sdk/conformance/cases");
    let run = author(
        &[
            "validator",
            "test",
            example.to_str().unwrap(),
            "--cases",
            cases.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        run.stdout.contains("14 of 14 case(s) match"),
        "{}",
        run.stdout
    );
    component
}

/// Build a new project twice. Rust, C and Zig: in two folders,
/// byte-identical (a contract's pin survives a clean CI checkout anywhere,
/// with the same compiler). Python and
/// JavaScript: not yet — componentize-py and componentize-js snapshot an
/// interpreter heap that depends on build-time randomness (upstream:
/// bytecodealliance/componentize-py#247, ComponentizeJS#321), so the
/// README says to pin a signed bundle's version instead. If this starts
/// failing for them, the tools became reproducible: update the README's
/// "Reproducible builds" and assert equality here.
fn reproducibility(lang: &str, scratch: &Scratch, dir: &Path) {
    let digest = |path: PathBuf| vcc_test_support::file_digest(&path);
    if matches!(lang, "rust" | "c" | "zig") {
        let copy = scratch.path().join("copy");
        copy_dir(dir, &copy);
        let (first, second) = (digest(build(dir)), digest(build(&copy)));
        assert_eq!(first, second, "{lang} builds must be reproducible");
    } else {
        let (first, second) = (digest(build(dir)), digest(build(dir)));
        assert_ne!(
            first, second,
            "{lang} builds became reproducible: update the book (docs/src/guide/validators.md, Reproducible builds) and this test"
        );
    }
}

/// Check a contract bound to `component` twice with a fresh cache: the
/// first run compiles, the second only loads.
fn second_check_hits_the_cache(component: &Path) {
    let scratch = Scratch::new();
    scratch.write("out/notes.md", "TODO: one\n");
    let contract = scratch.write(
        "contract.yaml",
        format!(
            "vcc: 1\nid: big\ndeliverables:\n  - {{ id: notes, path: out/notes.md }}\nvalidators:\n  v: {{ component: {:?} }}\ncriteria:\n  - {{ id: AC-1, severity: must, validator: v, targets: [notes], params: {{ word: TODO, max: 1 }} }}\n",
            component.display().to_string()
        ),
    );
    // The cache must not be inside the deliverable root (the contract's folder).
    let cache_dir = tempfile::tempdir().unwrap();
    let cache = cache_dir.path().join("cache");
    let check = |label: &str| -> Value {
        let run = crate::vcc_with_cache(
            &cache,
            &["check", contract.to_str().unwrap(), "--format", "json"],
        );
        assert_eq!(run.code, 0, "{}", run.stdout);
        let report = run.json();
        eprintln!(
            "{}: {label} check took {} ms (cache {})",
            component.display(),
            report["runtime"]["duration_ms"],
            report["runtime"]["cache"]
        );
        report
    };
    let first = check("first");
    assert_eq!(first["runtime"]["cache"]["misses"], 1);
    let second = check("second");
    assert_eq!(
        second["runtime"]["cache"]["misses"], 0,
        "the second run must not compile"
    );
    assert_eq!(second["runtime"]["cache"]["hits"], 1);
    assert_eq!(second["criteria"][0]["status"], "pass");
}

#[test]
fn rust_sdk() {
    sdk_round_trip("rust");
}

#[test]
fn a_build_older_than_its_sources_is_built_again_before_testing() {
    let scratch = Scratch::new();
    let dir = scratch.path().join("stale");
    let dir_arg = dir.to_str().unwrap();
    let run = author(
        &["validator", "new", "--lang", "rust", "stale", dir_arg],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    build(&dir);
    let run = author(&["validator", "test", dir_arg], &[]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(!run.stderr.contains("building it again"), "{}", run.stderr);
    // Change the source and the case that sees it: only a new build passes.
    // An edit is dated a minute on, so it is newer than the build however
    // soon it comes (no wait for a coarse timestamp tick).
    let edit = |file: &str| {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("TODO left in", "TODO still left in")).unwrap();
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(later)
            .unwrap();
    };
    edit("cases/fail-todo/case.yaml");
    let run = author(&["validator", "test", dir_arg], &[]);
    assert_eq!(run.code, 1, "the old build does not say the new words");
    edit("src/lib.rs");
    let run = author(&["validator", "test", dir_arg], &[]);
    assert!(run.stderr.contains("building it again"), "{}", run.stderr);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

#[test]
fn golden_cases_for_a_builtin_validator() {
    let scratch = Scratch::new();
    scratch.write(
        "cases/clean/case.yaml",
        "params: { must_not_match: [TODO] }
expect: { status: pass }
",
    );
    scratch.write("cases/clean/files/a.md", "done\n");
    scratch.write(
        "cases/todo/case.yaml",
        "params: { must_not_match: [TODO] }
expect: { status: fail, findings: [{ path: a.md, line: 2, rule: must-not-match }] }
",
    );
    scratch.write("cases/todo/files/a.md", "done\nTODO\n");
    scratch.write(
        "cases/bad-regex/case.yaml",
        "params: { must_not_match: [\"(\"] }
expect: { status: invalid, problem: INVALID_PARAMS }
",
    );
    scratch.write("cases/bad-regex/files/a.md", "x\n");
    let cases = scratch.path().join("cases");
    let run = author(
        &[
            "validator",
            "test",
            "std/text-match",
            "--cases",
            cases.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("3 of 3 case(s) match"),
        "{}",
        run.stdout
    );
    let run = author(&["validator", "test", "std/text-match"], &[]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--cases"), "{}", run.stderr);
}

#[test]
fn python_sdk() {
    let component = sdk_round_trip("python");
    assert!(
        std::fs::metadata(&component).unwrap().len() > 10 << 20,
        "a Python component carries an interpreter"
    );
    second_check_hits_the_cache(&component);
}

#[test]
fn js_sdk() {
    let component = sdk_round_trip("js");
    assert!(
        std::fs::metadata(&component).unwrap().len() > 5 << 20,
        "a JavaScript component carries an engine"
    );
    second_check_hits_the_cache(&component);
}

#[test]
fn inspect_shows_version_description_and_imports() {
    // `reader` uses the host interface, so it imports it.
    let run = author(
        &["validator", "inspect", fixtures::READER, "--format", "json"],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let i = run.json();
    assert_eq!(i["usable"], true);
    assert_eq!(i["wit_version"], "0.1.4");
    assert_eq!(i["describe"]["name"], "reader");
    assert_eq!(
        i["digest"],
        vcc_test_support::file_digest(fixtures::READER.as_ref())
    );
    let imports = i["imports"].as_array().unwrap();
    assert!(imports.iter().any(|m| {
        m["name"]
            .as_str()
            .unwrap()
            .starts_with("vcc:validator/deliverables@0.1.")
    }));
    assert!(
        imports.iter().all(|m| m["use"] != "refused"),
        "{imports:#?}"
    );

    let run = author(
        &[
            "validator",
            "inspect",
            fixtures::WRONG_WIT_VERSION,
            "--format",
            "json",
        ],
        &[],
    );
    assert_eq!(run.code, 1, "a component the host cannot use");
    assert_eq!(run.json()["usable"], false);
    assert!(
        run.json()["problem"]
            .as_str()
            .unwrap()
            .contains("vcc:validator@0.2.0")
    );

    let run = author(&["validator", "inspect", "std/json-schema"], &[]);
    assert_eq!(run.code, 0);
    assert!(
        run.stdout
            .contains("wit        vcc:validator@0.1.4 (supported)"),
        "{}",
        run.stdout
    );
    assert_eq!(
        author(&["validator", "inspect", "/nonexistent.wasm"], &[]).code,
        2
    );
}

#[test]
fn golden_mismatches_fail_the_test_run() {
    let scratch = Scratch::new();
    scratch.write(
        "cases/wrong/case.yaml",
        "params: {}\nexpect: { status: pass }\n",
    );
    scratch.write("cases/wrong/files/a.md", "x\n");
    scratch.write(
        "cases/right/case.yaml",
        "params: {}\nexpect: { status: fail, findings: [{ path: a.md, line: 1 }] }\n",
    );
    scratch.write("cases/right/files/a.md", "x\n");
    scratch.write(
        "cases/unmet/case.yaml",
        "params: {}\nexpect: { status: fail, findings: [{ message: nope, path: config.yaml }] }\n",
    );
    scratch.write("cases/unmet/files/a.md", "x\n");
    scratch.write(
        "cases/col/case.yaml",
        "params: {}\nexpect: { status: fail, findings: [{ path: a.md, line: 1, column: 7 }] }\n",
    );
    scratch.write("cases/col/files/a.md", "x\n");
    let cases = scratch.path().join("cases");
    let run = author(
        &[
            "validator",
            "test",
            fixtures::ALWAYS_FAIL,
            "--cases",
            cases.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains("wrong  pass      fail      MISMATCH"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("right  fail      fail      ok"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("1 of 4 case(s) match"),
        "{}",
        run.stdout
    );
    // A finding that is not there is shown as the case wrote it.
    assert!(
        run.stdout
            .contains(r#"no finding matches { message: "nope", path: "config.yaml" }"#),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("Some("), "{}", run.stdout);
    // The nearest finding is shown with every field that differs.
    assert!(
        run.stdout.contains(
            r#"no finding matches { path: "a.md", line: 1, column: 7 }; the nearest, { message: "#
        ) && run
            .stdout
            .contains(r#"line: 1, rule: "always" }, differs in column none (expected 7);"#),
        "{}",
        run.stdout
    );
    // No cases at all is a usage error, not a pass.
    let empty = Scratch::new();
    let run = author(
        &[
            "validator",
            "test",
            fixtures::ALWAYS_FAIL,
            "--cases",
            empty.path().to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(run.code, 2);
}

#[test]
fn missing_tools_are_named_with_their_install_command() {
    let scratch = Scratch::new();
    let no_tools = [
        ("VCC_TOOLS_DIR", "/nonexistent"),
        ("VCC_COMPONENTIZE_PY", ""),
        ("VCC_COMPONENTIZE_JS", ""),
    ];
    let py = scratch.path().join("py");
    assert_eq!(
        author(
            &[
                "validator",
                "new",
                "--lang",
                "python",
                "p",
                py.to_str().unwrap()
            ],
            &[]
        )
        .code,
        0
    );
    let mut env = no_tools.to_vec();
    env.push(("PATH", ""));
    let run = author(&["validator", "build", py.to_str().unwrap()], &env);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("pip install componentize-py==0.25.1"),
        "{}",
        run.stderr
    );
    let js = scratch.path().join("js");
    assert_eq!(
        author(
            &[
                "validator",
                "new",
                "--lang",
                "js",
                "j",
                js.to_str().unwrap()
            ],
            &[]
        )
        .code,
        0
    );
    let run = author(&["validator", "build", js.to_str().unwrap()], &no_tools);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("npm install @bytecodealliance/componentize-js@0.23.0"),
        "{}",
        run.stderr
    );
    // Nothing was installed on the way.
    assert!(!js.join("node_modules").exists());
}

#[test]
fn new_refuses_bad_names_and_existing_work() {
    let scratch = Scratch::new();
    assert_eq!(
        author(&["validator", "new", "--lang", "rust", "Bad_Name"], &[]).code,
        2
    );
    scratch.write("taken/file.txt", "mine");
    let taken = scratch.path().join("taken");
    let run = author(
        &[
            "validator",
            "new",
            "--lang",
            "rust",
            "ok",
            taken.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("exists and is not empty"),
        "{}",
        run.stderr
    );
    assert_eq!(
        std::fs::read_to_string(taken.join("file.txt")).unwrap(),
        "mine"
    );
}

#[test]
fn readme_snippets_are_what_new_writes() {
    // The book's "Writing validators" page.
    let readme = std::fs::read_to_string(repo().join("docs/src/guide/validators.md")).unwrap();
    for (fence, template) in [
        ("python", "sdk/templates/python/app.py"),
        ("js", "sdk/templates/js/validator.js"),
    ] {
        let text = std::fs::read_to_string(repo().join(template)).unwrap();
        let filled = text
            .replace("{{name}}", "no-todo")
            .replace("{{type}}", "NoTodo");
        assert!(
            readme.contains(&format!("```{fence}\n{filled}```")),
            "the book's {fence} example (docs/src/guide/validators.md) differs from {template}"
        );
    }
}
