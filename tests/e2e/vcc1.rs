//! VCC v1 contracts (the published schema) load and run without editing.

use serde_json::Value;
use vcc_test_support::Scratch;

use crate::{check_json, repo, vcc};

fn codes(problems: &Value, level: &str) -> Vec<String> {
    problems
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["level"] == level)
        .map(|p| {
            format!(
                "{} {}",
                p["code"].as_str().unwrap(),
                p["field"].as_str().unwrap_or("")
            )
        })
        .collect()
}

#[test]
fn software_change_example_is_accepted() {
    let contract = repo().join("contracts/examples/vcc1-software/contract.yml");
    let run = check_json(&contract, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let report = run.json();
    assert_eq!(report["contract"]["format"], "sdlaf.vcc/v1");
    for (id, component) in [
        ("AC-SW-1", "std/markdown-sections"),
        ("AC-SW-3", "std/exit-record"),
        ("AC-SW-4", "std/junit"),
        ("AC-SW-5", "std/markdown-sections"),
        ("AC-SW-6", "std/provenance"),
    ] {
        let c = run.criterion(id);
        assert_eq!(
            (c["status"].as_str(), c["validator"]["component"].as_str()),
            (Some("pass"), Some(component)),
            "{id}"
        );
    }
    // The consistency SHOULD has no validator: reported, not run.
    assert!(
        report["criteria"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["id"] != "AC-SW-2")
    );
    let notes = codes(&report["problems"], "note");
    for expected in [
        "NOT_EVALUATED intent",
        "NOT_EVALUATED gates",
        "NOT_EVALUATED packaging",
        "NOT_EVALUATED delivery",
        "NOT_EVALUATED artifacts[1].formats[0].uri",
        "NOT_EVALUATED acceptance[1].type",
        "NOT_EVALUATED acceptance[2].rule.adapter",
        "NOT_EVALUATED acceptance[5].rule",
    ] {
        assert!(
            notes.contains(&expected.to_string()),
            "{expected} not in {notes:#?}"
        );
    }
    assert!(codes(&report["problems"], "error").is_empty());
}

#[test]
fn research_example_is_rejected_on_citations() {
    let contract = repo().join("contracts/examples/vcc1-research/contract.yml");
    let run = check_json(&contract, &[]);
    assert_eq!(run.code, 1);
    assert_eq!(run.json()["verdict"], "rejected");
    let trace = run.criterion("AC-RES-3");
    assert_eq!(trace["status"], "fail");
    assert_eq!(trace["validator"]["component"], "std/citation-coverage");
    assert_eq!(trace["findings"][0]["path"], "deliverables/report.md");
    assert_eq!(trace["findings"][0]["line"], 7);
    // The catalog has CSV and JSON formats: the schema judges the JSON one.
    let schema = run.criterion("AC-RES-2");
    assert_eq!(schema["status"], "pass");
    assert_eq!(
        schema["targets"],
        serde_json::json!([{"id": "A2.json", "files": 1}])
    );
    // The rubric is judged on the score artifact the judge produced.
    let rubric = run.criterion("AC-RES-4");
    assert_eq!(rubric["status"], "pass");
    assert_eq!(rubric["validator"]["component"], "std/json-evidence");
    assert_eq!(rubric["suspect_inputs"], serde_json::json!(["A3.md"]));
}

#[test]
fn hardware_example_is_accepted() {
    let contract = repo().join("contracts/examples/vcc1-hardware/contract.yml");
    let run = check_json(&contract, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    for id in [
        "AC-HW-1", "AC-HW-2", "AC-HW-3", "AC-HW-4", "AC-HW-5", "AC-HW-7",
    ] {
        assert_eq!(run.criterion(id)["status"], "pass", "{id}");
    }
    let notes = codes(&run.json()["problems"], "note");
    assert!(
        notes.contains(&"NOT_EVALUATED acceptance[5].type".to_string()),
        "{notes:#?}"
    );
}

#[test]
fn a_must_no_validator_can_check_is_unverifiable_and_points_at_its_line() {
    let scratch = Scratch::new();
    let path = scratch.write(
        "contract.yml",
        "vccVersion: \"sdlaf.vcc/v1\"\nid: \"vcc1-consistency\"\ntitle: \"t\"\nartifacts:\n  - artifactId: \"A1\"\n    formats: [{ mediaType: \"text/markdown\", uri: \"a.md\" }]\n    required: true\n    dependsOn: []\nacceptance:\n  - acId: \"AC-1\"\n    targetArtifacts: [\"A1\"]\n    type: \"consistency\"\n    severity: \"must\"\n    rule: { description: \"free text\" }\n",
    );
    let lint = vcc(&["lint", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(lint.code, 2);
    let p = &lint.json()["problems"][0];
    assert_eq!(p["code"], "UNVERIFIABLE_MUST");
    assert_eq!(p["field"], "acceptance[0].type");
    assert_eq!(p["line"], 12);
    let human = vcc(&["lint", path.to_str().unwrap()]);
    assert!(
        human.stderr.contains("contract.yml:12:"),
        "{}",
        human.stderr
    );
    assert!(human.stderr.contains("x-vcc-validator"), "{}", human.stderr);
    let check = check_json(&path, &[]);
    assert_eq!(check.code, 2);
    assert_eq!(check.json()["verdict"], "invalid");
}
