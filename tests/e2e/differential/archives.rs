//! std/package against GNU tar, Debian's unzip and Python's tarfile and
//! zipfile (tests/differential/archives/reference.py): what each would
//! unpack, names to bytes, against what std/package judged.
//!
//! Every input is judged twice in one contract: `EXACT` (the package is
//! the input `notes.md` and nothing else; a manifest is allowed) and
//! `EXTRA` (with `allow_extra`: the input is there, byte for byte). A pass
//! must mean the same to every reader: it unpacks without error, nothing
//! escapes its folder, the input is there with the bytes the host hashed
//! (found as std/package finds it) and, for `EXACT`, nothing else is.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::{Tally, python};
use crate::{check_json, repo};

#[test]
fn std_package_reads_what_tar_unzip_and_python_unpack() {
    let generated = tempfile::tempdir().unwrap();
    let script = repo().join("tests/differential/archives");
    let made = Command::new(python())
        .args(["-W", "ignore"])
        .arg(script.join("generate.py"))
        .arg(generated.path())
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let inputs = inputs(generated.path());
    let out = Command::new(python())
        .arg(script.join("reference.py"))
        .args(inputs.iter().map(|(_, a, _)| a))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let references: BTreeMap<String, Value> = serde_json::from_slice(&out.stdout).unwrap();

    let mut tally = Tally::default();
    let mut controls = 0;
    for (label, archive, notes) in &inputs {
        tally.inputs += 1;
        let statuses = judge_with_vcc(archive, notes);
        let notes_sha = format!("sha256:{:x}", Sha256::digest(fs::read(notes).unwrap()));
        let readers = references[&archive.display().to_string()]
            .as_object()
            .unwrap();
        for (criterion, exact) in [("EXACT", true), ("EXTRA", false)] {
            let passed = statuses[criterion] == "pass";
            if label.contains("control") {
                assert!(
                    passed,
                    "{label} {criterion}: a well-formed package must pass"
                );
                controls += 1;
            }
            for (reader, seen) in readers {
                tally.compared += 1;
                let holds = holds(seen, &notes_sha, exact);
                match (passed, holds) {
                    (true, true) | (false, false) => tally.agreed += 1,
                    (false, true) => tally.refused += 1,
                    (true, false) => tally.disagreements.push(format!(
                        "{label} {criterion}: vcc passed, {reader} saw {seen}"
                    )),
                }
            }
        }
    }
    assert!(controls >= 12, "the controls ran ({controls})");
    tally.finish("archives");
}

/// (label, archive, its input notes.md): the package cases and forgeries,
/// then the generated archives.
fn inputs(generated: &Path) -> Vec<(String, PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for set in ["tests/cases/package", "tests/forgery/package"] {
        for case in sorted(&repo().join(set)) {
            let dir = case.join("out");
            // A case whose input is not `notes.md` (`résumé.md`, for its
            // NFD twin) is judged by its expect.yaml alone: `holds` looks
            // for `notes.md`.
            if !dir.join("notes.md").exists() {
                continue;
            }
            for f in sorted(&dir) {
                if f.file_name().is_some_and(|n| n != "notes.md") {
                    let label = format!("{set}/{}", case.file_name().unwrap().to_string_lossy());
                    out.push((label, f, dir.join("notes.md")));
                }
            }
        }
    }
    for f in sorted(generated) {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        if name != "notes.md" {
            out.push((name, f, generated.join("notes.md")));
        }
    }
    out
}

fn sorted(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

/// The status of `EXACT` and `EXTRA` from the real `vcc check`.
fn judge_with_vcc(archive: &Path, notes: &Path) -> BTreeMap<&'static str, String> {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    fs::create_dir(&out).unwrap();
    fs::copy(notes, out.join("notes.md")).unwrap();
    let name = archive.file_name().unwrap().to_string_lossy().to_string();
    fs::copy(archive, out.join(&name)).unwrap();
    let contract = root.path().join("contract.yaml");
    fs::write(
        &contract,
        format!(
            r#"vcc: 1
id: differential-archives
deliverables:
  - {{ id: notes, path: "out/notes.md" }}
  - {{ id: pkg, path: "out/{name}" }}
validators:
  p: {{ component: std/package }}
criteria:
  - {{ id: EXACT, severity: must, validator: p, targets: [pkg], params: {{ inputs: [notes] }} }}
  - {{ id: EXTRA, severity: must, validator: p, targets: [pkg], params: {{ inputs: [notes], allow_extra: true }} }}
"#
        ),
    )
    .unwrap();
    let run = check_json(&contract, &[]);
    ["EXACT", "EXTRA"]
        .into_iter()
        .map(|id| {
            let status = run.criterion(id)["status"].as_str().map(str::to_string);
            (
                id,
                status.unwrap_or_else(|| panic!("{name}: {}", run.stdout)),
            )
        })
        .collect()
}

/// Whether a reader's unpacking holds the input as std/package means it:
/// no error; the input found by its path under the root (`out/notes.md`),
/// relative to the package's folder (`notes.md`) or as the only file so
/// named, and every one of those places that the reader filled holds the
/// input's bytes (wherever the user unpacks, the input is what lands);
/// with `exact`, no other file but a manifest.
fn holds(seen: &Value, notes_sha: &str, exact: bool) -> bool {
    if seen.get("error").is_some() {
        return false;
    }
    let files = seen["files"].as_object().unwrap();
    let mut places: Vec<&str> = ["out/notes.md", "notes.md"]
        .into_iter()
        .filter(|k| files.contains_key(*k))
        .collect();
    if places.is_empty() {
        let named: Vec<&String> = files
            .keys()
            .filter(|k| k.rsplit('/').next() == Some("notes.md"))
            .collect();
        if named.len() != 1 {
            return false;
        }
        places.push(named[0]);
    }
    places.iter().all(|p| files[*p] == notes_sha)
        && (!exact
            || files.keys().all(|k| {
                places.contains(&k.as_str()) && places.len() == 1
                    || k == "MANIFEST.json"
                    || k == "manifest.json"
            }))
}
