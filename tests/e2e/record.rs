//! `vcc record`: evidence from outside the sandbox, then judged inside it.

use std::fs;

use serde_json::Value;
use vcc_test_support::{Scratch, file_digest};

use crate::{check_json, vcc};

fn record(scratch: &Scratch, out: &str, command: &[&str]) -> (i32, Value) {
    let out_path = scratch.path().join(out);
    let mut args = vec!["record", "--out", out_path.to_str().unwrap(), "--"];
    args.extend_from_slice(command);
    let run = vcc(&args);
    let record: Value = serde_json::from_str(&fs::read_to_string(&out_path).unwrap()).unwrap();
    (run.code, record)
}

#[test]
fn a_real_command_is_recorded_with_digests_and_captures() {
    let scratch = Scratch::new();
    let (code, r) = record(
        &scratch,
        "out/run.json",
        &["sh", "-c", "echo to-stdout; echo to-stderr >&2; exit 7"],
    );
    assert_eq!(code, 7, "vcc record exits with the command's code");
    assert_eq!(r["vcc_record"], 1);
    assert_eq!(
        r["command"],
        serde_json::json!(["sh", "-c", "echo to-stdout; echo to-stderr >&2; exit 7"])
    );
    assert_eq!(r["exit_code"], 7);
    assert_eq!(r["signal"], Value::Null);
    assert!(r["started_at"].as_str().unwrap().ends_with('Z'));
    assert!(r["duration_ms"].is_u64());
    let stdout = scratch.path().join("out/run.json.stdout");
    assert_eq!(fs::read_to_string(&stdout).unwrap(), "to-stdout\n");
    assert_eq!(r["stdout"]["digest"], file_digest(&stdout));
    assert_eq!(r["stdout"]["captured_digest"], file_digest(&stdout));
    assert_eq!(r["stderr"]["bytes"], 10);
    assert_eq!(r["stdout"]["truncated"], false);
}

#[test]
fn captures_are_capped_but_digests_cover_everything() {
    let scratch = Scratch::new();
    let out = scratch.path().join("big.json");
    let run = vcc(&[
        "record",
        "--out",
        out.to_str().unwrap(),
        "--max-capture",
        "100",
        "--",
        "sh",
        "-c",
        "head -c 5000 /dev/zero",
    ]);
    assert_eq!(run.code, 0);
    let r: Value = serde_json::from_str(&fs::read_to_string(&out).unwrap()).unwrap();
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
    let (code, r) = record(&scratch, "missing.json", &["vcc-no-such-command"]);
    assert_eq!(code, 127);
    assert!(r["error"].as_str().unwrap().contains("No such file"));
    assert_eq!(r["exit_code"], Value::Null);
    let (code, r) = record(&scratch, "killed.json", &["sh", "-c", "kill -9 $$"]);
    assert_eq!(code, 128 + 9);
    assert_eq!(r["signal"], 9);
    assert_eq!(
        vcc(&["record", "--out", "x.json"]).code,
        2,
        "a command is required"
    );
}

#[test]
fn record_then_gate_with_exit_record() {
    // The README pattern: record the tests, then a MUST criterion on the record.
    let scratch = Scratch::new();
    let contract = scratch.write(
        "contract.yaml",
        "vcc: 1\nid: gate\ndeliverables:\n  - { id: tests, path: out/tests.json }\nvalidators:\n  rec: { component: std/exit-record }\ncriteria:\n  - { id: TESTS-PASS, severity: must, validator: rec, targets: [tests], params: { command: [sh, -c] } }\n",
    );
    record(
        &scratch,
        "out/tests.json",
        &["sh", "-c", "echo all 12 tests passed"],
    );
    let run = check_json(&contract, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.criterion("TESTS-PASS")["status"], "pass");

    record(
        &scratch,
        "out/tests.json",
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

    // Editing the capture to hide the failure is caught.
    record(&scratch, "out/tests.json", &["sh", "-c", "echo all passed"]);
    scratch.write("out/tests.json.stdout", "all passed, honestly\n");
    let run = check_json(&contract, &[]);
    assert_eq!(run.code, 1);
    assert_eq!(
        run.criterion("TESTS-PASS")["findings"][0]["rule"],
        "capture"
    );
}
