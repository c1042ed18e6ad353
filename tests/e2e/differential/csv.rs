//! CSV: std/json-schema's CSV reading against pandas and Python's `csv`
//! (tests/differential/csv/reference.py, the `diff-data-py` venv). Inputs:
//! every `.csv` of the json-schema golden and forgery cases and datasets
//! from tests/differential/csv/generate.py (fixed seed). One `vcc check`
//! judges each file by two schemas, `CLOSED` (`additionalProperties:
//! false`) and `OPEN`; where vcc passes, each reader must read the file
//! and see the same verdict: the columns `id` and `score`, an `id` and an
//! integer `score` from 0 to 100 in every row, and (`CLOSED`) no column
//! the schema does not name. A duplicate header (pandas reads the first
//! column, `DictReader` the last) holds for no reader: vcc must refuse it.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use super::{Inputs, Tally};
use crate::{check_json, repo};

/// How many datasets the generator writes, and its seed.
const GENERATED: &str = "300";
const SEED: &str = "34";

/// The rows' schema; `CLOSED` adds `additionalProperties: false`.
const ROW: &str = r#""type": "object", "required": ["id", "score"], "properties": {"id": {"type": "string", "minLength": 1}, "score": {"type": "integer", "minimum": 0, "maximum": 100}, "note": {"type": "string"}}"#;

/// The Python of tests/install-tools.sh with pandas (and coverage.py).
pub fn data_python() -> PathBuf {
    crate::world::tools_dir().join("diff-data-py/bin/python")
}

#[test]
fn std_json_schema_reads_csv_as_pandas_does() {
    let gathered = Inputs::gather("json-schema", "csv", &data_python(), "csv", GENERATED, SEED);
    let (work, inputs, names, case_count) = (
        &gathered.work,
        &gathered.dir,
        &gathered.names,
        gathered.from_cases,
    );
    let script = repo().join("tests/differential/csv");
    let mut contract = gathered.contract_head("csv", "std/json-schema");
    for i in 0..names.len() {
        for (id, extra) in [
            ("CLOSED", r#", "additionalProperties": false"#),
            ("OPEN", ""),
        ] {
            contract += &format!(
                "  - {{ id: {id}-{i}, severity: must, validator: v, targets: [d{i}], params: {{ format: csv, schema: {{\"type\": \"array\", \"items\": {{{ROW}{extra}}}}} }} }}\n"
            );
        }
    }
    let contract_path = work.path().join("contract.yaml");
    fs::write(&contract_path, contract).expect("write contract");
    let run = check_json(&contract_path, &[]);
    let report: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}): {}", run.stderr));

    let reference = Command::new(data_python())
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
    for (i, name) in names.iter().enumerate() {
        tally.inputs += 1;
        let readers = by_path[&inputs.join(name).display().to_string()]
            .as_object()
            .expect("readers");
        for (criterion, key) in [("CLOSED", "closed"), ("OPEN", "open")] {
            let id = format!("{criterion}-{i}");
            let got = report["criteria"]
                .as_array()
                .and_then(|c| c.iter().find(|c| c["id"] == id.as_str()))
                .unwrap_or_else(|| panic!("{id} ({name}) not in the report"));
            let passed = got["status"] == "pass";
            for (reader, seen) in readers {
                tally.compared += 1;
                // reference.py: a duplicate header never holds.
                let holds = seen.get("error").is_none() && seen[key] == true;
                match (passed, holds) {
                    (true, true) | (false, false) => tally.agreed += 1,
                    (false, true) => tally.refused += 1,
                    (true, false) => {
                        let text = fs::read(inputs.join(name)).unwrap_or_default();
                        tally.disagreements.push(format!(
                            "{name} {criterion}: vcc passed ({}), {reader} saw {seen}\n---\n{}---",
                            got["summary"],
                            String::from_utf8_lossy(&text)
                        ));
                    }
                }
            }
        }
    }
    eprintln!(
        "differential csv: {case_count} inputs from cases/forgeries, {GENERATED} generated (seed {SEED})"
    );
    tally.finish("csv");
}
