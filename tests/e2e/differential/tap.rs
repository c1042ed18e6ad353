//! TAP: std/junit against Perl's TAP::Parser (the parser behind `prove`).
//! Inputs: every `.tap` file of the junit golden and forgery cases, and
//! streams from tests/differential/tap/generate.py (fixed seed). One `vcc
//! check` judges them all (a criterion per stream, `min_tests: 0` and
//! `allow_skipped: true`, so vcc is as lenient as it can be); where vcc
//! passes a stream, TAP::Parser must find no problem in it and count as
//! many plain passes. A vcc fail or error is a refusal: allowed.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::Inputs;
use crate::{check_json, repo};

/// How many streams the generator writes, and its seed.
const GENERATED: &str = "400";
const SEED: &str = "34";

/// TAP::Parser's only error vcc overrules: it knows no TAP 14, which vcc
/// reads by its specification (the book, std/junit).
const VERSION_14: &str = "TAP specified version 14";

#[test]
fn std_junit_reads_tap_as_tap_parser_does() {
    let gathered = Inputs::gather(
        "junit",
        "tap",
        std::path::Path::new("python3"),
        "tap",
        GENERATED,
        SEED,
    );
    let (work, inputs, names, case_count) = (
        &gathered.work,
        &gathered.dir,
        &gathered.names,
        gathered.from_cases,
    );
    let mut contract = gathered.contract_head("tap", "std/junit");
    for i in 0..names.len() {
        contract += &format!(
            "  - {{ id: T{i}, severity: must, validator: v, targets: [d{i}], params: {{ min_tests: 0, allow_skipped: true }} }}\n"
        );
    }
    let contract_path = work.path().join("contract.yaml");
    fs::write(&contract_path, contract).expect("write contract");
    let run = check_json(&contract_path, &[]);
    let report: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}): {}", run.stderr));

    let reference = Command::new("perl")
        .arg(repo().join("tests/differential/tap/reference.pl"))
        .args(names.iter().map(|n| inputs.join(n)))
        .output()
        .expect("run perl reference.pl (Debian perl has TAP::Parser)");
    assert!(
        reference.status.success(),
        "reference.pl failed: {}",
        String::from_utf8_lossy(&reference.stderr)
    );
    let by_file: BTreeMap<String, Value> = String::from_utf8_lossy(&reference.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("reference JSON"))
        .map(|v| {
            let file = Path::new(v["file"].as_str().unwrap_or(""))
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            (file, v)
        })
        .collect();

    let (mut agree, mut refused, mut overruled) = (0, 0, 0);
    let mut disagreements = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let id = format!("T{i}");
        let got = report["criteria"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["id"] == id.as_str()))
            .unwrap_or_else(|| panic!("{id} ({name}) not in the report"));
        let r = &by_file[name];
        let errors: Vec<&str> = r["parse_errors"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let only_v14 = !errors.is_empty() && errors.iter().all(|e| e.starts_with(VERSION_14));
        let reference_good = r["has_problems"] == false
            || (only_v14 && r["failed"] == 0 && r["bailed"] == false && r["died"] == "");
        let status = got["status"].as_str().unwrap_or("");
        if status != "pass" {
            if reference_good {
                refused += 1;
            } else {
                agree += 1;
            }
            continue;
        }
        let summary = got["summary"].as_str().unwrap_or("");
        let vcc_passed: u64 = summary
            .split_whitespace()
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(u64::MAX);
        if reference_good && r["plain_passed"].as_u64() == Some(vcc_passed) {
            agree += 1;
            overruled += usize::from(only_v14);
        } else {
            let text = fs::read_to_string(inputs.join(name)).unwrap_or_default();
            disagreements.push(format!(
                "{name}: vcc passed ({summary}); TAP::Parser: {r}\n---\n{text}---"
            ));
        }
    }
    eprintln!(
        "differential tap: {} inputs compared ({case_count} from cases/forgeries, {GENERATED} generated, seed {SEED}); {agree} agreements ({overruled} TAP 14 streams TAP::Parser refuses), {refused} refusals by vcc, {} disagreements",
        names.len(),
        disagreements.len()
    );
    assert!(
        disagreements.is_empty(),
        "vcc passed what TAP::Parser does not:\n{}",
        disagreements.join("\n")
    );
}
