//! One test per fixture component in tests/guests: what the host records
//! when a validator passes, fails, skips, traps, loops, escapes, exits early,
//! speaks another WIT version, or returns `err`. None of them may ever turn
//! into an accepted run by misbehaving, and none may change a deliverable.

use std::path::{Path, PathBuf};

use serde_json::Value;
use vcc_test_support::{Scratch, digests, file_digest, fixtures};

use crate::{Run, check_json, vcc};

/// Every fixture must have a test of the same name in this module.
macro_rules! has_test {
    ($name:ident) => {
        #[allow(unused_imports)]
        use self::$name as _;
    };
}
vcc_test_support::foreach_fixture!(has_test);

/// A contract with one MUST criterion bound to `component`, judging the
/// deliverable `notes` (out/notes.md and out/more.md); returns the scratch
/// folder and the contract path. The deliverables live in `out/`.
fn setup(component: &str, criterion_extra: &str) -> (Scratch, PathBuf) {
    let scratch = Scratch::new();
    scratch.write("out/notes.md", "# Notes\n\nline two\n");
    scratch.write("out/more.md", "# More\n");
    let contract = scratch.write(
        "contract.yaml",
        format!(
            "vcc: 1\nid: fixture\ndeliverables:\n  - {{ id: notes, path: \"*.md\" }}\nvalidators:\n  v: {{ component: {component:?} }}\ncriteria:\n  - {{ id: AC-1, severity: must, validator: v, targets: [notes]{criterion_extra} }}\n"
        ),
    );
    (scratch, contract)
}

/// Check with the deliverables in `out/`, asserting they did not change.
fn run(scratch: &Scratch, contract: &Path, extra: &[&str]) -> Run {
    let out = scratch.path().join("out");
    let before = digests(&out);
    let mut args = vec!["--dir", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let run = check_json(contract, &args);
    assert_eq!(digests(&out), before, "the run changed the deliverables");
    run
}

fn only(run: &Run) -> Value {
    run.criterion("AC-1")
}

#[test]
fn always_pass() {
    let (scratch, contract) = setup(fixtures::ALWAYS_PASS, "");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json()["verdict"], "accepted");
    let c = only(&run);
    assert_eq!(c["status"], "pass");
    assert_eq!(c["reason"], "validator");
    assert_eq!(
        c["validator"]["digest"],
        file_digest(fixtures::ALWAYS_PASS.as_ref())
    );
    assert_eq!(c["validator"]["wit_version"], "0.1.1");
    assert_eq!(c["validator"]["describes_as"], "always-pass");
}

#[test]
fn always_fail() {
    let (scratch, contract) = setup(fixtures::ALWAYS_FAIL, "");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(run.code, 1);
    assert_eq!(run.json()["verdict"], "rejected");
    let c = only(&run);
    assert_eq!(c["status"], "fail");
    // Guest paths come back relative to the root.
    assert_eq!(
        c["findings"],
        serde_json::json!([
            {"message": "not good enough", "path": "more.md", "line": 1, "rule": "always"},
            {"message": "not good enough", "path": "notes.md", "line": 1, "rule": "always"},
        ])
    );
}

#[test]
fn skip() {
    let (scratch, contract) = setup(fixtures::SKIP, "");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(run.code, 1, "a skipped MUST is not a pass");
    assert_eq!(run.json()["verdict"], "withheld");
    assert_eq!(only(&run)["status"], "skip");
}

#[test]
fn trap() {
    let (scratch, contract) = setup(fixtures::TRAP, "");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(run.code, 1);
    assert_eq!(run.json()["verdict"], "withheld");
    let c = only(&run);
    assert_eq!(c["status"], "error");
    assert_eq!(c["reason"], "trap");
    assert!(c["summary"].as_str().unwrap().contains("trapped"), "{c}");
}

#[test]
fn infinite_loop() {
    let (scratch, contract) = setup(fixtures::INFINITE_LOOP, ", limits: { timeout: 300ms }");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(run.code, 1);
    assert_eq!(run.json()["verdict"], "withheld");
    let c = only(&run);
    assert_eq!(c["status"], "error");
    assert_eq!(c["reason"], "timeout");
}

#[test]
fn escape_write() {
    let (scratch, contract) = setup(fixtures::ESCAPE_WRITE, "");
    let run = run(&scratch, &contract, &[]);
    let c = only(&run);
    // The fixture passes only if an attempt worked: it must fail, every
    // attempt denied, and the tree is unchanged (checked by `run`).
    assert_eq!(c["status"], "fail", "the sandbox leaked: {}", c["summary"]);
    assert_eq!(run.code, 1);
    let findings = c["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 19, "{findings:#?}");
    assert!(
        findings
            .iter()
            .all(|f| f["message"].as_str().unwrap().starts_with("denied: "))
    );
    assert!(!scratch.path().join("out/planted.txt").exists());
}

#[test]
fn exit_early() {
    let (scratch, contract) = setup(fixtures::EXIT_EARLY, "");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(run.code, 1);
    let c = only(&run);
    assert_eq!(c["status"], "error");
    assert_eq!(c["reason"], "exit");
    assert!(c["summary"].as_str().unwrap().contains("exit(0)"), "{c}");
    // What it printed is kept as evidence, and changes nothing.
    let stdout = c["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "stdout")
        .cloned();
    assert_eq!(stdout.unwrap()["media_type"], "text/plain");
}

#[test]
fn wrong_wit_version() {
    let (_scratch, contract) = setup(fixtures::WRONG_WIT_VERSION, "");
    let lint = vcc(&["lint", contract.to_str().unwrap(), "--format", "json"]);
    assert_eq!(lint.code, 2);
    let problem = &lint.json()["problems"][0];
    assert_eq!(problem["code"], "UNVERIFIABLE_MUST");
    let message = problem["message"].as_str().unwrap();
    assert!(message.contains("vcc:validator@0.2.0"), "{message}");
    assert!(
        message.contains("supports vcc:validator@0.1.x"),
        "{message}"
    );
    let run = check_json(&contract, &[]);
    assert_eq!(run.code, 2);
    assert_eq!(run.json()["verdict"], "invalid");
    assert_eq!(run.json()["criteria"], serde_json::json!([]));
}

#[test]
fn old_patch() {
    // Built against the released 0.1.0: loads, links its imports, runs.
    let (scratch, contract) = setup(fixtures::OLD_PATCH, "");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let c = only(&run);
    assert_eq!(c["validator"]["wit_version"], "0.1.0");
    assert_eq!(c["summary"], "read 2 file(s) through the 0.1.0 imports");
    assert_eq!(c["files_read"].as_array().unwrap().len(), 2);
}

#[test]
fn wrong_wit_major() {
    let (_scratch, contract) = setup(fixtures::WRONG_WIT_MAJOR, "");
    let lint = vcc(&["lint", contract.to_str().unwrap(), "--format", "json"]);
    assert_eq!(lint.code, 2);
    let message = lint.json()["problems"][0]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.contains("built against vcc:validator@1.0.0"),
        "{message}"
    );
    assert!(
        message.contains("supports vcc:validator@0.1.x"),
        "{message}"
    );
}

#[test]
fn err_result() {
    let (scratch, contract) = setup(fixtures::ERR_RESULT, "");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(run.code, 1);
    let c = only(&run);
    assert_eq!(c["status"], "error");
    assert_eq!(c["reason"], "validator_error");
    assert!(
        c["summary"].as_str().unwrap().contains("reference data"),
        "{c}"
    );
}

#[test]
fn reader() {
    let (scratch, contract) = setup(fixtures::READER, "");
    let evidence = scratch.path().join("evidence");
    let run = run(
        &scratch,
        &contract,
        &["--evidence-dir", evidence.to_str().unwrap()],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    let c = only(&run);
    let out = scratch.path().join("out");
    assert_eq!(
        c["files_read"],
        serde_json::json!([
            {"path": "more.md", "digest": file_digest(&out.join("more.md"))},
            {"path": "notes.md", "digest": file_digest(&out.join("notes.md"))},
        ])
    );
    let items = c["evidence"].as_array().unwrap();
    let names: Vec<&str> = items.iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(names, vec!["line-counts.txt", "deliverables.txt", "stdout"]);
    let counts = std::fs::read_to_string(items[0]["file"].as_str().unwrap()).unwrap();
    assert_eq!(counts, "more.md 1\nnotes.md 3\n");
    let ids = std::fs::read_to_string(items[1]["file"].as_str().unwrap()).unwrap();
    assert_eq!(ids, "notes");
    let stdout = std::fs::read_to_string(items[2]["file"].as_str().unwrap()).unwrap();
    assert_eq!(stdout, "reader saw 2 file(s)\n");
}

#[test]
fn memory_bomb() {
    let (scratch, contract) = setup(fixtures::MEMORY_BOMB, ", limits: { memory: 64MiB }");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(run.code, 1);
    let c = only(&run);
    assert_eq!(c["status"], "error");
    assert_eq!(c["reason"], "memory_limit");
    assert!(c["summary"].as_str().unwrap().contains("64 MiB"), "{c}");
}

#[test]
fn deep_recursion() {
    let (scratch, contract) = setup(fixtures::DEEP_RECURSION, "");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(run.code, 1);
    let c = only(&run);
    assert_eq!(c["status"], "error");
    assert_eq!(c["reason"], "stack_overflow");
}

#[test]
fn stdout_flood() {
    let (scratch, contract) = setup(fixtures::STDOUT_FLOOD, "");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(run.code, 1);
    let c = only(&run);
    assert_eq!(c["status"], "error", "{c}");
    assert_eq!(c["reason"], "output_limit");
    assert!(c["summary"].as_str().unwrap().contains("stdout"), "{c}");
}

#[test]
fn blocks_on_fifo() {
    // No writer ever comes: the guest blocks inside a host call, where the
    // epoch cannot stop it. The host must still finish, with a timeout.
    let (scratch, contract) = setup(fixtures::BLOCKS_ON_FIFO, ", limits: { timeout: 300ms }");
    vcc_test_support::make_fifo(&scratch.path().join("out/pipe"));
    let run = run(&scratch, &contract, &[]);
    assert_eq!(run.code, 1);
    let c = only(&run);
    assert_eq!(c["status"], "error");
    assert_eq!(c["reason"], "timeout");
    assert!(
        c["summary"]
            .as_str()
            .unwrap()
            .contains("blocked in a host call"),
        "{c}"
    );
    // The FIFO is reported by the walk, never opened by the host.
    let unreadable = &run.json()["deliverables"]["unreadable"];
    assert_eq!(
        unreadable,
        &serde_json::json!([{"path": "pipe", "kind": "fifo"}])
    );
}

#[test]
fn a_change_during_the_run_withholds_the_verdict() {
    // Handshake through two FIFOs: the guest opens `pipe` (the snapshot is
    // taken, the validator runs), then waits on `pipe2` while the test edits
    // a deliverable; then it returns a pass. The host must notice the edit.
    let (scratch, contract) = setup(fixtures::BLOCKS_ON_FIFO, ", limits: { timeout: 60s }");
    let out = scratch.path().join("out");
    for pipe in ["pipe", "pipe2"] {
        vcc_test_support::make_fifo(&out.join(pipe));
    }
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_vcc"))
        .args([
            "check",
            contract.to_str().unwrap(),
            "--dir",
            out.to_str().unwrap(),
            "--format",
            "json",
        ])
        .env("VCC_CACHE_DIR", crate::shared_cache())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let patience = std::time::Duration::from_secs(60);
    let first = vcc_test_support::open_fifo_writer(&out.join("pipe"), patience)
        .expect("the validator opened pipe");
    scratch.write("out/notes.md", "# Notes, edited mid-run\n");
    let second = vcc_test_support::open_fifo_writer(&out.join("pipe2"), patience)
        .expect("the validator opened pipe2");
    let output = child.wait_with_output().unwrap();
    drop((first, second));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["criteria"][0]["status"], "pass", "{report}");
    assert_eq!(report["verdict"], "withheld");
    assert_eq!(
        report["deliverables"]["changed"],
        serde_json::json!(["notes.md"])
    );
    assert!(
        report["reason"].as_str().unwrap().contains("changed"),
        "{report}"
    );
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn clock_and_random() {
    let (scratch, contract) = setup(fixtures::CLOCK_AND_RANDOM, "");
    let first = run(&scratch, &contract, &[]);
    let second = run(&scratch, &contract, &[]);
    assert_eq!(first.code, 0);
    let evidence = |r: &Run| only(r)["evidence"][0].clone();
    assert_eq!(
        evidence(&first)["digest"],
        evidence(&second)["digest"],
        "clocks and random are fixed"
    );
    let dir = scratch.path().join("ev");
    let third = run(
        &scratch,
        &contract,
        &["--evidence-dir", dir.to_str().unwrap()],
    );
    let text = std::fs::read_to_string(evidence(&third)["file"].as_str().unwrap()).unwrap();
    assert!(text.starts_with("wall=946684800 mono=0 "), "{text}");
    assert!(text.contains("std_now=946684800"), "{text}");
}

#[test]
fn readme_example() {
    // The README's "Writing a validator in Rust" code is this fixture, verbatim.
    let source =
        std::fs::read_to_string(crate::repo().join("tests/guests/readme-example/src/lib.rs"))
            .unwrap();
    let readme = std::fs::read_to_string(crate::repo().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("```rust\n{source}```")),
        "README and tests/guests/readme-example differ"
    );

    let (scratch, contract) = setup(fixtures::README_EXAMPLE, "");
    scratch.write("out/more.md", "fine\nTODO: write more\n");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(run.code, 1);
    let c = only(&run);
    assert_eq!(c["status"], "fail");
    assert_eq!(
        c["findings"],
        serde_json::json!([{"message": "TODO left in", "path": "more.md", "line": 2}])
    );
}

#[test]
fn foreign_import() {
    // An import the host does not provide: flagged by inspect, and a MUST
    // bound to it is unverifiable (it could never run).
    let run = vcc(&[
        "validator",
        "inspect",
        fixtures::FOREIGN_IMPORT,
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let i = run.json();
    assert_eq!(i["usable"], false);
    let refused: Vec<&str> = i["imports"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["use"] == "refused")
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(refused, vec!["acme:secrets/vault@1.0.0"]);
    assert!(
        i["problem"].as_str().unwrap().contains("cannot be linked"),
        "{i}"
    );
    let human = vcc(&["validator", "inspect", fixtures::FOREIGN_IMPORT]);
    assert!(
        human.stdout.contains("REFUSED  acme:secrets/vault@1.0.0"),
        "{}",
        human.stdout
    );

    let (_scratch, contract) = setup(fixtures::FOREIGN_IMPORT, "");
    let lint = vcc(&["lint", contract.to_str().unwrap(), "--format", "json"]);
    assert_eq!(lint.code, 2);
    let problem = &lint.json()["problems"][0];
    assert_eq!(problem["code"], "UNVERIFIABLE_MUST");
    assert!(
        problem["message"]
            .as_str()
            .unwrap()
            .contains("acme:secrets/vault"),
        "{problem}"
    );
}
