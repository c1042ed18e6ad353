//! End-to-end tests: the real `vcc` binary, real components built from
//! source, real files. Each test asserts what a user sees: exit codes, the
//! JSON report, messages, and that deliverables were left untouched.

mod authoring;
mod cache;
mod cases;
mod cli;
mod examples;
mod fixtures;
mod record;
mod vcc1;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// stdout as JSON (the report, for `--format json`).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|err| {
            panic!(
                "stdout is not JSON ({err}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }

    /// The criterion with this id in a JSON report.
    pub fn criterion(&self, id: &str) -> Value {
        self.json()["criteria"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["id"] == id))
            .cloned()
            .unwrap_or_else(|| panic!("no criterion {id} in:\n{}", self.stdout))
    }
}

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The cache every test in this binary shares (each fixture compiles once).
pub fn shared_cache() -> PathBuf {
    vcc_test_support::shared_cache(env!("CARGO_TARGET_TMPDIR"))
}

/// Run `vcc` with the shared cache and no colour.
pub fn vcc(args: &[&str]) -> Run {
    vcc_with_cache(&shared_cache(), args)
}

pub fn vcc_with_cache(cache: &Path, args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_vcc"))
        .args(args)
        .env("VCC_CACHE_DIR", cache)
        .env("NO_COLOR", "1")
        .output()
        .expect("run vcc");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// `vcc check CONTRACT --format json`, plus extra args.
pub fn check_json(contract: &Path, extra: &[&str]) -> Run {
    let contract = contract.display().to_string();
    let mut args = vec!["check", contract.as_str(), "--format", "json"];
    args.extend_from_slice(extra);
    vcc(&args)
}
