//! The verdict log through the real binary: appended by check, converge,
//! the hook and MCP; verified, shown, counted, proven; its checkpoints and
//! receipts checked by an independent implementation (Python: hashlib and
//! `cryptography`, written from RFC 6962/9162 and the C2SP specifications);
//! tampering named; SIGKILLs and concurrent appends survived.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;
use vcc_test_support::Scratch;

use crate::world::tools_dir;
use crate::{Run, repo, vcc};

/// A project whose contract is accepted when a.txt exists, and a folder
/// outside it for the log and the key.
struct Log {
    project: Scratch,
    outside: Scratch,
}

impl Log {
    fn new() -> Log {
        let project = Scratch::new();
        project.write(
            "contract.yaml",
            "vcc: 1\nid: logged\ndeliverables: [{ id: a, path: a.txt }]\nvalidators: { e: { component: std/file-exists } }\ncriteria: [{ id: A, severity: must, validator: e, targets: [a] }]\n",
        );
        let outside = Scratch::new();
        let key = vcc(&[
            "key",
            "generate",
            outside.path().join("ledger").to_str().unwrap(),
        ]);
        assert_eq!(key.code, 0, "{}", key.stderr);
        Log { project, outside }
    }

    fn file(&self) -> PathBuf {
        self.outside.path().join("verdicts.jsonl")
    }

    fn contract(&self) -> String {
        self.project
            .path()
            .join("contract.yaml")
            .display()
            .to_string()
    }

    fn key(&self, ext: &str) -> String {
        self.outside
            .path()
            .join(format!("ledger.{ext}"))
            .display()
            .to_string()
    }

    fn check(&self) -> Run {
        vcc(&[
            "check",
            &self.contract(),
            "--format",
            "json",
            "--ledger",
            self.file().to_str().unwrap(),
            "--ledger-key",
            &self.key("key"),
        ])
    }

    fn ledger(&self, args: &[&str]) -> Run {
        let mut all = vec!["ledger"];
        all.extend_from_slice(args);
        vcc(&all)
    }

    fn verify(&self) -> Run {
        self.ledger(&[
            "verify",
            self.file().to_str().unwrap(),
            "--key",
            &self.key("pub"),
        ])
    }
}

fn independent(ledger: &Path, key: &str, receipt: Option<&Path>) -> Value {
    let python = tools_dir().join("reports-py/bin/python");
    let mut cmd = Command::new(python);
    cmd.arg(repo().join("tests/readers/ledger_verify.py"))
        .arg(ledger)
        .arg(key);
    if let Some(r) = receipt {
        cmd.arg(r);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn checks_and_loops_are_logged_verified_and_proven_by_independent_code() {
    let log = Log::new();
    for _ in 0..2 {
        let run = log.check();
        assert_eq!(run.code, 1);
        assert_eq!(
            run.json()["ledger"]["file"],
            log.file().display().to_string()
        );
    }
    log.project.write("a.txt", "done\n");
    let run = log.check();
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json()["ledger"]["seq"], 2);
    // A loop logs each of its checks and its end.
    std::fs::remove_file(log.project.path().join("a.txt")).unwrap();
    let a = log.project.path().join("a.txt");
    let converge = vcc(&[
        "converge",
        &log.contract(),
        "--ledger",
        log.file().to_str().unwrap(),
        "--ledger-key",
        &log.key("key"),
        "--",
        "sh",
        "-c",
        &format!("echo done > {}", a.display()),
    ]);
    assert_eq!(converge.code, 0, "{}", converge.stderr);

    let verified = log.verify();
    assert_eq!(verified.code, 0, "{}", verified.stderr);
    assert!(
        verified.stderr.contains("intact: 6 entries"),
        "{}",
        verified.stderr
    );
    assert!(
        verified.stderr.contains("6 of 6 checkpoint(s) verified"),
        "{}",
        verified.stderr
    );

    let shown = log
        .ledger(&["show", log.file().to_str().unwrap(), "--format", "json"])
        .json();
    let kinds: Vec<&str> = shown
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "check",
            "check",
            "check",
            "converge_check",
            "converge_check",
            "converge_end"
        ]
    );
    let outcomes: Vec<&str> = shown
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(
        outcomes,
        [
            "blocked", "blocked", "success", "blocked", "success", "success"
        ]
    );
    assert_eq!(shown[5]["termination"], "accepted");
    assert_eq!(shown[4]["iteration"], 1);

    let receipt = log.outside.path().join("receipt.json");
    let proved = log.ledger(&[
        "prove",
        log.file().to_str().unwrap(),
        "2",
        "--out",
        receipt.to_str().unwrap(),
    ]);
    assert_eq!(proved.code, 0, "{}", proved.stderr);
    let ok = log.ledger(&[
        "verify-proof",
        receipt.to_str().unwrap(),
        "--key",
        &log.key("pub"),
    ]);
    assert_eq!(ok.code, 0, "{}", ok.stderr);

    let theirs = independent(&log.file(), &log.key("pub"), Some(&receipt));
    let ours: Value = serde_json::from_str(
        &log.ledger(&["verify", log.file().to_str().unwrap(), "--format", "json"])
            .stdout,
    )
    .unwrap();
    assert_eq!(
        theirs["root"], ours["verification"]["root"],
        "the same RFC 6962 root"
    );
    assert_eq!(theirs["checkpoints"].as_array().unwrap().len(), 6);
    for cp in theirs["checkpoints"].as_array().unwrap() {
        assert_eq!(
            (cp["signed"].as_bool(), cp["root_matches"].as_bool()),
            (Some(true), Some(true)),
            "{cp}"
        );
    }
    assert_eq!(theirs["receipt"]["proven"], true, "{theirs}");

    // A receipt for another entry's bytes proves nothing.
    let mut forged: Value = serde_json::from_slice(&std::fs::read(&receipt).unwrap()).unwrap();
    forged["entry"] = Value::from(
        forged["entry"]
            .as_str()
            .unwrap()
            .replace("\"accepted\"", "\"rejected\""),
    );
    std::fs::write(&receipt, forged.to_string()).unwrap();
    let refused = log.ledger(&[
        "verify-proof",
        receipt.to_str().unwrap(),
        "--key",
        &log.key("pub"),
    ]);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert_eq!(
        independent(&log.file(), &log.key("pub"), Some(&receipt))["receipt"]["proven"],
        false
    );
}

#[test]
fn tampering_is_named_by_seq_and_kind() {
    let log = Log::new();
    for _ in 0..4 {
        log.check();
    }
    let original = std::fs::read_to_string(log.file()).unwrap();
    let lines: Vec<&str> = original.lines().collect();

    // Edited: the verdict of seq 1 changed.
    let edited = original.replacen(
        &lines[1].to_string(),
        &lines[1].replace("\"rejected\"", "\"accepted\""),
        1,
    );
    std::fs::write(log.file(), edited).unwrap();
    let run = log.verify();
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("BROKEN at seq 1: edited"),
        "{}",
        run.stderr
    );

    // Truncated behind a signed checkpoint.
    std::fs::write(log.file(), format!("{}\n{}\n", lines[0], lines[1])).unwrap();
    let run = log.verify();
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("BROKEN at seq 2: truncated"),
        "{}",
        run.stderr
    );

    // Reordered.
    std::fs::write(
        log.file(),
        format!("{}\n{}\n{}\n{}\n", lines[0], lines[2], lines[1], lines[3]),
    )
    .unwrap();
    let run = log.verify();
    assert!(
        run.stderr.contains("BROKEN at seq 1: reordered"),
        "{}",
        run.stderr
    );

    // A torn tail is not an entry: ignored by readers, refused by appends,
    // removed by repair.
    std::fs::write(log.file(), format!("{original}{{\"seq\":4,\"time\"")).unwrap();
    let run = log.verify();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("torn last line"), "{}", run.stderr);
    let refused = log.check();
    assert_eq!(refused.code, 2, "{}", refused.stdout);
    assert!(
        refused.json()["reason"]
            .as_str()
            .unwrap()
            .contains("vcc ledger repair")
    );
    let repaired = log.ledger(&["repair", log.file().to_str().unwrap()]);
    assert_eq!(repaired.code, 0);
    assert!(
        repaired
            .stderr
            .contains("removed a torn last line of 15 bytes"),
        "{}",
        repaired.stderr
    );
    assert_eq!(log.check().json()["ledger"]["seq"], 4);
    assert_eq!(log.verify().code, 0);

    // A key that did not sign the checkpoints.
    let other = Scratch::new();
    vcc(&["key", "generate", other.path().join("k").to_str().unwrap()]);
    let run = log.ledger(&[
        "verify",
        log.file().to_str().unwrap(),
        "--key",
        other.path().join("k.pub").to_str().unwrap(),
    ]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains(": unsigned:"), "{}", run.stderr);
}

#[test]
fn a_ledger_inside_the_root_is_refused() {
    let log = Log::new();
    log.project.write("a.txt", "done\n");
    let inside = log.project.path().join("log.jsonl");
    let run = vcc(&[
        "check",
        &log.contract(),
        "--ledger",
        inside.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("lies in the deliverable root"),
        "{}",
        run.stderr
    );
}

/// Xorshift: the same "random" kill points on every run, in microseconds
/// below `span`.
fn kill_points(n: usize, span: u64) -> Vec<u64> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % span.max(1)
        })
        .collect()
}

#[test]
fn two_hundred_sigkills_leave_every_earlier_entry_whole() {
    let log = Log::new();
    log.project.write("a.txt", "done\n");
    // Kill points spread over a whole check and a little past it: how long
    // one takes here, now.
    log.check();
    let mut took: Vec<u128> = (0..5)
        .map(|_| {
            let started = std::time::Instant::now();
            assert_eq!(log.check().code, 0);
            started.elapsed().as_micros()
        })
        .collect();
    took.sort();
    let span = (took[2] * 3 / 2) as u64;
    eprintln!("checks took {took:?} µs");
    let mut entries = 0u64;
    let mut torn_seen = 0;
    let mut completed = 0;
    for (i, us) in kill_points(200, span).into_iter().enumerate() {
        let mut child = Command::new(env!("CARGO_BIN_EXE_vcc"))
            .args([
                "check",
                &log.contract(),
                "--ledger",
                log.file().to_str().unwrap(),
            ])
            .args(["--ledger-key", &log.key("key")])
            .env("VCC_CACHE_DIR", crate::shared_cache())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(us));
        let _ = child.kill();
        if child.wait().is_ok_and(|s| s.success()) {
            completed += 1;
        }
        let run = log.ledger(&[
            "verify",
            log.file().to_str().unwrap(),
            "--key",
            &log.key("pub"),
            "--format",
            "json",
        ]);
        if !log.file().exists() {
            continue;
        }
        let v: Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|_| panic!("kill {i}: {}", run.stderr));
        assert_eq!(v["intact"], true, "after kill {i} at {us} µs: {v}");
        let now = v["verification"]["entries"].as_u64().unwrap();
        assert!(
            now >= entries,
            "kill {i}: entries went from {entries} to {now}"
        );
        entries = now;
        if v["verification"]["torn_tail"].is_u64() {
            torn_seen += 1;
            assert_eq!(
                log.ledger(&["repair", log.file().to_str().unwrap()]).code,
                0
            );
        }
    }
    eprintln!(
        "200 kills over {span} µs: {completed} checks finished first, {entries} entries kept, {torn_seen} torn tail(s) repaired"
    );
    assert!(completed < 200, "some checks must have been killed mid-run");
}

#[test]
fn eight_processes_append_fifty_entries_each() {
    let log = std::sync::Arc::new(Log::new());
    log.project.write("a.txt", "done\n");
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let log = log.clone();
            std::thread::spawn(move || {
                for _ in 0..50 {
                    let out = Command::new(env!("CARGO_BIN_EXE_vcc"))
                        .args([
                            "check",
                            &log.contract(),
                            "--ledger",
                            log.file().to_str().unwrap(),
                        ])
                        .env("VCC_CACHE_DIR", crate::shared_cache())
                        .stdout(Stdio::null())
                        .stderr(Stdio::piped())
                        .output()
                        .unwrap();
                    assert_eq!(
                        out.status.code(),
                        Some(0),
                        "{}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let run = log.ledger(&["verify", log.file().to_str().unwrap(), "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let v = run.json();
    assert_eq!(v["verification"]["entries"], 400);
    let shown = log
        .ledger(&["show", log.file().to_str().unwrap(), "--format", "json"])
        .json();
    let seqs: Vec<u64> = shown
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, (0..400).collect::<Vec<_>>());
}

#[test]
fn stats_count_checks_and_loops_apart_with_their_denominators() {
    let log = Log::new();
    log.check(); // rejected: blocked
    log.project.write("a.txt", "done\n");
    log.check(); // accepted: success
    // An invalid run: a flag the contract does not know.
    vcc(&[
        "check",
        &log.contract(),
        "--only",
        "NOPE",
        "--ledger",
        log.file().to_str().unwrap(),
    ]);
    // A loop that runs out of iterations: two checks blocked, one end failed.
    std::fs::remove_file(log.project.path().join("a.txt")).unwrap();
    vcc(&[
        "converge",
        &log.contract(),
        "--max-iterations",
        "1",
        "--ledger",
        log.file().to_str().unwrap(),
        "--",
        "true",
    ]);
    let stats = log
        .ledger(&["stats", log.file().to_str().unwrap(), "--format", "json"])
        .json();
    let checks = &stats["all"]["checks"];
    assert_eq!(checks["rows"], 5, "{stats}");
    assert_eq!(
        (
            checks["success"].as_u64(),
            checks["blocked"].as_u64(),
            checks["failed"].as_u64()
        ),
        (Some(1), Some(3), Some(1))
    );
    assert_eq!(checks["known"], 5);
    assert_eq!(checks["success_of_known"], 0.2);
    let loops = &stats["all"]["loops"];
    assert_eq!(
        (loops["rows"].as_u64(), loops["failed"].as_u64()),
        (Some(1), Some(1)),
        "{stats}"
    );
    let human = log.ledger(&["stats", log.file().to_str().unwrap()]);
    assert!(human.stdout.contains("1/5 20.0%"), "{}", human.stdout);
}

/// `vcc check --reuse`: nothing changed since a computed verdict in an
/// intact ledger → that verdict, no validator run, the reuse logged; any
/// change computes again.
#[test]
fn an_unchanged_check_reuses_the_logged_verdict() {
    let log = Log::new();
    log.project.write("a.txt", "done\n");
    let reuse = |extra: &[&str]| {
        let mut args = vec![
            "check".to_string(),
            log.contract(),
            "--format".into(),
            "json".into(),
            "--ledger".into(),
            log.file().display().to_string(),
            "--reuse".into(),
        ];
        args.extend(extra.iter().map(|a| a.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        vcc(&args)
    };
    let first = reuse(&[]);
    assert_eq!(first.code, 0, "{}", first.stdout);
    assert!(first.json()["reused"].is_null(), "nothing to reuse yet");
    let second = reuse(&[]);
    assert_eq!(second.code, 0, "{}", second.stdout);
    let r = second.json();
    assert_eq!(r["reused"]["seq"], 0, "{r}");
    assert!(
        r["criteria"][0]["summary"]
            .as_str()
            .unwrap()
            .contains("reused from ledger seq 0")
    );
    let human = vcc(&[
        "check",
        &log.contract(),
        "--ledger",
        log.file().to_str().unwrap(),
        "--reuse",
    ]);
    assert!(
        human.stderr.contains("reused from ledger"),
        "{}",
        human.stderr
    );

    // A changed deliverable computes again, and is not a reuse.
    log.project.write("a.txt", "changed\n");
    let third = reuse(&[]);
    assert!(third.json()["reused"].is_null(), "{}", third.stdout);
    // A different walk limit is a different key.
    let fourth = reuse(&["--max-files", "10"]);
    assert!(fourth.json()["reused"].is_null(), "{}", fourth.stdout);
    let again = reuse(&[]);
    assert_eq!(
        again.json()["reused"]["seq"],
        3,
        "seq 2 was the human run's reuse; seq 3 computed these bytes"
    );

    let shown = log
        .ledger(&["show", log.file().to_str().unwrap(), "--format", "json"])
        .json();
    let reused: Vec<Value> = shown
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["reused_from"].clone())
        .collect();
    assert_eq!(
        (reused[1].as_u64(), reused[2].as_u64()),
        (Some(0), Some(0)),
        "the reuses are recorded"
    );
    assert!(reused[3].is_null() && reused[4].is_null());
    assert_eq!(reused[5], 3);

    // A broken ledger reuses nothing.
    let text = std::fs::read_to_string(log.file()).unwrap();
    std::fs::write(log.file(), text.replacen("\"seq\":1", "\"seq\":7", 1)).unwrap();
    let broken = reuse(&[]);
    assert!(broken.json()["reused"].is_null(), "{}", broken.stdout);
    assert!(broken.stderr.contains("is not intact"), "{}", broken.stderr);
}

/// `git ARGS` in `dir`, with no configuration but the repository's.
fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The last entry's `git` object.
fn last_git(file: &Path) -> Value {
    let text = std::fs::read_to_string(file).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    last["git"].clone()
}

/// `--ledger` records the commit and whether the work tree was dirty. It
/// asked `git status` in the worker's repository, and git runs what
/// `.git/config` names — here `core.fsmonitor`, a script that writes a
/// marker: any program, as the verifier. The repository's files are now
/// read instead and nothing runs; `dirty` is still right.
#[test]
fn a_repository_configuration_runs_nothing() {
    let log = Log::new();
    let p = log.project.path();
    log.project.write("a.txt", "a\n");
    git(p, &["init", "-q", "-b", "main"]);
    git(p, &["add", "-A"]);
    git(p, &["commit", "-qm", "work"]);
    let marker = log.outside.path().join("fsmonitor-ran");
    let script = log.project.write(
        ".git/fsmonitor.sh",
        format!("#!/bin/sh\necho ran >> '{}'\n", marker.display()),
    );
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let config = p.join(".git/config");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(&format!("[core]\n\tfsmonitor = {}\n", script.display()));
    std::fs::write(&config, text).unwrap();

    let run = log.check();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !marker.exists(),
        "the repository's core.fsmonitor ran as the verifier"
    );
    let head = std::fs::read_to_string(p.join(".git/refs/heads/main")).unwrap();
    let g = last_git(&log.file());
    assert_eq!(g["commit"], head.trim());
    assert_eq!(g["dirty"], false, "{g}");

    log.project.write("a.txt", "changed\n");
    let run = log.check();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(last_git(&log.file())["dirty"], true);
    assert!(!marker.exists());
}
