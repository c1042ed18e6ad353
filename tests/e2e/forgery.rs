//! The forgery suite (`tests/forgery/README.md`): the cheapest ways the
//! producer of the deliverables could fake passing evidence for each
//! standard validator — hand-written or edited files, empty documents,
//! nulls, unknown formats, unresolved references, evidence from older
//! inputs or another project. None may pass; each case pins the exact
//! status and reason, through the real CLI.
//!
//! Static cases are folders under `tests/forgery/<validator>/<case>/`
//! (contract, deliverables, expect.yaml, as in `tests/cases`). Command
//! records are forged here, from what the real `vcc record` wrote.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use vcc_test_support::Scratch;

use crate::cases::{run_case, sorted_dirs};
use crate::{Run, check_json, record_digest, repo, vcc_in};

fn forgery_dir() -> PathBuf {
    repo().join("tests/forgery")
}

#[test]
fn every_static_forgery_is_refused() {
    let mut failures = Vec::new();
    let mut count = 0;
    for validator in sorted_dirs(&forgery_dir()) {
        for case in sorted_dirs(&validator) {
            count += 1;
            let label = case
                .strip_prefix(forgery_dir())
                .unwrap()
                .display()
                .to_string();
            // A forgery case must pin a refusal: a non-zero exit, a verdict
            // that is not accepted, and the status and reason (or the
            // integrity problem) it is refused with.
            let expect: Value =
                serde_yaml::from_str(&fs::read_to_string(case.join("expect.yaml")).unwrap())
                    .unwrap();
            let pinned = expect["exit"].as_i64().is_some_and(|e| e != 0)
                && expect["verdict"].as_str().is_some_and(|v| v != "accepted")
                && (expect["problem"].is_string()
                    || expect["criteria"]["AC-1"]["status"].is_string()
                        && expect["criteria"]["AC-1"]["reason"].is_string());
            if !pinned {
                failures.push(format!(
                    "{label}: expect.yaml must pin exit, verdict and status/reason"
                ));
            }
            if let Err(why) = run_case(&case) {
                failures.push(format!("{label}: {why}"));
            }
        }
    }
    assert!(count >= 40, "only {count} static forgery cases");
    assert!(
        failures.is_empty(),
        "{} of {count} forgery case(s) failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_readme_table_lists_every_case() {
    let readme = fs::read_to_string(forgery_dir().join("README.md")).unwrap();
    let mut missing = Vec::new();
    for validator in sorted_dirs(&forgery_dir()) {
        for case in sorted_dirs(&validator) {
            let name = case
                .strip_prefix(forgery_dir())
                .unwrap()
                .display()
                .to_string();
            if !readme.contains(&format!("`{name}`")) {
                missing.push(name);
            }
        }
    }
    let source = fs::read_to_string(repo().join("tests/e2e/forgery.rs")).unwrap();
    for line in source.lines() {
        if let Some(name) = line
            .strip_prefix("fn record_")
            .and_then(|l| l.split('(').next())
        {
            let test = format!("`forgery::record_{name}`");
            if !readme.contains(&test) {
                missing.push(test);
            }
        }
    }
    // Forgeries of what surrounds a verdict (the approvals folder, the
    // verdict log, shards, hooks, git...) are tests named `forgery_host_*`
    // in the e2e module that fits; each is a row of the table too.
    for module in fs::read_dir(repo().join("tests/e2e")).unwrap() {
        let path = module.unwrap().path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        for line in fs::read_to_string(&path).unwrap().lines() {
            if let Some(name) = line
                .trim_start()
                .strip_prefix("fn forgery_host_")
                .and_then(|l| l.split('(').next())
            {
                let test = format!("`{stem}::forgery_host_{name}`");
                if !readme.contains(&test) {
                    missing.push(test);
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "not in tests/forgery/README.md: {missing:?}"
    );
    // Every row is numbered, each number once, in order.
    let numbers: Vec<&str> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("| "))
        .filter_map(|l| l.split(" |").next())
        .filter(|n| *n != "#" && !n.starts_with('-'))
        .collect();
    for (i, n) in numbers.iter().enumerate() {
        assert_eq!(
            *n,
            (i + 1).to_string(),
            "tests/forgery/README.md: row {} is numbered {n:?}",
            i + 1
        );
    }
    // Every std validator has forgeries.
    let listed = crate::vcc(&["validator", "list", "--format", "json"]).json();
    for v in listed.as_array().unwrap() {
        let name = v["name"].as_str().unwrap().trim_start_matches("std/");
        assert!(
            forgery_dir().join(name).is_dir() || name == "exit-record",
            "std/{name} has no forgery cases in tests/forgery/{name}/"
        );
    }
}

/// A project: a root with code in `src/`, and a contract whose MUST
/// criterion judges the command record `out/tests.json`.
fn project(params: &str) -> (Scratch, PathBuf) {
    let scratch = Scratch::new();
    scratch.write(
        "src/lib.rs",
        "pub fn add(a: u32, b: u32) -> u32 { a + b }\n",
    );
    let contract = scratch.write(
        "contract.yaml",
        format!(
            "vcc: 1\nid: forged-record\ndeliverables:\n  - {{ id: tests, path: out/tests.json }}\n  - {{ id: src, path: src }}\n  - {{ id: junit, path: out/junit.xml, required: false }}\nvalidators:\n  rec: {{ component: std/exit-record }}\ncriteria:\n  - {{ id: AC-1, severity: must, validator: rec, targets: [tests], params: {params} }}\n"
        ),
    );
    (scratch, contract)
}

/// `vcc record [extra…] --out out/tests.json -- COMMAND…` in `dir`.
fn record(dir: &Path, extra: &[&str], command: &[&str]) -> Value {
    let mut args = vec!["record"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--out", "out/tests.json", "--"]);
    args.extend_from_slice(command);
    let run = vcc_in(dir, &args);
    let text = fs::read_to_string(dir.join("out/tests.json"))
        .unwrap_or_else(|e| panic!("no record ({e}): {}", run.stderr));
    serde_json::from_str(&text).unwrap()
}

fn write_record(dir: &Path, record: &Value) {
    fs::write(
        dir.join("out/tests.json"),
        serde_json::to_string_pretty(record).unwrap(),
    )
    .unwrap();
}

/// (status, reason, rule of the first finding, verdict, exit code).
fn outcome(run: &Run) -> (String, String, String, String, i32) {
    let c = run.criterion("AC-1");
    let text = |v: &Value| v.as_str().unwrap_or("-").to_string();
    (
        text(&c["status"]),
        text(&c["reason"]),
        text(&c["findings"][0]["rule"]),
        text(&run.json()["verdict"]),
        run.code,
    )
}

fn refused(rule: &str) -> (String, String, String, String, i32) {
    (
        "fail".into(),
        "validator".into(),
        rule.into(),
        "rejected".into(),
        1,
    )
}

#[test]
fn record_edited_to_claim_success() {
    // `sh -c 'exit 3'` recorded, then edited to say `cargo test` exited 0.
    let (scratch, contract) = project("{ command: [cargo, test] }");
    let mut r = record(scratch.path(), &[], &["sh", "-c", "exit 3"]);
    r["exit_code"] = json!(0);
    r["command"] = json!(["cargo", "test"]);
    write_record(scratch.path(), &r);
    assert_eq!(
        outcome(&check_json(&contract, &[])),
        refused("record-digest")
    );
}

#[test]
fn record_written_by_hand() {
    let (scratch, contract) = project("{}");
    scratch.write(
        "out/tests.json",
        r#"{"vcc_record": 2, "command": ["cargo", "test"], "path": "out/tests.json", "cwd": ".", "exit_code": 0, "duration_ms": 1000, "inputs": [], "outputs": [], "stdout": {}, "stderr": {}}"#,
    );
    assert_eq!(
        outcome(&check_json(&contract, &[])),
        refused("record-digest")
    );
}

#[test]
fn record_written_by_hand_with_a_valid_digest_and_no_captures() {
    // A forger who computes record_digest still has to show the output.
    let (scratch, contract) = project("{}");
    let mut r = json!({"vcc_record": 2, "command": ["cargo", "test"], "path": "out/tests.json", "cwd": ".",
        "exit_code": 0, "duration_ms": 1000, "inputs": [], "outputs": [], "stdout": {}, "stderr": {}});
    r["record_digest"] = json!(record_digest(&r));
    scratch.write("out/tests.json", r.to_string());
    assert_eq!(outcome(&check_json(&contract, &[])), refused("capture"));
}

#[test]
fn record_with_an_edited_capture() {
    let (scratch, contract) = project("{}");
    record(scratch.path(), &[], &["sh", "-c", "echo 3 tests failed"]);
    scratch.write("out/tests.json.stdout", "all tests passed\n");
    assert_eq!(outcome(&check_json(&contract, &[])), refused("capture"));
}

#[test]
fn record_of_older_code() {
    // The tests passed, then the code changed: the record is about other code.
    let (scratch, contract) = project("{ require_inputs: true, cover: [src] }");
    record(scratch.path(), &["--inputs", "src"], &["true"]);
    assert_eq!(check_json(&contract, &[]).code, 0);
    scratch.write(
        "src/lib.rs",
        "pub fn add(a: u32, b: u32) -> u32 { a - b }\n",
    );
    let run = check_json(&contract, &[]);
    assert_eq!(outcome(&run), refused("stale-input"));
    assert!(
        run.criterion("AC-1")["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("ran on other code"),
        "{}",
        run.stdout
    );
}

#[test]
fn record_from_another_project() {
    // A passing record made elsewhere, copied in.
    let (scratch, contract) = project("{ require_inputs: true, cover: [src] }");
    let other = Scratch::new();
    other.write("src/lib.rs", "pub fn add(a: u32, b: u32) -> u32 { 0 }\n");
    record(other.path(), &["--inputs", "src"], &["true"]);
    fs::create_dir_all(scratch.path().join("out")).unwrap();
    for f in ["tests.json", "tests.json.stdout", "tests.json.stderr"] {
        fs::copy(
            other.path().join("out").join(f),
            scratch.path().join("out").join(f),
        )
        .unwrap();
    }
    assert_eq!(outcome(&check_json(&contract, &[])), refused("stale-input"));
    // Recorded at another place in its tree: its paths are not this root's.
    let (scratch, contract) = project("{}");
    let other = Scratch::new();
    vcc_in(
        other.path(),
        &["record", "--out", "tests.json", "--", "true"],
    );
    fs::create_dir_all(scratch.path().join("out")).unwrap();
    for f in ["tests.json", "tests.json.stdout", "tests.json.stderr"] {
        fs::copy(other.path().join(f), scratch.path().join("out").join(f)).unwrap();
    }
    assert_eq!(outcome(&check_json(&contract, &[])), refused("place"));
}

#[test]
fn record_of_a_command_run_outside_the_root() {
    let (scratch, contract) = project("{}");
    let elsewhere = Scratch::new();
    let out = scratch.path().join("out/tests.json");
    let root = scratch.path().to_str().unwrap().to_string();
    vcc_in(
        elsewhere.path(),
        &[
            "record",
            "--root",
            &root,
            "--out",
            out.to_str().unwrap(),
            "--",
            "true",
        ],
    );
    assert_eq!(outcome(&check_json(&contract, &[])), refused("cwd"));
}

#[test]
fn record_binding_no_input() {
    let (scratch, contract) = project("{ require_inputs: true }");
    record(scratch.path(), &[], &["true"]);
    assert_eq!(outcome(&check_json(&contract, &[])), refused("no-inputs"));
}

#[test]
fn record_whose_inputs_changed_during_the_run() {
    // The command edited the code it was testing.
    let (scratch, contract) = project("{ require_inputs: true }");
    record(
        scratch.path(),
        &["--inputs", "src"],
        &["sh", "-c", "echo '// patched' >> src/lib.rs"],
    );
    let run = check_json(&contract, &[]);
    let criterion = run.criterion("AC-1");
    let rules: Vec<&str> = criterion["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(run.code, 1);
    assert!(rules.contains(&"input-changed"), "{rules:?}");
}

#[test]
fn record_whose_report_was_swapped_after_the_run() {
    // The recorded command wrote a failing JUnit report; a passing one was
    // written by hand over it.
    let (scratch, contract) = project("{ produced: [junit] }");
    record(
        scratch.path(),
        &["--outputs", "out/junit.xml"],
        &[
            "sh",
            "-c",
            "echo '<testsuite><testcase name=\"a\"><failure/></testcase></testsuite>' > out/junit.xml",
        ],
    );
    assert_eq!(check_json(&contract, &[]).code, 0);
    scratch.write(
        "out/junit.xml",
        "<testsuite><testcase name=\"a\"/></testsuite>\n",
    );
    assert_eq!(
        outcome(&check_json(&contract, &[])),
        refused("stale-output")
    );
}

#[test]
fn tool_calls_evidence_names_the_format_it_read() {
    let case = repo().join("tests/cases/tool-calls/fail-forbidden-claude-code");
    let evidence = Scratch::new();
    let run = check_json(
        &case.join("contract.yaml"),
        &["--evidence-dir", evidence.path().to_str().unwrap()],
    );
    let item = &run.criterion("AC-1")["evidence"][0];
    assert_eq!(item["name"], "tool-calls.json");
    let doc: Value =
        serde_json::from_slice(&fs::read(item["file"].as_str().unwrap()).unwrap()).unwrap();
    assert_eq!(doc["items"][0]["format"], "Claude Code JSONL");
    assert_eq!(doc["items"][0]["calls"], 3);
}
