//! Trace matrices: std/consistency against a reader that resolves each
//! matrix entry the way a person or a tool following it would
//! (tests/differential/trace/reference.py): Python's own `ast` for Python
//! definitions, markdown-it-py (CommonMark) for a document's headings and
//! HTML anchors, tree-sitter's grammars for Rust, JavaScript/TypeScript and
//! Go. Inputs: every consistency case and forgery, and the cases of
//! tests/differential/trace/generate.py (fixed seed): one entry each, a
//! name or an anchor placed where it is a definition or only looks like
//! one. Where vcc passes a criterion, the reference must find a matrix and
//! resolve every entry of it; a vcc fail is a refusal (allowed).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::Tally;
use crate::{check_json, copy_dir, repo};

/// How many cases the generator writes, and its seed.
const GENERATED: &str = "300";
const SEED: &str = "34";

/// The Python of the install script's `diff-trace-py` venv (markdown-it-py,
/// tree-sitter and its grammars, PyYAML); the JSON-evidence reference
/// runs on it too (it needs only the standard library).
pub(super) fn python() -> PathBuf {
    crate::world::tools_dir().join("diff-trace-py/bin/python")
}

fn sorted_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

#[test]
fn std_consistency_resolves_trace_entries_as_their_readers_do() {
    let work = tempfile::tempdir().unwrap();
    let inputs = work.path().join("inputs");
    fs::create_dir_all(&inputs).unwrap();
    let script = repo().join("tests/differential/trace");
    let made = Command::new(python())
        .arg(script.join("generate.py"))
        .arg(&inputs)
        .args([GENERATED, SEED])
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let mut from_cases = 0;
    for set in ["cases", "forgery"] {
        for case in sorted_dirs(&repo().join("tests").join(set).join("consistency")) {
            let name = format!("{set}-{}", case.file_name().unwrap().to_string_lossy());
            copy_dir(&case, &inputs.join(name));
            from_cases += 1;
        }
    }
    let cases = sorted_dirs(&inputs);
    let out = Command::new(python())
        .arg(script.join("reference.py"))
        .args(&cases)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let references: Value = serde_json::from_slice(&out.stdout).unwrap();

    let mut tally = Tally::default();
    for case in &cases {
        tally.inputs += 1;
        let run = check_json(&case.join("contract.yaml"), &[]);
        let judged = references[case.display().to_string()]
            .as_object()
            .unwrap_or_else(|| panic!("{}: no reference answer", case.display()));
        for (criterion, entries) in judged {
            tally.compared += 1;
            let entries = entries.as_array().unwrap();
            // Every entry resolves (an entry the reference cannot read, a
            // reStructuredText anchor, is not held against vcc).
            let resolves = !entries.is_empty() && entries.iter().all(|e| e["resolves"] != false);
            let passed = run.criterion(criterion)["status"] == "pass";
            match (passed, resolves) {
                (true, true) | (false, false) => tally.agreed += 1,
                (false, true) => tally.refused += 1,
                (true, false) => {
                    let unresolved: Vec<String> = entries
                        .iter()
                        .filter(|e| e["resolves"] == false)
                        .map(|e| format!("{} ({})", e["entry"], e["why"]))
                        .collect();
                    tally.disagreements.push(format!(
                        "{} {criterion}: vcc passed; the reference resolves no {}",
                        case.file_name().unwrap().to_string_lossy(),
                        if entries.is_empty() {
                            "matrix".to_string()
                        } else {
                            unresolved.join(", ")
                        }
                    ));
                }
            }
        }
    }
    assert!(from_cases >= 11, "the consistency cases ran ({from_cases})");
    tally.finish("trace");
}
