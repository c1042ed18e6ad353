//! Hostile guests against the read-only WASI view of the deliverables
//! (`host/runtime/src/vfs.rs`): `tests/guests/wasi-prober` makes raw
//! `wasi:filesystem` calls — paths past the root, absolute, with `//` and
//! NUL bytes, very long names, thousands of open descriptors, reads past
//! the end, a folder of 100,000 entries, threads — and reports what the
//! host answered. Each case pins those answers: contained (nothing outside
//! the snapshot is ever named), bounded, and never a host crash. The
//! prober claims a pass whatever it saw; a pass here means the run ended
//! with the host's answers intact.

use std::path::PathBuf;

use serde_json::Value;
use vcc_test_support::{Scratch, digests, fixtures};

use crate::{Run, check_json};

/// A root with `notes.md` (3 lines), `sub/deep.md`, and whatever `more`
/// adds; one MUST criterion running probe `probe`.
fn probe(probe: &str, more: impl Fn(&Scratch)) -> (Scratch, PathBuf) {
    let scratch = Scratch::new();
    scratch.write("out/notes.md", "# Notes\n\nline two\n");
    scratch.write("out/sub/deep.md", "deep\n");
    more(&scratch);
    let contract = scratch.write(
        "contract.yaml",
        format!(
            "vcc: 1\nid: wasi-view\ndeliverables:\n  - {{ id: notes, path: notes.md }}\nvalidators:\n  v: {{ component: {:?} }}\ncriteria:\n  - {{ id: AC-1, severity: must, validator: v, targets: [notes], params: {{ probe: {probe} }}, limits: {{ timeout: 60s }} }}\n",
            fixtures::WASI_PROBER
        ),
    );
    (scratch, contract)
}

/// Check, asserting the deliverables did not change; the run and the
/// prober's report of what the host answered.
fn run(scratch: &Scratch, contract: &std::path::Path, extra: &[&str]) -> (Run, String) {
    let out = scratch.path().join("out");
    let evidence = scratch.path().join("evidence");
    let before = digests(&out);
    let mut args = vec![
        "--dir",
        out.to_str().unwrap(),
        "--evidence-dir",
        evidence.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let run = check_json(contract, &args);
    assert_eq!(digests(&out), before, "the run changed the deliverables");
    let c = run.criterion("AC-1");
    let text = probe_text(&c);
    (run, text)
}

fn probe_text(c: &Value) -> String {
    let item = c["evidence"]
        .as_array()
        .unwrap_or_else(|| panic!("no evidence: {c}"))
        .iter()
        .find(|e| e["name"] == "probe.txt")
        .unwrap_or_else(|| panic!("no probe.txt: {c}"));
    std::fs::read_to_string(item["file"].as_str().unwrap()).unwrap()
}

/// The report's `files_read`: only files of the snapshot, ever.
fn files_read(run: &Run) -> Vec<String> {
    run.criterion("AC-1")["files_read"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect()
}

/// `..` past the root (from the root and from a subfolder), absolute
/// paths, `//`, NUL bytes, a file used as a folder, links and creation.
#[test]
pub(crate) fn wasi_prober() {
    let (scratch, contract) = probe("traversal", |_| ());
    let (run, seen) = run(&scratch, &contract, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        seen,
        r#"open "notes.md" => ok 18 bytes
open ".." => not-permitted
open "../.." => not-permitted
open "../etc/passwd" => not-permitted
open "sub/../../notes.md" => not-permitted
open "sub/../notes.md" => ok 18 bytes
open "/etc/passwd" => not-permitted
open "/deliverables/notes.md" => not-permitted
open "//notes.md" => not-permitted
open ".//notes.md" => ok 18 bytes
open "sub//deep.md" => ok 5 bytes
open "notes.md\0.txt" => no-entry
open "\0" => no-entry
open "notes.md/" => not-directory
open "notes.md/.." => not-directory
open sub/".." => opened, read: is-directory
open sub/"../notes.md" => ok 18 bytes
open sub/"../.." => not-permitted
open sub/"../../etc/passwd" => not-permitted
stat .. => not-permitted
readlink notes.md => invalid
symlink x -> /etc/passwd => read-only
create new.md => read-only
"#
    );
    assert_eq!(files_read(&run), ["notes.md", "sub/deep.md"]);
}

/// A 4 KiB name, a 1 MiB name, 100,000 components down, up, and down
/// and up again: each answered at once, none above the root.
#[test]
fn wasi_prober_long_names() {
    let (scratch, contract) = probe("long-names", |_| ());
    let (run, seen) = run(&scratch, &contract, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        seen,
        "open aaaaaaaaaaaaaaaaaaaa… (4096 bytes) => no-entry
open bbbbbbbbbbbbbbbbbbbb… (1048576 bytes) => no-entry
open d/d/d/d/d/d/d/d/d/d/… (200008 bytes) => no-entry
open ../../../../../../..… (300000 bytes) => not-permitted
open x/../x/../x/../x/../… (500008 bytes) => no-entry
"
    );
    assert!(files_read(&run).is_empty());
}

/// Opening one file 200,000 times without closing: the run's resource
/// table (10,000 entries) fills, the guest traps, and the criterion is an
/// error — never a pass, and the host's memory stays bounded.
#[test]
fn wasi_prober_descriptors() {
    let (scratch, contract) = probe("descriptors", |_| ());
    let out = scratch.path().join("out");
    let before = digests(&out);
    let run = check_json(&contract, &["--dir", out.to_str().unwrap()]);
    assert_eq!(digests(&out), before, "the run changed the deliverables");
    let c = run.criterion("AC-1");
    assert_eq!(
        (c["status"].as_str(), c["reason"].as_str()),
        (Some("error"), Some("trap"))
    );
    assert_eq!(run.json()["verdict"], "withheld");
    assert_eq!(run.code, 1);
    let summary = c["summary"].as_str().unwrap();
    assert!(
        summary.contains("resource table has no free keys"),
        "{summary}"
    );
}

/// Reads and streams at the end, past it, at 2^40 and at u64::MAX, a
/// read of u64::MAX bytes, and a read of a folder.
#[test]
fn wasi_prober_past_end() {
    let (scratch, contract) = probe("past-end", |_| ());
    let (run, seen) = run(&scratch, &contract, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        seen,
        "size => 18
read 16 at 18 => 0 bytes, eof true
read 16 at 19 => 0 bytes, eof true
read 16 at 1099511627776 => 0 bytes, eof true
read 16 at 18446744073709551615 => 0 bytes, eof true
read 18446744073709551615 at 0 => 18 bytes, eof true
read 18446744073709551615 at 18446744073709551615 => 0 bytes, eof true
read 0 at 0 => 0 bytes, eof false
stream at 18 => stream streamerror::closed
stream at 1099511627776 => stream streamerror::closed
stream at 18446744073709551615 => stream streamerror::closed
read a folder => is-directory
"
    );
}

/// A folder of 100,000 files, listed whole, then 1,000 listings of it
/// held open at once (each shares the snapshot's entries: before they
/// were shared, each listing copied the 100,000 names into the host).
#[test]
fn wasi_prober_readdir() {
    let (scratch, contract) = probe("readdir", |s| {
        let big = s.path().join("out/big");
        std::fs::create_dir_all(&big).unwrap();
        for i in 0..100_000 {
            std::fs::write(big.join(format!("f{i:06}")), "").unwrap();
        }
    });
    let (run, seen) = run(&scratch, &contract, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(seen, "entries => 100000\nlistings held => 1000\n");
    assert_eq!(run.json()["deliverables"]["files"], 100_002);
}

/// A guest cannot start threads (wasm32-wasip2 has none); the host runs
/// many guests at once instead: 32 criteria on 8 threads each read every
/// file through WASI, and all see the same bytes.
#[test]
fn wasi_prober_threads() {
    let scratch = Scratch::new();
    scratch.write("out/notes.md", "# Notes\n\nline two\n");
    scratch.write("out/sub/deep.md", "deep\n");
    let criteria: String = (1..=32)
        .map(|i| format!("  - {{ id: AC-{i}, severity: must, validator: v, targets: [notes], params: {{ probe: threads }}, limits: {{ timeout: 60s }} }}\n"))
        .collect();
    let contract = scratch.write(
        "contract.yaml",
        format!(
            "vcc: 1\nid: wasi-view\ndeliverables:\n  - {{ id: notes, path: notes.md }}\nvalidators:\n  v: {{ component: {:?} }}\ncriteria:\n{criteria}",
            fixtures::WASI_PROBER
        ),
    );
    let (run, seen) = run(&scratch, &contract, &["--jobs", "8"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let expected = "threads started => 0 (refused: Unsupported)\nnotes.md => 18 bytes\nsub/deep.md => 5 bytes\n";
    assert_eq!(seen, expected);
    for i in 1..=32 {
        let c = run.criterion(&format!("AC-{i}"));
        assert_eq!(c["status"], "pass", "{c}");
        assert_eq!(probe_text(&c), expected);
    }
}
