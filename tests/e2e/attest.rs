//! Signed verification attestations (`vcc check --attest`, `vcc attest
//! verify`), read back by the in-toto project's own bindings (PyPI
//! `in-toto-attestation`: the Statement, and the SLSA VSA v1 and
//! test-result v0.1 predicates parsed strictly), securesystemslib for the
//! DSSE signatures, and `sha256sum` for the subjects.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;
use vcc_test_support::Scratch;

use crate::world::tools_dir;
use crate::{Run, repo, vcc};

struct Attested {
    project: Scratch,
    keys: Scratch,
}

impl Attested {
    fn new() -> Attested {
        let project = Scratch::new();
        project.write(
            "contract.yaml",
            "vcc: 1\nid: attested\ndeliverables:\n  - { id: notes, path: notes.md }\n  - { id: data, path: data/*.json }\nvalidators:\n  e: { component: std/file-exists }\n  t: { component: std/text-match }\ncriteria:\n  - { id: NOTES, severity: must, validator: e, targets: [notes] }\n  - { id: NO-TODO, severity: should, validator: t, targets: [notes], params: { must_not_match: [TODO] } }\n",
        );
        project.write("notes.md", "# Notes\n\nDone.\n");
        project.write("data/a.json", "{\"a\": 1}\n");
        let keys = Scratch::new();
        for name in ["ci", "stranger"] {
            assert_eq!(
                vcc(&["key", "generate", keys.path().join(name).to_str().unwrap()]).code,
                0
            );
        }
        keys.write(
            "trust.yaml",
            "trust: 1\nkeys:\n  - { id: ci, public_key: ci.pub }\n  - { id: stranger, public_key: stranger.pub }\nattestations: { signers: [ci] }\n",
        );
        Attested { project, keys }
    }

    fn file(&self) -> PathBuf {
        self.keys.path().join("run.intoto.jsonl")
    }

    fn check(&self, key: &str) -> Run {
        vcc(&[
            "check",
            self.project.path().join("contract.yaml").to_str().unwrap(),
            "--attest",
            self.file().to_str().unwrap(),
            "--key",
            self.keys
                .path()
                .join(format!("{key}.key"))
                .to_str()
                .unwrap(),
        ])
    }

    fn verify(&self) -> Run {
        vcc(&[
            "attest",
            "verify",
            self.file().to_str().unwrap(),
            "--trust",
            self.keys.path().join("trust.yaml").to_str().unwrap(),
            "--dir",
            self.project.path().to_str().unwrap(),
        ])
    }

    fn independent(&self) -> Value {
        let keyid = vcc_trust::keys::PublicKey::read(&self.keys.path().join("ci.pub"))
            .unwrap()
            .id()
            .to_string();
        let out = Command::new(tools_dir().join("reports-py/bin/python"))
            .arg(repo().join("tests/readers/attest_read.py"))
            .arg(self.file())
            .arg(self.keys.path().join("ci.pub"))
            .arg(keyid)
            .arg(self.project.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

#[test]
fn an_accepted_run_is_attested_and_the_in_toto_bindings_read_it() {
    let a = Attested::new();
    let run = a.check("ci");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = std::fs::read_to_string(a.file()).unwrap();
    assert_eq!(text.lines().count(), 2, "a VSA and a test result: {text}");
    let verified = a.verify();
    assert_eq!(verified.code, 0, "{}", verified.stderr);
    assert!(
        verified.stderr.contains("all match the files"),
        "{}",
        verified.stderr
    );

    let read = a.independent();
    let vsa = &read[0];
    assert_eq!(
        vsa["predicateType"],
        "https://slsa.dev/verification_summary/v1"
    );
    assert_eq!(vsa["result"], "PASSED");
    assert_eq!(
        vsa["verifiedLevels"],
        serde_json::json!(["VCC_CONTRACT_ACCEPTED"])
    );
    assert_eq!(
        vsa["subjects"], 3,
        "notes.md, data/a.json and contract.yaml: {vsa}"
    );
    assert_eq!(vsa["mismatched"], serde_json::json!([]));
    let tests = &read[1];
    assert_eq!(
        tests["predicateType"],
        "https://in-toto.io/attestation/test-result/v0.1"
    );
    assert_eq!(tests["result"], "PASSED");

    // sha256sum agrees with the subject it names.
    let envelope: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    use base64::Engine as _;
    let statement: Value = serde_json::from_slice(
        &base64::engine::general_purpose::STANDARD
            .decode(envelope["payload"].as_str().unwrap())
            .unwrap(),
    )
    .unwrap();
    let subject = statement["subject"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "notes.md")
        .unwrap()
        .clone();
    let sum = Command::new("sha256sum")
        .arg(a.project.path().join("notes.md"))
        .output()
        .unwrap();
    let sum = String::from_utf8_lossy(&sum.stdout);
    assert_eq!(
        sum.split_whitespace().next(),
        subject["digest"]["sha256"].as_str()
    );
    assert_eq!(
        format!("blake3:{}", subject["digest"]["blake3"].as_str().unwrap()),
        vcc_test_support::file_digest(&a.project.path().join("notes.md"))
    );

    // The bytes change afterwards: the attestation no longer describes them.
    a.project
        .write("notes.md", "# Notes\n\nChanged after the check.\n");
    let run = a.verify();
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("CHANGED since: notes.md"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_rejected_run_is_attested_as_failed_and_an_untrusted_signer_is_refused() {
    let a = Attested::new();
    std::fs::remove_file(a.project.path().join("notes.md")).unwrap();
    a.project.write("other.md", "something\n");
    let run = a.check("ci");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let read = a.independent();
    assert_eq!(read[0]["result"], "FAILED");
    assert_eq!(
        read[0]["verifiedLevels"],
        Value::Null,
        "no level claimed: {}",
        read[0]
    );
    assert_eq!(read[1]["result"], "FAILED");
    assert_eq!(read[1]["failedTests"], serde_json::json!(["NOTES"]));
    assert_eq!(a.verify().code, 1);

    let b = Attested::new();
    assert_eq!(b.check("stranger").code, 0);
    let run = b.verify();
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("NOT TRUSTED"), "{}", run.stderr);
}

/// The report of `vcc check --report-sarif vcc.sarif` run in the
/// workspace lands in the deliverable root. It is vcc's, not evidence: the
/// second run (with the first run's report present) has the same root
/// digest, the attestation names no report, and `attest verify --dir`
/// passes until a real deliverable changes.
#[test]
fn a_report_written_in_the_root_is_not_evidence() {
    let a = Attested::new();
    let root = a.project.path();
    let check = || {
        let mut args: Vec<String> = [
            "check",
            root.join("contract.yaml").to_str().unwrap(),
            "--format",
            "json",
            "--attest",
            a.file().to_str().unwrap(),
            "--key",
            a.keys.path().join("ci.key").to_str().unwrap(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for (flag, name) in [
            ("--report-sarif", "vcc.sarif"),
            ("--report-html", "vcc.html"),
        ] {
            args.push(flag.into());
            args.push(root.join(name).display().to_string());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = vcc(&args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.json()
    };
    let first = check();
    let second = check();
    assert!(root.join("vcc.sarif").exists());
    assert_eq!(
        first["deliverables"]["root_digest"], second["deliverables"]["root_digest"],
        "the report of the first run is not in the second's digest"
    );
    assert_eq!(second["deliverables"]["files"], 3, "{second}");
    let rules = second["deliverables"]["excluded"]["rules"].to_string();
    assert!(
        rules.contains("(vcc): /vcc.sarif (--report-sarif)"),
        "{rules}"
    );
    let mut excluded: Vec<&str> = second["deliverables"]["excluded"]["first"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    excluded.sort_unstable();
    assert_eq!(excluded, ["vcc.html", "vcc.sarif"], "{second}");
    let attested = std::fs::read_to_string(a.file()).unwrap();
    assert!(!attested.is_empty());
    let run = a.verify();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("all match the files"), "{}", run.stderr);
    // A real deliverable changed: verification fails and names it.
    a.project.write("notes.md", "# Notes\n\nChanged.\n");
    let run = a.verify();
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("CHANGED since: notes.md"),
        "{}",
        run.stderr
    );
}

/// `--reuse` takes the verdict logged by a run that wrote its report in
/// the root: the report is not in the reuse key's root digest.
#[test]
fn a_verdict_is_reused_with_a_report_in_the_root() {
    let a = Attested::new();
    let root = a.project.path();
    let ledger = a.keys.path().join("ledger.jsonl");
    let check = |extra: &[&str]| {
        let mut args = vec![
            "check".to_string(),
            root.join("contract.yaml").display().to_string(),
            "--format".into(),
            "json".into(),
            "--ledger".into(),
            ledger.display().to_string(),
            "--ledger-key".into(),
            a.keys.path().join("ci.key").display().to_string(),
            "--report-sarif".into(),
            root.join("vcc.sarif").display().to_string(),
        ]
        .into_iter()
        .map(|s| s.to_string())
        .collect::<Vec<String>>();
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        vcc(&args)
    };
    let first = check(&[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let again = check(&["--reuse"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let r = again.json();
    assert_eq!(r["reused"]["seq"], 0, "{r}");
}

/// The producer of the deliverables links `out` to `data/`: a report asked
/// for at `out/more.json` would land at `data/more.json`, a file the
/// deliverable `data/*.json` names. Leaving it out would hide a
/// deliverable and writing it would overwrite one: the run is refused,
/// naming the flag and the path.
#[test]
fn forgery_host_a_report_path_that_a_deliverable_names_is_refused() {
    let a = Attested::new();
    let root = a.project.path();
    std::os::unix::fs::symlink(root.join("data"), root.join("out")).unwrap();
    let given = root.join("out/more.json");
    let run = vcc(&[
        "check",
        root.join("contract.yaml").to_str().unwrap(),
        "--report-json",
        given.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "--report-json {}: the report would be written to `data/more.json` in the deliverable root, which deliverable `data` (path `data/*.json`) names",
            given.display()
        )),
        "{}",
        run.stderr
    );
}

/// The producer cannot know where a report is written on its way: vcc
/// once wrote it through `.NAME.PID.tmp` beside the report, and a link
/// planted at that name (for every pid, or the one `exec` keeps) made the
/// "did not finish" placeholder the missing deliverable, and the run
/// ACCEPTED (red team, issue 40). The temporary name is random and made
/// only where nothing is, so the link is never written through.
#[test]
fn forgery_host_a_link_at_the_reports_temporary_name_is_not_written_through() {
    let work = Scratch::new();
    let root = work.path().join("rn");
    crate::copy_dir(&repo().join("contracts/examples/release-notes"), &root);
    std::fs::remove_file(root.join("docs/RELEASE_NOTES.md")).unwrap();
    std::fs::create_dir(root.join("ci")).unwrap();
    // `exec` keeps the shell's pid: the link is at the name vcc would
    // have used.
    let out = Command::new("sh")
        .current_dir(&root)
        .env("VCC_CACHE_DIR", crate::shared_cache())
        .env("NO_COLOR", "1")
        .args([
            "-c",
            "ln -s ../docs/RELEASE_NOTES.md ci/.junit.xml.$$.tmp && exec \"$0\" check contract.yaml --report-junit ci/junit.xml",
            env!("CARGO_BIN_EXE_vcc"),
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        !root.join("docs/RELEASE_NOTES.md").exists(),
        "written through the link"
    );
    let junit = std::fs::read_to_string(root.join("ci/junit.xml")).unwrap();
    assert!(
        junit.contains("failures=\"") && !junit.contains("failures=\"0\""),
        "{junit}"
    );
}

/// The producer puts a link at the report path, to a deliverable: vcc
/// replaces the link (its "did not finish" placeholder is renamed over it
/// before the walk) and never writes through it, so the deliverable it
/// pointed to is untouched and judged as it was.
#[test]
fn forgery_host_a_link_at_the_report_path_is_not_written_through() {
    let a = Attested::new();
    let root = a.project.path();
    std::os::unix::fs::symlink(root.join("notes.md"), root.join("vcc.sarif")).unwrap();
    let run = vcc(&[
        "check",
        root.join("contract.yaml").to_str().unwrap(),
        "--report-sarif",
        root.join("vcc.sarif").to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(root.join("notes.md")).unwrap(),
        "# Notes\n\nDone.\n"
    );
    let meta = std::fs::symlink_metadata(root.join("vcc.sarif")).unwrap();
    assert!(meta.file_type().is_file(), "the link was replaced");
}
