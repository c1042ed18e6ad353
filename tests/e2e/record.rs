//! `vcc record`: evidence from outside the sandbox, then judged inside it.

use std::fs;

use serde_json::Value;
use vcc_test_support::{Scratch, file_digest};

use crate::{check_json, record_digest, vcc, vcc_in};

/// `vcc record [extra…] --out OUT -- COMMAND…`, run in the scratch folder
/// (the deliverable root); the exit code and the record.
fn record(scratch: &Scratch, out: &str, extra: &[&str], command: &[&str]) -> (i32, Value) {
    let mut args = vec!["record"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--out", out, "--"]);
    args.extend_from_slice(command);
    let run = vcc_in(scratch.path(), &args);
    let text = fs::read_to_string(scratch.path().join(out))
        .unwrap_or_else(|e| panic!("no record ({e}): {}", run.stderr));
    (run.code, serde_json::from_str(&text).unwrap())
}

#[test]
fn a_real_command_is_recorded_with_digests_and_captures() {
    let scratch = Scratch::new();
    let (code, r) = record(
        &scratch,
        "out/run.json",
        &[],
        &["sh", "-c", "echo to-stdout; echo to-stderr >&2; exit 7"],
    );
    assert_eq!(code, 7, "vcc record exits with the command's code");
    assert_eq!(r["vcc_record"], 2);
    assert_eq!(
        r["command"],
        serde_json::json!(["sh", "-c", "echo to-stdout; echo to-stderr >&2; exit 7"])
    );
    assert_eq!(r["exit_code"], 7);
    assert_eq!(r["signal"], Value::Null);
    assert_eq!(r["cwd"], ".");
    assert_eq!(r["path"], "out/run.json");
    assert!(r["started_at"].as_str().unwrap().ends_with('Z'));
    assert!(r["duration_ms"].is_u64());
    let stdout = scratch.path().join("out/run.json.stdout");
    assert_eq!(fs::read_to_string(&stdout).unwrap(), "to-stdout\n");
    assert_eq!(r["stdout"]["digest"], file_digest(&stdout));
    assert_eq!(r["stdout"]["captured_digest"], file_digest(&stdout));
    assert_eq!(r["stderr"]["bytes"], 10);
    assert_eq!(r["stdout"]["truncated"], false);
    assert_eq!(r["record_digest"], record_digest(&r));
}

#[test]
fn captures_are_capped_but_digests_cover_everything() {
    let scratch = Scratch::new();
    let (code, r) = record(
        &scratch,
        "big.json",
        &["--max-capture", "100"],
        &["sh", "-c", "head -c 5000 /dev/zero"],
    );
    assert_eq!(code, 0);
    assert_eq!(r["stdout"]["bytes"], 5000);
    assert_eq!(r["stdout"]["captured_bytes"], 100);
    assert_eq!(r["stdout"]["truncated"], true);
    assert_eq!(
        r["stdout"]["digest"],
        format!("blake3:{}", blake3::hash(&[0u8; 5000]).to_hex())
    );
}

#[test]
fn commands_that_cannot_start_or_are_killed() {
    let scratch = Scratch::new();
    let (code, r) = record(&scratch, "missing.json", &[], &["vcc-no-such-command"]);
    assert_eq!(code, 127);
    assert!(r["error"].as_str().unwrap().contains("No such file"));
    assert_eq!(r["exit_code"], Value::Null);
    let (code, r) = record(&scratch, "killed.json", &[], &["sh", "-c", "kill -9 $$"]);
    assert_eq!(code, 128 + 9);
    assert_eq!(r["signal"], 9);
    assert_eq!(
        vcc(&["record", "--out", "x.json"]).code,
        2,
        "a command is required"
    );
}

#[test]
fn inputs_are_hashed_before_and_outputs_after() {
    let scratch = Scratch::new();
    scratch.write("src/lib.rs", "fn a() {}\n");
    scratch.write("src/util/mod.rs", "fn b() {}\n");
    let (code, r) = record(
        &scratch,
        "out/tests.json",
        &["--inputs", "src", "--outputs", "out/junit.xml"],
        &["sh", "-c", "echo '<testsuite/>' > out/junit.xml"],
    );
    assert_eq!(code, 0);
    let inputs: Vec<(&str, &str)> = r["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["path"].as_str().unwrap(), i["digest"].as_str().unwrap()))
        .collect();
    assert_eq!(
        inputs,
        vec![
            (
                "src/lib.rs",
                file_digest(&scratch.path().join("src/lib.rs")).as_str()
            ),
            (
                "src/util/mod.rs",
                file_digest(&scratch.path().join("src/util/mod.rs")).as_str()
            ),
        ]
    );
    assert_eq!(r["outputs"][0]["path"], "out/junit.xml");
    assert_eq!(
        r["outputs"][0]["digest"],
        file_digest(&scratch.path().join("out/junit.xml"))
    );
    assert_eq!(r["inputs_changed"], serde_json::json!([]));

    // An input the command changes is reported, and the record says so.
    let (_, r) = record(
        &scratch,
        "out/tests.json",
        &["--inputs", "src"],
        &["sh", "-c", "echo '// edited' >> src/lib.rs"],
    );
    assert_eq!(r["inputs_changed"], serde_json::json!(["src/lib.rs"]));

    // Inputs outside the root, and symlinks, cannot be bound: refused.
    let outside = vcc_in(
        scratch.path(),
        &[
            "record",
            "--inputs",
            "/etc/hostname",
            "--out",
            "r.json",
            "--",
            "true",
        ],
    );
    assert_eq!(outside.code, 2);
    assert!(
        outside.stderr.contains("outside the root"),
        "{}",
        outside.stderr
    );
    std::os::unix::fs::symlink("lib.rs", scratch.path().join("src/link.rs")).unwrap();
    let link = vcc_in(
        scratch.path(),
        &["record", "--inputs", "src", "--out", "r.json", "--", "true"],
    );
    assert_eq!(link.code, 2);
    assert!(link.stderr.contains("link.rs"), "{}", link.stderr);
}

#[test]
fn record_then_gate_with_exit_record() {
    // The README pattern: record the tests, then a MUST criterion on the record.
    let scratch = Scratch::new();
    scratch.write(
        "src/lib.rs",
        "pub fn add(a: u32, b: u32) -> u32 { a + b }\n",
    );
    let contract = scratch.write(
        "contract.yaml",
        "vcc: 1\nid: gate\ndeliverables:\n  - { id: tests, path: out/tests.json }\n  - { id: src, path: src }\nvalidators:\n  rec: { component: std/exit-record }\ncriteria:\n  - { id: TESTS-PASS, severity: must, validator: rec, targets: [tests], params: { command: [sh, -c], require_inputs: true, cover: [src] } }\n",
    );
    let inputs = ["--inputs", "src"];
    record(
        &scratch,
        "out/tests.json",
        &inputs,
        &["sh", "-c", "echo all 12 tests passed"],
    );
    let run = check_json(&contract, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.criterion("TESTS-PASS")["status"], "pass");

    record(
        &scratch,
        "out/tests.json",
        &inputs,
        &["sh", "-c", "echo 1 test failed; exit 101"],
    );
    let run = check_json(&contract, &[]);
    assert_eq!(run.code, 1);
    let c = run.criterion("TESTS-PASS");
    assert_eq!(c["status"], "fail");
    assert!(
        c["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("exited with 101"),
        "{c}"
    );

    // The code changes after a passing record: the tests ran on other code.
    record(
        &scratch,
        "out/tests.json",
        &inputs,
        &["sh", "-c", "echo all passed"],
    );
    assert_eq!(check_json(&contract, &[]).code, 0);
    scratch.write(
        "src/lib.rs",
        "pub fn add(a: u32, b: u32) -> u32 { a - b }\n",
    );
    let run = check_json(&contract, &[]);
    assert_eq!(run.code, 1);
    let f = &run.criterion("TESTS-PASS")["findings"][0];
    assert_eq!(f["rule"], "stale-input", "{f}");
    assert!(f["message"].as_str().unwrap().contains("src/lib.rs"), "{f}");
    // A file added since is not covered by the record either.
    record(
        &scratch,
        "out/tests.json",
        &inputs,
        &["sh", "-c", "echo all passed"],
    );
    scratch.write("src/new.rs", "pub fn sub() {}\n");
    let run = check_json(&contract, &[]);
    assert_eq!(
        run.criterion("TESTS-PASS")["findings"][0]["rule"],
        "not-covered"
    );
}
