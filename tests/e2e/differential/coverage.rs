//! Coverage: std/coverage against coverage.py itself
//! (tests/differential/coverage, the `diff-data-py` venv). The generator
//! writes small Python projects (folders with and without `__init__.py`,
//! modules the tests never import) and measures each with coverage.py,
//! which writes the Cobertura and lcov reports vcc reads. One `vcc check`
//! judges every project at `min` 50, 75 and 90, from each report, without
//! and with `sources: [the project's src]`. Where vcc passes without
//! `sources`, coverage.py's own `report --fail-under` must pass (the same
//! report read the same way); where it passes with `sources`, the
//! project's coverage with every source file counted (coverage.py's own
//! statement count for the files its report leaves out) must pass.

use std::collections::BTreeMap;
use std::fs;
use std::process::Command;

use serde_json::Value;

use super::Tally;
use super::csv::data_python;
use crate::{check_json, repo};

/// How many projects the generator writes, and its seed.
const GENERATED: &str = "60";
const SEED: &str = "34";

/// The `min` thresholds every project is judged at.
const THRESHOLDS: [&str; 3] = ["50", "75", "90"];

/// (criterion prefix, report file under out/, with `sources`, reader).
const JUDGED: [(&str, &str, bool, &str); 4] = [
    ("X", "coverage.xml", false, "report"),
    ("XS", "coverage.xml", true, "all-sources"),
    ("L", "lcov.info", false, "report"),
    ("LS", "lcov.info", true, "all-sources"),
];

#[test]
fn std_coverage_agrees_with_coverage_py() {
    let work = tempfile::tempdir().expect("temp dir");
    let inputs = work.path().join("inputs");
    let script = repo().join("tests/differential/coverage");
    let made = Command::new(data_python())
        .arg(script.join("generate.py"))
        .args([inputs.to_str().expect("utf-8 path"), GENERATED, SEED])
        .output()
        .expect("run generate.py");
    assert!(made.status.success(), "generate.py failed: {made:?}");

    let mut names: Vec<String> = fs::read_dir(&inputs)
        .expect("read inputs")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut contract = String::from("vcc: 1\nid: differential-coverage\ndeliverables:\n");
    for (i, name) in names.iter().enumerate() {
        contract += &format!(
            "  - {{ id: x{i}, path: \"inputs/{name}/out/coverage.xml\" }}\n  - {{ id: l{i}, path: \"inputs/{name}/out/lcov.info\" }}\n  - {{ id: c{i}, path: \"inputs/{name}/src\" }}\n"
        );
    }
    contract += "validators:\n  v: { component: std/coverage }\ncriteria:\n";
    for i in 0..names.len() {
        for (prefix, file, sources, _) in JUDGED {
            let target = if file == "coverage.xml" { "x" } else { "l" };
            let extra = if sources {
                format!(", sources: [c{i}]")
            } else {
                String::new()
            };
            for t in THRESHOLDS {
                contract += &format!(
                    "  - {{ id: {prefix}{t}-{i}, severity: must, validator: v, targets: [{target}{i}], params: {{ min: {t}{extra} }} }}\n"
                );
            }
        }
    }
    let contract_path = work.path().join("contract.yaml");
    fs::write(&contract_path, contract).expect("write contract");
    let run = check_json(&contract_path, &[]);
    let report: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}): {}", run.stderr));

    let reference = Command::new(data_python())
        .arg(script.join("reference.py"))
        .arg(THRESHOLDS.join(","))
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
    let mut hidden = 0;
    for (i, name) in names.iter().enumerate() {
        tally.inputs += 1;
        let seen = &by_path[&inputs.join(name).display().to_string()];
        assert!(seen.get("error").is_none(), "{name}: {seen}");
        for (prefix, _, _, reader) in JUDGED {
            for t in THRESHOLDS {
                let id = format!("{prefix}{t}-{i}");
                let got = report["criteria"]
                    .as_array()
                    .and_then(|c| c.iter().find(|c| c["id"] == id.as_str()))
                    .unwrap_or_else(|| panic!("{id} ({name}) not in the report"));
                let passed = got["status"] == "pass";
                let holds = seen[reader]["pass"][t] == true;
                // What `sources` is for: coverage.py's own report passes,
                // the project does not.
                if reader == "report" && holds && seen["all-sources"]["pass"][t] == false {
                    hidden += 1;
                }
                tally.compared += 1;
                match (passed, holds) {
                    (true, true) | (false, false) => tally.agreed += 1,
                    (false, true) => tally.refused += 1,
                    (true, false) => tally.disagreements.push(format!(
                        "{name} {id}: vcc passed ({}), coverage.py {reader}: {}",
                        got["summary"], seen[reader]
                    )),
                }
            }
        }
    }
    eprintln!(
        "differential coverage: {GENERATED} projects (seed {SEED}); {hidden} report judgements coverage.py passes while files it never listed pull the project below the threshold"
    );
    tally.finish("coverage");
}
