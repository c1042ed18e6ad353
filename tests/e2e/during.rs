//! While a run is in progress, the producer of the deliverables is still
//! there: it may rewrite a file and write it back, rename one away and
//! back, add and remove entries, truncate a huge file while vcc hashes it,
//! or kill vcc. None of that may end in `accepted`, crash the host, or
//! leave an earlier verdict behind. The writer in these tests acts when it
//! sees vcc reach a phase (its validator waiting on a barrier, a file open
//! for hashing), never after a sleep or a loop meant to take a while.

use std::fs;
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use vcc_test_support::barrier::{self, Barrier};
use vcc_test_support::{Scratch, fixtures};

use crate::shared_cache;

const PATIENCE: Duration = Duration::from_secs(120);

/// A contract with one MUST criterion on `out/flag.txt`, judged by the
/// `waits-for-change` fixture with `params` (inside `{ }`) and a barrier:
/// the validator reads the file, then waits on its judge until the test
/// has acted (see `vcc_test_support::barrier`).
fn flag_contract(scratch: &Scratch, params: &str) -> (PathBuf, Barrier) {
    scratch.write("out/flag.txt", "BAD\n");
    // A folder and a file older than any timestamp tick: a change made
    // during the run is a change of time too, however soon it comes.
    backdate(&scratch.path().join("out/flag.txt"));
    backdate(&scratch.path().join("out"));
    let barrier = Barrier::start(scratch.path());
    let contract = scratch.write(
        "contract.yaml",
        format!(
            "vcc: 1\nid: during\ndeliverables:\n  - {{ id: flag, path: flag.txt }}\n{}validators:\n  v: {{ component: {:?} }}\ncriteria:\n  - {{ id: AC-1, severity: must, validator: v, targets: [flag], judges: [barrier], params: {{ {params}, barrier: {:?} }}, limits: {{ timeout: 600s }} }}\n",
            barrier::CONTRACT_JUDGES,
            fixtures::WAITS_FOR_CHANGE,
            barrier.text,
        ),
    );
    (contract, barrier)
}

/// Set a file's or folder's modification time an hour back.
fn backdate(path: &Path) {
    let hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    fs::File::open(path)
        .and_then(|f| f.set_modified(hour_ago))
        .expect("backdate");
}

fn spawn(contract: &Path, root: &Path, extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_vcc"))
        .arg("check")
        .arg(contract)
        .arg("--dir")
        .arg(root)
        .args(["--format", "json"])
        .args(extra)
        .env("VCC_CACHE_DIR", shared_cache())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run vcc")
}

/// Run the check, act while its validator waits on the barrier, and read
/// the report.
fn while_validating(
    contract: &Path,
    root: &Path,
    barrier: &Barrier,
    act: impl FnOnce(),
) -> (Value, i32) {
    let [flag, file] = barrier.args();
    let child = spawn(contract, root, &[flag.as_str(), file.as_str()]);
    let running = barrier.act_while_waiting(PATIENCE, act);
    let output = child.wait_with_output().expect("wait for vcc");
    assert!(
        running,
        "the validator never reached its barrier: {output:?}"
    );
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("no report ({e}): {output:?}"));
    (report, output.status.code().unwrap_or(-1))
}

/// Rewrite a file in place: same inode, new bytes.
fn rewrite(path: &Path, text: &str) {
    let mut file = fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)
        .unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

fn swap_and_revert(via: &str) {
    // The validator passes iff it reads GOOD; the file says BAD. The
    // writer swaps GOOD in while it runs and puts BAD back (same inode,
    // same bytes in the end).
    let scratch = Scratch::new();
    let (contract, barrier) = flag_contract(&scratch, &format!("until: GOOD, via: {via}"));
    let out = scratch.path().join("out");
    let inode = fs::metadata(out.join("flag.txt")).unwrap().ino();
    let (report, code) = while_validating(&contract, &out, &barrier, || {
        rewrite(&out.join("flag.txt"), "GOOD\n");
        rewrite(&out.join("flag.txt"), "BAD\n");
    });
    assert_eq!(fs::read_to_string(out.join("flag.txt")).unwrap(), "BAD\n");
    assert_eq!(fs::metadata(out.join("flag.txt")).unwrap().ino(), inode);
    // The validator saw only the bytes that were hashed…
    let c = &report["criteria"][0];
    assert_eq!(c["status"], "fail", "{report}");
    assert!(
        c["summary"]
            .as_str()
            .unwrap()
            .contains("still says \"BAD\""),
        "{report}"
    );
    assert_eq!(
        c["files_read"][0]["path"], "flag.txt",
        "reads are recorded: {report}"
    );
    // …and the rewrite is a change, though the bytes are back.
    assert_eq!(report["verdict"], "withheld", "{report}");
    assert_eq!(
        report["deliverables"]["changed"],
        serde_json::json!(["flag.txt"])
    );
    assert_eq!(code, 1);
}

#[test]
fn swap_and_revert_through_wasi() {
    swap_and_revert("wasi");
}

#[test]
fn swap_and_revert_through_the_host_interface() {
    swap_and_revert("host");
}

#[test]
fn a_file_renamed_away_and_back() {
    let scratch = Scratch::new();
    let (contract, barrier) = flag_contract(&scratch, "until: GOOD");
    let out = scratch.path().join("out");
    let (report, code) = while_validating(&contract, &out, &barrier, || {
        fs::rename(out.join("flag.txt"), out.join("flag.bak")).unwrap();
        fs::write(out.join("flag.txt"), "GOOD\n").unwrap();
        fs::rename(out.join("flag.bak"), out.join("flag.txt")).unwrap();
    });
    assert_eq!(report["verdict"], "withheld", "{report}");
    let changed = report["deliverables"]["changed"].as_array().unwrap();
    assert!(
        changed.contains(&"./".into()),
        "the root folder changed: {report}"
    );
    assert_eq!(code, 1);
}

#[test]
fn a_directory_entry_added_and_removed() {
    let scratch = Scratch::new();
    let (contract, barrier) = flag_contract(&scratch, "until: GOOD");
    let out = scratch.path().join("out");
    fs::create_dir(out.join("sub")).unwrap();
    backdate(&out.join("sub"));
    backdate(&out);
    let (report, code) = while_validating(&contract, &out, &barrier, || {
        fs::write(out.join("sub/passing.md"), "GOOD\n").unwrap();
        fs::remove_file(out.join("sub/passing.md")).unwrap();
    });
    assert_eq!(report["verdict"], "withheld", "{report}");
    assert_eq!(
        report["deliverables"]["changed"],
        serde_json::json!(["sub/"])
    );
    assert_eq!(code, 1);
}

/// `out/notes.txt` beside the flag, rewritten in place while the
/// validator runs; `listed`: the contract names it as a deliverable.
fn notes_rewritten(listed: bool) -> (Value, i32) {
    let scratch = Scratch::new();
    let (contract, barrier) = flag_contract(&scratch, "until: BAD");
    let out = scratch.path().join("out");
    scratch.write("out/notes.txt", "draft\n");
    backdate(&out.join("notes.txt"));
    backdate(&out);
    if listed {
        let text = fs::read_to_string(&contract).unwrap();
        let text = text.replace(
            "deliverables:\n",
            "deliverables:\n  - { id: notes, path: notes.txt, required: false }\n",
        );
        fs::write(&contract, text).unwrap();
    }
    while_validating(&contract, &out, &barrier, || {
        rewrite(&out.join("notes.txt"), "final\n");
    })
}

#[test]
fn a_file_no_row_depends_on_rewritten_in_place() {
    // No criterion targets or reads it, and no deliverable lists it: its
    // bytes were hashed but never judged, so the verdict stands (the
    // second look stat's every folder, and only the files rows depend on).
    let (report, code) = notes_rewritten(false);
    assert_eq!(report["verdict"], "accepted", "{report}");
    assert_eq!(report["deliverables"]["changed"], serde_json::json!([]));
    assert_eq!(code, 0);
}

#[test]
fn a_deliverable_no_criterion_reads_rewritten_in_place() {
    // Listed as a deliverable: a validator could judge it by its listing
    // (digest, size) without reading it, so it is looked at again.
    let (report, code) = notes_rewritten(true);
    assert_eq!(report["verdict"], "withheld", "{report}");
    assert_eq!(
        report["deliverables"]["changed"],
        serde_json::json!(["notes.txt"])
    );
    assert_eq!(code, 1);
}

#[test]
fn a_capture_an_exit_record_checks_by_digest_rewritten_in_place() {
    // std/exit-record judges the record's stdout capture by its digest
    // (`stat-file`), without reading it, and the capture is in no
    // deliverable: the second look must still stat it.
    let scratch = Scratch::new();
    let (contract, barrier) = flag_contract(&scratch, "until: BAD");
    let out = scratch.path().join("out");
    let recorded = Command::new(env!("CARGO_BIN_EXE_vcc"))
        .args(["record", "--out", "tests.json", "--", "sh", "-c", "echo ok"])
        .current_dir(&out)
        .output()
        .unwrap();
    assert!(recorded.status.success(), "{recorded:?}");
    for name in ["tests.json", "tests.json.stdout", "tests.json.stderr", ""] {
        backdate(&out.join(name));
    }
    let text = fs::read_to_string(&contract).unwrap();
    let text = text
        .replace(
            "deliverables:\n",
            "deliverables:\n  - { id: tests, path: tests.json }\n",
        )
        .replace(
            "validators:\n",
            "validators:\n  record: { component: std/exit-record }\n",
        )
        + "  - { id: AC-2, severity: must, validator: record, targets: [tests], params: { command: [sh, -c] } }\n";
    fs::write(&contract, text).unwrap();
    let (report, code) = while_validating(&contract, &out, &barrier, || {
        rewrite(&out.join("tests.json.stdout"), "FAILED\n");
    });
    assert_eq!(report["criteria"][1]["status"], "pass", "{report}");
    assert_eq!(report["verdict"], "withheld", "{report}");
    assert_eq!(
        report["deliverables"]["changed"],
        serde_json::json!(["tests.json.stdout"])
    );
    assert_eq!(code, 1);
}

/// Whether process `pid` has `path` open (Linux: /proc/PID/fd).
fn has_open(pid: u32, path: &Path) -> bool {
    fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|fds| {
        fds.flatten()
            .any(|fd| fs::read_link(fd.path()).is_ok_and(|target| target == path))
    })
}

/// Bytes process `pid` has read so far (`rchar` in /proc/PID/io; reads at
/// an offset count too, unlike the file position).
fn bytes_read(pid: u32) -> Option<u64> {
    fs::read_to_string(format!("/proc/{pid}/io"))
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("rchar:"))
        .and_then(|n| n.trim().parse().ok())
}

/// A 3 GB (sparse) deliverable resized while vcc hashes it: no crash (a
/// mapped file would end vcc with SIGBUS), and the run is withheld with
/// the file named.
fn resized_while_hashed(new_len: u64) {
    let scratch = Scratch::new();
    let out = scratch.path().join("out");
    fs::create_dir_all(&out).unwrap();
    let big = out.join("big.bin");
    fs::File::create(&big).unwrap().set_len(3 << 30).unwrap();
    let big = fs::canonicalize(&big).unwrap();
    scratch.write("out/notes.md", "# Notes\n");
    let contract = scratch.write(
        "contract.yaml",
        "vcc: 1\nid: big\ndeliverables:\n  - { id: notes, path: notes.md }\n  - { id: big, path: big.bin, required: false }\nvalidators:\n  v: { component: std/file-exists }\ncriteria:\n  - { id: AC-1, severity: must, validator: v, targets: [notes] }\n",
    );
    // An earlier run's report, accepted, must not survive this one.
    let report_file = scratch.path().join("report.json");
    fs::write(&report_file, r#"{"verdict": "accepted"}"#).unwrap();
    let child = spawn(
        &contract,
        &out,
        &["--report", report_file.to_str().unwrap()],
    );
    // Hashing is under way once vcc holds the file open and has read 64
    // MiB more since it opened it.
    let start = Instant::now();
    let mut resized = false;
    let mut opened_at = None;
    while start.elapsed() < PATIENCE {
        if opened_at.is_none() && has_open(child.id(), &big) {
            opened_at = bytes_read(child.id());
        }
        let past = opened_at
            .zip(bytes_read(child.id()))
            .is_some_and(|(then, now)| now > then + (64 << 20));
        if past {
            fs::OpenOptions::new()
                .write(true)
                .open(&big)
                .unwrap()
                .set_len(new_len)
                .unwrap();
            resized = true;
            break;
        }
        if !Path::new(&format!("/proc/{}", child.id())).exists() {
            break;
        }
        std::thread::yield_now();
    }
    let output = child.wait_with_output().unwrap();
    assert!(
        resized,
        "vcc finished hashing before it could be caught: {output:?}"
    );
    assert_eq!(
        output.status.code(),
        Some(1),
        "no signal, no crash: {output:?}"
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["verdict"], "withheld", "{report}");
    assert_eq!(
        report["deliverables"]["changed"],
        serde_json::json!(["big.bin"])
    );
    let unreadable = &report["deliverables"]["unreadable"][0];
    assert_eq!(unreadable["path"], "big.bin");
    assert_eq!(unreadable["kind"], "changed_during_walk");
    let written: Value = serde_json::from_slice(&fs::read(&report_file).unwrap()).unwrap();
    assert_eq!(written["verdict"], "withheld");
}

#[test]
fn a_3gb_file_truncated_while_hashed() {
    resized_while_hashed(1 << 30);
}

#[test]
fn a_3gb_file_extended_while_hashed() {
    resized_while_hashed((3 << 30) + (1 << 20));
}

#[test]
fn a_kill_at_any_point_never_leaves_an_earlier_verdict() {
    // A report file says `accepted` from an earlier run. This run is
    // killed (SIGKILL) at points spread over its course: the file must
    // never again say `accepted`.
    // Its validator never returns (a loop stopped only by a 600 s
    // budget), so the run is still going at every kill point, however
    // fast the machine.
    let scratch = Scratch::new();
    scratch.write("out/flag.txt", "BAD\n");
    let contract = scratch.write(
        "contract.yaml",
        format!(
            "vcc: 1\nid: during\ndeliverables:\n  - {{ id: flag, path: flag.txt }}\nvalidators:\n  v: {{ component: {:?} }}\ncriteria:\n  - {{ id: AC-1, severity: must, validator: v, targets: [flag], limits: {{ timeout: 600s }} }}\n",
            fixtures::INFINITE_LOOP
        ),
    );
    let out = scratch.path().join("out");
    let report_file = scratch.path().join("reports/last.json");
    let old =
        r#"{"schema_version": 1, "verdict": "accepted", "reason": "all 1 MUST criteria passed"}"#;
    // Seeded spread of kill points, after the run has begun.
    for delay_ms in [0u64, 1, 3, 7, 15, 40, 90, 200, 450, 900] {
        fs::create_dir_all(report_file.parent().unwrap()).unwrap();
        fs::write(&report_file, old).unwrap();
        let mut child = spawn(
            &contract,
            &out,
            &["--report", report_file.to_str().unwrap()],
        );
        let start = Instant::now();
        while fs::read_to_string(&report_file).is_ok_and(|t| t == old) {
            assert!(start.elapsed() < PATIENCE, "the run never began");
            std::thread::yield_now();
        }
        let begun = Instant::now();
        while begun.elapsed() < Duration::from_millis(delay_ms) {
            std::thread::yield_now();
        }
        child.kill().unwrap();
        child.wait().unwrap();
        let text = fs::read_to_string(&report_file).unwrap();
        let report: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("a torn report after {delay_ms} ms ({e}): {text}"));
        assert_ne!(report["verdict"], "accepted", "after {delay_ms} ms: {text}");
        assert_eq!(report["verdict"], "invalid", "after {delay_ms} ms: {text}");
        assert!(
            report["reason"]
                .as_str()
                .unwrap()
                .contains("did not finish"),
            "{text}"
        );
    }
}
