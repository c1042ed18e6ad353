//! The precompiled-component cache: a second run never recompiles, and an
//! entry the host did not write is never loaded.

use std::fs;

use crate::{repo, vcc_with_cache};

fn check(cache: &std::path::Path) -> serde_json::Value {
    let contract = repo().join("contracts/examples/release-notes/contract.yaml");
    let run = vcc_with_cache(
        cache,
        &["check", contract.to_str().unwrap(), "--format", "json"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json()
}

#[test]
fn a_second_run_never_recompiles() {
    let cache = tempfile::tempdir().unwrap();
    let first = check(cache.path());
    assert_eq!(
        first["runtime"]["cache"]["misses"], 2,
        "two std validators compiled"
    );
    assert_eq!(first["runtime"]["cache"]["hits"], 0);
    let second = check(cache.path());
    assert_eq!(
        second["runtime"]["cache"]["misses"], 0,
        "nothing compiled on the second run"
    );
    assert_eq!(second["runtime"]["cache"]["hits"], 2);
    assert_eq!(second["verdict"], first["verdict"]);
}

#[test]
fn a_tampered_cache_entry_is_refused_and_rebuilt() {
    let cache = tempfile::tempdir().unwrap();
    check(cache.path());
    for entry in fs::read_dir(cache.path()).unwrap().flatten() {
        if entry.path().extension().is_some_and(|e| e == "cwasm") {
            let mut bytes = fs::read(entry.path()).unwrap();
            let middle = bytes.len() / 2;
            bytes[middle] ^= 0xff;
            fs::write(entry.path(), bytes).unwrap();
        }
    }
    let run = check(cache.path());
    assert_eq!(run["runtime"]["cache"]["rejected"], 2);
    assert_eq!(run["runtime"]["cache"]["misses"], 2);
    assert_eq!(run["verdict"], "accepted");
    // The rebuilt entries are good again.
    assert_eq!(check(cache.path())["runtime"]["cache"]["hits"], 2);
}

#[test]
fn no_cache_compiles_and_writes_nothing() {
    let cache = tempfile::tempdir().unwrap();
    let contract = repo().join("contracts/examples/release-notes/contract.yaml");
    let run = vcc_with_cache(
        cache.path(),
        &[
            "--no-cache",
            "check",
            contract.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0);
    assert_eq!(run.json()["runtime"]["cache"]["misses"], 2);
    assert_eq!(fs::read_dir(cache.path()).unwrap().count(), 0);
}
