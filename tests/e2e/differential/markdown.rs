//! Markdown: std/markdown-sections and std/citation-coverage against
//! markdown-it-py (CommonMark preset) and the HTML it renders, read as a
//! browser shows it (tests/differential/markdown/reference.py). Inputs:
//! every `.md` file of the markdown-sections, citation-coverage and
//! consistency golden and forgery cases (there are no Markdown fuzz
//! seeds), and the documents of tests/differential/markdown/generate.py
//! (seed 34). One `vcc check` judges them all; per input and title:
//!
//! - `R`: `required: [title]`. A pass needs a visible heading with that
//!   title (compared as the book says: invisible characters removed,
//!   NFKC, case-insensitive) in the reference's reading.
//! - `F`: `forbidden: [title]`. A pass needs no heading, hidden or not,
//!   with that title.
//! - `W` (titles the reference sees): `min_words` one more than the
//!   reference counts in that section. A pass means vcc counted words a
//!   reader does not see: always a disagreement.
//! - `C` (per input): citation-coverage, `min_coverage: 1.0`. A pass needs
//!   every visible Markdown paragraph with a claim (a sentence of four or
//!   more words, outside reference sections, tables and footnote
//!   definitions) to hold a citation or a label.
//!
//! A vcc fail, skip or error is a refusal: allowed (stricter).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use super::Tally;
use crate::{check_json, repo};

/// Titles judged on every input, besides those the reference finds: the
/// generator's vocabulary (a title a reader does not see as a heading
/// must not be one to vcc).
const VOCABULARY: [&str; 6] = ["summary", "risks", "todo", "testing", "findings", "scope"];

/// The install script's `diff-md-py` venv (markdown-it-py, pinned).
fn python() -> PathBuf {
    crate::world::tools_dir().join("diff-md-py/bin/python")
}

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            markdown_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

/// One criterion to compare: (input, params as JSON, whether the
/// reference's reading supports a pass).
struct Judged {
    input: String,
    params: Value,
    supports: bool,
}

#[test]
fn markdown_validators_read_what_a_commonmark_renderer_shows() {
    let work = tempfile::tempdir().expect("temp dir");
    let inputs = work.path().join("inputs");
    fs::create_dir_all(&inputs).expect("inputs dir");
    let mut sources = Vec::new();
    for validator in ["markdown-sections", "citation-coverage", "consistency"] {
        for set in ["tests/cases", "tests/forgery"] {
            markdown_files(&repo().join(set).join(validator), &mut sources);
        }
    }
    sources.sort();
    for (i, src) in sources.iter().enumerate() {
        fs::copy(src, inputs.join(format!("case-{i:03}.md"))).expect("copy case");
    }
    let script = repo().join("tests/differential/markdown");
    let made = Command::new(python())
        .arg(script.join("generate.py"))
        .arg(&inputs)
        .output()
        .expect("run generate.py");
    assert!(made.status.success(), "generate.py failed: {made:?}");

    let mut names: Vec<String> = fs::read_dir(&inputs)
        .expect("read inputs")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let out = Command::new(python())
        .arg(script.join("reference.py"))
        .args(names.iter().map(|n| inputs.join(n)))
        .output()
        .expect("run reference.py");
    assert!(
        out.status.success(),
        "reference.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let by_path: BTreeMap<String, Value> =
        serde_json::from_slice(&out.stdout).expect("reference JSON");

    let mut contract = String::from("vcc: 1\nid: differential-markdown\ndeliverables:\n");
    for (i, name) in names.iter().enumerate() {
        contract += &format!("  - {{ id: d{i}, path: \"inputs/{name}\" }}\n");
    }
    contract += "validators:\n  ms: { component: std/markdown-sections }\n  cc: { component: std/citation-coverage }\ncriteria:\n";
    let mut judged: BTreeMap<String, Judged> = BTreeMap::new();
    for (i, name) in names.iter().enumerate() {
        let reading = &by_path[&inputs.join(name).display().to_string()];
        assert!(
            reading.get("error").is_none(),
            "the reference cannot read {name}: {reading}"
        );
        let headings = reading["headings"].as_array().expect("headings");
        // The first visible heading with each title, and its words.
        let mut visible: BTreeMap<String, u64> = BTreeMap::new();
        let mut all: BTreeSet<String> = BTreeSet::new();
        for h in headings {
            let key = h["key"].as_str().expect("key").to_string();
            if key.is_empty() {
                continue;
            }
            all.insert(key.clone());
            if h["hidden"] == false && !visible.contains_key(&key) {
                visible.insert(key, h["words"].as_u64().expect("words"));
            }
        }
        let titles: BTreeSet<String> = VOCABULARY
            .iter()
            .map(|t| t.to_string())
            .chain(all.iter().cloned())
            .collect();
        let mut add = |id: String, validator: &str, params: Value, supports: bool| {
            contract += &format!(
                "  - {{ id: {id}, severity: must, validator: {validator}, targets: [d{i}], params: {params} }}\n"
            );
            let input = name.clone();
            judged.insert(
                id,
                Judged {
                    input,
                    params,
                    supports,
                },
            );
        };
        for (j, title) in titles.iter().enumerate() {
            add(
                format!("R{i}-{j}"),
                "ms",
                json!({"required": [title]}),
                visible.contains_key(title),
            );
            add(
                format!("F{i}-{j}"),
                "ms",
                json!({"forbidden": [title]}),
                !all.contains(title),
            );
            if let Some(words) = visible.get(title) {
                add(
                    format!("W{i}-{j}"),
                    "ms",
                    json!({"required": [{"title": title, "min_words": words + 1}]}),
                    false,
                );
            }
        }
        let uncited = reading["uncited"].as_array().expect("uncited");
        add(
            format!("C{i}"),
            "cc",
            json!({"min_coverage": 1.0}),
            uncited.is_empty(),
        );
    }
    let contract_path = work.path().join("contract.yaml");
    fs::write(&contract_path, contract).expect("write contract");
    let run = check_json(&contract_path, &[]);
    let report = run.json();
    let statuses: BTreeMap<&str, &str> = report["criteria"]
        .as_array()
        .expect("criteria")
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap_or(""),
                c["status"].as_str().unwrap_or(""),
            )
        })
        .collect();

    let mut tally = Tally {
        inputs: names.len(),
        ..Tally::default()
    };
    for (id, j) in &judged {
        tally.compared += 1;
        let passed = statuses.get(id.as_str()) == Some(&"pass");
        match (passed, j.supports) {
            (true, true) | (false, false) => tally.agreed += 1,
            (false, true) => tally.refused += 1,
            (true, false) => tally.disagreements.push(format!(
                "{} {id} {}: vcc passed, markdown-it-py reads otherwise",
                j.input, j.params
            )),
        }
    }
    assert!(
        names.len() > sources.len() + 300,
        "the generated inputs ran ({} inputs)",
        names.len()
    );
    tally.finish("markdown");
}
