//! A link the worker makes on the way to a path decides nothing (found by
//! the red team of issue 33): the root a contract's `root: ..` names is
//! the folder the contract sits in as written, a loop judges the root it
//! began with, a link to a folder under a glob target is not a pass, and
//! a verifier's file reached through a link in the root is still in it.

use std::os::unix::fs::symlink;
use std::path::Path;

use vcc_test_support::Scratch;

use crate::{check_json, vcc, vcc_in};

/// NOTES.md must hold no TODO; the contract lives in `.vcc/` beside it.
const CONTRACT: &str = "vcc: 1
id: pinned
root: ..
deliverables:
  - { id: notes, path: out/NOTES.md }
validators:
  text: { component: std/text-match }
criteria:
  - { id: no-todo, severity: must, validator: text, targets: [notes], params: { must_not_match: [TODO] } }
";

/// The worker's decoy: a folder of files written to pass, and a copy of
/// the contract (same bytes) one level down, so `.vcc/..` would be it.
fn decoy(proj: &Path) {
    std::fs::create_dir_all(proj.join("decoy/inner")).unwrap();
    std::fs::create_dir_all(proj.join("decoy/out")).unwrap();
    std::fs::write(proj.join("decoy/out/NOTES.md"), "all done\n").unwrap();
    std::fs::write(proj.join("decoy/inner/contract.yaml"), CONTRACT).unwrap();
}

/// The CI's base says `root: ..`; the team's contract is read through
/// `.vcc`, a link the worker pointed at `decoy/inner`. Once: the base
/// judged `decoy/` (ACCEPTED) while `out/NOTES.md` said TODO.
#[test]
fn forgery_host_a_link_on_the_contracts_way_moves_its_root() {
    let scratch = Scratch::new();
    let base = scratch.write("ci/base.yaml", CONTRACT.replace("pinned", "base"));
    let proj = scratch.path().join("proj");
    scratch.write("proj/out/NOTES.md", "TODO: everything\n");
    decoy(&proj);
    std::fs::write(
        proj.join("decoy/inner/contract.yaml"),
        "vcc: 1\nid: team\ncriteria: []\n",
    )
    .unwrap();
    symlink("decoy/inner", proj.join(".vcc")).unwrap();
    let run = check_json(
        &proj.join(".vcc/contract.yaml"),
        &["--policy", &base.display().to_string()],
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let report = run.json();
    assert_eq!(report["verdict"], "rejected");
    assert_eq!(
        report["deliverables"]["root_absolute"],
        std::fs::canonicalize(&proj).unwrap().display().to_string()
    );
    assert_eq!(run.criterion("no-todo")["status"], "fail");
}

/// `vcc converge`: the command swaps `.vcc` for a link to a decoy holding
/// the same contract bytes. Once: "check 1: accepted", FULFILLED, exit 0,
/// with `out/NOTES.md` still saying TODO.
#[test]
fn forgery_host_a_converge_command_links_the_contracts_folder_to_a_decoy() {
    let scratch = Scratch::new();
    scratch.write("proj/.vcc/contract.yaml", CONTRACT);
    scratch.write("proj/out/NOTES.md", "TODO: everything\n");
    let agent = scratch.write(
        "agent.sh",
        "#!/bin/sh\nset -e\ncd proj\nmkdir -p decoy/inner decoy/out\necho 'all done' > decoy/out/NOTES.md\n[ -L .vcc ] || { cp .vcc/contract.yaml decoy/inner/; rm -r .vcc; ln -s decoy/inner .vcc; }\n",
    );
    let mut perms = std::fs::metadata(&agent).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&agent, perms).unwrap();
    let run = vcc_in(
        scratch.path(),
        &[
            "converge",
            "proj/.vcc/contract.yaml",
            "--max-iterations",
            "2",
            "--format",
            "json",
            "--",
            "./agent.sh",
        ],
    );
    assert_ne!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let report = run.json();
    assert_eq!(report["accepted"], false, "{report}");
    assert_ne!(report["lifecycle"], "FULFILLED", "{report}");
    // The decoy was made: the command ran, and the loop judged `proj/`.
    assert!(scratch.path().join("proj/.vcc").is_symlink());
    assert_eq!(
        report["last_check"]["deliverables"]["root_absolute"],
        std::fs::canonicalize(scratch.path().join("proj"))
            .unwrap()
            .display()
            .to_string(),
        "{report}"
    );
}

/// `docs/**/*.md`, and `docs/sub` a link to a folder elsewhere whose
/// Markdown says TODO: a site generator that follows links publishes it.
/// Once: "not hashed: docs/sub (symlink)", PASS, ACCEPTED.
#[test]
fn forgery_host_a_link_to_a_folder_under_a_glob_target() {
    let scratch = Scratch::new();
    let contract = scratch.write(
        "contract.yaml",
        "vcc: 1\nid: docs\ndeliverables:\n  - { id: docs, path: \"docs/**/*.md\" }\nvalidators:\n  text: { component: std/text-match }\ncriteria:\n  - { id: no-todo, severity: must, validator: text, targets: [docs], params: { must_not_match: [TODO] } }\n",
    );
    scratch.write("docs/index.md", "# Done\n");
    let elsewhere = Scratch::new();
    elsewhere.write("evil/page.md", "TODO: everything\n");
    symlink(
        elsewhere.path().join("evil"),
        scratch.path().join("docs/sub"),
    )
    .unwrap();
    let run = check_json(&contract, &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(run.json()["verdict"], "withheld");
    let row = run.criterion("no-todo");
    assert_eq!(row["status"], "error", "{row}");
    assert!(
        row["summary"]
            .as_str()
            .unwrap()
            .contains("docs/sub (symlink)"),
        "{row}"
    );
    // Inside the root, to a folder the glob does not reach: the same.
    scratch.write("notes/evil/page.md", "TODO: everything\n");
    std::fs::remove_file(scratch.path().join("docs/sub")).unwrap();
    symlink("../notes/evil", scratch.path().join("docs/sub")).unwrap();
    let run = check_json(&contract, &[]);
    assert_eq!(
        run.criterion("no-todo")["status"],
        "error",
        "{}",
        run.stdout
    );
    // To a folder whose files the glob judges at their own paths: judged.
    std::fs::remove_file(scratch.path().join("docs/sub")).unwrap();
    scratch.write("docs/real/page.md", "# Fine\n");
    symlink("real", scratch.path().join("docs/sub")).unwrap();
    let run = check_json(&contract, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    // A link to a file that the glob does not match blocks nothing.
    std::fs::remove_file(scratch.path().join("docs/sub")).unwrap();
    symlink(
        elsewhere.path().join("evil/page.md"),
        scratch.path().join("docs/page.txt"),
    )
    .unwrap();
    let run = check_json(&contract, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
}

/// `--trust proj/logs/trust.yaml` and `--ledger proj/logs/log.jsonl`, with
/// `logs` a link the worker made to a folder it writes elsewhere. Once:
/// the worker's policy and log were used (the check ran).
#[test]
fn a_verifiers_file_through_a_link_in_the_root_is_in_the_root() {
    let scratch = Scratch::new();
    let contract = scratch.write("proj/.vcc/contract.yaml", CONTRACT);
    scratch.write("proj/out/NOTES.md", "done\n");
    let elsewhere = Scratch::new();
    elsewhere.write("trust.yaml", "trust: 1\n");
    symlink(elsewhere.path(), scratch.path().join("proj/logs")).unwrap();
    let trust = scratch.path().join("proj/logs/trust.yaml");
    let run = check_json(&contract, &["--trust", &trust.display().to_string()]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stdout.contains("TRUST_IN_ROOT"), "{}", run.stdout);
    let log = scratch.path().join("proj/logs/log.jsonl");
    let run = check_json(&contract, &["--ledger", &log.display().to_string()]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.json()["reason"]
            .as_str()
            .unwrap()
            .contains("lies in the deliverable root"),
        "{}",
        run.stdout
    );
    assert!(!elsewhere.path().join("log.jsonl").exists());
    // The same files outside the root are used.
    let outside = elsewhere.path().join("trust.yaml").display().to_string();
    assert_eq!(
        vcc(&[
            "check",
            &contract.display().to_string(),
            "--trust",
            &outside
        ])
        .code,
        0
    );
}
