//! Hostile contracts (tests/hostile/README.md): malformed, oversized or tampered
//! contract files. Each is refused before any validator runs: verdict
//! `invalid`, exit 2, no criterion evaluated, the problem named by its
//! stable code (and field), and the deliverables untouched.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use vcc_test_support::{Scratch, digests, file_digest, fixtures, make_fifo};

use crate::{Run, check_within};

const PATIENCE: Duration = Duration::from_secs(120);

/// A well-formed contract: one MUST on one deliverable.
const GOOD: &str = "vcc: 1
id: hostile-contract
deliverables:
  - { id: d, path: notes.md }
validators:
  v: { component: std/file-exists }
criteria:
  - { id: AC-1, severity: must, validator: v, targets: [d] }
";

fn scratch() -> Scratch {
    let scratch = Scratch::new();
    scratch.write("out/notes.md", "# Notes\n");
    scratch
}

/// Check `contract` over `out/`, asserting nothing in `out/` changed.
fn check(scratch: &Scratch, contract: &Path) -> Run {
    let out = scratch.path().join("out");
    let before = digests(&out);
    let run = check_within(contract, &["--dir", out.to_str().unwrap()], PATIENCE);
    assert_eq!(digests(&out), before, "the run changed the deliverables");
    run
}

/// Write `text` as `name`, check it, and return each problem as
/// `CODE field: message` (errors only), after asserting the run was
/// refused as a whole.
fn refused_as(name: &str, text: impl AsRef<[u8]>) -> Vec<String> {
    let scratch = scratch();
    let contract = scratch.write(name, text);
    refused(&scratch, &contract)
}

fn refused(scratch: &Scratch, contract: &Path) -> Vec<String> {
    let run = check(scratch, contract);
    assert_eq!(run.code, 2, "{}", run.stdout);
    let report = run.json();
    assert_eq!(report["verdict"], "invalid");
    assert_eq!(report["criteria"], serde_json::json!([]));
    report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["level"] == "error")
        .map(|p| {
            format!(
                "{} {}: {}",
                p["code"].as_str().unwrap(),
                p["field"].as_str().unwrap_or("-"),
                p["message"].as_str().unwrap()
            )
        })
        .collect()
}

fn yaml(text: &str) -> Vec<String> {
    refused_as("contract.yaml", text)
}

/// The one problem, which must start with `prefix` (code and field).
fn one(problems: Vec<String>, prefix: &str) -> String {
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert!(problems[0].starts_with(prefix), "{problems:#?}");
    problems.into_iter().next().unwrap_or_default()
}

#[test]
fn yaml_alias_bomb() {
    // Ten levels of ten aliases: 10^10 nodes if expanded. Refused unread.
    let mut bomb = String::from("vcc: 1\nid: bomb\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..=10 {
        let p = format!("*a{}", i - 1);
        bomb.push_str(&format!("a{i}: &a{i} [{}]\n", vec![p; 10].join(", ")));
    }
    let problem = one(yaml(&bomb), "SYNTAX_ERROR -: ");
    assert!(
        problem.contains("aliases expand to too much data"),
        "{problem}"
    );
}

#[test]
fn deeply_nested_yaml() {
    let deep = format!(
        "vcc: 1\nid: deep\nx-deep: {}1{}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    one(yaml(&deep), "SYNTAX_ERROR -: ");
}

#[test]
fn deeply_nested_json() {
    let deep = format!(
        "{{\"vcc\": 1, \"id\": \"deep\", \"x-deep\": {}1{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    one(refused_as("contract.json", deep), "SYNTAX_ERROR -: ");
}

#[test]
fn a_hundred_megabyte_contract() {
    // Sparse, so the test is cheap; vcc stops reading at its 4 MiB cap.
    let scratch = scratch();
    let contract = scratch.write("contract.yaml", GOOD);
    let file = std::fs::OpenOptions::new()
        .append(true)
        .open(&contract)
        .unwrap();
    file.set_len(100 << 20).unwrap();
    let problem = one(refused(&scratch, &contract), "CONTRACT_TOO_LARGE -: ");
    assert!(problem.contains("larger than 4 MiB"), "{problem}");
}

#[test]
fn several_yaml_documents() {
    // A second document could carry a second, laxer contract.
    let text = format!(
        "{GOOD}---\n{}",
        GOOD.replace("severity: must", "severity: may")
    );
    one(yaml(&text), "MULTIPLE_DOCUMENTS -: ");
}

#[test]
fn a_custom_yaml_tag() {
    one(
        yaml(&GOOD.replace("id: hostile-contract", "id: !!python/object hostile")),
        "YAML_TAG -: ",
    );
}

#[test]
fn duplicate_keys_deep_in_params() {
    // serde would keep the last `min` silently; the author may have meant
    // the first.
    let text = GOOD.replace(
        "targets: [d] }",
        "targets: [d], params: { x: { min: 1, min: 0 } } }",
    );
    let problem = one(yaml(&text), "DUPLICATE_KEY -: ");
    assert!(problem.contains("`min`"), "{problem}");
}

#[test]
fn duplicate_keys_in_json() {
    let text = r#"{"vcc": 1, "id": "a", "deliverables": [], "criteria": [], "criteria": []}"#;
    one(refused_as("contract.json", text), "DUPLICATE_KEY -: ");
}

#[test]
fn duplicate_criterion_ids() {
    // A second AC-1 could shadow the first in a report reader.
    let text = format!("{GOOD}  - {{ id: AC-1, severity: may, validator: v, targets: [d] }}\n");
    one(yaml(&text), "DUPLICATE_ID criteria[1].id: ");
}

#[test]
fn an_unknown_field() {
    // A misspelt `limits` would otherwise be ignored: the author's limit
    // silently not applied.
    let text = GOOD.replace("targets: [d] }", "targets: [d], limts: { timeout: 1s } }");
    one(yaml(&text), "UNKNOWN_FIELD criteria[0].limts: ");
}

#[test]
fn a_misspelt_severity() {
    one(
        yaml(&GOOD.replace("severity: must", "severity: MUSTT")),
        "INVALID_VALUE criteria[0].severity: ",
    );
}

#[test]
fn a_must_bound_to_no_validator() {
    one(
        yaml(&GOOD.replace("validator: v, ", "")),
        "MISSING_FIELD criteria[0]: missing field `validator`",
    );
}

#[test]
fn a_must_bound_to_an_undeclared_validator() {
    one(
        yaml(&GOOD.replace("validator: v,", "validator: ghost,")),
        "UNKNOWN_VALIDATOR criteria[0].validator: ",
    );
}

#[test]
fn a_must_bound_to_a_component_that_does_not_exist() {
    let problem = one(
        yaml(&GOOD.replace("std/file-exists", "missing/validator.wasm")),
        "UNVERIFIABLE_MUST criteria[0].validator: ",
    );
    assert!(problem.contains("validator.wasm"), "{problem}");
}

#[test]
fn a_must_bound_to_a_component_that_is_a_fifo() {
    // Opening a FIFO waits for a writer; vcc must refuse it at once.
    let scratch = scratch();
    make_fifo(&scratch.path().join("pipe.wasm"));
    let contract = scratch.write(
        "contract.yaml",
        GOOD.replace("std/file-exists", "pipe.wasm"),
    );
    let problem = one(
        refused(&scratch, &contract),
        "UNVERIFIABLE_MUST criteria[0].validator: ",
    );
    assert!(problem.contains("not a regular file (a FIFO)"), "{problem}");
}

#[test]
fn a_component_over_the_size_cap() {
    // 129 MiB (sparse): refused by its size before it is read or compiled.
    let scratch = scratch();
    let big = std::fs::File::create(scratch.path().join("big.wasm")).unwrap();
    big.set_len(129 << 20).unwrap();
    let contract = scratch.write("contract.yaml", GOOD.replace("std/file-exists", "big.wasm"));
    let problem = one(
        refused(&scratch, &contract),
        "UNVERIFIABLE_MUST criteria[0].validator: ",
    );
    assert!(
        problem.contains("over the 128 MiB component cap"),
        "{problem}"
    );
}

#[test]
fn no_must_at_all() {
    one(
        yaml(&GOOD.replace("severity: must", "severity: should")),
        "NO_MUST criteria: ",
    );
}

#[test]
fn a_dependency_cycle() {
    let text = GOOD.replace(
        "  - { id: d, path: notes.md }",
        "  - { id: d, path: notes.md, depends_on: [e] }\n  - { id: e, path: more.md, depends_on: [d] }",
    );
    let problems = yaml(&text);
    assert!(
        problems.iter().any(|p| p.starts_with("DEPENDENCY_CYCLE ")),
        "{problems:#?}"
    );
}

#[test]
fn an_absolute_path() {
    one(
        yaml(&GOOD.replace("path: notes.md", "path: /etc/passwd")),
        "PATH_ABSOLUTE deliverables[0].path: ",
    );
}

#[test]
fn a_path_with_dot_dot() {
    one(
        yaml(&GOOD.replace("path: notes.md", "path: docs/../../secret")),
        "PATH_ESCAPES_ROOT deliverables[0].path: ",
    );
}

#[test]
fn a_path_with_a_nul_byte() {
    one(
        yaml(&GOOD.replace("path: notes.md", "path: \"notes.md\\0.txt\"")),
        "PATH_INVALID deliverables[0].path: the path contains a NUL byte",
    );
}

#[test]
fn an_empty_path() {
    one(
        yaml(&GOOD.replace("path: notes.md", "path: \"\"")),
        "PATH_INVALID deliverables[0].path: the path is empty",
    );
}

#[test]
fn a_limit_that_overflows() {
    let problem = one(
        yaml(&format!(
            "{GOOD}limits: {{ timeout: 99999999999999999999999h }}\n"
        )),
        "INVALID_VALUE limits.timeout: ",
    );
    assert!(problem.contains("too large"), "{problem}");
}

#[test]
fn a_negative_limit() {
    one(
        yaml(&format!("{GOOD}limits: {{ memory: -1MiB }}\n")),
        "INVALID_VALUE limits.memory: ",
    );
}

#[test]
fn a_nan_limit() {
    let problem = one(
        yaml(&format!("{GOOD}limits: {{ memory: .nan }}\n")),
        "SYNTAX_ERROR -: ",
    );
    assert!(problem.contains("not finite"), "{problem}");
}

#[test]
fn a_limit_beyond_the_host_ceiling() {
    one(
        yaml(&format!("{GOOD}limits: {{ timeout: 3h }}\n")),
        "LIMIT_OUT_OF_RANGE limits.timeout: ",
    );
}

#[test]
fn a_contract_that_is_a_fifo() {
    let scratch = scratch();
    let pipe = scratch.path().join("contract.yaml");
    make_fifo(&pipe);
    let problem = one(refused(&scratch, &pipe), "CONTRACT_UNREADABLE -: ");
    assert!(problem.contains("not a regular file (a FIFO)"), "{problem}");
}

#[test]
fn a_contract_that_is_not_utf8() {
    one(
        refused_as("contract.yaml", b"vcc: 1\nid: \xff\xfe\n"),
        "NOT_UTF8 -: the contract is not UTF-8 (invalid byte at offset 11)",
    );
}

#[test]
fn escapes_in_contract_text_stay_escaped() {
    let scratch = scratch();
    let contract = scratch.write(
        "contract.yaml",
        GOOD.replace("id: AC-1", "id: \"AC-1\\e[2J\\nverdict: ACCEPTED\""),
    );
    let human = crate::vcc(&[
        "check",
        contract.to_str().unwrap(),
        "--dir",
        scratch.path().join("out").to_str().unwrap(),
    ]);
    assert_eq!(human.code, 2);
    assert!(!human.stderr.contains('\u{1b}'), "{}", human.stderr);
    assert!(human.stderr.contains("AC-1\\u001b[2J"), "{}", human.stderr);
    assert!(
        !human
            .stderr
            .lines()
            .any(|l| l.starts_with("verdict: ACCEPTED")),
        "{}",
        human.stderr
    );
}

#[test]
fn the_contract_changes_while_it_is_evaluated() {
    // Read and hashed once: rewriting the file mid-run (here into a
    // contract that would pass) changes neither the criteria evaluated nor
    // the digest the report is bound to.
    let scratch = scratch();
    let original = GOOD.replace("std/file-exists", &format!("{:?}", fixtures::INFINITE_LOOP))
        + "limits: { timeout: 1s }\n";
    let contract = scratch.write("contract.yaml", &original);
    let digest = file_digest(&contract);
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_vcc"))
        .arg("check")
        .arg(&contract)
        .arg("--dir")
        .arg(scratch.path().join("out"))
        .args(["--format", "json"])
        .env("VCC_CACHE_DIR", crate::shared_cache())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let running = vcc_test_support::wait_for_thread(child.id(), "vcc-validate", PATIENCE);
    std::fs::write(&contract, GOOD.replace("id: AC-1", "id: AC-9")).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(running, "the validator never started: {output:?}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["contract"]["digest"], digest.as_str());
    assert_eq!(report["criteria"][0]["id"], "AC-1");
    assert_eq!(report["criteria"][0]["reason"], "timeout");
    assert_eq!(report["verdict"], "withheld");
    assert_eq!(output.status.code(), Some(1));
    assert_ne!(file_digest(&contract), digest);
}

#[test]
fn a_judge_the_producer_can_replace_must_be_pinned() {
    // The component sits next to the contract, inside the deliverable
    // root (the contract's folder by default): whoever writes the
    // deliverables could swap it for one that always passes.
    let scratch = Scratch::new();
    scratch.write("notes.md", "# Notes\n");
    scratch.component(fixtures::ALWAYS_PASS, "v.wasm");
    let digest = file_digest(&scratch.path().join("v.wasm"));
    let unpinned = GOOD.replace("std/file-exists", "./v.wasm");
    let contract = scratch.write("contract.yaml", &unpinned);
    let lint = crate::vcc(&["lint", contract.to_str().unwrap(), "--format", "json"]);
    assert_eq!(lint.code, 2, "{}", lint.stdout);
    let problem = &lint.json()["problems"][0];
    assert_eq!(problem["code"], "UNPINNED_VALIDATOR");
    assert_eq!(problem["level"], "error");
    assert_eq!(problem["field"], "validators.v.component");
    assert!(
        problem["help"].as_str().unwrap().contains(&digest),
        "the help gives the pin: {problem}"
    );
    let run = check_within(&contract, &[], PATIENCE);
    assert_eq!(run.code, 2, "{}", run.stdout);

    // Pinned, it runs; swapped after pinning, the pin refuses it.
    let pinned = unpinned.replace(
        "component: ./v.wasm }",
        &format!("component: ./v.wasm, digest: \"{digest}\" }}"),
    );
    scratch.write("contract.yaml", &pinned);
    let run = check_within(&contract, &[], PATIENCE);
    assert_eq!(run.code, 0, "{}", run.stdout);
    scratch.component(fixtures::ALWAYS_FAIL, "v.wasm");
    let run = check_within(&contract, &[], PATIENCE);
    assert_eq!(run.code, 2);
    assert!(run.stdout.contains("UNVERIFIABLE_MUST"), "{}", run.stdout);

    // Outside the root (`--dir` elsewhere), an unpinned judge is a warning.
    scratch.write("contract.yaml", &unpinned);
    scratch.write("out/notes.md", "# Notes\n");
    let out = scratch.path().join("out");
    let lint = crate::vcc(&[
        "lint",
        contract.to_str().unwrap(),
        "--dir",
        out.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(lint.code, 0, "{}", lint.stdout);
    assert_eq!(lint.json()["problems"][0]["code"], "UNPINNED_VALIDATOR");
    assert_eq!(lint.json()["problems"][0]["level"], "warning");
}
