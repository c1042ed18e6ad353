//! End-to-end tests: the real `vcc` binary, real components built from
//! source, real files. Each test asserts what a user sees: exit codes, the
//! JSON report, messages, and that deliverables were left untouched.

mod action;
mod agents;
mod approvals;
mod attest;
mod authoring;
mod bases;
mod book;
mod bundles;
mod cache;
mod cases;
mod cli;
mod contract_files;
mod contracts;
mod converge;
mod delegation;
mod deliverables;
mod differential;
mod during;
mod examples;
mod exclude;
mod explain;
mod first_hour;
mod first_runs;
mod fixtures;
mod forgery;
mod formats;
mod hooks;
mod judge;
mod judge_live;
mod keys;
mod large;
mod ledger;
mod links;
mod lock_updates;
mod messages;
mod other_languages;
mod record;
mod rotation;
mod scale_out;
mod scale_out_examples;
mod signed_records;
mod store;
mod task_drafts;
mod vcc1;
mod wasi_view;
mod world;

use std::io::Read as _;
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
/// Copy a folder tree (files and folders only).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

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

/// Run `vcc` in folder `dir` (for `vcc record`, whose paths are relative
/// to where it runs).
pub fn vcc_in(dir: &Path, args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_vcc"))
        .current_dir(dir)
        .args(args)
        .env("VCC_CACHE_DIR", shared_cache())
        .env("NO_COLOR", "1")
        .output()
        .expect("run vcc");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
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

/// `vcc check CONTRACT --format json` that must finish within `patience`:
/// a hang is a failure (the process is killed), not a stuck test run.
pub fn check_within(contract: &Path, extra: &[&str], patience: std::time::Duration) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_vcc"))
        .arg("check")
        .arg(contract)
        .args(["--format", "json"])
        .args(extra)
        .env("VCC_CACHE_DIR", shared_cache())
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run vcc");
    wait_within(&mut child, patience)
}

/// Wait for `child`, draining its output on threads (a report larger than a
/// pipe buffer must not stall it); a hang past `patience` is a failure
/// (the process is killed), not a stuck test run.
pub fn wait_within(child: &mut std::process::Child, patience: std::time::Duration) -> Run {
    let drain = |stream: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            if let Some(mut s) = stream {
                let _ = s.read_to_end(&mut text);
            }
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let stdout = drain(child.stdout.take().map(|s| Box::new(s) as _));
    let stderr = drain(child.stderr.take().map(|s| Box::new(s) as _));
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("poll vcc") {
            break status;
        }
        if start.elapsed() > patience {
            let _ = child.kill();
            panic!("vcc did not finish within {patience:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    Run {
        code: status.code().unwrap_or(-1),
        stdout: stdout.join().expect("read stdout"),
        stderr: stderr.join().expect("read stderr"),
    }
}

/// The `record_digest` a command record must carry: blake3 of the record
/// without that field, keys sorted at every depth, no whitespace. Written
/// here from the README's words, independently of the vcc-record crate.
pub fn record_digest(record: &Value) -> String {
    fn canonical(v: &Value) -> String {
        match v {
            Value::Object(map) => {
                let mut keys: Vec<_> = map.keys().collect();
                keys.sort();
                let parts: Vec<String> = keys
                    .iter()
                    .map(|k| format!("{}:{}", Value::String((*k).clone()), canonical(&map[*k])))
                    .collect();
                format!("{{{}}}", parts.join(","))
            }
            Value::Array(items) => format!(
                "[{}]",
                items.iter().map(canonical).collect::<Vec<_>>().join(",")
            ),
            other => other.to_string(),
        }
    }
    let mut fields = record.clone();
    if let Some(map) = fields.as_object_mut() {
        map.remove("record_digest");
    }
    format!(
        "blake3:{}",
        blake3::hash(canonical(&fields).as_bytes()).to_hex()
    )
}
