//! Every example contract, run through the real CLI.

use std::fs;

use serde_json::Value;
use vcc_test_support::file_digest;

use crate::{check_json, repo, vcc};

#[test]
fn release_notes_example_is_accepted() {
    let contract = repo().join("contracts/examples/release-notes/contract.yaml");
    let run = check_json(&contract, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = run.json();
    assert_eq!(report["schema_version"], 1);
    assert_eq!(report["verdict"], "accepted");
    assert_eq!(report["contract"]["digest"], file_digest(&contract));
    for id in ["AC-1", "AC-2", "AC-3"] {
        assert_eq!(run.criterion(id)["status"], "pass", "{id}");
    }
    // AC-2 read the API description and the schema, with their digests.
    let read = &run.criterion("AC-2")["files_read"];
    let root = repo().join("contracts/examples/release-notes");
    assert_eq!(
        read,
        &serde_json::json!([
            {"path": "api/openapi.json", "digest": file_digest(&root.join("api/openapi.json"))},
            {"path": "schemas/openapi-min.schema.json", "digest": file_digest(&root.join("schemas/openapi-min.schema.json"))},
        ])
    );
    // The std validators are the embedded ones.
    let validator = &run.criterion("AC-2")["validator"];
    assert_eq!(validator["component"], "std/json-schema");
    assert_eq!(validator["wit_version"], "0.1.4");
    assert!(validator["digest"].as_str().unwrap().starts_with("blake3:"));
}

#[test]
fn the_root_digest_is_the_documented_manifest() {
    // The book (report.md): blake3 over a line per entry, in byte order of
    // the path: `path NUL size NUL hex LF` for a file, `path NUL folder NUL
    // 0 NUL LF` for a folder.
    let root = repo().join("contracts/examples/release-notes");
    let mut lines = Vec::new();
    let mut files = 0;
    let mut todo = vec![root.clone()];
    while let Some(dir) = todo.pop() {
        for entry in fs::read_dir(dir).unwrap().flatten() {
            let rel = entry
                .path()
                .strip_prefix(&root)
                .unwrap()
                .display()
                .to_string();
            if entry.file_type().unwrap().is_dir() {
                todo.push(entry.path());
                lines.push((rel.clone(), format!("{rel}\0folder\00\0\n")));
            } else {
                let bytes = fs::read(entry.path()).unwrap();
                files += 1;
                lines.push((
                    rel.clone(),
                    format!(
                        "{rel}\0{}\0{}\n",
                        bytes.len(),
                        blake3::hash(&bytes).to_hex()
                    ),
                ));
            }
        }
    }
    lines.sort();
    let manifest: String = lines.into_iter().map(|(_, line)| line).collect();
    let expected = format!("blake3:{}", blake3::hash(manifest.as_bytes()).to_hex());
    let run = check_json(&root.join("contract.yaml"), &[]);
    assert_eq!(run.json()["deliverables"]["root_digest"], expected);
    assert_eq!(run.json()["deliverables"]["files"], files);
}

#[test]
fn agent_report_example_is_rejected() {
    let contract = repo().join("contracts/examples/agent-report/contract.yaml");
    let run = check_json(&contract, &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.json()["verdict"], "rejected");

    let schema = run.criterion("REPORT-SCHEMA");
    assert_eq!(schema["status"], "fail");
    let messages: Vec<&str> = schema["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("\"conclusion\" is a required property")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.starts_with("/confidence")),
        "{messages:?}"
    );
    assert_eq!(schema["evidence"][0]["name"], "validation-errors.json");

    let summary = run.criterion("SUMMARY-PRESENT");
    assert_eq!(summary["status"], "fail");
    assert_eq!(summary["reason"], "missing_deliverable");
    // Its upstream (the report) failed a MUST: its inputs are suspect.
    assert_eq!(summary["suspect_inputs"], serde_json::json!(["report"]));

    // SHOULD and MAY are reported but do not decide.
    assert_eq!(run.criterion("SOURCES-CITED")["status"], "fail");
    assert_eq!(run.criterion("SOURCES-VALID")["status"], "pass");
    assert_eq!(
        run.json()["reason"],
        "MUST criteria failed: REPORT-SCHEMA, SUMMARY-PRESENT"
    );
}

#[test]
fn human_output_names_the_verdict_and_failures() {
    let contract = repo().join("contracts/examples/agent-report/contract.yaml");
    let run = vcc(&["check", contract.to_str().unwrap()]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.is_empty(), "human output goes to stderr");
    assert!(
        run.stderr.contains("FAIL  MUST   SUMMARY-PRESENT"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("verdict: REJECTED — MUST criteria failed"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains('\x1b'), "NO_COLOR is honoured");
}

#[test]
fn every_example_contract_lints_clean() {
    let folders = fs::read_dir(repo().join("contracts/examples"))
        .unwrap()
        .chain(fs::read_dir(repo().join("contracts/examples/vcc-v1")).unwrap())
        .flatten();
    for entry in folders {
        for name in ["contract.yaml", "contract.yml", "contract.json"] {
            let contract = entry.path().join(name);
            if contract.exists() {
                // The VCC v1 examples have AI-judged MUSTs: the judge
                // configuration beside them allows an endpoint.
                let judges = repo().join("contracts/examples/vcc-v1/judges.yaml");
                let run = vcc(&[
                    "lint",
                    contract.to_str().unwrap(),
                    "--format",
                    "json",
                    "--judges",
                    judges.to_str().unwrap(),
                ]);
                assert_eq!(run.code, 0, "{}: {}", contract.display(), run.stdout);
                assert_eq!(run.json()["errors"], Value::from(0));
            }
        }
    }
}

#[test]
fn report_file_and_evidence_dir() {
    let scratch = vcc_test_support::Scratch::new();
    let report = scratch.path().join("out/report.json");
    let evidence = scratch.path().join("evidence");
    let contract = repo().join("contracts/examples/agent-report/contract.yaml");
    // A report that cannot be written fails the run loudly (exit 2), before
    // any validator runs.
    let blocker = scratch.write("blocker", "a file, not a folder");
    let unwritable = blocker.join("report.json");
    let run = check_json(&contract, &["--report", unwritable.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("the report could not be written to"),
        "{}",
        run.stderr
    );
    assert_eq!(run.json()["verdict"], "invalid");

    let run = check_json(
        &contract,
        &[
            "--report",
            report.to_str().unwrap(),
            "--evidence-dir",
            evidence.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let written: Value = serde_json::from_str(&fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(written["verdict"], "rejected");
    assert_eq!(
        written["contract"]["digest"],
        run.json()["contract"]["digest"]
    );
    let item = &run.criterion("REPORT-SCHEMA")["evidence"][0];
    let stored = fs::read(item["file"].as_str().unwrap()).unwrap();
    assert_eq!(
        format!("blake3:{}", blake3::hash(&stored).to_hex()),
        item["digest"]
    );
    assert_eq!(stored.len() as u64, item["size"].as_u64().unwrap());
    let text = String::from_utf8(stored).unwrap();
    assert!(text.contains("conclusion"), "{text}");
}
