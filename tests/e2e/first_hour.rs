//! What new users tripped over in their first hour (issue "The first
//! hour"): each through the real binary, asserting what a user sees.

use std::path::Path;

use serde_json::Value;
use vcc_test_support::Scratch;

use crate::{check_json, repo, vcc, vcc_in};

/// A required deliverable nothing targets: the host's own MUST row, in
/// the JSON report and in human output; gone when it says `required:
/// false`; and lint says vcc checks only that it exists.
#[test]
fn an_untargeted_required_deliverable_must_exist() {
    let dir = Scratch::new();
    let contract = |required: &str| {
        format!(
            "vcc: 1
id: notes
deliverables:
  - {{ id: report, path: report.md }}
  - {{ id: summary, path: SUMMARY.md{required} }}
validators:
  exists: {{ component: std/file-exists }}
criteria:
  - {{ id: REPORT, severity: must, validator: exists, targets: [report] }}
"
        )
    };
    let path = dir.write("contract.yaml", contract(""));
    dir.write("report.md", "# Report\n");
    let run = check_json(&path, &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(run.json()["verdict"], "rejected");
    let row = run.criterion("deliverable:summary");
    assert_eq!(row["severity"], "must");
    assert_eq!(row["status"], "fail");
    assert_eq!(row["reason"], "missing_deliverable");
    assert_eq!(row["validator"]["component"], "vcc");
    let human = vcc(&["check", path.to_str().unwrap()]);
    assert!(
        human.stderr.contains(
            "FAIL  MUST   deliverable:summary  required deliverable `summary` (SUMMARY.md) is missing  [vcc]"
        ),
        "{}",
        human.stderr
    );
    let lint = vcc(&["lint", path.to_str().unwrap()]);
    assert!(
        lint.stderr.contains(
            "vcc checks only that it exists (a MUST row of its own, `deliverable:summary`)"
        ),
        "{}",
        lint.stderr
    );

    dir.write("SUMMARY.md", "All done.\n");
    let run = check_json(&path, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let row = run.criterion("deliverable:summary");
    assert_eq!(
        (row["status"].as_str(), row["reason"].as_str()),
        (Some("pass"), Some("deliverable_present"))
    );

    std::fs::remove_file(dir.path().join("SUMMARY.md")).unwrap();
    dir.write("contract.yaml", contract(", required: false"));
    let run = check_json(&path, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        run.json()["criteria"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["id"] != "deliverable:summary")
    );
}

/// The same for a VCC v1 artifact no acceptance criterion targets.
#[test]
fn an_untargeted_vcc1_artifact_must_exist() {
    let case = repo().join("tests/forgery/host/untargeted-vcc1-artifact/contract.yaml");
    let run = check_json(&case, &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(
        run.criterion("deliverable:EVIDENCE-PACK")["reason"],
        "missing_deliverable"
    );
}

/// A deliverable a criterion uses through its params (`cover`,
/// `produced`, `schema_deliverable`) is not "unchecked"; a params id that
/// names no deliverable is an error.
#[test]
fn deliverables_named_in_params_are_used() {
    let dir = Scratch::new();
    let path = dir.write(
        "contract.yaml",
        "vcc: 1
id: p
deliverables:
  - { id: record, path: out/tests.json }
  - { id: src, path: src }
  - { id: data, path: data.json }
  - { id: schema, path: schema.json }
validators:
  rec: { component: std/exit-record }
  schema: { component: std/json-schema }
criteria:
  - { id: TESTS, severity: must, validator: rec, targets: [record], params: { cover: [src] } }
  - { id: DATA, severity: must, validator: schema, targets: [data], params: { schema_deliverable: schema } }
",
    );
    let lint = vcc(&["lint", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(lint.code, 0, "{}", lint.stdout);
    let report = lint.json();
    let unchecked: Vec<&Value> = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["code"] == "UNCHECKED_DELIVERABLE")
        .collect();
    assert!(unchecked.is_empty(), "{unchecked:?}");
    let text = std::fs::read_to_string(&path).unwrap();
    dir.write(
        "contract.yaml",
        text.replace("cover: [src]", "cover: [srcs]"),
    );
    let lint = vcc(&["lint", path.to_str().unwrap()]);
    assert_eq!(lint.code, 2);
    assert!(
        lint.stderr
            .contains("`cover` names deliverable `srcs`, which the contract does not have"),
        "{}",
        lint.stderr
    );
    assert!(
        lint.stderr.contains("did you mean `src`?"),
        "{}",
        lint.stderr
    );
}

/// `vcc check --attach GUEST=FILE`: a transcript kept outside the root is
/// judged as if it were in it, and listed with where it came from.
#[test]
fn check_attaches_a_transcript_from_outside_the_root() {
    let dir = Scratch::new();
    let path = dir.write(
        "contract.yaml",
        "vcc: 1
id: agent
deliverables:
  - { id: transcript, path: .vcc/transcript.jsonl }
validators:
  calls: { component: std/tool-calls }
criteria:
  - id: RAN-TESTS
    severity: must
    validator: calls
    targets: [transcript]
    params: { required: [{ name: Bash, args: { command: { matches: '^cargo test' } } }] }
",
    );
    let session =
        repo().join("tests/cases/tool-calls/fail-forbidden-claude-code/out/session.jsonl");
    let attach = format!(".vcc/transcript.jsonl={}", session.display());
    let run = check_json(&path, &["--attach", &attach]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let attached = &run.json()["deliverables"]["attached"][0];
    assert_eq!(attached["path"], ".vcc/transcript.jsonl");
    assert_eq!(attached["source"], session.display().to_string());
    // Without it, nothing is there to judge.
    assert_eq!(check_json(&path, &[]).code, 1);
    let bad = vcc(&[
        "check",
        path.to_str().unwrap(),
        "--attach",
        "no-equals-sign",
    ]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("write GUEST_PATH=FILE"),
        "{}",
        bad.stderr
    );
    let outside = vcc(&[
        "check",
        path.to_str().unwrap(),
        "--attach",
        "../x=/etc/hostname",
    ]);
    assert_eq!(outside.code, 2, "{}", outside.stderr);
}

/// `--only` with a misspelt id gets a did-you-mean; a missing contract is
/// named, not shown as `?`.
#[test]
fn only_suggests_and_a_missing_contract_is_named() {
    let contract = repo().join("contracts/examples/release-notes/contract.yaml");
    let run = vcc(&["check", contract.to_str().unwrap(), "--only", "AC_2"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("did you mean `AC-2`?"),
        "{}",
        run.stderr
    );
    let run = vcc(&["check", "ci/nope.yaml"]);
    assert_eq!(run.code, 2);
    let first = run.stderr.lines().next().unwrap_or_default();
    assert_eq!(first, "vcc check ci/nope.yaml", "{}", run.stderr);
    assert!(!run.stderr.contains(" ? "), "{}", run.stderr);
}

/// Human output shows a multi-line message as lines, indented, with JSON
/// escapes for control characters — never Rust's `\u{a}`.
#[test]
fn multi_line_messages_are_indented_never_debug_escaped() {
    let dir = Scratch::new();
    let path = dir.write(
        "contract.yaml",
        "vcc: 1
id: j
deliverables: [{ id: junit, path: junit.xml }]
validators: { junit: { component: std/junit } }
criteria: [{ id: TESTS, severity: must, validator: junit, targets: [junit] }]
",
    );
    dir.write(
        "junit.xml",
        "<testsuite tests=\"1\" failures=\"1\"><testcase classname=\"t\" name=\"x\"><failure message=\"assert not True&#10; +  where True = f()&#10;&#27;[31mred\"/></testcase></testsuite>\n",
    );
    let run = vcc(&["check", path.to_str().unwrap()]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(!run.stderr.contains("\\u{"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("assert not True\n         +  where True = f()\n        \\u001b[31mred"),
        "{}",
        run.stderr
    );
}

/// `vcc init` in a Python, JavaScript or Go project proposes its test
/// command and leaves its build output out; the draft lints clean.
#[test]
fn init_knows_python_javascript_and_go_projects() {
    for (marker, command, exclude) in [
        ("pyproject.toml", "python -m pytest", "__pycache__/"),
        ("package.json", "npm test", "node_modules/"),
        ("go.mod", "go test ./...", "bin/"),
    ] {
        let dir = Scratch::new();
        dir.write(marker, "{}\n");
        dir.write("README.md", "# x\n\n## Usage\n\nrun it\n");
        dir.write("tests/test_x.py", "def test_x(): pass\n");
        let run = vcc(&["init", "--dir", dir.path().to_str().unwrap()]);
        assert_eq!(run.code, 0, "{marker}: {}", run.stderr);
        let text = std::fs::read_to_string(dir.path().join("vcc.yaml")).unwrap();
        assert!(text.contains(command), "{marker}: {text}");
        assert!(!text.contains("cargo test"), "{marker}: {text}");
        let excludes = text
            .lines()
            .find(|l| l.starts_with("exclude:"))
            .unwrap_or_else(|| panic!("{marker}: no exclude in {text}"));
        assert!(excludes.contains(exclude), "{marker}: {excludes}");
        assert!(run.stderr.contains(command), "{marker}: {}", run.stderr);
        let lint = vcc(&["lint", dir.path().join("vcc.yaml").to_str().unwrap()]);
        assert_eq!(lint.code, 0, "{marker}: {}", lint.stderr);
    }
}

/// A Python project under `vcc record`: byte-code written by a run is
/// left out with `--exclude`, and a record that did list it is not
/// failed for it once the contract excludes it (said in the summary).
#[test]
fn python_byte_code_is_left_out_of_records_and_checks() {
    let dir = Scratch::new();
    dir.write("src/pkg/__init__.py", "");
    dir.write("src/pkg/core.py", "def add(a, b):\n    return a + b\n");
    dir.write(
        "tests/test_core.py",
        "import sys\nsys.path.insert(0, 'src')\nfrom pkg.core import add\nassert add(1, 2) == 3\n",
    );
    let contract = dir.write(
        "contract.yaml",
        "vcc: 1
id: py
exclude: [__pycache__/]
deliverables:
  - { id: record, path: out/tests.json }
  - { id: src, path: src }
validators:
  rec: { component: std/exit-record }
criteria:
  - { id: TESTS, severity: must, validator: rec, targets: [record], params: { cover: [src], command_matches: '(^|/| )python3? tests/test_core\\.py$' } }
",
    );
    // Python writes byte-code unless told not to (as pytest runs do).
    let python = |root: &Path, extra: &[&str]| {
        let mut args = vec!["record", "--inputs", "src", "tests"];
        args.extend_from_slice(extra);
        args.extend([
            "--out",
            "out/tests.json",
            "--",
            "env",
            "-u",
            "PYTHONDONTWRITEBYTECODE",
            "python3",
            "tests/test_core.py",
        ]);
        vcc_in(root, &args)
    };
    // A first run leaves __pycache__ behind, as pytest does.
    let first = python(dir.path(), &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(dir.path().join("src/pkg/__pycache__").is_dir());

    // Recorded again without --exclude, the record lists the byte-code.
    let listed = python(dir.path(), &[]);
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    let record: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out/tests.json")).unwrap()).unwrap();
    assert!(record["inputs"].to_string().contains(".pyc"), "{record}");
    let run = check_json(&contract, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let summary = run.criterion("TESTS")["summary"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        summary.contains("recorded file(s) the check excludes were not compared"),
        "{summary}"
    );

    // With --exclude, the record leaves it out and says so.
    let clean = python(dir.path(), &["--exclude", "__pycache__/"]);
    assert_eq!(clean.code, 0, "{}", clean.stderr);
    assert!(
        clean
            .stderr
            .contains("left out by .git, --exclude or --gitignore"),
        "{}",
        clean.stderr
    );
    let record: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out/tests.json")).unwrap()).unwrap();
    assert!(!record["inputs"].to_string().contains(".pyc"), "{record}");
    assert_eq!(record["exclude"], serde_json::json!(["__pycache__/"]));
    let run = check_json(&contract, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        !run.criterion("TESTS")["summary"]
            .as_str()
            .unwrap()
            .contains("excludes"),
    );
}

/// `std/tool-calls` names the rule and the offending call; `std/coverage`
/// names the files that pull the total down.
#[test]
fn failures_name_the_call_and_the_files() {
    let dir = Scratch::new();
    let path = dir.write(
        "contract.yaml",
        "vcc: 1
id: calls
deliverables:
  - { id: transcript, path: session.jsonl }
  - { id: lcov, path: lcov.info }
validators:
  calls: { component: std/tool-calls }
  cov: { component: std/coverage }
criteria:
  - { id: NO-PUSH, severity: must, validator: calls, targets: [transcript], params: { required: [{ name: Bash, min: 0, max: 0, args: { command: { matches: 'git push' } } }] } }
  - { id: COVERAGE, severity: must, validator: cov, targets: [lcov], params: { min: 90 } }
",
    );
    dir.write(
        "session.jsonl",
        concat!(
            r#"{"type":"assistant","sessionId":"s","uuid":"u1","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cargo test"}}]}}"#,
            "\n",
            r#"{"type":"assistant","sessionId":"s","uuid":"u2","message":{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"git push --force origin main"}}]}}"#,
            "\n"
        ),
    );
    dir.write(
        "lcov.info",
        "SF:src/good.py\nDA:1,1\nDA:2,1\nend_of_record\nSF:src/bad.py\nDA:1,0\nDA:2,0\nDA:3,1\nend_of_record\nSF:src/worse.py\nDA:1,0\nDA:2,0\nend_of_record\n",
    );
    let run = check_json(&path, &[]);
    assert_eq!(run.code, 1);
    let push = &run.criterion("NO-PUSH")["findings"][0];
    let message = push["message"].as_str().unwrap();
    assert!(
        message.contains("command matches \"git push\""),
        "{message}"
    );
    assert!(
        message.contains("git push --force origin main"),
        "{message}"
    );
    assert_eq!(push["line"], 2, "{push}");
    let findings = run.criterion("COVERAGE")["findings"].clone();
    let files: Vec<&str> = findings
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(files, vec!["src/worse.py", "src/bad.py"], "{findings}");
}

/// The Python and JavaScript templates keep `build/`, the artifact the
/// build message says to keep and pin; the Rust one rebuilds it.
#[test]
fn validator_templates_keep_what_cannot_be_rebuilt() {
    let dir = Scratch::new();
    for lang in ["python", "js", "rust"] {
        let project = dir.path().join(lang);
        let run = vcc(&[
            "validator",
            "new",
            "--lang",
            lang,
            "demo",
            project.to_str().unwrap(),
        ]);
        assert_eq!(run.code, 0, "{lang}: {}", run.stderr);
        let ignore = std::fs::read_to_string(project.join(".gitignore")).unwrap();
        let ignores_build = ignore.lines().any(|l| l.trim() == "/build/");
        assert_eq!(ignores_build, lang == "rust", "{lang}: {ignore}");
    }
}
