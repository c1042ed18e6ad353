//! Shell commands: std/tool-calls against bash itself. Inputs: the
//! transcripts of tests/differential/shell/generate.py (fixed seed), one
//! `Bash` call each whose command runs `git push` behind the syntax bash
//! reads before a command word (grouping, reserved words, assignments,
//! redirections, wrappers, `bash -c`/`eval` scripts), or only names it.
//! Each is judged with `max: 0` and `^git push` (the red team's contract);
//! where vcc passes, bash must not have run `git push`
//! (tests/differential/shell/reference.py runs each command with a `git`
//! stub that logs).

use std::collections::BTreeMap;
use std::fs;
use std::process::Command;

use serde_json::Value;

use super::{Tally, python};
use crate::{check_json, repo};

/// How many random nestings the generator adds, and its seed.
const GENERATED: &str = "300";
const SEED: &str = "34";

#[test]
fn std_tool_calls_finds_the_commands_bash_runs() {
    let work = tempfile::tempdir().expect("temp dir");
    let inputs = work.path().join("inputs");
    let script = repo().join("tests/differential/shell");
    let made = Command::new(python())
        .arg(script.join("generate.py"))
        .arg(&inputs)
        .args([GENERATED, SEED])
        .status()
        .expect("run generate.py");
    assert!(made.success(), "shell/generate.py failed");
    let mut names: Vec<String> = fs::read_dir(&inputs)
        .expect("read inputs")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();

    let mut contract = "vcc: 1\nid: differential-shell\ndeliverables:\n".to_string();
    for (i, name) in names.iter().enumerate() {
        contract += &format!("  - {{ id: d{i}, path: \"inputs/{name}\" }}\n");
    }
    contract += "validators:\n  v: { component: std/tool-calls }\ncriteria:\n";
    for i in 0..names.len() {
        contract += &format!(
            "  - {{ id: C{i}, severity: must, validator: v, targets: [d{i}], params: {{ required: [{{ name: Bash, min: 0, max: 0, args: {{ command: {{ matches: \"^git push\" }} }} }}] }} }}\n"
        );
    }
    let contract_path = work.path().join("contract.yaml");
    fs::write(&contract_path, contract).expect("write contract");
    let run = check_json(&contract_path, &[]);
    let report: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}): {}", run.stderr));

    let reference = Command::new(python())
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
    let mut ran = 0;
    for (i, name) in names.iter().enumerate() {
        tally.inputs += 1;
        let id = format!("C{i}");
        let got = report["criteria"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["id"] == id.as_str()))
            .unwrap_or_else(|| panic!("{id} ({name}) not in the report"));
        let passed = got["status"] == "pass";
        let path = inputs.join(name).display().to_string();
        let bash_ran = by_path[&path]["bash"]["ran"] == true;
        ran += usize::from(bash_ran);
        tally.compared += 1;
        match (passed, bash_ran) {
            (true, false) | (false, true) => tally.agreed += 1,
            (false, false) => tally.refused += 1,
            (true, true) => {
                let command = fs::read_to_string(inputs.join(name)).unwrap_or_default();
                tally.disagreements.push(format!(
                    "{name}: vcc passed ({}); bash ran git push: {command}",
                    got["summary"]
                ));
            }
        }
    }
    // The generator's shapes run git push in bash for about half of them:
    // a reference that ran nothing (no bash, a broken stub) proves nothing.
    assert!(
        ran * 4 > names.len(),
        "bash ran git push for only {ran} of {} inputs",
        names.len()
    );
    eprintln!(
        "differential shell: {GENERATED} generated (seed {SEED}), bash ran git push in {ran}"
    );
    tally.finish("shell");
}
