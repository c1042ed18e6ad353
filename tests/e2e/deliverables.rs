//! Hostile deliverables (tests/hostile/README.md): trees an agent could write to get a
//! false pass or to stall the host. Each test builds the tree at test time,
//! runs the real `vcc check`, and pins the criterion's status and reason,
//! the verdict, the exit code, what the report lists as not hashed, and
//! that the run left every entry of the tree as it was.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use vcc_test_support::{Scratch, digests, fixtures, make_fifo};

use crate::{Run, check_within};

/// Long enough for a cold compile of a std validator on a busy CI machine;
/// a hang is what this catches.
const PATIENCE: Duration = Duration::from_secs(120);

/// A tree in `out/` with one good file, and a contract whose one MUST
/// criterion runs `validator` over the deliverable at `path`.
fn setup(path: &str, validator: &str, params: &str) -> (Scratch, PathBuf) {
    let scratch = Scratch::new();
    scratch.write("out/notes.md", "# Notes\n");
    let contract = scratch.write(
        "contract.yaml",
        format!(
            "vcc: 1\nid: hostile-tree\ndeliverables:\n  - {{ id: d, path: {path:?} }}\nvalidators:\n  v: {{ component: {validator} }}\ncriteria:\n  - {{ id: AC-1, severity: must, validator: v, targets: [d]{params} }}\n"
        ),
    );
    (scratch, contract)
}

/// Check `out/`, asserting the run changed nothing in it.
fn check(scratch: &Scratch, contract: &Path, extra: &[&str]) -> Run {
    let out = scratch.path().join("out");
    let before = digests(&out);
    let mut args = vec!["--dir", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let run = check_within(contract, &args, PATIENCE);
    assert_eq!(digests(&out), before, "the run changed the deliverables");
    run
}

/// (status, reason, verdict, exit code) of the one criterion and the run.
fn outcome(run: &Run) -> (String, String, String, i32) {
    let c = run.criterion("AC-1");
    let text = |v: &Value| v.as_str().unwrap_or("?").to_string();
    (
        text(&c["status"]),
        text(&c["reason"]),
        text(&run.json()["verdict"]),
        run.code,
    )
}

fn expect(status: &str, reason: &str, verdict: &str, code: i32) -> (String, String, String, i32) {
    (status.into(), reason.into(), verdict.into(), code)
}

fn summary(run: &Run) -> String {
    run.criterion("AC-1")["summary"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The report's "not hashed" list as (path, kind).
fn unreadable(run: &Run) -> Vec<(String, String)> {
    run.json()["deliverables"]["unreadable"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            (
                u["path"].as_str().unwrap().to_string(),
                u["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pair(path: &str, kind: &str) -> (String, String) {
    (path.into(), kind.into())
}

const EXISTS: &str = "std/file-exists";

#[test]
fn symlink_to_a_file_outside_the_root() {
    let (scratch, contract) = setup("*.md", EXISTS, "");
    std::os::unix::fs::symlink("/etc/passwd", scratch.path().join("out/passwd.md")).unwrap();
    let run = check(&scratch, &contract, &[]);
    assert_eq!(
        outcome(&run),
        expect("error", "unreadable_deliverable", "withheld", 1)
    );
    assert_eq!(unreadable(&run), vec![pair("passwd.md", "symlink")]);
    assert!(
        summary(&run).contains("passwd.md (symlink)"),
        "{}",
        summary(&run)
    );
}

#[test]
fn symlink_to_a_directory_outside_named_with_a_trailing_slash() {
    let (scratch, contract) = setup("docs/", EXISTS, "");
    std::os::unix::fs::symlink("/etc", scratch.path().join("out/docs")).unwrap();
    let run = check(&scratch, &contract, &[]);
    assert_eq!(
        outcome(&run),
        expect("error", "unreadable_deliverable", "withheld", 1)
    );
    assert_eq!(unreadable(&run), vec![pair("docs", "symlink")]);
}

#[test]
fn a_path_through_a_symlinked_directory() {
    let (scratch, contract) = setup("docs/passwd", EXISTS, "");
    std::os::unix::fs::symlink("/etc", scratch.path().join("out/docs")).unwrap();
    let run = check(&scratch, &contract, &[]);
    assert_eq!(
        outcome(&run),
        expect("error", "unreadable_deliverable", "withheld", 1)
    );
    assert!(
        summary(&run).contains("docs (symlink)"),
        "{}",
        summary(&run)
    );
}

#[test]
fn symlink_loop() {
    let (scratch, contract) = setup("*.md", EXISTS, "");
    let out = scratch.path().join("out");
    std::os::unix::fs::symlink("b.md", out.join("a.md")).unwrap();
    std::os::unix::fs::symlink("a.md", out.join("b.md")).unwrap();
    let run = check(&scratch, &contract, &[]);
    assert_eq!(
        outcome(&run),
        expect("error", "unreadable_deliverable", "withheld", 1)
    );
    assert_eq!(
        unreadable(&run),
        vec![pair("a.md", "symlink"), pair("b.md", "symlink")]
    );
}

#[test]
fn symlink_inside_the_root_is_not_followed_either() {
    // Even a link to a sibling is refused: what was hashed must be what
    // the name means, and a link's target can change after the walk.
    let (scratch, contract) = setup("copy.md", EXISTS, "");
    std::os::unix::fs::symlink("notes.md", scratch.path().join("out/copy.md")).unwrap();
    let run = check(&scratch, &contract, &[]);
    assert_eq!(
        outcome(&run),
        expect("error", "unreadable_deliverable", "withheld", 1)
    );
}

#[test]
fn hard_link_to_a_file_outside_the_root() {
    // A hard link is the file itself, so it is hashed like any other; the
    // verdict is bound to those bytes. Writing through the outside name
    // while the validator runs is a change to the deliverables: withheld.
    // The write comes while the validator waits on its barrier: during
    // the run, by construction.
    let scratch = Scratch::new();
    let barrier = vcc_test_support::barrier::Barrier::start(scratch.path());
    let contract = scratch.write(
        "contract.yaml",
        format!(
            "vcc: 1\nid: hostile-tree\ndeliverables:\n  - {{ id: d, path: flag.txt }}\n{}validators:\n  v: {{ component: {:?} }}\ncriteria:\n  - {{ id: AC-1, severity: must, validator: v, targets: [d], judges: [barrier], params: {{ until: go, barrier: {:?} }}, limits: {{ timeout: 600s }} }}\n",
            vcc_test_support::barrier::CONTRACT_JUDGES,
            fixtures::WAITS_FOR_CHANGE,
            barrier.text
        ),
    );
    let outside = scratch.write("outside.txt", "wait\n");
    std::fs::create_dir_all(scratch.path().join("out")).unwrap();
    std::fs::hard_link(&outside, scratch.path().join("out/flag.txt")).unwrap();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_vcc"))
        .arg("check")
        .arg(&contract)
        .arg("--dir")
        .arg(scratch.path().join("out"))
        .args(["--format", "json"])
        .args(barrier.args())
        .env("VCC_CACHE_DIR", crate::shared_cache())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let running = barrier.act_while_waiting(PATIENCE, || {
        std::fs::write(&outside, "go\n").unwrap();
    });
    let output = child.wait_with_output().unwrap();
    assert!(
        running,
        "the validator never reached its barrier: {output:?}"
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    // The validator sees the hashed bytes only; the change is still seen.
    assert_eq!(report["criteria"][0]["status"], "fail", "{report}");
    assert_eq!(report["verdict"], "withheld");
    assert_eq!(
        report["deliverables"]["changed"],
        serde_json::json!(["flag.txt"])
    );
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn fifo_named_as_a_deliverable() {
    // Never opened (it would block until a writer came): reported, and the
    // criterion that targets it is an error. No writer ever comes here.
    let (scratch, contract) = setup("*.md", EXISTS, "");
    make_fifo(&scratch.path().join("out/pipe.md"));
    let run = check(&scratch, &contract, &[]);
    assert_eq!(
        outcome(&run),
        expect("error", "unreadable_deliverable", "withheld", 1)
    );
    assert_eq!(unreadable(&run), vec![pair("pipe.md", "fifo")]);
}

#[test]
fn fifo_elsewhere_in_the_root_blocks_nothing() {
    // A FIFO no criterion targets is reported; validators see a mirror of
    // the hashed files, so it is out of their reach and the run completes.
    let (scratch, contract) = setup(
        "notes.md",
        &format!("{:?}", fixtures::READER),
        ", limits: { timeout: 30s }",
    );
    make_fifo(&scratch.path().join("out/pipe"));
    let run = check(&scratch, &contract, &[]);
    assert_eq!(outcome(&run), expect("pass", "validator", "accepted", 0));
    assert_eq!(unreadable(&run), vec![pair("pipe", "fifo")]);
}

#[test]
fn unix_socket_in_the_root() {
    let (scratch, contract) = setup("*.md", EXISTS, "");
    let _listener =
        std::os::unix::net::UnixListener::bind(scratch.path().join("out/sock.md")).unwrap();
    let run = check(&scratch, &contract, &[]);
    assert_eq!(
        outcome(&run),
        expect("error", "unreadable_deliverable", "withheld", 1)
    );
    assert_eq!(unreadable(&run), vec![pair("sock.md", "socket")]);
}

#[test]
fn device_node_in_the_root() {
    let (scratch, contract) = setup("*.md", EXISTS, "");
    if let Err(err) = vcc_test_support::make_dev_null(&scratch.path().join("out/null.md")) {
        // Creating device nodes needs CAP_MKNOD (CI runs as root).
        eprintln!("device_node_in_the_root: mknod failed ({err}); case not run");
        return;
    }
    let run = check(&scratch, &contract, &[]);
    assert_eq!(
        outcome(&run),
        expect("error", "unreadable_deliverable", "withheld", 1)
    );
    assert_eq!(unreadable(&run), vec![pair("null.md", "device")]);
}

#[test]
fn ten_gigabyte_sparse_file() {
    // Refused by its size before a byte is read: the run takes no longer
    // than for a small tree, and nothing of it is hashed.
    let (scratch, contract) = setup("*.md", EXISTS, "");
    let big = std::fs::File::create(scratch.path().join("out/big.md")).unwrap();
    big.set_len(10 << 30).unwrap();
    let run = check(&scratch, &contract, &[]);
    assert_eq!(
        outcome(&run),
        expect("error", "unreadable_deliverable", "withheld", 1)
    );
    assert_eq!(unreadable(&run), vec![pair("big.md", "too_large")]);
    assert_eq!(run.json()["deliverables"]["bytes"], 8);
}

#[test]
fn a_file_over_a_lowered_size_cap() {
    let (scratch, contract) = setup("*.md", EXISTS, "");
    scratch.write("out/big.md", vec![b'x'; 2048]);
    let run = check(&scratch, &contract, &["--max-file-size", "1KiB"]);
    assert_eq!(
        outcome(&run),
        expect("error", "unreadable_deliverable", "withheld", 1)
    );
    assert_eq!(unreadable(&run), vec![pair("big.md", "too_large")]);
}

#[test]
fn more_files_than_the_walk_takes() {
    // Past the cap the walk stops, and no criterion is judged on the part
    // it saw (the default cap is a million; lowered here to keep it quick).
    let (scratch, contract) = setup("notes.md", EXISTS, "");
    for i in 0..1500 {
        scratch.write(&format!("out/many/{i:04}.txt"), "x");
    }
    let run = check(&scratch, &contract, &["--max-files", "1000"]);
    assert_eq!(
        outcome(&run),
        expect("error", "unreadable_deliverable", "withheld", 1)
    );
    assert_eq!(
        summary(&run),
        "the deliverable root holds more than 1000 files; nothing is judged on a partial tree"
    );
}

#[test]
fn ten_thousand_folders_deep() {
    let (scratch, contract) = setup("**/*.md", EXISTS, "");
    let out = scratch.path().join("out");
    vcc_test_support::nest(&out, 10_000);
    let run = check(&scratch, &contract, &[]);
    assert_eq!(
        outcome(&run),
        expect("error", "unreadable_deliverable", "withheld", 1)
    );
    let kinds: Vec<String> = unreadable(&run).into_iter().map(|u| u.1).collect();
    assert_eq!(kinds, vec!["too_deep"]);
    // std's remove_dir_all recurses once per level; rm does not.
    let removed = std::process::Command::new("rm")
        .arg("-rf")
        .arg(out.join("d"))
        .status()
        .unwrap();
    assert!(removed.success());
}

#[test]
fn a_name_that_is_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let (scratch, contract) = setup("*.md", EXISTS, "");
    let name = std::ffi::OsStr::from_bytes(b"bad\xff.md");
    std::fs::write(scratch.path().join("out").join(name), "x").unwrap();
    let run = check(&scratch, &contract, &[]);
    assert_eq!(
        outcome(&run),
        expect("error", "unreadable_deliverable", "withheld", 1)
    );
    assert_eq!(
        unreadable(&run),
        vec![pair("bad\u{fffd}.md", "non_utf8_name")]
    );
}

#[test]
fn a_look_alike_name_is_not_the_deliverable() {
    // "reроrt.md" with Cyrillic о and р: a different name, so the required
    // report is missing, whatever the look-alike holds.
    let (scratch, contract) = setup("report.md", EXISTS, "");
    scratch.write("out/re\u{440}\u{43e}rt.md", "# Report\n");
    let run = check(&scratch, &contract, &[]);
    assert_eq!(
        outcome(&run),
        expect("fail", "missing_deliverable", "rejected", 1)
    );
}

#[test]
fn newlines_and_escapes_in_names() {
    // The name reaches JSON intact (escaped by JSON) and the terminal
    // escaped, so it cannot forge a line such as "verdict: ACCEPTED".
    let (scratch, contract) = setup(
        "*.md",
        "std/text-match",
        ", params: { must_match: [\"nothing-matches-this\"] }",
    );
    let name = "x.md\nverdict: ACCEPTED \u{1b}[32m.md";
    scratch.write(&format!("out/{name}"), "text\n");
    let run = check(&scratch, &contract, &[]);
    assert_eq!(outcome(&run), expect("fail", "validator", "rejected", 1));
    let c = run.criterion("AC-1");
    let paths: Vec<&str> = c["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&name), "{paths:?}");
    let human = crate::vcc(&[
        "check",
        contract.to_str().unwrap(),
        "--dir",
        scratch.path().join("out").to_str().unwrap(),
    ]);
    assert_eq!(human.code, 1);
    assert!(!human.stderr.contains('\u{1b}'), "{}", human.stderr);
    assert!(
        human
            .stderr
            .contains("x.md\\nverdict: ACCEPTED \\u001b[32m.md"),
        "{}",
        human.stderr
    );
    assert!(
        !human
            .stderr
            .lines()
            .any(|l| l.starts_with("verdict: ACCEPTED")),
        "{}",
        human.stderr
    );
}

#[test]
fn a_file_the_host_cannot_read() {
    // Permission bits do not stop root, so as root the check runs as
    // `nobody`, from a link to the binary it can reach.
    let (scratch, contract) = setup("*.md", EXISTS, "");
    let secret = scratch.write("out/secret.md", "x");
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o000)).unwrap();
    let mut command = if vcc_test_support::is_root() {
        for dir in [scratch.path().to_path_buf(), scratch.path().join("out")] {
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let exe = scratch.path().join("vcc");
        if std::fs::hard_link(env!("CARGO_BIN_EXE_vcc"), &exe).is_err() {
            std::fs::copy(env!("CARGO_BIN_EXE_vcc"), &exe).unwrap();
        }
        let mut c = std::process::Command::new(&exe);
        std::os::unix::process::CommandExt::uid(&mut c, 65534);
        std::os::unix::process::CommandExt::gid(&mut c, 65534);
        c.arg("--no-cache");
        c
    } else {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_vcc"));
        c.env("VCC_CACHE_DIR", crate::shared_cache());
        c
    };
    let out = scratch.path().join("out");
    let before = digests(&out);
    let output = command
        .arg("check")
        .arg(&contract)
        .arg("--dir")
        .arg(&out)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(digests(&out), before);
    let run = Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert_eq!(
        outcome(&run),
        expect("error", "unreadable_deliverable", "withheld", 1),
        "{}",
        run.stderr
    );
    assert_eq!(unreadable(&run), vec![pair("secret.md", "unreadable")]);
}

#[test]
fn a_required_deliverable_is_missing() {
    let (scratch, contract) = setup("report.md", EXISTS, "");
    let run = check(&scratch, &contract, &[]);
    assert_eq!(
        outcome(&run),
        expect("fail", "missing_deliverable", "rejected", 1)
    );
}

#[test]
fn the_root_is_a_fifo() {
    let (scratch, contract) = setup("*.md", EXISTS, "");
    let pipe = scratch.path().join("pipe");
    make_fifo(&pipe);
    let run = check_within(&contract, &["--dir", pipe.to_str().unwrap()], PATIENCE);
    assert_eq!(run.code, 2);
    assert_eq!(run.json()["verdict"], "invalid");
    assert!(
        run.json()["reason"]
            .as_str()
            .unwrap()
            .contains("Not a directory"),
        "{}",
        run.stdout
    );
}

/// The root digest binds every entry of the root, not only the files vcc
/// hashed: a link (by its target text), a FIFO, a socket, a file too large
/// to hash (by its size), a name that is not UTF-8 (by its bytes), an
/// empty folder. Computed here from the book's words (report.md); an
/// excluded entry is not in it. Once a link to `/etc/shadow` added to an
/// accepted tree left its digest (and the reuse key, approvals and
/// attestations bound to it) as it was.
#[test]
fn every_entry_of_the_root_is_in_its_digest() {
    use std::os::unix::ffi::OsStrExt;
    let (scratch, contract) = setup("notes.md", EXISTS, "");
    let out = scratch.path().join("out");
    std::fs::create_dir(out.join("empty")).unwrap();
    std::os::unix::fs::symlink("/etc/shadow", out.join("shadow")).unwrap();
    make_fifo(&out.join("pipe"));
    let _listener = std::os::unix::net::UnixListener::bind(out.join("sock")).unwrap();
    std::fs::write(out.join("big.bin"), vec![b'x'; 2000]).unwrap();
    std::fs::write(out.join(std::ffi::OsStr::from_bytes(b"bad\xff")), "x").unwrap();
    scratch.write("out/target/ignored.txt", "left out");
    let flags = ["--max-file-size", "1000B", "--exclude", "target/"];
    let run = check(&scratch, &contract, &flags);
    assert_eq!(outcome(&run), expect("pass", "validator", "accepted", 0));

    let notes = std::fs::read(out.join("notes.md")).unwrap();
    let other = |path: &[u8], kind: &str, bound: &[u8]| {
        let mut line = path.to_vec();
        line.extend_from_slice(format!("\0{kind}\0{}\0", bound.len()).as_bytes());
        line.extend_from_slice(bound);
        line.push(b'\n');
        line
    };
    let mut lines = [
        other("bad\u{fffd}".as_bytes(), "non_utf8_name", b"bad\xff"),
        other(b"big.bin", "too_large", b"2000"),
        other(b"empty", "folder", b""),
        format!(
            "notes.md\0{}\0{}\n",
            notes.len(),
            blake3::hash(&notes).to_hex()
        )
        .into_bytes(),
        other(b"pipe", "fifo", b""),
        other(b"shadow", "symlink", b"/etc/shadow"),
        other(b"sock", "socket", b""),
    ];
    lines.sort();
    let expected = format!("blake3:{}", blake3::hash(&lines.concat()).to_hex());
    let report = run.json();
    assert_eq!(report["deliverables"]["root_digest"], expected);

    // The link pointed elsewhere: another tree, another reuse key.
    std::fs::remove_file(out.join("shadow")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", out.join("shadow")).unwrap();
    let again = check(&scratch, &contract, &flags).json();
    assert_ne!(
        again["deliverables"]["root_digest"],
        report["deliverables"]["root_digest"]
    );
    assert_ne!(
        again["runtime"]["reuse_key"],
        report["runtime"]["reuse_key"]
    );
}
