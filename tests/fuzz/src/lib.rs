//! What the fuzz targets share: running a standard validator's own code
//! natively (its crate's host build, through `vcc_sdk::native`) over one
//! file of hostile bytes, and the invariants every outcome keeps.

use vcc_sdk::native::Files;
use vcc_sdk::{Outcome, Validator};

/// `V` judging one deliverable file `name` holding `bytes`, with `params`.
pub fn judge<V: Validator>(name: &str, bytes: &[u8], params: &str) -> Result<Outcome, String> {
    let mut files = Files::default();
    files.add("d", &format!("/deliverables/{name}"), bytes.to_vec());
    let criterion = files.criterion("AC-1", params, &["d"]);
    files.run(|| V::validate(criterion))
}

/// A finding about the file read (`name`) points at one of its lines:
/// line numbers a reader reports come from the bytes it read, never from
/// past their end. (Findings about other files, such as the source lines
/// a SARIF result names, are not checked.)
pub fn lines_within(outcome: &Result<Outcome, String>, name: &str, bytes: &[u8]) {
    let Ok(outcome) = outcome else { return };
    let lines = bytes.iter().filter(|b| **b == b'\n').count() as u32 + 1;
    let this_file =
        |path: &Option<String>| path.as_deref().is_none_or(|p| vcc_sdk::relative(p) == name);
    for f in outcome.findings.iter().filter(|f| this_file(&f.path)) {
        if let Some(line) = f.line {
            assert!(
                (1..=lines).contains(&line),
                "a finding names line {line} of a {lines}-line file: {}",
                f.message
            );
        }
    }
}
