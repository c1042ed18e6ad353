//! Files that belong to the contract: `{ $file: PATH }` in params, read
//! relative to the contract file, folded into the contract's digest.

use std::fs;

use serde_json::json;
use vcc_test_support::{Scratch, file_digest};

use crate::{check_json, vcc};

const CONTRACT: &str = "vcc: 1\nid: with-files\nroot: ../out\ndeliverables:\n  - { id: data, path: data.json }\nvalidators:\n  schema: { component: std/json-schema }\ncriteria:\n  - { id: shape, severity: must, validator: schema, targets: [data], params: { schema: { $file: schemas/data.json } } }\n";

fn project() -> Scratch {
    let scratch = Scratch::new();
    scratch.write("out/data.json", r#"{"name": "vcc"}"#);
    scratch.write(
        "ci/schemas/data.json",
        r#"{"type": "object", "required": ["name"]}"#,
    );
    scratch.write("ci/contract.yaml", CONTRACT);
    scratch
}

#[test]
fn a_schema_beside_the_contract_is_read_and_hashed_into_its_digest() {
    let scratch = project();
    let contract = scratch.path().join("ci/contract.yaml");
    let schema = scratch.path().join("ci/schemas/data.json");
    let run = check_json(&contract, &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let report = run.json();
    assert_eq!(
        report["contract"]["files"],
        json!([{ "path": "schemas/data.json", "digest": file_digest(&schema) }])
    );
    let digest = report["contract"]["digest"].as_str().unwrap().to_string();
    assert_ne!(
        digest,
        file_digest(&contract),
        "the digest covers the file too"
    );

    // The author tightens the schema: the contract changed, and so does the verdict.
    fs::write(
        &schema,
        r#"{"type": "object", "required": ["name", "version"]}"#,
    )
    .unwrap();
    let run = check_json(&contract, &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(run.criterion("shape")["status"], "fail");
    assert_ne!(run.json()["contract"]["digest"], digest.as_str());
}

#[test]
fn a_file_that_cannot_be_read_is_a_params_error_with_its_line() {
    let scratch = project();
    fs::remove_file(scratch.path().join("ci/schemas/data.json")).unwrap();
    let contract = scratch.path().join("ci/contract.yaml");
    let run = vcc(&["lint", contract.to_str().unwrap(), "--format", "json"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let p = &run.json()["problems"][0];
    assert_eq!(p["code"], "INVALID_PARAMS");
    assert_eq!(p["field"], "criteria[0].params.schema[\"$file\"]");
    assert_eq!(p["line"], 9);
    assert!(
        p["message"]
            .as_str()
            .unwrap()
            .starts_with("`schemas/data.json`: cannot open it"),
        "{p}"
    );
    let run = check_json(&contract, &[]);
    assert_eq!(run.code, 2);
    assert_eq!(run.json()["verdict"], "invalid");
}

#[test]
fn a_contract_file_the_producer_can_edit_is_a_warning() {
    let scratch = project();
    // The contract and its schema inside the root it judges.
    let contract = scratch.write("out/contract.yaml", CONTRACT.replace("root: ../out\n", ""));
    scratch.write(
        "out/schemas/data.json",
        r#"{"type": "object", "required": ["name"]}"#,
    );
    let run = vcc(&["lint", contract.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("warning[CONTRACT_FILE_IN_ROOT]")
            && run
                .stderr
                .contains("`schemas/data.json` lies under the deliverable root"),
        "{}",
        run.stderr
    );
}

#[test]
fn lint_dir_checks_params_that_name_files_in_the_root() {
    let scratch = Scratch::new();
    scratch.write("out/data.json", r#"{"name": "vcc"}"#);
    let contract = scratch.write(
        "contract.yaml",
        "vcc: 1\nid: root-files\ndeliverables:\n  - { id: data, path: data.json }\nvalidators:\n  schema: { component: std/json-schema }\ncriteria:\n  - { id: shape, severity: must, validator: schema, targets: [data], params: { schema_file: schemas/data.json } }\n",
    );
    let out = scratch.path().join("out");
    let run = vcc(&[
        "lint",
        contract.to_str().unwrap(),
        "--dir",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("criteria[0].params.schema_file: `schema_file: schemas/data.json` names no file in the deliverable root"),
        "{}",
        run.stderr
    );
    scratch.write("out/schemas/data.json", r#"{"type": "object"}"#);
    let run = vcc(&[
        "lint",
        contract.to_str().unwrap(),
        "--dir",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}
