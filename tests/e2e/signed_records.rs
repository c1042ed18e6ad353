//! Signed command records (`vcc record --key`, `std/exit-record` with
//! `require_signed`): the host verifies the DSSE envelope beside a record
//! against the trust policy's record signers, so the forgery that beats an
//! unsigned record — edit it and recompute `record_digest` with the
//! README's formula — fails, each way of faking it with a stable code.

use std::path::{Path, PathBuf};

use serde_json::Value;
use vcc_test_support::Scratch;

use crate::world::securesystemslib_verifies;
use crate::{Run, record_digest, vcc, vcc_in};

/// A project whose MUST judges a signed record, a trust policy outside it
/// naming the CI key for records, and a key the worker holds.
struct Signed {
    project: Scratch,
    keys: Scratch,
}

impl Signed {
    fn new(contract_params: &str, records: &str) -> Signed {
        let project = Scratch::new();
        project.write(
            "src/lib.rs",
            "pub fn add(a: u32, b: u32) -> u32 { a + b }\n",
        );
        project.write(
            "contract.yaml",
            format!(
                "vcc: 1\nid: signed\ndeliverables:\n  - {{ id: tests, path: out/tests.json }}\n  - {{ id: src, path: src }}\nvalidators: {{ rec: {{ component: std/exit-record }} }}\ncriteria:\n  - {{ id: TESTS, severity: must, validator: rec, targets: [tests], params: {{ require_signed: true, cover: [src]{contract_params} }} }}\n"
            ),
        );
        let keys = Scratch::new();
        for name in ["ci", "worker"] {
            let run = vcc(&["key", "generate", keys.path().join(name).to_str().unwrap()]);
            assert_eq!(run.code, 0, "{}", run.stderr);
        }
        keys.write(
            "trust.yaml",
            format!("trust: 1\nkeys:\n  - {{ id: ci, public_key: ci.pub }}\n  - {{ id: worker, public_key: worker.pub }}\n{records}"),
        );
        Signed { project, keys }
    }

    fn key(&self, name: &str) -> String {
        self.keys
            .path()
            .join(format!("{name}.key"))
            .display()
            .to_string()
    }

    fn record(&self, key: Option<&str>, command: &[&str]) {
        let mut args = vec!["record", "--inputs", "src", "--out", "out/tests.json"];
        let k;
        if let Some(name) = key {
            k = self.key(name);
            args.extend(["--key", &k]);
        }
        args.push("--");
        args.extend_from_slice(command);
        let run = vcc_in(self.project.path(), &args);
        assert!(run.code == 0 || run.code == 3, "{}", run.stderr);
    }

    fn check(&self) -> Run {
        vcc(&[
            "check",
            self.project.path().join("contract.yaml").to_str().unwrap(),
            "--format",
            "json",
            "--trust",
            self.keys.path().join("trust.yaml").to_str().unwrap(),
        ])
    }

    fn record_path(&self) -> PathBuf {
        self.project.path().join("out/tests.json")
    }

    /// Rewrite the record as a forger would: edited, with a recomputed
    /// `record_digest` (the README's formula).
    fn forge(&self, edit: impl Fn(&mut Value)) {
        let mut r: Value =
            serde_json::from_slice(&std::fs::read(self.record_path()).unwrap()).unwrap();
        edit(&mut r);
        r["record_digest"] = Value::from(record_digest(&r));
        std::fs::write(
            self.record_path(),
            serde_json::to_string_pretty(&r).unwrap() + "\n",
        )
        .unwrap();
    }
}

const RECORDS: &str = "records: { signers: [ci], threshold: 1 }\n";

fn rules(run: &Run) -> Vec<String> {
    run.criterion("TESTS")["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["rule"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn a_record_signed_by_the_ci_key_passes_and_securesystemslib_agrees() {
    let s = Signed::new("", RECORDS);
    s.record(Some("ci"), &["sh", "-c", "exit 0"]);
    let run = s.check();
    assert_eq!(run.code, 0, "{}", run.stdout);
    let c = run.criterion("TESTS");
    assert!(
        c["files_read"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["path"] == "out/tests.json.dsse.json"),
        "the envelope is a hashed deliverable: {c}"
    );
    // An implementation that is not vcc's reads the same envelope.
    securesystemslib_verifies(
        &s.project.path().join("out/tests.json.dsse.json"),
        &s.keys.path().join("ci.pub"),
        &s.record_path(),
        "application/vnd.vcc.record+json",
    );
}

/// The forgery from the issue: a failing run, edited to say exit 0, its
/// digest recomputed. Unsigned it would pass; signed, the signature covers
/// other bytes.
#[test]
fn an_edited_and_re_digested_record_fails_once_signatures_are_required() {
    let s = Signed::new("", RECORDS);
    s.record(Some("ci"), &["sh", "-c", "exit 3"]);
    s.forge(|r| r["exit_code"] = Value::from(0));
    let run = s.check();
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(rules(&run), vec!["other-bytes"], "{}", run.stdout);

    // Without require_signed the same forgery passes: what `require_signed` closes.
    let unsigned = Signed::new("", RECORDS);
    unsigned.project.write(
        "contract.yaml",
        std::fs::read_to_string(unsigned.project.path().join("contract.yaml"))
            .unwrap()
            .replace("require_signed: true, ", ""),
    );
    unsigned.record(None, &["sh", "-c", "exit 3"]);
    unsigned.forge(|r| r["exit_code"] = Value::from(0));
    assert_eq!(
        unsigned.check().code,
        0,
        "an unsigned record proves integrity only"
    );
}

#[test]
fn unsigned_unknown_bad_and_unlisted_signatures_each_have_a_code() {
    // Unsigned.
    let s = Signed::new("", RECORDS);
    s.record(None, &["true"]);
    assert_eq!(rules(&s.check()), vec!["unsigned"]);

    // Signed by the worker's key, which the policy does not name for records.
    let s = Signed::new("", RECORDS);
    s.record(Some("worker"), &["true"]);
    assert_eq!(rules(&s.check()), vec!["unknown-key"]);

    // The forger edits the record and the envelope's payload to match,
    // keeping the CI signature: it no longer verifies.
    let s = Signed::new("", RECORDS);
    s.record(Some("ci"), &["sh", "-c", "exit 3"]);
    s.forge(|r| r["exit_code"] = Value::from(0));
    let envelope_path = s.project.path().join("out/tests.json.dsse.json");
    let mut env: Value = serde_json::from_slice(&std::fs::read(&envelope_path).unwrap()).unwrap();
    use base64::Engine as _;
    env["payload"] = Value::from(
        base64::engine::general_purpose::STANDARD.encode(std::fs::read(s.record_path()).unwrap()),
    );
    std::fs::write(&envelope_path, env.to_string()).unwrap();
    assert_eq!(rules(&s.check()), vec!["bad-signature"]);

    // Signed by a trusted key, but not by the one the contract names.
    let s = Signed::new(
        ", signers: [release]",
        "records: { signers: [ci, worker] }\n",
    );
    s.record(Some("worker"), &["true"]);
    assert_eq!(rules(&s.check()), vec!["not-an-allowed-signer"]);

    // No record signers in the policy: nothing can be trusted.
    let s = Signed::new("", "");
    s.record(Some("ci"), &["true"]);
    assert_eq!(rules(&s.check()), vec!["no-policy"]);
}

#[test]
fn a_record_key_that_cannot_be_read_runs_nothing() {
    let s = Signed::new("", RECORDS);
    let marker = s.project.path().join("ran");
    let run = vcc_in(
        s.project.path(),
        &[
            "record",
            "--key",
            "/nonexistent.key",
            "--out",
            "out/t.json",
            "--",
            "touch",
            marker.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(!Path::new(&marker).exists());
}

/// The messages of the findings of TESTS.
fn messages(run: &Run) -> Vec<String> {
    run.criterion("TESTS")["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["message"].as_str().map(str::to_string))
        .collect()
}

/// Why a signature is not trusted says exactly what is missing: a trust
/// file, a key under `records`, or the signer's place under `records`.
#[test]
fn no_trust_file_and_a_key_not_under_records_are_said_exactly() {
    // The worker's key is under `keys`, not under `records`.
    let s = Signed::new("", RECORDS);
    s.record(Some("worker"), &["true"]);
    let trust = s.keys.path().join("trust.yaml").display().to_string();
    let said = messages(&s.check());
    let want = format!(
        "signature 1 is by key `worker`, which the trust policy {trust} lists under `keys` but not under `records`"
    );
    assert!(said.iter().any(|m| m.contains(&want)), "{said:?}");

    // A policy with no `records`.
    let s = Signed::new("", "");
    s.record(Some("ci"), &["true"]);
    let trust = s.keys.path().join("trust.yaml").display().to_string();
    let said = messages(&s.check());
    let want = format!(
        "the trust policy {trust} lists no key under `records` (`records: {{ signers: [...] }}`), so no signature can be trusted"
    );
    assert!(said.iter().any(|m| m.contains(&want)), "{said:?}");

    // No trust file at all: none given, none in the environment or the
    // user's configuration.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vcc"))
        .arg("check")
        .arg(s.project.path().join("contract.yaml"))
        .args(["--format", "json"])
        .env("VCC_CACHE_DIR", crate::shared_cache())
        .env_remove("VCC_TRUST")
        .env("XDG_CONFIG_HOME", s.keys.path().join("no-config"))
        .output()
        .unwrap();
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(rules(&run), vec!["no-policy"]);
    let said = messages(&run);
    assert!(
        said.iter().any(|m| m.contains(
            "there is no trust file (--trust FILE, $VCC_TRUST or ~/.config/vcc/trust.yaml) to name the keys that sign records, so no signature can be trusted"
        )),
        "{said:?}"
    );
}
