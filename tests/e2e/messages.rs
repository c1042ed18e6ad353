//! Messages a user reads when something is refused: each names the file
//! at fault and says exactly what is wrong, with the file's own line
//! numbers and ranges written as a person would.

use std::path::{Path, PathBuf};

use vcc_test_support::Scratch;

use crate::{Run, vcc};

/// A project with a one-criterion contract (accepted) at root/vcc.yaml.
fn project() -> (Scratch, PathBuf) {
    let dir = Scratch::new();
    dir.write("root/a.txt", "a\n");
    let contract = dir.write(
        "root/vcc.yaml",
        "vcc: 1\nid: t\ndeliverables:\n  - { id: a, path: a.txt }\nvalidators:\n  exists: { component: std/file-exists }\ncriteria:\n  - { id: A, severity: must, validator: exists, targets: [a] }\n",
    );
    (dir, contract)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_malformed_trust_policy_is_named_not_the_contract() {
    let (dir, contract) = project();
    let bad = dir.write("bad-trust.yaml", "trust: 1\nkeys: :[\n");
    let run = vcc(&["check", s(&contract), "--trust", s(&bad)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let want = format!(
        "{}: error[MALFORMED_POLICY] keys: invalid type",
        bad.display()
    );
    assert!(run.stderr.contains(&want), "{}", run.stderr);
    assert!(
        !run.stderr
            .contains(&format!("{}: error", contract.display())),
        "{}",
        run.stderr
    );
    let json = vcc(&[
        "check",
        s(&contract),
        "--trust",
        s(&bad),
        "--format",
        "json",
    ])
    .json();
    assert_eq!(json["problems"][0]["file"], s(&bad), "{json}");

    // A key file the policy names and that is not there: the policy and
    // the key's id are named with it.
    let missing = dir.write(
        "missing-key.yaml",
        "trust: 1\nkeys: [{ id: x, public_key: nope.pub }]\n",
    );
    let json = vcc(&[
        "check",
        s(&contract),
        "--trust",
        s(&missing),
        "--format",
        "json",
    ])
    .json();
    let problem = &json["problems"][0];
    assert_eq!(problem["file"], s(&missing), "{json}");
    assert_eq!(problem["code"], "MALFORMED_KEY");
    let message = problem["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!(
            "key `x`: {}",
            dir.path().join("nope.pub").display()
        )),
        "{message}"
    );
}

#[test]
fn an_invalid_merge_is_headed_vcc_merge() {
    let (dir, _) = project();
    let shard = dir.write("shard-1.json", "not a shard\n");
    let run = vcc(&["merge", s(&shard), "--unbound"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let first = run.stderr.lines().next().unwrap_or_default();
    assert!(first.starts_with("vcc merge "), "{}", run.stderr);
    assert!(
        !run.stderr.lines().any(|l| l.starts_with("vcc check")),
        "{}",
        run.stderr
    );
}

/// A log of three unsigned checks; its path.
fn three_entries(dir: &Scratch, contract: &Path) -> PathBuf {
    let ledger = dir.path().join("log.jsonl");
    for _ in 0..3 {
        let run = vcc(&["check", s(contract), "--ledger", s(&ledger)]);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    ledger
}

#[test]
fn ledger_line_errors_give_the_files_line_not_the_jsons() {
    let (dir, contract) = project();
    let ledger = three_entries(&dir, &contract);
    let text = std::fs::read_to_string(&ledger).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Line 3 is not an entry; its JSON's own position is a column.
    std::fs::write(
        &ledger,
        format!(
            "{}\n{}\n{{\"seq\": 2, \"prev_root\": 5}}\n",
            lines[0], lines[1]
        ),
    )
    .unwrap();
    let verify = vcc(&["ledger", "verify", s(&ledger)]);
    assert_eq!(verify.code, 1, "{}", verify.stderr);
    assert!(
        verify.stderr.contains(
            "line 3 is not a ledger entry: invalid type: integer `5`, expected a string at column 25"
        ),
        "{}",
        verify.stderr
    );
    let show = vcc(&["ledger", "show", s(&ledger)]);
    assert_eq!(show.code, 2, "{}", show.stderr);
    assert!(
        show.stderr.contains(&format!(
            "{}: line 3: not a ledger entry: ",
            ledger.display()
        )) && show.stderr.contains(" at column "),
        "{}",
        show.stderr
    );
    assert!(!show.stderr.contains("at line 1 column"), "{}", show.stderr);
}

#[test]
fn ledger_messages_say_seq_1_for_one_entry_not_seq_1_to_1() {
    let (dir, contract) = project();
    let ledger = three_entries(&dir, &contract);
    let text = std::fs::read_to_string(&ledger).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(&ledger, format!("{}\n{}\n", lines[0], lines[2])).unwrap();
    let verify = vcc(&["ledger", "verify", s(&ledger)]);
    assert_eq!(verify.code, 1, "{}", verify.stderr);
    assert!(
        verify.stderr.contains("line 2 is seq 2: seq 1 is missing"),
        "{}",
        verify.stderr
    );
}

/// One entry after the last checkpoint the key signed (the checkpoints
/// file put back as it was before the last append): verify and repair
/// name it as `seq 2`, not `seq 2 to 2`.
#[test]
fn ledger_repair_says_seq_2_for_one_entry() {
    let (dir, contract) = project();
    let key = dir.path().join("ledger");
    assert_eq!(vcc(&["key", "generate", s(&key)]).code, 0);
    let (private, public) = (key.with_extension("key"), key.with_extension("pub"));
    let ledger = dir.path().join("log.jsonl");
    let checkpoints = dir.path().join("log.jsonl.checkpoints");
    let signed = || {
        let run = vcc(&[
            "check",
            s(&contract),
            "--ledger",
            s(&ledger),
            "--ledger-key",
            s(&private),
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
    };
    signed();
    signed();
    let kept = std::fs::read(&checkpoints).unwrap();
    signed();
    std::fs::write(&checkpoints, kept).unwrap();
    let verify: Run = vcc(&["ledger", "verify", s(&ledger), "--key", s(&public)]);
    assert_eq!(verify.code, 1, "{}", verify.stderr);
    assert!(
        verify
            .stderr
            .contains("seq 2 is covered by no checkpoint the key signed"),
        "{}",
        verify.stderr
    );
    let repair = vcc(&["ledger", "repair", s(&ledger), "--key", s(&public)]);
    assert_eq!(repair.code, 0, "{}", repair.stderr);
    assert!(
        repair.stderr.contains(&format!(
            "{}: removed seq 2, which no checkpoint signed by the key covered",
            ledger.display()
        )),
        "{}",
        repair.stderr
    );
}
