//! SARIF: std/sarif against the specification's level algorithm written in
//! Python (tests/differential/sarif/reference.py, rules found through
//! `rule.toolComponent` into `tool.extensions`) and sarif-tools' reading
//! of levels (rules in the driver only, on every log: std/sarif counts
//! the higher of both readings). Inputs: every `.sarif` of the sarif golden and forgery cases
//! and logs from tests/differential/sarif/generate.py (fixed seed). One
//! `vcc check` judges them all, each log at `level: error`, `warning` and
//! `note` with `max_results: 0`; where vcc passes, a reader must read the
//! log, see an analysed run and no failed tool, and count no result at or
//! above that level (an unresolved rule counts at every level).

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use super::{Inputs, Tally};
use crate::{check_json, repo};

/// How many logs the generator writes, and its seed.
const GENERATED: &str = "300";
const SEED: &str = "34";

/// The thresholds each log is judged at, lowest rank first.
const LEVELS: [&str; 3] = ["note", "warning", "error"];

/// The Python of tests/install-tools.sh that has sarif-tools.
fn reports_python() -> PathBuf {
    crate::world::tools_dir().join("reports-py/bin/python")
}

/// Whether a reader's view of a log holds at `level`: read, analysed, no
/// failed tool, and no result at or above the level (nor unresolved).
fn holds(seen: &Value, level: &str) -> bool {
    if seen.get("error").is_some() {
        return false;
    }
    let rank = |l: &str| LEVELS.iter().position(|x| *x == l);
    let threshold = rank(level).unwrap_or(0);
    seen["analysed"].as_u64().unwrap_or(0) > 0
        && seen["tool_failed"] == false
        && seen["levels"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .all(|l| l != "unresolved" && rank(l).is_none_or(|r| r < threshold))
}

#[test]
fn std_sarif_counts_levels_as_the_specification_does() {
    let gathered = Inputs::gather(
        "sarif",
        "sarif",
        &reports_python(),
        "sarif",
        GENERATED,
        SEED,
    );
    let (work, inputs, names, case_count) = (
        &gathered.work,
        &gathered.dir,
        &gathered.names,
        gathered.from_cases,
    );
    let script = repo().join("tests/differential/sarif");
    let mut contract = gathered.contract_head("sarif", "std/sarif");
    for i in 0..names.len() {
        for level in LEVELS {
            contract += &format!(
                "  - {{ id: S{i}-{level}, severity: must, validator: v, targets: [d{i}], params: {{ level: {level}, max_results: 0 }} }}\n"
            );
        }
    }
    let contract_path = work.path().join("contract.yaml");
    fs::write(&contract_path, contract).expect("write contract");
    let run = check_json(&contract_path, &[]);
    let report: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}): {}", run.stderr));

    let reference = Command::new(reports_python())
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
        for level in LEVELS {
            let id = format!("S{i}-{level}");
            let got = report["criteria"]
                .as_array()
                .and_then(|c| c.iter().find(|c| c["id"] == id.as_str()))
                .unwrap_or_else(|| panic!("{id} ({name}) not in the report"));
            let passed = got["status"] == "pass";
            for (reader, seen) in readers {
                // A reader that says it does not read a log is not compared.
                if seen.get("not_read").is_some() {
                    continue;
                }
                tally.compared += 1;
                match (passed, holds(seen, level)) {
                    (true, true) | (false, false) => tally.agreed += 1,
                    (false, true) => tally.refused += 1,
                    (true, false) => tally.disagreements.push(format!(
                        "{name} at {level}: vcc passed ({}), {reader} saw {seen}",
                        got["summary"]
                    )),
                }
            }
        }
    }
    assert_eq!(
        readers_seen, 2,
        "both readers ran (sarif-tools is installed)"
    );
    eprintln!(
        "differential sarif: {case_count} inputs from cases/forgeries, {GENERATED} generated (seed {SEED})"
    );
    tally.finish("sarif");
}
