//! Differential tests (issue 34): each std validator against the reader a
//! user's own tool would use, on the same inputs — the validator's cases
//! and forgeries, and adversarial inputs generated from a fixed seed. The
//! reference side lives in `tests/differential/<format>/` (run with the
//! Python of `tests/install-tools.sh`); the convention and the counts of
//! the last run are in `tests/differential/README.md`.
//!
//! The rule, for every input and criterion: when vcc passes, every
//! reference reader must see what vcc judged; when vcc refuses (a visible
//! fail or error), that is allowed — stricter, never quieter.

mod archives;
mod coverage;
mod csv;
mod json_evidence;
mod junit_xml;
mod markdown;
mod sarif;
mod shell;
mod tap;
mod trace;

use std::path::PathBuf;

/// The Python of the install script's `py` venv, which runs the
/// reference side.
pub fn python() -> PathBuf {
    crate::world::tools_dir().join("py/bin/python")
}

/// The counts a differential run prints (the README quotes them).
#[derive(Default)]
pub struct Tally {
    /// Inputs run through both vcc and the references.
    pub inputs: usize,
    /// (input, criterion, reader) judgements compared.
    pub compared: usize,
    /// vcc passed and the reader saw the same; or both refused.
    pub agreed: usize,
    /// vcc refused what the reader read cleanly (stricter: allowed).
    pub refused: usize,
    /// vcc passed what the reader saw otherwise: each one a failure.
    pub disagreements: Vec<String>,
}

impl Tally {
    /// Print the counts and fail on any disagreement.
    pub fn finish(&self, format: &str) {
        println!(
            "differential {format}: {} inputs, {} judgements compared, {} agreed, {} refused by vcc only (stricter), {} disagreements",
            self.inputs,
            self.compared,
            self.agreed,
            self.refused,
            self.disagreements.len()
        );
        assert!(
            self.disagreements.is_empty(),
            "{format}: vcc passed what a reference reader reads otherwise:\n{}",
            self.disagreements.join("\n")
        );
    }
}

/// A runner's inputs: every `.EXT` file of the validator's golden and
/// forgery cases (copied as `case-NNN.EXT`), then what the format's
/// `generate.py OUT COUNT SEED` writes beside them; `names` in name order.
pub struct Inputs {
    /// Holds the folder; the inputs are under `inputs/` in it.
    pub work: tempfile::TempDir,
    pub dir: PathBuf,
    pub names: Vec<String>,
    /// How many came from the cases and forgeries.
    pub from_cases: usize,
}

impl Inputs {
    pub fn gather(
        validator: &str,
        ext: &str,
        python: &std::path::Path,
        format: &str,
        count: &str,
        seed: &str,
    ) -> Inputs {
        let work = tempfile::tempdir().expect("temp dir");
        let dir = work.path().join("inputs");
        std::fs::create_dir_all(&dir).expect("inputs dir");
        let mut sources = Vec::new();
        for set in ["tests/cases", "tests/forgery"] {
            files_with(&crate::repo().join(set).join(validator), ext, &mut sources);
        }
        sources.sort();
        for (i, src) in sources.iter().enumerate() {
            std::fs::copy(src, dir.join(format!("case-{i:03}.{ext}"))).expect("copy case");
        }
        let generator = crate::repo()
            .join("tests/differential")
            .join(format)
            .join("generate.py");
        let made = std::process::Command::new(python)
            .arg(generator)
            .args([dir.to_str().expect("utf-8 path"), count, seed])
            .status()
            .expect("run generate.py");
        assert!(made.success(), "{format}/generate.py failed");
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .expect("read inputs")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        Inputs {
            work,
            dir,
            names,
            from_cases: sources.len(),
        }
    }

    /// A contract with a deliverable `dN` per input and the validator
    /// `v`, up to `criteria:` (the runner adds its criteria).
    pub fn contract_head(&self, id: &str, component: &str) -> String {
        let mut contract = format!("vcc: 1\nid: differential-{id}\ndeliverables:\n");
        for (i, name) in self.names.iter().enumerate() {
            contract += &format!("  - {{ id: d{i}, path: \"inputs/{name}\" }}\n");
        }
        contract += &format!("validators:\n  v: {{ component: {component} }}\ncriteria:\n");
        contract
    }
}

/// Every file ending `.EXT` under `dir`, at any depth.
fn files_with(dir: &std::path::Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_with(&path, ext, out);
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
}
