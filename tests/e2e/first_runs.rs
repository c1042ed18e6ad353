//! A large component's first run on Winch code, with Cranelift's compiled
//! in the background for the next run (bench W15), and `vcc cache compile`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;
use vcc_test_support::{Scratch, file_digest, fixtures};

use crate::cache::cwasm_files;
use crate::{Run, vcc_with_cache};

/// The always-fail fixture with a 5 MiB custom section appended: large
/// enough for a Winch first run (4 MiB), as quick to compile as the fixture.
fn padded(scratch: &Scratch) -> PathBuf {
    let mut bytes = std::fs::read(fixtures::ALWAYS_FAIL).unwrap();
    let name = b"padding";
    let payload = vec![0u8; 5 << 20];
    let mut body = leb128(name.len());
    body.extend_from_slice(name);
    body.extend_from_slice(&payload);
    bytes.push(0); // a custom section
    bytes.extend(leb128(body.len()));
    bytes.extend(body);
    let path = scratch.path().join("large.wasm");
    std::fs::write(&path, bytes).unwrap();
    path
}

fn leb128(mut n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return out;
        }
        out.push(byte | 0x80);
    }
}

fn contract(scratch: &Scratch, component: &Path) -> PathBuf {
    scratch.write("out/notes.md", "# Notes\n");
    scratch.write(
        "contract.yaml",
        format!(
            "vcc: 1\nid: large\ndeliverables:\n  - {{ id: notes, path: notes.md }}\nvalidators:\n  v: {{ component: {component:?}, digest: {:?} }}\ncriteria:\n  - {{ id: AC-1, severity: must, validator: v, targets: [notes] }}\n",
            file_digest(component)
        ),
    )
}

fn check(cache: &Path, contract: &Path) -> (Run, Value) {
    let run = vcc_with_cache(
        cache,
        &["check", contract.to_str().unwrap(), "--format", "json"],
    );
    let report = run.json();
    (run, report)
}

#[test]
fn a_large_components_first_run_does_not_wait_for_cranelift() {
    let scratch = Scratch::new();
    let component = padded(&scratch);
    let contract = contract(&scratch, &component);
    let cache = tempfile::tempdir().unwrap();
    let (run, report) = check(cache.path(), &contract);
    // The same verdict as on Cranelift code: the fixture fails.
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert_eq!(report["criteria"][0]["status"], "fail");
    let stats = &report["runtime"]["cache"];
    assert_eq!(
        (&stats["misses"], &stats["winch"]),
        (&1.into(), &1.into()),
        "{stats}"
    );
    // The background compile adds Cranelift's entry beside Winch's.
    let start = Instant::now();
    while cwasm_files(cache.path()) < 2 && start.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(cwasm_files(cache.path()), 2, "no Cranelift entry appeared");
    let (run, report) = check(cache.path(), &contract);
    assert_eq!(run.code, 1);
    let stats = &report["runtime"]["cache"];
    assert_eq!(
        (&stats["hits"], &stats["misses"]),
        (&1.into(), &0.into()),
        "{stats}"
    );
    assert!(
        stats.get("winch").is_none(),
        "Cranelift's code was not used: {stats}"
    );
}

#[test]
fn quick_compile_off_and_cache_compile_use_cranelift_only() {
    let scratch = Scratch::new();
    let component = padded(&scratch);
    let contract = contract(&scratch, &component);
    let off = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_vcc"))
        .args(["check", contract.to_str().unwrap(), "--format", "json"])
        .arg("--dir")
        .arg(contract.with_file_name("out"))
        .env("VCC_CACHE_DIR", off.path())
        .env("VCC_QUICK_COMPILE", "0")
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["runtime"]["cache"]["misses"], 1);
    assert!(report["runtime"]["cache"].get("winch").is_none());
    assert_eq!(cwasm_files(off.path()), 1);
    // Compiled ahead: the first check finds Cranelift's code.
    let ahead = tempfile::tempdir().unwrap();
    let compiled = vcc_with_cache(
        ahead.path(),
        &["cache", "compile", component.to_str().unwrap()],
    );
    assert_eq!(compiled.code, 0, "{}", compiled.stderr);
    assert!(
        compiled.stdout.starts_with("compiled "),
        "{}",
        compiled.stdout
    );
    let (_, report) = check(ahead.path(), &contract);
    let stats = &report["runtime"]["cache"];
    assert_eq!(
        (&stats["hits"], &stats["misses"]),
        (&1.into(), &0.into()),
        "{stats}"
    );
    assert!(stats.get("winch").is_none(), "{stats}");
    // Not a component: exit 2, naming it.
    let text = scratch.write("not.wasm", "hello");
    let refused = vcc_with_cache(ahead.path(), &["cache", "compile", text.to_str().unwrap()]);
    assert_eq!(refused.code, 2);
    assert!(
        refused
            .stderr
            .contains("not.wasm: it is not a WebAssembly component"),
        "{}",
        refused.stderr
    );
}
