//! The precompiled-component cache: std validators never come from it (they
//! run from the native code embedded in vcc); a user component compiles
//! once and a second run loads it; an entry the host did not write is never
//! loaded; and a cache that others could write, or that the producer of
//! the deliverables could write, is refused.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::Value;
use vcc_test_support::{Scratch, fixtures, is_root};

use crate::{Run, repo, vcc_with_cache};

fn check(cache: &Path, contract: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["check", contract.to_str().unwrap(), "--format", "json"];
    args.extend_from_slice(extra);
    vcc_with_cache(cache, &args)
}

fn accepted(run: &Run) -> Value {
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    run.json()
}

/// A contract judged by a user component (the always-pass fixture), kept
/// outside its deliverable root `out/`.
fn user_component() -> (Scratch, PathBuf) {
    let scratch = Scratch::new();
    scratch.write("out/notes.md", "# Notes\n");
    let contract = scratch.write(
        "contract.yaml",
        format!(
            "vcc: 1\nid: cached\ndeliverables:\n  - {{ id: notes, path: notes.md }}\nvalidators:\n  v: {{ component: {:?} }}\ncriteria:\n  - {{ id: AC-1, severity: must, validator: v, targets: [notes] }}\n",
            fixtures::ALWAYS_PASS
        ),
    );
    (scratch, contract)
}

pub(crate) fn cwasm_files(cache: &Path) -> usize {
    fs::read_dir(cache)
        .map(|d| {
            d.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "cwasm"))
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn std_validators_run_from_the_binary_never_the_cache() {
    let cache = tempfile::tempdir().unwrap();
    let contract = repo().join("contracts/examples/release-notes/contract.yaml");
    for _ in 0..2 {
        let report = accepted(&check(cache.path(), &contract, &[]));
        let stats = &report["runtime"]["cache"];
        assert_eq!(stats["embedded"], 2, "{stats}");
        assert_eq!(
            (stats["hits"].as_u64(), stats["misses"].as_u64()),
            (Some(0), Some(0))
        );
    }
    assert_eq!(cwasm_files(cache.path()), 0, "no std entry is ever cached");
}

#[test]
fn a_second_run_never_recompiles() {
    let cache = tempfile::tempdir().unwrap();
    let (scratch, contract) = user_component();
    let out = scratch.path().join("out");
    let dir = ["--dir", out.to_str().unwrap()];
    let first = accepted(&check(cache.path(), &contract, &dir));
    assert_eq!(first["runtime"]["cache"]["misses"], 1, "compiled once");
    assert_eq!(first["runtime"]["cache"]["hits"], 0);
    let second = accepted(&check(cache.path(), &contract, &dir));
    assert_eq!(
        second["runtime"]["cache"]["misses"], 0,
        "not compiled again"
    );
    assert_eq!(second["runtime"]["cache"]["hits"], 1);
}

#[test]
fn a_tampered_cache_entry_is_refused_and_rebuilt() {
    let cache = tempfile::tempdir().unwrap();
    let (scratch, contract) = user_component();
    let out = scratch.path().join("out");
    let dir = ["--dir", out.to_str().unwrap()];
    accepted(&check(cache.path(), &contract, &dir));
    for entry in fs::read_dir(cache.path()).unwrap().flatten() {
        if entry.path().extension().is_some_and(|e| e == "cwasm") {
            let mut bytes = fs::read(entry.path()).unwrap();
            let middle = bytes.len() / 2;
            bytes[middle] ^= 0xff;
            fs::write(entry.path(), bytes).unwrap();
        }
    }
    let run = accepted(&check(cache.path(), &contract, &dir));
    assert_eq!(run["runtime"]["cache"]["rejected"], 1);
    assert_eq!(run["runtime"]["cache"]["misses"], 1);
    // The rebuilt entry is good again.
    let again = accepted(&check(cache.path(), &contract, &dir));
    assert_eq!(again["runtime"]["cache"]["hits"], 1);
}

#[test]
fn no_cache_compiles_and_writes_nothing() {
    let cache = tempfile::tempdir().unwrap();
    let (scratch, contract) = user_component();
    let out = scratch.path().join("out");
    let run = vcc_with_cache(
        cache.path(),
        &[
            "--no-cache",
            "check",
            contract.to_str().unwrap(),
            "--dir",
            out.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    let report = accepted(&run);
    assert_eq!(report["runtime"]["cache"]["misses"], 1);
    assert_eq!(fs::read_dir(cache.path()).unwrap().count(), 0);
}

/// `vcc check` with `cache` as the cache: exit 2, and what it said.
fn refused(cache: &Path, contract: &Path, extra: &[&str]) -> String {
    let run = check(cache, contract, extra);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    format!("{}{}", run.stdout, run.stderr)
}

#[test]
fn a_cache_inside_the_deliverable_root_is_refused() {
    // Whoever writes the deliverables could plant native code there, and
    // validators could read its MAC key.
    let (scratch, contract) = user_component();
    let out = scratch.path().join("out");
    let said = refused(
        &out.join(".vcc-cache"),
        &contract,
        &["--dir", out.to_str().unwrap()],
    );
    assert!(said.contains("inside the deliverable root"), "{said}");
    // The contract's folder is the default root: a cache there too.
    let said = refused(&scratch.path().join("cache"), &contract, &[]);
    assert!(said.contains("inside the deliverable root"), "{said}");
}

#[test]
fn a_cache_others_can_write_is_refused() {
    let (scratch, contract) = user_component();
    let out = scratch.path().join("out");
    let dir = ["--dir", out.to_str().unwrap()];
    let parent = tempfile::tempdir().unwrap();
    let cache = parent.path().join("cache");
    fs::create_dir(&cache).unwrap();
    fs::set_permissions(&cache, fs::Permissions::from_mode(0o777)).unwrap();
    let said = refused(&cache, &contract, &dir);
    assert!(said.contains("refusing the component cache"), "{said}");
    assert!(said.contains("world-writable; run `chmod go-w"), "{said}");
    fs::set_permissions(&cache, fs::Permissions::from_mode(0o770)).unwrap();
    assert!(refused(&cache, &contract, &dir).contains("group-writable"));
    // A folder above that others can rename things in (no sticky bit).
    fs::set_permissions(&cache, fs::Permissions::from_mode(0o700)).unwrap();
    fs::set_permissions(parent.path(), fs::Permissions::from_mode(0o777)).unwrap();
    let said = refused(&cache, &contract, &dir);
    assert!(said.contains("writable by others and not sticky"), "{said}");
    fs::set_permissions(parent.path(), fs::Permissions::from_mode(0o1777)).unwrap();
    accepted(&check(&cache, &contract, &dir));
}

#[test]
fn a_cache_owned_by_another_user_is_refused() {
    if !is_root() {
        eprintln!("skipped: changing a folder's owner needs root");
        return;
    }
    let (scratch, contract) = user_component();
    let out = scratch.path().join("out");
    let parent = tempfile::tempdir().unwrap();
    let cache = parent.path().join("cache");
    fs::create_dir(&cache).unwrap();
    std::os::unix::fs::chown(&cache, Some(54321), Some(54321)).unwrap();
    let said = refused(&cache, &contract, &["--dir", out.to_str().unwrap()]);
    assert!(said.contains("owned by uid 54321"), "{said}");
}

/// Make the entries `keys` look last used `ago` seconds ago, each next
/// one ten minutes longer ago.
fn used_ago(cache: &Path, keys: &[String], ago: u64) {
    for (i, key) in keys.iter().enumerate() {
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(cache.join(format!("{key}.used")))
            .unwrap();
        let when =
            std::time::SystemTime::now() - std::time::Duration::from_secs(ago + 600 * i as u64);
        file.set_modified(when).unwrap();
    }
}

fn keys(cache: &Path) -> Vec<String> {
    let mut keys: Vec<String> = fs::read_dir(cache)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(".cwasm"))
                .map(String::from)
        })
        .collect();
    keys.sort();
    keys
}

fn stats(cache: &Path) -> Value {
    let run = vcc_with_cache(cache, &["cache", "stats", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json()
}

/// A contract judged by `fixture` alone.
fn judged_by(scratch: &Scratch, name: &str, fixture: &str) -> PathBuf {
    scratch.write(
        &format!("{name}.yaml"),
        format!(
            "vcc: 1\nid: {name}\ndeliverables:\n  - {{ id: notes, path: out/notes.md }}\nvalidators:\n  v: {{ component: {fixture:?} }}\ncriteria:\n  - {{ id: AC-1, severity: must, validator: v, targets: [notes] }}\n"
        ),
    )
}

#[test]
fn an_entry_copied_under_another_components_name_is_refused() {
    // Sealed code of the always-pass fixture, copied over the always-fail
    // fixture's entry: the seal names its entry, so the copy is refused and
    // the failing component compiled again (it was accepted before seals
    // named their entries).
    let cache = tempfile::tempdir().unwrap();
    let scratch = Scratch::new();
    scratch.write("out/notes.md", "# Notes\n");
    let fail = judged_by(&scratch, "fail", fixtures::ALWAYS_FAIL);
    assert_eq!(check(cache.path(), &fail, &[]).code, 1);
    let failing = keys(cache.path());
    let pass = judged_by(&scratch, "pass", fixtures::ALWAYS_PASS);
    accepted(&check(cache.path(), &pass, &[]));
    let passing: Vec<String> = keys(cache.path())
        .into_iter()
        .filter(|k| !failing.contains(k))
        .collect();
    for ext in ["cwasm", "seal"] {
        fs::copy(
            cache.path().join(format!("{}.{ext}", passing[0])),
            cache.path().join(format!("{}.{ext}", failing[0])),
        )
        .unwrap();
    }
    let run = check(cache.path(), &fail, &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let report = run.json();
    assert_eq!(report["criteria"][0]["status"], "fail");
    assert_eq!(report["runtime"]["cache"]["rejected"], 1);
    assert_eq!(report["runtime"]["cache"]["misses"], 1);
}

#[test]
fn a_cache_inside_the_root_is_refused_before_anything_is_loaded() {
    // Planted code there would run before the refusal: nothing may be
    // compiled into it or loaded from it, by check or by lint.
    let (scratch, contract) = user_component();
    let out = scratch.path().join("out");
    let cache = out.join(".vcc-cache");
    let dir = ["--dir", out.to_str().unwrap()];
    refused(&cache, &contract, &dir);
    assert_eq!(keys(&cache), Vec::<String>::new());
    let lint = vcc_with_cache(
        &cache,
        &["lint", contract.to_str().unwrap(), dir[0], dir[1]],
    );
    assert_eq!(lint.code, 2, "{}{}", lint.stdout, lint.stderr);
    let said = format!("{}{}", lint.stdout, lint.stderr);
    assert!(said.contains("inside the deliverable root"), "{said}");
    assert_eq!(keys(&cache), Vec::<String>::new());
}

#[test]
fn the_cache_is_bounded_and_can_be_pruned_and_cleared() {
    let cache = tempfile::tempdir().unwrap();
    let scratch = Scratch::new();
    scratch.write("out/notes.md", "# Notes\n");
    let pass = judged_by(&scratch, "pass", fixtures::ALWAYS_PASS);
    let reader = judged_by(&scratch, "reader", fixtures::READER);
    accepted(&check(cache.path(), &pass, &[]));
    let first = keys(cache.path());
    accepted(&check(cache.path(), &reader, &[]));
    let s = stats(cache.path());
    assert_eq!(s["entries"], 2, "{s}");
    assert_eq!(s["max_size"], 1u64 << 30);
    assert!(s["memos"].as_u64().unwrap() >= 1, "{s}");

    // The always-pass entry was used longest ago: a bound that holds one
    // entry removes it.
    let second: Vec<String> = keys(cache.path())
        .into_iter()
        .filter(|k| !first.contains(k))
        .collect();
    used_ago(cache.path(), &[second[0].clone(), first[0].clone()], 3600);
    let size = fs::metadata(cache.path().join(format!("{}.cwasm", second[0])))
        .unwrap()
        .len();
    let run = vcc_with_cache(
        cache.path(),
        &["cache", "prune", "--max-size", &format!("{}B", size + 4096)],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with("pruned: removed 1 component(s)"),
        "{}",
        run.stdout
    );
    assert_eq!(keys(cache.path()), second);
    let again = accepted(&check(cache.path(), &reader, &[]));
    assert_eq!(again["runtime"]["cache"]["hits"], 1);

    // A store past VCC_CACHE_MAX_SIZE evicts what was not used for long,
    // never the entry it just stored.
    used_ago(cache.path(), &second, 3600);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_vcc"))
        .args(["check", pass.to_str().unwrap(), "--format", "json"])
        .env("VCC_CACHE_DIR", cache.path())
        .env("VCC_CACHE_MAX_SIZE", "1B")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(keys(cache.path()), first);

    // --older-than, then clear.
    used_ago(cache.path(), &first, 7200);
    let run = vcc_with_cache(cache.path(), &["cache", "prune", "--older-than", "1h"]);
    assert!(
        run.stdout.starts_with("pruned: removed 1 component(s)"),
        "{}",
        run.stdout
    );
    assert_eq!(stats(cache.path())["entries"], 0);
    accepted(&check(cache.path(), &pass, &[]));
    let run = vcc_with_cache(cache.path(), &["cache", "clear"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let s = stats(cache.path());
    assert_eq!(
        (s["entries"].as_u64(), s["memos"].as_u64()),
        (Some(0), Some(0)),
        "{s}"
    );
    assert!(cache.path().join("cache.key").exists());
}

/// `vcc check` processes started at once, the cache cold.
fn at_once(cache: &Path, contract: &Path, out: &Path, n: usize) -> Vec<Value> {
    let children: Vec<_> = (0..n)
        .map(|_| {
            std::process::Command::new(env!("CARGO_BIN_EXE_vcc"))
                .args([
                    "check",
                    contract.to_str().unwrap(),
                    "--format",
                    "json",
                    "--dir",
                ])
                .arg(out)
                .env("VCC_CACHE_DIR", cache)
                .env("NO_COLOR", "1")
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    children
        .into_iter()
        .map(|mut c| {
            accepted(&crate::wait_within(
                &mut c,
                std::time::Duration::from_secs(120),
            ))
        })
        .collect()
}

/// W10: eight processes on a cold cache compile the component once; the
/// others wait for the compiler's lock and load what it stored.
#[test]
fn eight_processes_at_once_compile_a_component_once() {
    let cache = tempfile::tempdir().unwrap();
    let (scratch, contract) = user_component();
    let reports = at_once(cache.path(), &contract, &scratch.path().join("out"), 8);
    let misses: u64 = reports
        .iter()
        .map(|r| r["runtime"]["cache"]["misses"].as_u64().unwrap())
        .sum();
    let hits: u64 = reports
        .iter()
        .map(|r| r["runtime"]["cache"]["hits"].as_u64().unwrap())
        .sum();
    assert_eq!((misses, hits), (1, 7), "one compile, seven loads");
    for r in &reports {
        assert_eq!(r["verdict"], "accepted");
    }
    assert_eq!(cwasm_files(cache.path()), 1);
}

/// A compiler killed while it holds the lock (SIGKILL: no clean-up runs)
/// does not leave the others waiting: the kernel drops its lock, and one
/// of them compiles.
#[test]
fn a_compiler_killed_holding_the_lock_blocks_no_one() {
    let cache = tempfile::tempdir().unwrap();
    let (scratch, contract) = user_component();
    let out = scratch.path().join("out");
    at_once(cache.path(), &contract, &out, 1);
    // Cold again for this key, its lock file known.
    let mut lock = None;
    for e in fs::read_dir(cache.path()).unwrap().flatten() {
        let path = e.path();
        match path.extension().and_then(|x| x.to_str()) {
            Some("cwasm" | "seal" | "used") => fs::remove_file(&path).unwrap(),
            Some("lock") => lock = Some(path),
            _ => {}
        }
    }
    let lock = fs::canonicalize(lock.expect("a KEY.lock beside the entry")).unwrap();
    // Another process holds the lock (flock, as vcc takes it), as a
    // compiler would, and is killed.
    let mut holder = std::process::Command::new("python3")
        .args([
            "-c",
            "import fcntl, sys, time; f = open(sys.argv[1], 'w'); fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); time.sleep(600)",
        ])
        .arg(&lock)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(holder.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line.trim(), "held");
    let waiting = std::thread::spawn({
        let (cache, contract, out) = (cache.path().to_path_buf(), contract.clone(), out.clone());
        move || at_once(&cache, &contract, &out, 2)
    });
    // Killed once both have the lock file open (they poll it from then
    // on), not after a guess of how long they take to get there.
    let start = std::time::Instant::now();
    while waiting_on(&lock, holder.id()) < 2
        && start.elapsed() < std::time::Duration::from_secs(120)
    {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(
        waiting_on(&lock, holder.id()),
        2,
        "both checks wait for the lock"
    );
    holder.kill().unwrap();
    holder.wait().unwrap();
    let reports = waiting.join().unwrap();
    let misses: u64 = reports
        .iter()
        .map(|r| r["runtime"]["cache"]["misses"].as_u64().unwrap())
        .sum();
    assert_eq!(misses, 1, "one of the two compiled, the other loaded");
}

/// How many processes but `holder` have `lock` open (/proc/PID/fd).
fn waiting_on(lock: &std::path::Path, holder: u32) -> usize {
    let Ok(procs) = fs::read_dir("/proc") else {
        return 0;
    };
    procs
        .flatten()
        .filter(|p| {
            let name = p.file_name();
            let Some(pid) = name.to_str().and_then(|n| n.parse::<u32>().ok()) else {
                return false;
            };
            pid != holder
                && fs::read_dir(p.path().join("fd")).is_ok_and(|fds| {
                    fds.flatten()
                        .any(|fd| fs::read_link(fd.path()).is_ok_and(|t| t == lock))
                })
        })
        .count()
}
