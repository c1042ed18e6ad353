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
