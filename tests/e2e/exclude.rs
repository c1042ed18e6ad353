//! What the walk leaves out: `.git` always, the contract's `exclude`,
//! `--exclude`, and with `gitignore: true` the root's ignore files.
//! Excluded files are never hashed and never seen by a validator, through
//! the host interface or WASI; writing them during a run is not a change;
//! a deliverable they hide is missing, and says why.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use vcc_test_support::barrier::{self, Barrier};
use vcc_test_support::{Scratch, fixtures};

use crate::{check_json, shared_cache, vcc};

/// A root with a repository's usual clutter around two deliverable files.
fn cluttered(scratch: &Scratch) {
    scratch.write("out/src/a.md", "# A\n\ntext\n");
    scratch.write("out/.gitignore", "target/\n# build output\n*.tmp\n");
    scratch.write("out/target/debug/big.md", "SECRET\n");
    scratch.write("out/notes.log", "SECRET\n");
    scratch.write("out/x.tmp", "SECRET\n");
    scratch.write("out/.git/HEAD", "ref: refs/heads/main\n");
    scratch.write("out/secret/s.md", "SECRET\n");
}

fn reader_contract(scratch: &Scratch, head: &str) -> std::path::PathBuf {
    scratch.write(
        "contract.yaml",
        format!(
            "vcc: 1\nid: ex\n{head}deliverables:\n  - {{ id: all, path: \"**/*\" }}\nvalidators:\n  reader: {{ component: {:?} }}\n  text: {{ component: std/text-match }}\ncriteria:\n  - {{ id: read, severity: must, validator: reader, targets: [all] }}\n  - {{ id: clean, severity: must, validator: text, targets: [all], params: {{ must_not_match: [SECRET] }} }}\n",
            fixtures::READER
        ),
    )
}

fn evidence_text(criterion: &Value, name: &str) -> String {
    let item = criterion["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no evidence {name}: {criterion}"));
    fs::read_to_string(item["file"].as_str().unwrap()).unwrap()
}

#[test]
fn excluded_files_are_neither_hashed_nor_seen() {
    let scratch = Scratch::new();
    cluttered(&scratch);
    let contract = reader_contract(&scratch, "exclude: [\"*.log\"]\ngitignore: true\n");
    let out = scratch.path().join("out");
    let evidence = scratch.path().join("evidence");
    let run = check_json(
        &contract,
        &[
            "--dir",
            out.to_str().unwrap(),
            "--exclude",
            "secret/",
            "--evidence-dir",
            evidence.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let report = run.json();
    let d = &report["deliverables"];
    assert_eq!(d["files"], 2, "{d}");
    assert_eq!(d["excluded"]["entries"], 5, "{d}");
    assert_eq!(
        d["excluded"]["rules"],
        json!([
            "(always): /.git",
            "exclude: *.log",
            "--exclude: secret/",
            "gitignore: true"
        ])
    );
    let mut first: Vec<(String, String)> = d["excluded"]["first"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["path"].as_str().unwrap().to_string(),
                e["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    first.sort();
    assert_eq!(
        first,
        vec![
            (".git".to_string(), "(always): /.git".to_string()),
            ("notes.log".into(), "exclude: *.log".into()),
            ("secret".into(), "--exclude: secret/".into()),
            ("target".into(), ".gitignore:1: target/".into()),
            ("x.tmp".into(), ".gitignore:3: *.tmp".into()),
        ]
    );
    // The host interface and the WASI mount show the same two files…
    let read = run.criterion("read");
    assert_eq!(
        evidence_text(&read, "line-counts.txt"),
        ".gitignore 3\nsrc/a.md 3\n"
    );
    assert_eq!(
        evidence_text(&read, "wasi-tree.txt"),
        ".gitignore\nsrc/a.md"
    );
    assert_eq!(run.criterion("clean")["status"], "pass");
    // …and the root digest is the digest of a root holding only them.
    let bare = scratch.path().join("bare");
    fs::create_dir_all(bare.join("src")).unwrap();
    fs::copy(out.join("src/a.md"), bare.join("src/a.md")).unwrap();
    fs::copy(out.join(".gitignore"), bare.join(".gitignore")).unwrap();
    let plain = check_json(&contract, &["--dir", bare.to_str().unwrap()]);
    assert_eq!(
        plain.json()["deliverables"]["root_digest"],
        d["root_digest"],
        "{}",
        plain.stdout
    );

    // Without the excludes, the clutter is judged (the test can fail).
    let all = reader_contract(&scratch, "");
    let run = check_json(&all, &["--dir", out.to_str().unwrap()]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(run.criterion("clean")["status"], "fail");
    assert_eq!(run.json()["deliverables"]["files"], 6);
    assert_eq!(run.json()["deliverables"]["excluded"]["entries"], 1);
}

#[test]
fn human_output_names_what_was_excluded() {
    let scratch = Scratch::new();
    cluttered(&scratch);
    let contract = reader_contract(&scratch, "exclude: [\"*.log\", secret/]\ngitignore: true\n");
    let out = scratch.path().join("out");
    let run = vcc(&[
        "check",
        contract.to_str().unwrap(),
        "--dir",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let line = run
        .stderr
        .lines()
        .find(|l| l.trim_start().starts_with("excluded:"))
        .unwrap_or_else(|| panic!("{}", run.stderr));
    for name in [".git/", "notes.log", "secret/", "target/", "x.tmp"] {
        assert!(line.contains(name), "{line}");
    }
}

#[test]
fn a_deliverable_hidden_by_an_ignore_file_is_missing_and_says_why() {
    let scratch = Scratch::new();
    scratch.write("out/.gitignore", "REPORT.md\n");
    scratch.write("out/REPORT.md", "# Report\n");
    let contract = scratch.write(
        "contract.yaml",
        "vcc: 1\nid: hidden\ngitignore: true\ndeliverables:\n  - { id: report, path: REPORT.md }\nvalidators:\n  exists: { component: std/file-exists }\ncriteria:\n  - { id: report, severity: must, validator: exists, targets: [report] }\n",
    );
    let out = scratch.path().join("out");
    let run = check_json(&contract, &["--dir", out.to_str().unwrap()]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let c = run.criterion("report");
    assert_eq!(c["reason"], "missing_deliverable");
    assert!(
        c["summary"]
            .as_str()
            .unwrap()
            .contains("`REPORT.md` was excluded (.gitignore:1: REPORT.md)"),
        "{c}"
    );
}

#[test]
fn an_ignore_file_vcc_cannot_read_blocks_its_folder() {
    let scratch = Scratch::new();
    scratch.write("out/docs/.gitignore", b"\xff\xfe not text\n");
    scratch.write("out/docs/a.md", "# A\n");
    let contract = scratch.write(
        "contract.yaml",
        "vcc: 1\nid: bad-ignore\ngitignore: true\ndeliverables:\n  - { id: docs, path: \"docs/*.md\" }\nvalidators:\n  exists: { component: std/file-exists }\ncriteria:\n  - { id: docs, severity: must, validator: exists, targets: [docs] }\n",
    );
    let out = scratch.path().join("out");
    let run = check_json(&contract, &["--dir", out.to_str().unwrap()]);
    assert_ne!(run.json()["verdict"], "accepted", "{}", run.stdout);
    assert_eq!(run.criterion("docs")["status"], "error");
    let unreadable = &run.json()["deliverables"]["unreadable"][0];
    assert_eq!(unreadable["path"], "docs");
    assert_eq!(unreadable["kind"], "bad_ignore_file");
    assert!(
        unreadable["detail"]
            .as_str()
            .unwrap()
            .contains("docs/.gitignore: not UTF-8"),
        "{unreadable}"
    );
}

#[test]
fn lint_refuses_deliverables_only_excluded_files_could_be() {
    let scratch = Scratch::new();
    let contract = scratch.write(
        "contract.yaml",
        "vcc: 1\nid: lint-ex\nexclude: [build/, \"*.json\"]\ndeliverables:\n  - { id: out, path: build/out.txt }\n  - { id: data, path: \"data/**/*.json\" }\n  - { id: head, path: .git/HEAD }\n  - { id: fine, path: \"src/**/*.rs\" }\nvalidators:\n  exists: { component: std/file-exists }\ncriteria:\n  - { id: all, severity: must, validator: exists, targets: [out, data, head, fine] }\n",
    );
    let run = vcc(&["lint", contract.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let lines: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("EXCLUDED_DELIVERABLE"))
        .collect();
    assert_eq!(lines.len(), 3, "{}", run.stderr);
    assert!(run.stderr.contains("(exclude: build/)"), "{}", run.stderr);
    assert!(run.stderr.contains("(exclude: *.json)"), "{}", run.stderr);
    assert!(run.stderr.contains("((always): /.git)"), "{}", run.stderr);
    assert!(!run.stderr.contains("`fine`"), "{}", run.stderr);

    let bad = scratch.write(
        "bad.yaml",
        "vcc: 1\nid: lint-bad\nexclude: [ok/, \"../up\"]\ndeliverables:\n  - { id: a, path: a.md }\nvalidators:\n  exists: { component: std/file-exists }\ncriteria:\n  - { id: a, severity: must, validator: exists, targets: [a] }\n",
    );
    let run = vcc(&["lint", bad.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("INVALID_EXCLUDE"), "{}", run.stderr);
    assert!(run.stderr.contains("exclude[1]"), "{}", run.stderr);
}

/// A build writing `target/` and a log while validators run must not
/// withhold the verdict; writing a deliverable still does.
#[test]
fn writing_excluded_files_during_a_run_is_not_a_change() {
    let run_while_writing = |write: &dyn Fn(&Path)| -> (Value, i32) {
        let scratch = Scratch::new();
        scratch.write("out/flag.txt", "BAD\n");
        scratch.write("out/target/old.o", "x");
        // The writes happen while `waits` waits on its barrier: during
        // the run, by construction.
        let barrier = Barrier::start(scratch.path());
        let contract = scratch.write(
            "contract.yaml",
            format!(
                "vcc: 1\nid: during-ex\nexclude: [target/, \"*.log\"]\ndeliverables:\n  - {{ id: flag, path: flag.txt }}\n{}validators:\n  v: {{ component: {:?} }}\n  exists: {{ component: std/file-exists }}\ncriteria:\n  - {{ id: present, severity: must, validator: exists, targets: [flag] }}\n  - {{ id: waits, severity: should, validator: v, targets: [flag], judges: [barrier], params: {{ until: GOOD, barrier: {:?} }}, limits: {{ timeout: 600s }} }}\n",
                barrier::CONTRACT_JUDGES,
                fixtures::WAITS_FOR_CHANGE,
                barrier.text
            ),
        );
        let out = scratch.path().join("out");
        let child = Command::new(env!("CARGO_BIN_EXE_vcc"))
            .args(["check", contract.to_str().unwrap(), "--dir"])
            .arg(&out)
            .args(["--format", "json"])
            .args(barrier.args())
            .env("VCC_CACHE_DIR", shared_cache())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let running = barrier.act_while_waiting(Duration::from_secs(120), || write(&out));
        let output = child.wait_with_output().unwrap();
        assert!(
            running,
            "the validator never reached its barrier: {output:?}"
        );
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        (report, output.status.code().unwrap_or(-1))
    };

    let (report, code) = run_while_writing(&|out| {
        fs::write(out.join("build.log"), "compiling\n").unwrap();
        fs::write(out.join("target/new.o"), "y").unwrap();
        fs::remove_file(out.join("target/old.o")).unwrap();
        fs::write(out.join("scratch.log"), "tmp").unwrap();
        fs::remove_file(out.join("scratch.log")).unwrap();
    });
    assert_eq!(report["verdict"], "accepted", "{report}");
    assert_eq!(report["deliverables"]["changed"], json!([]));
    assert_eq!(code, 0);

    let (report, code) = run_while_writing(&|out| {
        fs::write(out.join("build.log"), "compiling\n").unwrap();
        fs::write(out.join("planted.txt"), "y").unwrap();
    });
    assert_eq!(report["verdict"], "withheld", "{report}");
    assert_eq!(report["deliverables"]["changed"], json!(["planted.txt"]));
    assert_eq!(code, 1);
}

/// A contract at `at` (with a gate when `gated`) that forbids a string
/// in every `.rs` file of its root, a clean `main.rs` beside it, and a
/// file at `hidden` (under the scratch folder) that holds the string: only a folder vcc owns may be left out,
/// so wherever else it is, the string is found.
fn forbidden_in(scratch: &Scratch, at: &str, hidden: &str, gated: bool) -> std::path::PathBuf {
    // A clean file beside the contract: with the other one left out, the
    // criterion passes on it.
    let beside = at.replace("contract.yaml", "main.rs");
    scratch.write(&beside, "fn main() {}\n");
    scratch.write(hidden, "// BACKDOOR\n");
    let gate = if gated {
        "gates:\n  - { id: G, criteria: [AC-1] }\n"
    } else {
        ""
    };
    scratch.write(
        at,
        format!(
            "vcc: 1\nid: no-backdoor\ndeliverables:\n  - {{ id: code, path: \"**/*.rs\" }}\nvalidators:\n  text: {{ component: std/text-match }}\ncriteria:\n  - {{ id: AC-1, severity: must, validator: text, targets: [code], params: {{ must_not_match: [BACKDOOR] }} }}\n{gate}"
        ),
    )
}

/// The verdict, the exit code, and the rules the report says left
/// something out.
fn verdict_and_rules(run: &crate::Run) -> (String, i32, Vec<String>) {
    let report = run.json();
    let rules = report["deliverables"]["excluded"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().to_string())
        .collect();
    (
        report["verdict"].as_str().unwrap().to_string(),
        run.code,
        rules,
    )
}

fn rejected_with_nothing_left_out() -> (String, i32, Vec<String>) {
    ("rejected".into(), 1, vec!["(always): /.git".to_string()])
}

/// `ln -s src/vendor vcc-approvals` beside a contract with a gate: once,
/// the approvals folder was found by following the link, and `src/vendor/`
/// was left out as vcc's own — ACCEPTED with the forbidden string in it.
#[test]
fn forgery_host_a_link_named_like_the_approvals_folder() {
    let scratch = Scratch::new();
    let contract = forbidden_in(
        &scratch,
        "root/contract.yaml",
        "root/src/vendor/evil.rs",
        true,
    );
    let root = scratch.path().join("root");
    std::os::unix::fs::symlink("src/vendor", root.join("vcc-approvals")).unwrap();
    let run = check_json(&contract, &[]);
    assert_eq!(
        verdict_and_rules(&run),
        rejected_with_nothing_left_out(),
        "{}",
        run.stdout
    );
    let found = run.criterion("AC-1")["findings"].to_string();
    assert!(found.contains("src/vendor/evil.rs"), "{found}");
    // The link is an entry of the root, reported with its target.
    assert_eq!(
        run.json()["deliverables"]["unreadable"],
        json!([{"path": "vcc-approvals", "kind": "symlink", "detail": "links to src/vendor"}])
    );
}

/// The approvals folder of a contract kept in a folder named `*`: once
/// turned into the gitignore pattern `/*/vcc-approvals/`, it left out
/// `src/vcc-approvals/` as well. A folder vcc owns is one path, matched
/// literally.
#[test]
fn forgery_host_the_approvals_folder_is_no_glob() {
    let scratch = Scratch::new();
    let contract = forbidden_in(
        &scratch,
        "root/*/contract.yaml",
        "root/src/vcc-approvals/evil.rs",
        true,
    );
    let root = scratch.path().join("root");
    fs::create_dir_all(root.join("*/vcc-approvals")).unwrap();
    let run = check_json(&contract, &["--dir", root.to_str().unwrap()]);
    let (verdict, code, rules) = verdict_and_rules(&run);
    assert_eq!((verdict.as_str(), code), ("rejected", 1), "{}", run.stdout);
    assert_eq!(rules[1..], ["(vcc): /*/vcc-approvals/".to_string()]);
    assert_eq!(
        run.json()["deliverables"]["excluded"]["first"],
        json!([{"path": "*/vcc-approvals", "folder": true, "rule": "(vcc): /*/vcc-approvals/"}])
    );
}

/// A contract without gates reads no approval, so its `vcc-approvals/`
/// is a folder of deliverables like any other: once it was left out
/// whatever the contract, a place the worker could hide files in.
#[test]
fn forgery_host_the_approvals_folder_without_gates() {
    let scratch = Scratch::new();
    let contract = forbidden_in(
        &scratch,
        "root/contract.yaml",
        "root/vcc-approvals/evil.rs",
        false,
    );
    let run = check_json(&contract, &[]);
    assert_eq!(
        verdict_and_rules(&run),
        rejected_with_nothing_left_out(),
        "{}",
        run.stdout
    );
}

/// The approvals folder named through a link in its path (the contract's
/// folder as given is a link to another folder of the root): it is left
/// out nowhere, so the folder behind the link is judged.
#[test]
fn a_link_above_the_approvals_folder_leaves_nothing_out() {
    let scratch = Scratch::new();
    forbidden_in(
        &scratch,
        "root/src/contract.yaml",
        "root/src/vcc-approvals/evil.rs",
        true,
    );
    let root = scratch.path().join("root");
    std::os::unix::fs::symlink("src", root.join("ci")).unwrap();
    let run = check_json(
        &root.join("ci/contract.yaml"),
        &["--dir", root.to_str().unwrap()],
    );
    assert_eq!(
        verdict_and_rules(&run),
        rejected_with_nothing_left_out(),
        "{}",
        run.stdout
    );
}

/// A folder named `.git` below the root, written by the producer: once
/// left out like the repository's own (`(always): .git` matched a `.git`
/// anywhere), so a forbidden string in `src/.git/evil.rs` — which a build
/// can include (`#[path = ".git/evil.rs"]`) — was never seen: ACCEPTED.
/// Only the root's `.git` is vcc's.
#[test]
fn forgery_host_a_folder_named_git_below_the_root() {
    let scratch = Scratch::new();
    let contract = forbidden_in(
        &scratch,
        "root/contract.yaml",
        "root/src/.git/evil.rs",
        false,
    );
    // The root's own `.git` is still left out.
    scratch.write("root/.git/hooks/old.rs", "// BACKDOOR\n");
    let run = check_json(&contract, &[]);
    let (verdict, code, rules) = verdict_and_rules(&run);
    assert_eq!((verdict.as_str(), code), ("rejected", 1), "{}", run.stdout);
    assert_eq!(rules, ["(always): /.git"]);
    let found = run.criterion("AC-1")["findings"].to_string();
    assert!(found.contains("src/.git/evil.rs"), "{found}");
    assert!(!found.contains("hooks/old.rs"), "{found}");
    assert_eq!(
        run.json()["deliverables"]["excluded"]["first"],
        json!([{"path": ".git", "folder": true, "rule": "(always): /.git"}])
    );
}
