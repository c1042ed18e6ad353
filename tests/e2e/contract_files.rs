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

/// A schema the worker writes (`schema_file` in the root) is theirs to
/// replace: lint warns until a `digest` pins it, and a replaced pinned
/// schema is an error, never a pass (issue 34, class 11).
#[test]
fn a_schema_file_in_the_root_warns_until_pinned_and_a_replaced_one_is_an_error() {
    let scratch = Scratch::new();
    scratch.write("out/data.json", r#"{"name": "vcc"}"#);
    let schema = scratch.write(
        "out/schemas/data.json",
        r#"{"type": "object", "required": ["name"]}"#,
    );
    let unpinned = "vcc: 1\nid: pinned-schema\nroot: ../out\ndeliverables:\n  - { id: data, path: data.json }\nvalidators:\n  schema: { component: std/json-schema }\ncriteria:\n  - { id: shape, severity: must, validator: schema, targets: [data], params: { schema_file: schemas/data.json } }\n";
    let contract = scratch.write("ci/contract.yaml", unpinned);
    let digest = file_digest(&schema);
    let run = vcc(&["lint", contract.to_str().unwrap(), "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let problems = run.json()["problems"].clone();
    let warning = problems
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["code"] == "CONTRACT_FILE_IN_ROOT")
        .unwrap_or_else(|| panic!("no CONTRACT_FILE_IN_ROOT in {problems}"));
    assert_eq!(warning["field"], "criteria[0].params.schema_file");
    assert!(
        warning["help"].as_str().unwrap().contains(&digest),
        "{warning}"
    );

    // Pinned: no warning, and the schema judges.
    let pinned = unpinned.replace(
        "schema_file: schemas/data.json }",
        &format!("schema_file: schemas/data.json, digest: \"{digest}\" }}"),
    );
    fs::write(&contract, pinned).unwrap();
    let run = vcc(&["lint", contract.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !run.stderr.contains("CONTRACT_FILE_IN_ROOT"),
        "{}",
        run.stderr
    );
    let run = check_json(&contract, &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.criterion("shape")["status"], "pass");

    // The worker loosens the schema: an error, and no verdict.
    fs::write(&schema, "{}").unwrap();
    let run = check_json(&contract, &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(run.json()["verdict"], "withheld");
    let shape = run.criterion("shape");
    assert_eq!(shape["status"], "error");
    assert!(
        shape["summary"]
            .as_str()
            .unwrap()
            .contains("is not the one the contract pins"),
        "{shape}"
    );
}
