//! JSON evidence: std/json-evidence against Python's json (strict: no NaN
//! or Infinity) with the book's wildcard semantics written independently
//! (tests/differential/json-evidence/reference.py): a wildcard judges
//! every element it reaches, an element without the rest of the path is
//! absent (like null). Inputs: the JSON files of the json-evidence cases
//! and forgeries, and documents from generate.py (fixed seed); each is
//! judged by every rule of rules.json, one criterion per (document, rule),
//! in one `vcc check`. Where vcc passes, the reference must pass; a vcc
//! fail or error is a refusal (allowed).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::Tally;
use super::trace::python;
use crate::{check_json, repo};

/// How many documents the generator writes, and its seed.
const GENERATED: &str = "200";
const SEED: &str = "34";

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            json_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

/// A rule as a YAML flow mapping: `{"path": "a[*].b", "equals": "pass"}`
/// (a space after each colon: compact JSON's `"a":1` is not YAML
/// everywhere).
fn flow(rule: &Value) -> String {
    let fields: Vec<String> = rule
        .as_object()
        .expect("a rule is an object")
        .iter()
        .map(|(k, v)| format!("{}: {v}", Value::String(k.clone())))
        .collect();
    format!("{{ {} }}", fields.join(", "))
}

#[test]
fn std_json_evidence_judges_wildcards_as_the_reference_does() {
    let work = tempfile::tempdir().unwrap();
    let docs = work.path().join("docs");
    fs::create_dir_all(&docs).unwrap();
    let script = repo().join("tests/differential/json-evidence");
    let mut sources = Vec::new();
    for set in ["tests/cases/json-evidence", "tests/forgery/json-evidence"] {
        json_files(&repo().join(set), &mut sources);
    }
    sources.sort();
    let case_count = sources.len();
    for (i, src) in sources.iter().enumerate() {
        fs::copy(src, docs.join(format!("case-{i:03}.json"))).unwrap();
    }
    let made = Command::new(python())
        .arg(script.join("generate.py"))
        .arg(&docs)
        .args([GENERATED, SEED])
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let mut names: Vec<String> = fs::read_dir(&docs)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();

    let rules_path = script.join("rules.json");
    let rules: Vec<Value> =
        serde_json::from_str(&fs::read_to_string(&rules_path).unwrap()).unwrap();
    let mut contract = String::from("vcc: 1\nid: differential-json-evidence\ndeliverables:\n");
    for (i, name) in names.iter().enumerate() {
        contract += &format!("  - {{ id: d{i}, path: \"docs/{name}\" }}\n");
    }
    contract += "validators:\n  v: { component: std/json-evidence }\ncriteria:\n";
    for i in 0..names.len() {
        for (j, rule) in rules.iter().enumerate() {
            contract += &format!(
                "  - {{ id: D{i}-R{j}, severity: must, validator: v, targets: [d{i}], params: {{ rules: [{}] }} }}\n",
                flow(rule)
            );
        }
    }
    let contract_path = work.path().join("contract.yaml");
    fs::write(&contract_path, contract).unwrap();
    let run = check_json(&contract_path, &[]);
    let report = run.json();
    let status = |id: &str| -> String {
        report["criteria"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["id"] == id))
            .and_then(|c| c["status"].as_str())
            .unwrap_or_else(|| panic!("{id} not in the report"))
            .to_string()
    };

    let out = Command::new(python())
        .arg(script.join("reference.py"))
        .arg(&rules_path)
        .args(names.iter().map(|n| docs.join(n)))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let references: Value = serde_json::from_slice(&out.stdout).unwrap();

    let mut tally = Tally::default();
    for (i, name) in names.iter().enumerate() {
        tally.inputs += 1;
        let verdicts = &references[docs.join(name).display().to_string()];
        for (j, rule) in rules.iter().enumerate() {
            tally.compared += 1;
            let passed = status(&format!("D{i}-R{j}")) == "pass";
            let reference = verdicts[j].as_str().unwrap_or("missing");
            match (passed, reference == "pass") {
                (true, true) | (false, false) => tally.agreed += 1,
                (false, true) => tally.refused += 1,
                (true, false) => tally.disagreements.push(format!(
                    "{name} {rule}: vcc passed, the reference says {reference}:\n{}",
                    fs::read_to_string(docs.join(name)).unwrap_or_default()
                )),
            }
        }
    }
    assert!(
        case_count >= 8,
        "the json-evidence cases ran ({case_count})"
    );
    tally.finish("json-evidence");
}
