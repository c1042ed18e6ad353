//! The verdict log through the real binary: appended by check, converge,
//! the hook and MCP; verified, shown, counted, proven; its checkpoints and
//! receipts checked by an independent implementation (Python: hashlib and
//! `cryptography`, written from RFC 6962/9162 and the C2SP specifications);
//! tampering named; SIGKILLs and concurrent appends survived. The worker
//! who can write the log file (it lies outside the root, but often in the
//! worker's reach) is the forger: a correctly chained entry anyone can
//! append, a rewritten history, deleted checkpoints, a lying state file;
//! only what the verifier's key signed counts.

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
        self.check_with(&["--ledger-key", &self.key("key")])
    }

    /// `vcc check --format json --ledger FILE`, plus `extra`.
    fn check_with(&self, extra: &[&str]) -> Run {
        let contract = self.contract();
        let file = self.file().display().to_string();
        let mut args = vec!["check", &contract, "--format", "json", "--ledger", &file];
        args.extend_from_slice(extra);
        vcc(&args)
    }

    /// The file and its checkpoints, byte for byte (absent: empty).
    fn bytes(&self) -> (Vec<u8>, Vec<u8>) {
        (
            std::fs::read(self.file()).unwrap_or_default(),
            std::fs::read(self.checkpoints()).unwrap_or_default(),
        )
    }

    fn checkpoints(&self) -> PathBuf {
        self.outside.path().join("verdicts.jsonl.checkpoints")
    }

    fn lines(&self) -> Vec<String> {
        std::fs::read_to_string(self.file())
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
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
    independent_with(ledger, key, receipt, None)
}

/// The independent reader, with a proof and the checkpoint kept elsewhere.
fn independent_with(ledger: &Path, key: &str, proof: Option<&Path>, kept: Option<&Path>) -> Value {
    let python = tools_dir().join("reports-py/bin/python");
    let mut cmd = Command::new(python);
    cmd.arg(repo().join("tests/readers/ledger_verify.py"))
        .arg(ledger)
        .arg(key);
    cmd.args(proof).args(kept);
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
    let mut uncovered_seen = 0;
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
        let now = v["verification"]["entries"].as_u64().unwrap();
        if v["intact"] == false {
            // Killed between its entry and its checkpoint: that one entry,
            // and nothing else, is covered by no signed checkpoint.
            let p = &v["verification"]["problem"];
            assert_eq!(
                (p["kind"].as_str(), p["seq"].as_u64()),
                (Some("uncovered"), Some(now - 1)),
                "after kill {i} at {us} µs: {v}"
            );
            uncovered_seen += 1;
        }
        assert!(
            now >= entries,
            "kill {i}: entries went from {entries} to {now}"
        );
        if v["verification"]["torn_tail"].is_u64() {
            torn_seen += 1;
        }
        if v["intact"] == false || v["verification"]["torn_tail"].is_u64() {
            let repair = log.ledger(&[
                "repair",
                log.file().to_str().unwrap(),
                "--key",
                &log.key("pub"),
            ]);
            assert_eq!(repair.code, 0, "{}", repair.stderr);
            assert_eq!(log.verify().code, 0, "repaired after kill {i}");
        }
        entries = log
            .ledger(&["verify", log.file().to_str().unwrap(), "--format", "json"])
            .json()["verification"]["entries"]
            .as_u64()
            .unwrap();
    }
    eprintln!(
        "200 kills over {span} µs: {completed} checks finished first, {entries} entries kept, {torn_seen} torn tail(s) and {uncovered_seen} entries killed before their checkpoint repaired"
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
    // An unsigned log: every run below appends without a key.
    let log = Log::new();
    log.check_with(&[]); // rejected: blocked
    log.project.write("a.txt", "done\n");
    log.check_with(&[]); // accepted: success
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

/// `vcc check --reuse --ledger-key`: nothing changed since a computed
/// verdict a signed checkpoint covers → that verdict, no validator run,
/// the reuse logged; any change computes again, and says why.
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
            "--ledger-key".into(),
            log.key("key"),
            "--reuse".into(),
        ];
        args.extend(extra.iter().map(|a| a.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        vcc(&args)
    };
    let first = reuse(&[]);
    assert_eq!(first.code, 0, "{}", first.stdout);
    assert!(first.json()["reused"].is_null(), "nothing to reuse yet");
    assert!(
        first.json()["not_reused"]
            .as_str()
            .unwrap()
            .contains("does not exist yet"),
        "{}",
        first.stdout
    );
    let second = reuse(&[]);
    assert_eq!(second.code, 0, "{}", second.stdout);
    let r = second.json();
    assert_eq!(r["reused"]["seq"], 0, "{r}");
    assert!(r["not_reused"].is_null(), "{r}");
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
        "--ledger-key",
        &log.key("key"),
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
    assert!(
        third.json()["not_reused"]
            .as_str()
            .unwrap()
            .starts_with("the ledger holds no signed verdict computed for these inputs"),
        "{}",
        third.stdout
    );
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

    // A broken ledger reuses nothing (and takes no entry: invalid).
    let text = std::fs::read_to_string(log.file()).unwrap();
    std::fs::write(log.file(), text.replacen("\"seq\":1", "\"seq\":7", 1)).unwrap();
    let broken = reuse(&[]);
    let r = broken.json();
    assert!(r["reused"].is_null(), "{}", broken.stdout);
    assert!(
        r["not_reused"]
            .as_str()
            .unwrap()
            .contains("does not verify with the key (removed at seq 1"),
        "{}",
        broken.stdout
    );
    assert_eq!(broken.code, 2, "{}", broken.stdout);
}

/// What anyone who can write the log can append: `entry` with the next
/// seq, chained to the root of the entries before it (which `vcc ledger
/// verify` prints), no lock, no key.
fn forge(log: &Log, mut entry: Value) {
    let v = log
        .ledger(&["verify", log.file().to_str().unwrap(), "--format", "json"])
        .json();
    entry["seq"] = v["verification"]["entries"].clone();
    entry["prev_root"] = v["verification"]["root"].clone();
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(log.file())
        .unwrap();
    std::io::Write::write_all(&mut file, format!("{entry}\n").as_bytes()).unwrap();
}

/// An entry's verdict and every row turned to `pass`.
fn all_passed(line: &str) -> Value {
    let mut e: Value = serde_json::from_str(line).unwrap();
    e["verdict"] = "accepted".into();
    e["outcome"] = "success".into();
    e["acceptance_status"] = "accepted".into();
    e["reason"] = "all 1 MUST criteria passed".into();
    for c in e["criteria"].as_array_mut().unwrap() {
        c["status"] = "pass".into();
        c["reason"] = "validator".into();
    }
    e
}

/// `--reuse` took a correctly chained copy of the last (rejected) entry
/// with every row set to `pass` for the verdict of the unchanged inputs:
/// ACCEPTED with a.txt missing. Only an entry a checkpoint signed by the
/// verifier's key covers is reused; without the key nothing is, and the
/// report says why.
#[test]
fn forgery_host_reuse_of_an_entry_anyone_could_append() {
    // An unsigned log: nothing in it is the verifier's word.
    let log = Log::new();
    assert_eq!(log.check_with(&[]).code, 1, "a.txt is missing: rejected");
    forge(&log, all_passed(&log.lines()[0]));
    let run = log.check_with(&["--reuse"]);
    let r = run.json();
    assert_eq!(
        (run.code, r["verdict"].as_str()),
        (1, Some("rejected")),
        "{}",
        run.stdout
    );
    assert!(r["reused"].is_null(), "{r}");
    let why = r["not_reused"].as_str().unwrap();
    assert!(why.starts_with("no --ledger-key: a logged verdict is reused only when a checkpoint signed with the verifier's ledger key covers it"), "{why}");
    let human = vcc(&[
        "check",
        &log.contract(),
        "--ledger",
        log.file().to_str().unwrap(),
        "--reuse",
    ]);
    assert_eq!(human.code, 1);
    assert!(
        human.stderr.contains("not reused: no --ledger-key"),
        "{}",
        human.stderr
    );

    // A signed log: the forged entry is covered by no signed checkpoint.
    let log = Log::new();
    assert_eq!(log.check().code, 1);
    forge(&log, all_passed(&log.lines()[0]));
    let run = log.check_with(&["--ledger-key", &log.key("key"), "--reuse"]);
    let r = run.json();
    assert_ne!(r["verdict"], "accepted", "{r}");
    assert!(r["reused"].is_null(), "{r}");
    let why = r["not_reused"].as_str().unwrap();
    assert!(
        why.contains("does not verify with the key (uncovered at seq 1"),
        "{why}"
    );
    // And nothing is appended to it: the run cannot be logged (invalid).
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        r["reason"]
            .as_str()
            .unwrap()
            .contains("is broken (uncovered at seq 1"),
        "{r}"
    );
}

/// `vcc ledger verify --key` passed entries appended after the last
/// checkpoint: with a key, every entry is covered by a checkpoint it
/// signed, or verify names the uncovered range; the next signed append
/// refuses the log untouched; `repair --key` moves them aside.
#[test]
fn forgery_host_entries_appended_after_the_last_checkpoint() {
    let log = Log::new();
    for _ in 0..2 {
        assert_eq!(log.check().code, 1);
    }
    let forged = all_passed(&log.lines()[1]);
    forge(&log, forged);
    let run = log.verify();
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "BROKEN at seq 2: uncovered: seq 2 is covered by no checkpoint the key signed"
        ),
        "{}",
        run.stderr
    );
    assert_eq!(
        independent(&log.file(), &log.key("pub"), None)["uncovered"],
        1
    );
    // Without the key the chain holds, and verify says what it did not check.
    let plain = log.ledger(&["verify", log.file().to_str().unwrap()]);
    assert_eq!(plain.code, 0);
    assert!(
        plain
            .stderr
            .contains("entries after the last one not refused (give --key)"),
        "{}",
        plain.stderr
    );

    // The next signed check neither signs it nor builds on it.
    let before = log.bytes();
    let refused = log.check();
    assert_eq!(refused.code, 2, "{}", refused.stdout);
    assert!(
        refused.json()["reason"]
            .as_str()
            .unwrap()
            .contains("is broken (uncovered at seq 2"),
        "{}",
        refused.stdout
    );
    assert_eq!(log.bytes(), before, "the log is left untouched");
    // Nor does an unsigned append to a signed log.
    let unsigned = log.check_with(&[]);
    assert_eq!(unsigned.code, 2);
    assert!(
        unsigned.json()["reason"]
            .as_str()
            .unwrap()
            .contains("is signed (2 checkpoint(s)): an entry appended without --ledger-key"),
        "{}",
        unsigned.stdout
    );
    assert_eq!(log.bytes(), before);

    // The verifier looks, and moves it aside.
    let forged_line = log.lines()[2].clone();
    let repaired = log.ledger(&[
        "repair",
        log.file().to_str().unwrap(),
        "--key",
        &log.key("pub"),
    ]);
    assert_eq!(repaired.code, 0, "{}", repaired.stderr);
    assert!(
        repaired
            .stderr
            .contains("removed seq 2, which no checkpoint signed by the key covered"),
        "{}",
        repaired.stderr
    );
    let removed =
        std::fs::read_to_string(log.outside.path().join("verdicts.jsonl.removed")).unwrap();
    assert_eq!(removed, format!("{forged_line}\n"));
    assert_eq!(log.verify().code, 0);
    assert_eq!(log.check().json()["ledger"]["seq"], 2);
}

/// A history rewritten (seq 1 turned to accepted, re-chained) and its
/// `.checkpoints` deleted: `verify --key` passed it, the next `check
/// --ledger-key` signed it, and `prove`/`verify-proof` proved the forged
/// entry. Now nothing the key did not sign is covered, the signed append
/// refuses it untouched, and no receipt is made from it.
#[test]
fn forgery_host_a_rewritten_history_whose_checkpoints_were_deleted() {
    let log = Log::new();
    for _ in 0..2 {
        assert_eq!(log.check().code, 1);
    }
    let lines = log.lines();
    std::fs::write(log.file(), format!("{}\n", lines[0])).unwrap();
    forge(&log, all_passed(&lines[1]));
    std::fs::remove_file(log.checkpoints()).unwrap();

    let run = log.verify();
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("BROKEN at seq 0: uncovered: seq 0 to 1 are covered by no checkpoint"),
        "{}",
        run.stderr
    );
    let before = log.bytes();
    let next = log.check();
    assert_eq!(next.code, 2, "{}", next.stdout);
    assert!(
        next.json()["reason"]
            .as_str()
            .unwrap()
            .contains("is broken (uncovered at seq 0"),
        "{}",
        next.stdout
    );
    assert_eq!(log.bytes(), before, "nothing appended, nothing signed");
    assert!(!log.checkpoints().exists());

    let receipt = log.outside.path().join("receipt.json");
    let proved = log.ledger(&[
        "prove",
        log.file().to_str().unwrap(),
        "1",
        "--out",
        receipt.to_str().unwrap(),
    ]);
    assert_eq!(proved.code, 1, "{}", proved.stderr);
    assert!(
        proved.stderr.contains("no checkpoint holds seq 1"),
        "{}",
        proved.stderr
    );
    let signed_now = log.ledger(&[
        "prove",
        log.file().to_str().unwrap(),
        "1",
        "--key",
        &log.key("key"),
        "--out",
        receipt.to_str().unwrap(),
    ]);
    assert_eq!(signed_now.code, 1, "{}", signed_now.stderr);
    assert!(
        signed_now.stderr.contains("uncovered at seq 0"),
        "{}",
        signed_now.stderr
    );
    assert!(!receipt.exists());
    // Repair does not empty a log the key never covered.
    let repair = log.ledger(&[
        "repair",
        log.file().to_str().unwrap(),
        "--key",
        &log.key("pub"),
    ]);
    assert_eq!(repair.code, 2, "{}", repair.stderr);
    assert!(
        repair.stderr.contains("repair does not empty a log"),
        "{}",
        repair.stderr
    );
    assert_eq!(log.bytes(), before);
}

/// The tree's right edge was kept in `FILE.state` and believed when its
/// byte count matched the file: a forger wrote the state of a forged tree
/// (seq 1 accepted), the verifier's next signed append extended and signed
/// that tree, and the forger swapped the file for it and kept only the new
/// checkpoint: intact, and a receipt proved the forged entry. Now the tree
/// is always the entries': the key signs only the history it verified.
#[test]
fn forgery_host_a_state_file_that_makes_the_key_sign_another_tree() {
    let log = Log::new();
    for _ in 0..2 {
        assert_eq!(log.check().code, 1);
    }
    let lines = log.lines();
    // The forged tree, built beside the log.
    let side = log.outside.path().join("forged.jsonl");
    std::fs::write(&side, format!("{}\n", lines[0])).unwrap();
    let forged = {
        let v = log
            .ledger(&["verify", side.to_str().unwrap(), "--format", "json"])
            .json();
        let mut e = all_passed(&lines[1]);
        e["seq"] = 1.into();
        e["prev_root"] = v["verification"]["root"].clone();
        e.to_string()
    };
    std::fs::write(&side, format!("{}\n{forged}\n", lines[0])).unwrap();
    let v = log
        .ledger(&["verify", side.to_str().unwrap(), "--format", "json"])
        .json();
    let state = serde_json::json!({
        "size": 2,
        "bytes": std::fs::metadata(log.file()).unwrap().len(),
        "frontier": [v["verification"]["root"]],
        "origin": v["verification"]["origin"],
    });
    std::fs::write(
        log.outside.path().join("verdicts.jsonl.state"),
        state.to_string(),
    )
    .unwrap();

    assert_eq!(log.check().code, 1, "the verifier's next signed check");
    let appended = log.lines()[2].clone();
    std::fs::write(log.file(), format!("{}\n{forged}\n{appended}\n", lines[0])).unwrap();
    let last = std::fs::read_to_string(log.checkpoints()).unwrap();
    let last = last.lines().last().unwrap().to_string();
    std::fs::write(log.checkpoints(), format!("{last}\n")).unwrap();

    let run = log.verify();
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains(": edited: "), "{}", run.stderr);
    let receipt = log.outside.path().join("receipt.json");
    let proved = log.ledger(&[
        "prove",
        log.file().to_str().unwrap(),
        "1",
        "--out",
        receipt.to_str().unwrap(),
    ]);
    assert_eq!(proved.code, 1, "{}", proved.stderr);
    assert!(!receipt.exists());
    let theirs = independent(&log.file(), &log.key("pub"), None);
    assert_eq!(theirs["checkpoints"][0]["root_matches"], false, "{theirs}");
}

/// A checkpoint kept where the worker cannot reach it pins the history up
/// to it: a log replaced wholesale (which the file alone cannot show) or
/// rolled back is named against it.
#[test]
fn a_log_is_checked_against_a_checkpoint_kept_elsewhere() {
    let log = Log::new();
    for _ in 0..2 {
        log.check();
    }
    let kept = log.outside.path().join("kept.checkpoint");
    let run = log.ledger(&[
        "checkpoint",
        log.file().to_str().unwrap(),
        "--key",
        &log.key("pub"),
        "--out",
        kept.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let note = std::fs::read_to_string(&kept).unwrap();
    assert!(
        note.starts_with("vcc-ledger/")
            && note.contains("\n2\n")
            && note.contains("\n\n— vcc-ledger/"),
        "{note}"
    );
    log.check();
    let against = |log: &Log| {
        log.ledger(&[
            "verify",
            log.file().to_str().unwrap(),
            "--key",
            &log.key("pub"),
            "--checkpoint",
            kept.to_str().unwrap(),
        ])
    };
    let ok = against(&log);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    assert!(
        ok.stderr.contains(&format!(
            "extends the checkpoint kept in {} (size 2)",
            kept.display()
        )),
        "{}",
        ok.stderr
    );
    // A copy of FILE.checkpoints kept as the artifact does as well.
    let copy = log.outside.path().join("checkpoints.copy");
    std::fs::copy(log.checkpoints(), &copy).unwrap();
    assert_eq!(
        log.ledger(&[
            "verify",
            log.file().to_str().unwrap(),
            "--key",
            &log.key("pub"),
            "--checkpoint",
            copy.to_str().unwrap()
        ])
        .code,
        0
    );

    // Rolled back to one entry and its checkpoint: whole by itself.
    let first = log.lines()[0].clone();
    let cp1 = std::fs::read_to_string(log.checkpoints())
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    std::fs::write(log.file(), format!("{first}\n")).unwrap();
    std::fs::write(log.checkpoints(), format!("{cp1}\n")).unwrap();
    assert_eq!(log.verify().code, 0);
    let rolled = against(&log);
    assert_eq!(rolled.code, 1, "{}", rolled.stderr);
    assert!(
        rolled
            .stderr
            .contains("BROKEN at seq 1: truncated: the checkpoint kept in"),
        "{}",
        rolled.stderr
    );

    // Replaced wholesale: the next signed check starts a new log.
    std::fs::remove_file(log.file()).unwrap();
    std::fs::remove_file(log.checkpoints()).unwrap();
    log.check();
    assert_eq!(log.verify().code, 0, "a whole log by itself");
    let replaced = against(&log);
    assert_eq!(replaced.code, 1, "{}", replaced.stderr);
    assert!(
        replaced
            .stderr
            .contains("BROKEN at seq 0: forked: the checkpoint kept in"),
        "{}",
        replaced.stderr
    );

    // The kept checkpoint counts only with the key that signed it.
    let needs_key = log.ledger(&[
        "verify",
        log.file().to_str().unwrap(),
        "--checkpoint",
        kept.to_str().unwrap(),
    ]);
    assert_eq!(needs_key.code, 2, "{}", needs_key.stderr);
    let other = Scratch::new();
    vcc(&["key", "generate", other.path().join("k").to_str().unwrap()]);
    let wrong = log.ledger(&[
        "verify",
        log.file().to_str().unwrap(),
        "--key",
        other.path().join("k.pub").to_str().unwrap(),
        "--checkpoint",
        kept.to_str().unwrap(),
    ]);
    assert_eq!(wrong.code, 2, "{}", wrong.stderr);
    assert!(
        wrong.stderr.contains("is not signed by the key given"),
        "{}",
        wrong.stderr
    );
}

/// The witness workflow: a consistency proof between the checkpoint kept
/// and the latest one, printed by `vcc ledger consistency`, checked by
/// `verify-proof --checkpoint` and by the independent reader; a tampered
/// proof and a replaced history are not proven.
#[test]
fn consistency_proofs_are_printed_verified_and_checked_by_independent_code() {
    let log = Log::new();
    for _ in 0..2 {
        log.check();
    }
    let kept = log.outside.path().join("kept.checkpoint");
    let file = log.file().display().to_string();
    assert_eq!(
        log.ledger(&[
            "checkpoint",
            &file,
            "--key",
            &log.key("pub"),
            "--out",
            kept.to_str().unwrap()
        ])
        .code,
        0
    );
    for _ in 0..5 {
        log.check();
    }
    let proof = log.outside.path().join("proof.json");
    let made = log.ledger(&[
        "consistency",
        &file,
        "--from",
        kept.to_str().unwrap(),
        "--out",
        proof.to_str().unwrap(),
    ]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    let checked = log.ledger(&[
        "verify-proof",
        proof.to_str().unwrap(),
        "--key",
        &log.key("pub"),
        "--checkpoint",
        kept.to_str().unwrap(),
    ]);
    assert_eq!(checked.code, 0, "{}", checked.stderr);
    assert!(
        checked.stderr.contains(
            "at size 7 extends its tree at size 2 (the checkpoint kept), both signed by the key"
        ),
        "{}",
        checked.stderr
    );
    let theirs = independent_with(&log.file(), &log.key("pub"), Some(&proof), Some(&kept));
    assert_eq!(theirs["consistency"]["proven"], true, "{theirs}");
    assert_eq!(theirs["consistency"]["from_kept"], true, "{theirs}");
    assert_eq!(
        (
            theirs["consistency"]["old_size"].as_u64(),
            theirs["consistency"]["new_size"].as_u64()
        ),
        (Some(2), Some(7))
    );
    assert_eq!(theirs["uncovered"], 0);

    // Between two stored checkpoints; not from the one kept.
    let from3 = log.outside.path().join("from3.json");
    assert_eq!(
        log.ledger(&[
            "consistency",
            &file,
            "--from-size",
            "3",
            "--out",
            from3.to_str().unwrap()
        ])
        .code,
        0
    );
    assert_eq!(
        log.ledger(&[
            "verify-proof",
            from3.to_str().unwrap(),
            "--key",
            &log.key("pub")
        ])
        .code,
        0
    );
    assert_eq!(
        independent_with(&log.file(), &log.key("pub"), Some(&from3), None)["consistency"]["proven"],
        true
    );
    let other_start = log.ledger(&[
        "verify-proof",
        from3.to_str().unwrap(),
        "--key",
        &log.key("pub"),
        "--checkpoint",
        kept.to_str().unwrap(),
    ]);
    assert_eq!(other_start.code, 1, "{}", other_start.stderr);
    assert!(
        other_start.stderr.contains("not from the one kept"),
        "{}",
        other_start.stderr
    );

    // One hash of the proof changed.
    let mut tampered: Value = serde_json::from_slice(&std::fs::read(&proof).unwrap()).unwrap();
    let h = tampered["proof"][0].as_str().unwrap().to_string();
    let flipped = if h.starts_with('A') {
        h.replacen('A', "B", 1)
    } else {
        format!("A{}", &h[1..])
    };
    tampered["proof"][0] = flipped.into();
    let bad = log.outside.path().join("tampered.json");
    std::fs::write(&bad, tampered.to_string()).unwrap();
    let refused = log.ledger(&[
        "verify-proof",
        bad.to_str().unwrap(),
        "--key",
        &log.key("pub"),
        "--checkpoint",
        kept.to_str().unwrap(),
    ]);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("does not extend the tree of size 2"),
        "{}",
        refused.stderr
    );
    assert_eq!(
        independent_with(&log.file(), &log.key("pub"), Some(&bad), Some(&kept))["consistency"]["proven"],
        false
    );

    // The log replaced wholesale and re-signed by the verifier's next
    // checks: no proof is made from the kept checkpoint, and one put
    // together from the new checkpoint does not verify.
    std::fs::remove_file(log.file()).unwrap();
    std::fs::remove_file(log.checkpoints()).unwrap();
    for _ in 0..7 {
        log.check();
    }
    let none = log.ledger(&["consistency", &file, "--from", kept.to_str().unwrap()]);
    assert_eq!(none.code, 1, "{}", none.stderr);
    assert!(
        none.stderr.contains("the earlier checkpoint is for log"),
        "{}",
        none.stderr
    );
    let mut spliced: Value = serde_json::from_slice(&std::fs::read(&proof).unwrap()).unwrap();
    let latest = std::fs::read_to_string(log.checkpoints()).unwrap();
    let latest: Value = serde_json::from_str(latest.lines().last().unwrap()).unwrap();
    spliced["new_checkpoint"] = latest["note"].clone();
    std::fs::write(&bad, spliced.to_string()).unwrap();
    let refused = log.ledger(&[
        "verify-proof",
        bad.to_str().unwrap(),
        "--key",
        &log.key("pub"),
        "--checkpoint",
        kept.to_str().unwrap(),
    ]);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert_eq!(
        independent_with(&log.file(), &log.key("pub"), Some(&bad), Some(&kept))["consistency"]["proven"],
        false
    );
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
