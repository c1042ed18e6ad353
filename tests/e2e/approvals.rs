//! Signed approvals of gates (`vcc approve`) and what they bind: each
//! approval a gate needs is its own statement, for that gate by name, from
//! its own signer; a statement binds every entry of the root (a link added
//! after it makes it stale); `vcc approve` refuses what could never count
//! and says when the trust policy would not count it.

use std::path::PathBuf;

use serde_json::Value;
use vcc_test_support::Scratch;

use crate::{Run, vcc};

/// A root with one deliverable and a contract whose gate `REVIEW` needs
/// the approvals `needs` (YAML flow items), keys outside the root for
/// `alice` and `bob` (Reviewers in the trust policy) and `carol` (in the
/// policy, with no role), and the trust policy.
struct Reviewed {
    root: Scratch,
    keys: Scratch,
    contract: PathBuf,
}

impl Reviewed {
    fn new(needs: &[&str]) -> Reviewed {
        let root = Scratch::new();
        root.write("notes.md", "# Notes\n\nReviewed work.\n");
        let contract = root.write(
            "contract.yaml",
            format!(
                "vcc: 1\nid: reviewed\ndeliverables:\n  - {{ id: notes, path: notes.md }}\nvalidators:\n  fe: {{ component: std/file-exists }}\ncriteria:\n  - {{ id: AC-1, severity: must, validator: fe, targets: [notes] }}\ngates:\n  - id: REVIEW\n    approvals:\n{}",
                needs
                    .iter()
                    .map(|n| format!("      - {n}\n"))
                    .collect::<String>()
            ),
        );
        let keys = Scratch::new();
        for k in ["alice", "bob", "carol"] {
            let made = vcc(&["key", "generate", keys.path().join(k).to_str().unwrap()]);
            assert_eq!(made.code, 0, "{}", made.stderr);
        }
        keys.write(
            "trust.yaml",
            "trust: 1\nkeys:\n  - { id: alice, public_key: alice.pub }\n  - { id: bob, public_key: bob.pub }\n  - { id: carol, public_key: carol.pub }\nroles:\n  Reviewer: [alice, bob]\n",
        );
        Reviewed {
            root,
            keys,
            contract,
        }
    }

    fn trust(&self) -> String {
        self.keys.path().join("trust.yaml").display().to_string()
    }

    fn key(&self, name: &str) -> String {
        self.keys
            .path()
            .join(format!("{name}.key"))
            .display()
            .to_string()
    }

    /// `vcc approve` of gate REVIEW with `key`, and `extra` flags.
    fn approve(&self, key: &str, extra: &[&str]) -> Run {
        let (key, trust) = (self.key(key), self.trust());
        let mut args = vec![
            "approve",
            "--key",
            &key,
            "--contract",
            self.contract.to_str().unwrap(),
            "--gate",
            "REVIEW",
            "--trust",
            &trust,
        ];
        args.extend_from_slice(extra);
        vcc(&args)
    }

    fn check(&self) -> Run {
        let trust = self.trust();
        vcc(&[
            "check",
            self.contract.to_str().unwrap(),
            "--format",
            "json",
            "--trust",
            &trust,
        ])
    }

    /// The approvals folder's files, by name.
    fn approvals(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.root.path().join("vcc-approvals"))
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }
}

/// The verdict, the exit code, the gate row's status and its findings.
fn gate(run: &Run) -> (String, i32, String, String) {
    let row = run.criterion("gate:REVIEW");
    let findings = row["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["message"].as_str().unwrap().to_string())
        .collect::<Vec<_>>()
        .join("\n");
    (
        run.json()["verdict"].as_str().unwrap().to_string(),
        run.code,
        row["status"].as_str().unwrap().to_string(),
        findings,
    )
}

const TWO_REVIEWERS: [&str; 2] = ["{ role: Reviewer }", "{ role: Reviewer }"];

/// A gate that needs two Reviewers, and one Reviewer's statement: once it
/// counted for both approvals, and the gate opened (ACCEPTED).
#[test]
fn forgery_host_one_statement_opens_a_gate_of_two() {
    let r = Reviewed::new(&TWO_REVIEWERS);
    let approved = r.approve("alice", &["--role", "Reviewer"]);
    assert_eq!(approved.code, 0, "{}", approved.stderr);
    let run = r.check();
    let (verdict, code, status, findings) = gate(&run);
    assert_eq!(
        (verdict.as_str(), code, status.as_str()),
        ("rejected", 1, "fail"),
        "{findings}"
    );
    assert!(
        findings.contains("counts already for another approval of this gate"),
        "{findings}"
    );
    assert!(
        findings.contains("human approval of role `Reviewer` by alice"),
        "{findings}"
    );
    // A second Reviewer opens it.
    assert_eq!(r.approve("bob", &["--role", "Reviewer"]).code, 0);
    let (verdict, code, status, findings) = gate(&r.check());
    assert_eq!(
        (verdict.as_str(), code, status.as_str()),
        ("accepted", 0, "pass"),
        "{findings}"
    );
    assert!(findings.contains("by alice") && findings.contains("by bob"));
}

/// The same Reviewer signs two statements (two files): once each counted,
/// and one reviewer opened a gate of two.
#[test]
fn forgery_host_one_signer_opens_a_gate_of_two() {
    let r = Reviewed::new(&TWO_REVIEWERS);
    for name in ["first", "second"] {
        let out = r
            .root
            .path()
            .join(format!("vcc-approvals/{name}.dsse.json"));
        let approved = r.approve(
            "alice",
            &["--role", "Reviewer", "--out", out.to_str().unwrap()],
        );
        assert_eq!(approved.code, 0, "{}", approved.stderr);
    }
    assert_eq!(r.approvals(), ["first.dsse.json", "second.dsse.json"]);
    let (verdict, code, status, findings) = gate(&r.check());
    assert_eq!(
        (verdict.as_str(), code, status.as_str()),
        ("rejected", 1, "fail"),
        "{findings}"
    );
    assert!(
        findings.contains(
            "second.dsse.json: signed by alice, whose approval counts already for this gate"
        ),
        "{findings}"
    );
}

/// A trusted Reviewer's statement that names no gate (`"gate": ""`, as
/// another tool might write it): once it counted for every gate.
#[test]
fn forgery_host_a_statement_for_no_gate() {
    let r = Reviewed::new(&["{ role: Reviewer }"]);
    // The digests a check binds, read from a check without approvals.
    let report = r.check().json();
    let digest = |v: &Value| v.as_str().unwrap().to_string();
    let (contract_digest, root_digest) = (
        digest(&report["contract"]["digest"]),
        digest(&report["deliverables"]["root_digest"]),
    );
    let key = vcc_trust::keys::PrivateKey::read(std::path::Path::new(&r.key("alice"))).unwrap();
    let envelope = vcc_trust::approval::sign(
        &vcc_trust::approval::Approve {
            contract_digest: &contract_digest,
            root_digest: &root_digest,
            predicate: vcc_trust::approval::ApprovalPredicate {
                contract_id: "reviewed".into(),
                gate: String::new(),
                role: "Reviewer".into(),
                score: None,
                approved_at: "2026-11-24T10:00:00Z".into(),
                comment: None,
            },
        },
        &key,
    );
    r.root.write(
        "vcc-approvals/any-gate.dsse.json",
        serde_json::to_string(&envelope).unwrap(),
    );
    let (verdict, code, status, findings) = gate(&r.check());
    assert_eq!(
        (verdict.as_str(), code, status.as_str()),
        ("rejected", 1, "fail"),
        "{findings}"
    );
    assert!(findings.contains("none was found"), "{findings}");
}

/// An approved tree, then a link to `/etc/shadow` added beside the
/// deliverables: once the root digest covered hashed files only, so the
/// approval still held (ACCEPTED) for a tree it never saw.
#[test]
fn forgery_host_a_link_added_after_the_approval() {
    let r = Reviewed::new(&["{ role: Reviewer }"]);
    assert_eq!(r.approve("alice", &[]).code, 0);
    let before = r.check();
    assert_eq!(before.code, 0, "{}", before.stdout);
    std::os::unix::fs::symlink("/etc/shadow", r.root.path().join("shadow")).unwrap();
    let run = r.check();
    let (verdict, code, status, findings) = gate(&run);
    assert_eq!(
        (verdict.as_str(), code, status.as_str()),
        ("rejected", 1, "fail"),
        "{findings}"
    );
    assert!(findings.contains("is stale"), "{findings}");
    assert_ne!(
        run.json()["deliverables"]["root_digest"],
        before.json()["deliverables"]["root_digest"]
    );
}

/// A gate whose Reviewer approval needs a score: an approval without one
/// could never count, so `vcc approve` writes none.
#[test]
fn approve_refuses_an_approval_without_the_score_the_gate_needs() {
    let r = Reviewed::new(&["{ role: Reviewer, min_score: 4 }"]);
    let refused = r.approve("alice", &[]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains(
            "gate `REVIEW` needs a score of at least 4 from role `Reviewer`: an approval without --score would never count; give --score N"
        ),
        "{}",
        refused.stderr
    );
    assert!(r.approvals().is_empty(), "{:?}", r.approvals());
    // With a score it is written, and counts.
    assert_eq!(r.approve("alice", &["--score", "4"]).code, 0);
    assert_eq!(r.check().code, 0);
}

/// A score below the gate's minimum could never count either: refused,
/// nothing written.
#[test]
fn approve_refuses_a_score_below_what_the_gate_needs() {
    let r = Reviewed::new(&["{ role: Reviewer, min_score: 4 }"]);
    let refused = r.approve("alice", &["--score", "3.5"]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains(
            "gate `REVIEW` needs a score of at least 4 from role `Reviewer`: an approval scoring 3.5 would never count"
        ),
        "{}",
        refused.stderr
    );
    assert!(r.approvals().is_empty(), "{:?}", r.approvals());
}

/// A key the trust policy gives no Reviewer role: `vcc approve` writes
/// the statement (the policy may change) but says a check with this
/// policy will not count it.
#[test]
fn approve_warns_when_the_key_holds_no_role() {
    let r = Reviewed::new(&["{ role: Reviewer }"]);
    let approved = r.approve("carol", &[]);
    assert_eq!(approved.code, 0, "{}", approved.stderr);
    assert!(
        approved.stderr.contains(&format!(
            "vcc approve: warning: the trust policy {} does not list key carol for role `Reviewer`",
            r.trust()
        )),
        "{}",
        approved.stderr
    );
    let trusted = r.approve("bob", &[]);
    assert!(!trusted.stderr.contains("warning"), "{}", trusted.stderr);
}

/// A gate that needs one role twice: the role is the gate's only one, so
/// `vcc approve` needs no `--role` (once it asked to choose between
/// `Reviewer` and `Reviewer`).
#[test]
fn approve_takes_the_only_role_of_a_gate_that_needs_it_twice() {
    let r = Reviewed::new(&TWO_REVIEWERS);
    let approved = r.approve("alice", &[]);
    assert_eq!(approved.code, 0, "{}", approved.stderr);
    assert!(
        approved.stderr.contains("as role `Reviewer`"),
        "{}",
        approved.stderr
    );
}

/// `vcc approve --out` into a folder outside the root, checked with
/// `--approvals` there (the book's advice): once approve made an empty
/// `vcc-approvals/` in the root and signed a digest without it, so the
/// check (which binds that empty folder) found its own approval stale.
#[test]
fn an_approval_written_outside_the_root_leaves_the_root_as_it_was() {
    let r = Reviewed::new(&["{ role: Reviewer }"]);
    let outside = Scratch::new();
    let out = outside.path().join("appr/alice.dsse.json");
    let approved = r.approve("alice", &["--out", out.to_str().unwrap()]);
    assert_eq!(approved.code, 0, "{}", approved.stderr);
    assert!(!r.root.path().join("vcc-approvals").exists());
    let trust = r.trust();
    let run = vcc(&[
        "check",
        r.contract.to_str().unwrap(),
        "--format",
        "json",
        "--trust",
        &trust,
        "--approvals",
        outside.path().join("appr").to_str().unwrap(),
    ]);
    let (verdict, code, status, findings) = gate(&run);
    assert_eq!(
        (verdict.as_str(), code, status.as_str()),
        ("accepted", 0, "pass"),
        "{findings}"
    );
}

/// `vcc check --gate G` runs the gate's rows alone: lint in its report
/// speaks about them, not about the validators and deliverables of the
/// criteria the run left out (`vcc lint` speaks about the whole).
#[test]
fn a_gate_run_does_not_call_the_rest_of_the_contract_unused() {
    let s = Scratch::new();
    s.write("notes.md", "# Notes\n\nDone.\n");
    s.write("CHANGELOG.md", "# Changes\n");
    let contract = s.write(
        "contract.yaml",
        "vcc: 1\nid: gated\ndeliverables:\n  - { id: notes, path: notes.md }\n  - { id: log, path: CHANGELOG.md }\nvalidators:\n  fe: { component: std/file-exists }\n  text: { component: std/text-match }\ncriteria:\n  - { id: AC-1, severity: must, validator: fe, targets: [notes] }\n  - { id: AC-2, severity: must, validator: text, targets: [log], params: { must_match: ['Changes'] } }\ngates:\n  - { id: PACK, when: before_packaging, criteria: [AC-1] }\n",
    );
    let run = vcc(&[
        "check",
        contract.to_str().unwrap(),
        "--gate",
        "PACK",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let codes: Vec<&str> = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["code"].as_str())
        .collect();
    assert!(
        !codes.contains(&"UNUSED_VALIDATOR") && !codes.contains(&"UNCHECKED_DELIVERABLE"),
        "{codes:?}"
    );
    let human = vcc(&["check", contract.to_str().unwrap(), "--gate", "PACK"]);
    assert_eq!(human.code, 0, "{}", human.stderr);
    assert!(
        !human.stderr.contains("UNUSED_VALIDATOR"),
        "{}",
        human.stderr
    );
    assert!(
        !human.stderr.contains("UNCHECKED_DELIVERABLE"),
        "{}",
        human.stderr
    );
    // The whole contract, linted, has neither either.
    let lint = vcc(&["lint", contract.to_str().unwrap()]);
    assert_eq!(lint.code, 0, "{}", lint.stderr);
}
