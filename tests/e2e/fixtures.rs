//! One test per fixture component in tests/guests: what the host records
//! when a validator passes, fails, skips, traps, loops, escapes, exits early,
//! speaks another WIT version, or returns `err`. None of them may ever turn
//! into an accepted run by misbehaving, and none may change a deliverable.

use std::path::{Path, PathBuf};

use serde_json::Value;
use vcc_test_support::{Scratch, digests, file_digest, fixtures};

// The WASI view's hostile cases have their own module.
#[allow(unused_imports)]
use crate::wasi_view::wasi_prober;
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

/// What a hostile case must pin: the criterion's status and reason, the
/// run's verdict and exit code.
fn outcome(run: &Run) -> (String, String, String, i32) {
    let c = only(run);
    let text = |v: &Value| v.as_str().unwrap_or("?").to_string();
    (
        text(&c["status"]),
        text(&c["reason"]),
        text(&run.json()["verdict"]),
        run.code,
    )
}

fn expect(status: &str, reason: &str, verdict: &str, code: i32) -> (String, String, String, i32) {
    (status.into(), reason.into(), verdict.into(), code)
}

/// A check of a contract no validator was run for: invalid, exit 2, and
/// the errors that made it so (code: message).
fn invalid(scratch: &Scratch, contract: &Path) -> Vec<String> {
    let run = run(scratch, contract, &[]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert_eq!(run.json()["verdict"], "invalid");
    assert_eq!(run.json()["criteria"], serde_json::json!([]));
    run.json()["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["level"] == "error")
        .map(|p| {
            format!(
                "{}: {}",
                p["code"].as_str().unwrap(),
                p["message"].as_str().unwrap()
            )
        })
        .collect()
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
    assert_eq!(c["validator"]["wit_version"], "0.1.4");
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
    // A skipped MUST is not a pass.
    assert_eq!(outcome(&run), expect("skip", "validator", "withheld", 1));
}

#[test]
fn trap() {
    let (scratch, contract) = setup(fixtures::TRAP, "");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(outcome(&run), expect("error", "trap", "withheld", 1));
    let c = only(&run);
    assert!(c["summary"].as_str().unwrap().contains("trapped"), "{c}");
}

#[test]
fn infinite_loop() {
    let (scratch, contract) = setup(fixtures::INFINITE_LOOP, ", limits: { timeout: 300ms }");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(outcome(&run), expect("error", "timeout", "withheld", 1));
    // The summary says the budget and where to raise it.
    let summary = run.json()["criteria"][0]["summary"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        summary.contains("its budget is 300ms; raise it with `limits: { timeout: 30s }`"),
        "{summary}"
    );
}

/// What `escape-write` tries; each must be denied, by name.
const ESCAPE_ATTEMPTS: [&str; 20] = [
    "create a new file",
    "overwrite a target",
    "truncate a target",
    "append to a target",
    "remove a target",
    "rename a target",
    "make a directory",
    "hard-link a target",
    "symlink out of the root",
    "change a target's timestamps",
    "read through ..",
    "read an absolute host path",
    "read through a symlink in the root",
    "read /proc",
    "list the guest root",
    "read the environment",
    "read the arguments",
    "read stdin",
    "connect to the network",
    "resolve a host name",
];

#[test]
fn escape_write() {
    let (scratch, contract) = setup(fixtures::ESCAPE_WRITE, "");
    std::os::unix::fs::symlink("/etc", scratch.path().join("out/link-out")).unwrap();
    let run = run(&scratch, &contract, &[]);
    let c = only(&run);
    // The fixture passes only if an attempt worked: it must fail, every
    // attempt denied, and the tree is unchanged (checked by `run`).
    assert_eq!(c["status"], "fail", "the sandbox leaked: {}", c["summary"]);
    assert_eq!(outcome(&run), expect("fail", "validator", "rejected", 1));
    let messages: Vec<&str> = c["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages.len(), ESCAPE_ATTEMPTS.len(), "{messages:#?}");
    for attempt in ESCAPE_ATTEMPTS {
        assert!(
            messages
                .iter()
                .any(|m| m.starts_with(&format!("denied: {attempt}: "))),
            "`{attempt}` was not denied: {messages:#?}"
        );
    }
    assert!(!scratch.path().join("out/planted.txt").exists());
}

#[test]
fn exit_early() {
    let (scratch, contract) = setup(fixtures::EXIT_EARLY, "");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(outcome(&run), expect("error", "exit", "withheld", 1));
    let c = only(&run);
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
    let (scratch, contract) = setup(fixtures::WRONG_WIT_MAJOR, "");
    assert_eq!(invalid(&scratch, &contract).len(), 1);
}

#[test]
fn err_result() {
    let (scratch, contract) = setup(fixtures::ERR_RESULT, "");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(
        outcome(&run),
        expect("error", "validator_error", "withheld", 1)
    );
    let c = only(&run);
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
    assert_eq!(
        names,
        vec![
            "line-counts.txt",
            "deliverables.txt",
            "wasi-tree.txt",
            "stdout"
        ]
    );
    let counts = std::fs::read_to_string(items[0]["file"].as_str().unwrap()).unwrap();
    assert_eq!(counts, "more.md 1\nnotes.md 3\n");
    let ids = std::fs::read_to_string(items[1]["file"].as_str().unwrap()).unwrap();
    assert_eq!(ids, "notes");
    let tree = std::fs::read_to_string(items[2]["file"].as_str().unwrap()).unwrap();
    assert_eq!(
        tree, "more.md\nnotes.md",
        "the WASI mount shows the target files"
    );
    let stdout = std::fs::read_to_string(items[3]["file"].as_str().unwrap()).unwrap();
    assert_eq!(stdout, "reader saw 2 file(s)\n");
}

#[test]
fn memory_bomb() {
    let (scratch, contract) = setup(fixtures::MEMORY_BOMB, ", limits: { memory: 64MiB }");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(
        outcome(&run),
        expect("error", "memory_limit", "withheld", 1)
    );
    let c = only(&run);
    assert!(c["summary"].as_str().unwrap().contains("64 MiB"), "{c}");
}

#[test]
fn deep_recursion() {
    let (scratch, contract) = setup(fixtures::DEEP_RECURSION, "");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(
        outcome(&run),
        expect("error", "stack_overflow", "withheld", 1)
    );
}

#[test]
fn stdout_flood() {
    let (scratch, contract) = setup(fixtures::STDOUT_FLOOD, "");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(
        outcome(&run),
        expect("error", "output_limit", "withheld", 1)
    );
    let c = only(&run);
    assert!(c["summary"].as_str().unwrap().contains("stdout"), "{c}");
}

#[test]
fn blocks_on_fifo() {
    // A FIFO in the root could block a guest inside a host call. It is not
    // reachable at all: with anything special in the root, validators see a
    // mirror of the hashed files only. The open fails; nothing hangs.
    let (scratch, contract) = setup(fixtures::BLOCKS_ON_FIFO, ", limits: { timeout: 60s }");
    vcc_test_support::make_fifo(&scratch.path().join("out/pipe"));
    let run = run(&scratch, &contract, &[]);
    assert_eq!(
        outcome(&run),
        expect("error", "validator_error", "withheld", 1)
    );
    let c = only(&run);
    assert!(
        c["summary"]
            .as_str()
            .unwrap()
            .contains("/deliverables/pipe"),
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
fn waits_for_change() {
    // The guest reads flag.txt, waits on its barrier (a judge on
    // loopback), and reads it until it says "go"; the test rewrites it
    // while the guest waits, so during the run by construction. The guest
    // only ever sees the bytes the host hashed, so it never sees "go"; and
    // the verdict, about a tree that changed under the run, is withheld.
    let scratch = Scratch::new();
    let barrier = vcc_test_support::barrier::Barrier::start(scratch.path());
    let contract = scratch.write(
        "contract.yaml",
        format!(
            "vcc: 1\nid: fixture\ndeliverables:\n  - {{ id: notes, path: \"*.md\" }}\n{}validators:\n  v: {{ component: {:?} }}\ncriteria:\n  - {{ id: AC-1, severity: must, validator: v, targets: [notes], judges: [barrier], params: {{ until: go, barrier: {:?} }}, limits: {{ timeout: 600s }} }}\n",
            vcc_test_support::barrier::CONTRACT_JUDGES,
            fixtures::WAITS_FOR_CHANGE,
            barrier.text
        ),
    );
    scratch.write("out/notes.md", "# Notes\n");
    scratch.write("out/flag.txt", "wait\n");
    let out = scratch.path().join("out");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_vcc"))
        .args([
            "check",
            contract.to_str().unwrap(),
            "--dir",
            out.to_str().unwrap(),
            "--format",
            "json",
        ])
        .args(barrier.args())
        .env("VCC_CACHE_DIR", crate::shared_cache())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // In place (same inode), as an agent editing its output would.
    let running = barrier.act_while_waiting(std::time::Duration::from_secs(120), || {
        std::fs::write(out.join("flag.txt"), "go\n").unwrap();
    });
    let output = child.wait_with_output().unwrap();
    assert!(
        running,
        "the validator never reached its barrier: {output:?}"
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["criteria"][0]["status"], "fail", "{report}");
    assert!(
        report["criteria"][0]["summary"]
            .as_str()
            .unwrap()
            .starts_with("flag.txt still says \"wait\""),
        "{report}"
    );
    assert_eq!(report["verdict"], "withheld");
    assert_eq!(
        report["deliverables"]["changed"],
        serde_json::json!(["flag.txt"])
    );
    assert!(
        report["reason"].as_str().unwrap().contains("changed"),
        "{report}"
    );
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn sleeper() {
    // 100 sleeps of an hour in host calls: time is frozen, so they end at
    // once and the run completes (a blocking sleep would be a timeout).
    let (scratch, contract) = setup(fixtures::SLEEPER, ", limits: { timeout: 30s }");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(outcome(&run), expect("pass", "validator", "accepted", 0));
    assert_eq!(only(&run)["summary"], "slept 100 hours");
}

#[test]
fn output_bomb() {
    let (scratch, contract) = setup(fixtures::OUTPUT_BOMB, ", params: { kind: stderr }");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(
        outcome(&run),
        expect("error", "output_limit", "withheld", 1)
    );
    let c = only(&run);
    assert!(c["summary"].as_str().unwrap().contains("stderr"), "{c}");
}

fn output_bomb_kind(kind: &str) -> (Value, (String, String, String, i32)) {
    let (scratch, contract) = setup(
        fixtures::OUTPUT_BOMB,
        // A million items take a while to build and lift on a loaded
        // machine; the cap, not the clock, is what these cases test.
        &format!(", params: {{ kind: {kind} }}, limits: {{ timeout: 300s }}"),
    );
    let run = run(&scratch, &contract, &[]);
    (only(&run), outcome(&run))
}

#[test]
fn output_bomb_huge_evidence() {
    let (c, got) = output_bomb_kind("huge-evidence");
    assert_eq!(got, expect("error", "output_limit", "withheld", 1));
    assert_eq!(
        c["summary"],
        "the validator returned 20971520 bytes of evidence (cap 4194304)"
    );
    assert_eq!(c["evidence"], serde_json::json!([]));
}

#[test]
fn output_bomb_many_evidence() {
    let (c, got) = output_bomb_kind("many-evidence");
    assert_eq!(got, expect("error", "output_limit", "withheld", 1));
    assert_eq!(
        c["summary"],
        "the validator returned 1000000 evidence items (cap 256)"
    );
}

#[test]
fn output_bomb_many_findings() {
    let (c, got) = output_bomb_kind("many-findings");
    assert_eq!(got, expect("error", "output_limit", "withheld", 1));
    assert_eq!(
        c["summary"],
        "the validator returned 100000 findings (cap 10000)"
    );
    assert_eq!(c["findings"], serde_json::json!([]));
}

#[test]
fn output_bomb_long_summary() {
    let (c, got) = output_bomb_kind("long-summary");
    assert_eq!(got, expect("error", "output_limit", "withheld", 1));
    assert_eq!(
        c["summary"],
        "the validator returned a 10485760-byte string (cap 65536)"
    );
}

#[test]
fn output_bomb_invalid_utf8() {
    let (c, got) = output_bomb_kind("invalid-utf8");
    assert_eq!(got, expect("error", "malformed_output", "withheld", 1));
    assert!(c["summary"].as_str().unwrap().contains("utf-8"), "{c}");
}

#[test]
fn table_bomb() {
    let (scratch, contract) = setup(fixtures::TABLE_BOMB, "");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(
        outcome(&run),
        expect("error", "memory_limit", "withheld", 1)
    );
    assert_eq!(
        only(&run)["summary"],
        "the validator exceeded its table limit"
    );
}

#[test]
fn many_memories() {
    // Seventeen memories, one more than a run may have: it cannot even be
    // described, so the MUST bound to it can never be verified.
    let (scratch, contract) = setup(fixtures::MANY_MEMORIES, "");
    let problems = invalid(&scratch, &contract);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("UNVERIFIABLE_MUST: "),
        "{problems:?}"
    );
    assert!(
        problems[0].contains("memory count too high"),
        "{problems:?}"
    );
}

#[test]
fn bad_status() {
    let (scratch, contract) = setup(fixtures::BAD_STATUS, "");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(
        outcome(&run),
        expect("error", "malformed_output", "withheld", 1)
    );
    assert!(
        only(&run)["summary"]
            .as_str()
            .unwrap()
            .ends_with("unexpected discriminant: 9"),
        "{}",
        only(&run)
    );
}

#[test]
fn bad_pointer() {
    let (scratch, contract) = setup(fixtures::BAD_POINTER, "");
    let run = run(&scratch, &contract, &[]);
    assert_eq!(
        outcome(&run),
        expect("error", "malformed_output", "withheld", 1)
    );
    assert!(
        only(&run)["summary"]
            .as_str()
            .unwrap()
            .ends_with("string pointer/length out of bounds of memory"),
        "{}",
        only(&run)
    );
}

#[test]
fn evidence_that_cannot_be_stored() {
    // The reader's stdout is evidence; its folder cannot be made (a file is
    // in the way). The run passed, but what it proves is lost: invalid.
    let (scratch, contract) = setup(fixtures::READER, "");
    scratch.write("in-the-way", "");
    let dir = scratch.path().join("in-the-way/evidence");
    let run = run(
        &scratch,
        &contract,
        &["--evidence-dir", dir.to_str().unwrap()],
    );
    assert_eq!(outcome(&run), expect("pass", "validator", "invalid", 2));
    let reason = run.json()["reason"].as_str().unwrap().to_string();
    assert!(
        reason.starts_with("evidence could not be stored: ") && reason.contains("in-the-way"),
        "{reason}"
    );
}

#[test]
fn a_report_that_cannot_be_written() {
    let (scratch, contract) = setup(fixtures::READER, "");
    scratch.write("in-the-way", "");
    let path = scratch.path().join("in-the-way/report.json");
    let run = run(&scratch, &contract, &["--report", path.to_str().unwrap()]);
    // A run whose report cannot be kept does not start; what is printed
    // says why: never "accepted" with exit 2.
    assert_eq!(run.code, 2);
    assert_eq!(run.json()["verdict"], "invalid");
    assert_eq!(run.json()["criteria"], serde_json::json!([]));
    let reason = run.json()["reason"].as_str().unwrap().to_string();
    assert!(
        reason.starts_with("the report could not be written to "),
        "{reason}"
    );
}

#[test]
fn compile_time_is_bounded() {
    // VCC_COMPILE_TIMEOUT lowered to 1 ms stands in for a component built
    // to take very long to compile: the compile is abandoned, the MUST
    // bound to it cannot be verified, and vcc does not wait for it.
    let (scratch, contract) = setup(fixtures::ALWAYS_PASS, "");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_vcc"))
        .args(["--no-cache", "check"])
        .arg(&contract)
        .arg("--dir")
        .arg(scratch.path().join("out"))
        .args(["--format", "json"])
        .env("VCC_COMPILE_TIMEOUT", "1ms")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["verdict"], "invalid");
    let problem = &report["problems"][0];
    assert_eq!(problem["code"], "UNVERIFIABLE_MUST");
    assert!(
        problem["message"]
            .as_str()
            .unwrap()
            .ends_with("it did not compile within 1ms"),
        "{problem}"
    );
}

#[test]
fn liar() {
    // It prints that AC-2 passed and that the run is accepted; AC-2 is its
    // own criterion (always-fail), and only the host decides the verdict.
    let scratch = Scratch::new();
    scratch.write("out/a.md", "x");
    let contract = scratch.write(
        "contract.yaml",
        format!(
            "vcc: 1\nid: liar\ndeliverables:\n  - {{ id: a, path: \"*.md\" }}\nvalidators:\n  liar: {{ component: {:?} }}\n  fail: {{ component: {:?} }}\ncriteria:\n  - {{ id: AC-1, severity: must, validator: liar, targets: [a] }}\n  - {{ id: AC-2, severity: must, validator: fail, targets: [a] }}\n",
            fixtures::LIAR,
            fixtures::ALWAYS_FAIL
        ),
    );
    let run = run(&scratch, &contract, &[]);
    assert_eq!(run.code, 1);
    assert_eq!(run.json()["verdict"], "rejected");
    assert_eq!(run.criterion("AC-1")["status"], "fail");
    assert_eq!(run.criterion("AC-2")["status"], "fail");
    let evidence = run.criterion("AC-1")["evidence"]
        .as_array()
        .unwrap()
        .clone();
    let names: Vec<&str> = evidence
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        vec!["stdout", "stderr"],
        "what it printed is only evidence"
    );
}

#[test]
fn stateful() {
    // Three runs of the same component: each gets a fresh store, so each is
    // the first call (a shared instance would make the later ones pass).
    let scratch = Scratch::new();
    scratch.write("out/a.md", "x");
    let contract = scratch.write(
        "contract.yaml",
        format!(
            "vcc: 1\nid: stateful\ndeliverables:\n  - {{ id: a, path: \"*.md\" }}\nvalidators:\n  s: {{ component: {:?} }}\ncriteria:\n  - {{ id: AC-1, severity: must, validator: s, targets: [a] }}\n  - {{ id: AC-2, severity: must, validator: s, targets: [a] }}\n  - {{ id: AC-3, severity: must, validator: s, targets: [a] }}\n",
            fixtures::STATEFUL
        ),
    );
    let run = run(&scratch, &contract, &["--jobs", "1"]);
    for id in ["AC-1", "AC-2", "AC-3"] {
        assert_eq!(run.criterion(id)["summary"], "call #1", "{id}");
        assert_eq!(run.criterion(id)["status"], "fail", "{id}");
    }
    assert_eq!(run.json()["verdict"], "rejected");
    assert_eq!(run.code, 1);
}

#[test]
fn declared_stateless() {
    // The same counter as `stateful`, declared stateless: one instance
    // serves the criteria that share its limits, in order on one worker;
    // AC-3's other memory cap gets a fresh instance.
    let scratch = Scratch::new();
    scratch.write("out/a.md", "x");
    let contract = scratch.write(
        "contract.yaml",
        format!(
            "vcc: 1\nid: declared\ndeliverables:\n  - {{ id: a, path: \"*.md\" }}\nvalidators:\n  s: {{ component: {:?} }}\ncriteria:\n  - {{ id: AC-1, severity: must, validator: s, targets: [a] }}\n  - {{ id: AC-2, severity: must, validator: s, targets: [a] }}\n  - {{ id: AC-3, severity: must, validator: s, targets: [a], limits: {{ memory: 96MiB }} }}\n",
            fixtures::DECLARED_STATELESS
        ),
    );
    let run = run(&scratch, &contract, &["--jobs", "1"]);
    for (id, summary) in [
        ("AC-1", "call #1"),
        ("AC-2", "call #2"),
        ("AC-3", "call #1"),
    ] {
        assert_eq!(run.criterion(id)["summary"], summary, "{id}");
    }
    assert_eq!(run.code, 0);
}

#[test]
fn escapes() {
    let (scratch, contract) = setup(fixtures::ESCAPES, "");
    let out = scratch.path().join("out");
    let human = vcc(&[
        "check",
        contract.to_str().unwrap(),
        "--dir",
        out.to_str().unwrap(),
        "--color",
        "never",
    ]);
    assert_eq!(human.code, 1);
    for raw in ['\x1b', '\x07', '\r', '\u{202e}'] {
        assert!(
            !human.stderr.contains(raw),
            "{raw:?} reached the terminal: {:?}",
            human.stderr
        );
    }
    assert!(human.stderr.contains("\\u001b[32mPASS"), "{}", human.stderr);
    assert!(
        human.stderr.contains("verdict: REJECTED"),
        "{}",
        human.stderr
    );
    // JSON keeps the exact text, escaped by JSON's rules.
    let run = run(&scratch, &contract, &[]);
    assert_eq!(outcome(&run), expect("fail", "validator", "rejected", 1));
    assert_eq!(
        only(&run)["summary"],
        "\x1b[2K\r\x1b[32mPASS\x1b[0m all good\x07"
    );
    assert!(!run.stdout.contains('\x1b'));
}

#[test]
fn missing_export() {
    let (_scratch, contract) = setup(fixtures::MISSING_EXPORT, "");
    let lint = vcc(&["lint", contract.to_str().unwrap(), "--format", "json"]);
    assert_eq!(lint.code, 2);
    let problem = &lint.json()["problems"][0];
    assert_eq!(problem["code"], "UNVERIFIABLE_MUST");
    assert!(
        problem["message"].as_str().unwrap().contains("validate"),
        "{problem}"
    );
}

#[test]
fn clock_and_random() {
    let (scratch, contract) = setup(fixtures::CLOCK_AND_RANDOM, "");
    let first = run(&scratch, &contract, &[]);
    let second = run(&scratch, &contract, &[]);
    assert_eq!(outcome(&first), expect("pass", "validator", "accepted", 0));
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
    // The book's Rust validator example (docs/src/guide/validators.md) is
    // this fixture, verbatim.
    let source =
        std::fs::read_to_string(crate::repo().join("tests/guests/readme-example/src/lib.rs"))
            .unwrap();
    let readme =
        std::fs::read_to_string(crate::repo().join("docs/src/guide/validators.md")).unwrap();
    assert!(
        readme.contains(&format!("```rust\n{source}```")),
        "docs/src/guide/validators.md and tests/guests/readme-example differ"
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
