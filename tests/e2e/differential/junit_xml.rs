//! JUnit XML: std/junit against junitparser 5.0.3 (over lxml) and Python's
//! ElementTree read as a whole-document reader reads a report
//! (tests/differential/junit-xml/reference.py). Inputs: every `.xml` of
//! the junit golden and forgery cases and reports from
//! tests/differential/junit-xml/generate.py (fixed seed): nesting,
//! namespaces, encodings, entities, duplicate tests, skipped and flaky
//! elements. One `vcc check` judges them all (a criterion per report,
//! `min_tests: 0`); where vcc passes ("N test(s) passed"), a reader must
//! read the report, see exactly N test cases and no failure, error or
//! skip. A vcc fail or error is a refusal: allowed.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use super::{Inputs, Tally};
use crate::{check_json, repo};

/// How many reports the generator writes, and its seed.
const GENERATED: &str = "300";
const SEED: &str = "34";

/// The Python of tests/install-tools.sh that has junitparser over lxml.
fn xml_python() -> PathBuf {
    crate::world::tools_dir().join("diff-xml-py/bin/python")
}

/// Whether a reader's view agrees with a vcc pass of `passed` tests.
fn holds(seen: &Value, passed: u64) -> bool {
    seen.get("error").is_none()
        && seen["tests"].as_u64() == Some(passed)
        && ["failed", "errored", "skipped"]
            .iter()
            .all(|k| seen[*k].as_u64() == Some(0))
}

#[test]
fn std_junit_reads_xml_as_junitparser_does() {
    let gathered = Inputs::gather("junit", "xml", &xml_python(), "junit-xml", GENERATED, SEED);
    let (work, inputs, names, case_count) = (
        &gathered.work,
        &gathered.dir,
        &gathered.names,
        gathered.from_cases,
    );
    let script = repo().join("tests/differential/junit-xml");
    let mut contract = gathered.contract_head("junit-xml", "std/junit");
    for i in 0..names.len() {
        contract += &format!(
            "  - {{ id: J{i}, severity: must, validator: v, targets: [d{i}], params: {{ min_tests: 0 }} }}\n"
        );
    }
    let contract_path = work.path().join("contract.yaml");
    fs::write(&contract_path, contract).expect("write contract");
    let run = check_json(&contract_path, &[]);
    let report: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}): {}", run.stderr));

    let reference = Command::new(xml_python())
        .arg(script.join("reference.py"))
        .args(names.iter().map(|n| inputs.join(n)))
        .output()
        .expect("run reference.py");
    assert!(
        reference.status.success(),
        "reference.py failed: {}",
        String::from_utf8_lossy(&reference.stderr)
    );
    let by_path: BTreeMap<String, Value> =
        serde_json::from_slice(&reference.stdout).expect("reference JSON");

    let mut tally = Tally::default();
    let mut readers_seen = 0;
    for (i, name) in names.iter().enumerate() {
        tally.inputs += 1;
        let readers = by_path[&inputs.join(name).display().to_string()]
            .as_object()
            .expect("readers");
        readers_seen = readers_seen.max(readers.len());
        let id = format!("J{i}");
        let got = report["criteria"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["id"] == id.as_str()))
            .unwrap_or_else(|| panic!("{id} ({name}) not in the report"));
        let summary = got["summary"].as_str().unwrap_or("");
        let vcc_passed = (got["status"] == "pass").then(|| {
            summary
                .split_whitespace()
                .next()
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(u64::MAX)
        });
        for (reader, seen) in readers {
            tally.compared += 1;
            let clean = holds(seen, seen["tests"].as_u64().unwrap_or(u64::MAX));
            match vcc_passed {
                None if clean => tally.refused += 1,
                None => tally.agreed += 1,
                Some(n) if holds(seen, n) => tally.agreed += 1,
                Some(_) => tally.disagreements.push(format!(
                    "{name}: vcc passed ({summary}), {reader} saw {seen}"
                )),
            }
        }
    }
    assert_eq!(
        readers_seen, 2,
        "both readers ran (junitparser is installed)"
    );
    eprintln!(
        "differential junit-xml: {case_count} inputs from cases/forgeries, {GENERATED} generated (seed {SEED})"
    );
    tally.finish("junit-xml");
}
