//! Scale-out: a contract checked in shards (`vcc check --partition`) by
//! the example scripts a CI matrix or a Kubernetes Indexed Job runs
//! (examples/scale-out/), then put back together by `vcc merge` — bound
//! to the contract and the tree it decides about, from signed shards.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use vcc_test_support::Scratch;

use crate::world::securesystemslib_verifies;
use crate::{Run, repo, shared_cache, vcc};

/// Twelve criteria over six files: one MUST fails, one SHOULD fails.
fn contract() -> String {
    let mut c = String::from(
        "vcc: 1\nid: wide\ndeliverables:\n  - { id: docs, path: \"*.md\" }\nvalidators:\n  exists: { component: std/file-exists }\n  text: { component: std/text-match }\ncriteria:\n",
    );
    for i in 0..6 {
        c.push_str(&format!(
            "  - {{ id: HAS-{i}, severity: must, validator: exists, targets: [docs] }}\n  - {{ id: CLEAN-{i}, severity: {}, validator: text, targets: [docs], params: {{ must_not_match: ['{}'] }} }}\n",
            if i % 2 == 0 { "must" } else { "should" },
            if i == 3 { "TODO" } else if i == 4 { "FIXME" } else { "NEVER-THERE" }
        ));
    }
    c
}

/// A project (the root, its contract inside), the CI's keys (`ci`, and a
/// `stranger`), and two trust policies outside the root: `trust.yaml`
/// names `ci` as the key that signs shards, `plain.yaml` names none.
pub(crate) struct Fleet {
    pub(crate) dir: Scratch,
}

impl Fleet {
    pub(crate) fn new() -> Fleet {
        let dir = Scratch::new();
        dir.write("root/contract.yaml", contract());
        for i in 0..6 {
            dir.write(
                &format!("root/doc-{i}.md"),
                if i == 1 {
                    "# Doc\n\nTODO\n"
                } else {
                    "# Doc\n\nFIXME later\n"
                },
            );
        }
        let keys = dir.path().join("keys");
        std::fs::create_dir_all(&keys).unwrap();
        for name in ["ci", "stranger"] {
            assert_eq!(
                vcc(&["key", "generate", keys.join(name).to_str().unwrap()]).code,
                0
            );
        }
        dir.write(
            "trust.yaml",
            "trust: 1\nkeys:\n  - { id: ci, public_key: keys/ci.pub }\nattestations: { signers: [ci] }\n",
        );
        dir.write(
            "plain.yaml",
            "trust: 1\nkeys:\n  - { id: ci, public_key: keys/ci.pub }\n",
        );
        Fleet { dir }
    }

    /// Every document clean: the whole contract is accepted.
    fn clean(&self) {
        for i in 0..6 {
            self.dir
                .write(&format!("root/doc-{i}.md"), "# Doc\n\nAll done.\n");
        }
    }

    pub(crate) fn contract(&self) -> PathBuf {
        self.dir.path().join("root/contract.yaml")
    }

    pub(crate) fn root(&self) -> PathBuf {
        self.dir.path().join("root")
    }

    pub(crate) fn path(&self, rel: &str) -> String {
        self.dir.path().join(rel).display().to_string()
    }

    /// Shard K of N as a matrix job runs it: signed by `ci`, under
    /// trust.yaml.
    fn shard(&self, index: u32, total: u32) -> i32 {
        self.shard_with("VCC_SHARD_INDEX", index, total, Some("ci"), "trust.yaml")
    }

    /// examples/scale-out/shard.sh as a matrix job (or an Indexed Job's
    /// pod, with `index_var`) runs it, signing with `key` (of keys/), with
    /// `VCC_TRUST` set to `trust`.
    fn shard_with(
        &self,
        index_var: &str,
        index: u32,
        total: u32,
        key: Option<&str>,
        trust: &str,
    ) -> i32 {
        let mut cmd = Command::new("bash");
        cmd.arg(repo().join("examples/scale-out/shard.sh"))
            .arg(self.contract())
            .arg(self.dir.path().join("shards"))
            .env("VCC", env!("CARGO_BIN_EXE_vcc"))
            .env("VCC_CACHE_DIR", shared_cache())
            .env("VCC_SHARDS", total.to_string())
            .env("VCC_TRUST", self.dir.path().join(trust))
            .env("XDG_CONFIG_HOME", self.dir.path().join("no-config"))
            .env_remove("VCC_LEDGER")
            .env_remove("VCC_SHARD_KEY")
            .env_remove("VCC_SHARD_INDEX")
            .env_remove("JOB_COMPLETION_INDEX")
            .env(index_var, index.to_string());
        if let Some(key) = key {
            cmd.env(
                "VCC_SHARD_KEY",
                self.dir.path().join(format!("keys/{key}.key")),
            );
        }
        cmd.status().unwrap().code().unwrap_or(-1)
    }

    /// examples/scale-out/merge.sh as the book writes it: bound to the
    /// contract, under trust.yaml, then EXTRA.
    fn merge(&self, extra: &[&str]) -> Run {
        let contract = self.contract().display().to_string();
        let trust = self.path("trust.yaml");
        let mut args = vec!["--contract", &contract, "--trust", &trust];
        args.extend_from_slice(extra);
        self.merge_only(&args)
    }

    /// examples/scale-out/merge.sh SHARDS --format json ARGS…
    fn merge_only(&self, args: &[&str]) -> Run {
        let out = Command::new("bash")
            .arg(repo().join("examples/scale-out/merge.sh"))
            .arg(self.dir.path().join("shards"))
            .args(["--format", "json"])
            .args(args)
            .env("VCC", env!("CARGO_BIN_EXE_vcc"))
            .env("VCC_CACHE_DIR", shared_cache())
            .env("NO_COLOR", "1")
            .env_remove("VCC_TRUST")
            .env_remove("VCC_LEDGER")
            .env_remove("VCC_LEDGER_KEY")
            .env("XDG_CONFIG_HOME", self.dir.path().join("no-config"))
            .output()
            .unwrap();
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    fn shard_file(&self, k: u32) -> PathBuf {
        self.dir.path().join(format!("shards/shard-{k}.json"))
    }

    fn read_shard(&self, k: u32) -> Value {
        serde_json::from_str(&std::fs::read_to_string(self.shard_file(k)).unwrap()).unwrap()
    }

    fn write_shard(&self, k: u32, shard: &Value) {
        std::fs::write(self.shard_file(k), shard.to_string()).unwrap();
    }
}

fn rows(report: &Value) -> Vec<(String, String)> {
    report["criteria"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_string(),
                c["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn reason(run: &Run) -> String {
    run.json()["reason"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Exit 2, `invalid`, a reason holding every one of `words`, and no
/// panic: what a merge that must not happen looks like.
fn refused(run: &Run, words: &[&str]) {
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    let m = run.json();
    assert_eq!(m["verdict"], "invalid", "{m}");
    let why = m["reason"].as_str().unwrap();
    for w in words {
        assert!(why.contains(w), "`{w}` not in: {why}");
    }
}

#[test]
fn shards_from_a_matrix_merge_into_exactly_the_unsharded_check() {
    let f = Fleet::new();
    let whole = vcc(&["check", f.contract().to_str().unwrap(), "--format", "json"]);
    assert_eq!(whole.code, 1, "{}", whole.stderr);
    let whole = whole.json();
    for total in [1, 3, 5] {
        let _ = std::fs::remove_dir_all(f.dir.path().join("shards"));
        for index in 0..total {
            assert_eq!(f.shard(index, total), 0);
        }
        // Every shard names its partition and is never accepted alone.
        for k in 1..=total {
            let env = f.read_shard(k);
            assert_eq!(env["payloadType"], "application/vnd.vcc.report+json");
            use base64::Engine as _;
            let payload = base64::engine::general_purpose::STANDARD
                .decode(env["payload"].as_str().unwrap())
                .unwrap();
            let s: Value = serde_json::from_slice(&payload).unwrap();
            assert_eq!(s["partition"]["index"], k);
            assert_eq!(s["partition"]["total"], total);
            assert_eq!(s["partition"]["rows"].as_array().unwrap().len(), 12);
            assert_ne!(s["verdict"], "accepted");
            assert!(
                s["contract"]["sources"]
                    .as_str()
                    .unwrap()
                    .starts_with("blake3:")
            );
            assert!(
                s["contract"]["policy"]
                    .as_str()
                    .unwrap()
                    .starts_with("blake3:")
            );
        }
        let merged = f.merge(&[]);
        assert_eq!(merged.code, 1, "{total}: {}", merged.stderr);
        let m = merged.json();
        assert_eq!(m["verdict"], whole["verdict"], "{total}");
        assert_eq!(m["reason"], whole["reason"], "{total}");
        assert_eq!(rows(&m), rows(&whole), "{total}");
        assert_eq!(
            m["merged"]["shards"].as_array().unwrap().len(),
            total as usize
        );
        assert_eq!(m["merged"]["binding"], "contract");
        assert!(m["merged"].get("unsigned").is_none(), "{m}");
        assert_eq!(
            m["deliverables"]["root_digest"],
            whole["deliverables"]["root_digest"]
        );
    }
}

#[test]
fn a_missing_shard_is_withheld_and_its_rows_are_visible() {
    let f = Fleet::new();
    // A Kubernetes Indexed Job's pods: JOB_COMPLETION_INDEX; pod 2 never
    // finished.
    for index in [0, 1, 3] {
        assert_eq!(
            f.shard_with("JOB_COMPLETION_INDEX", index, 4, Some("ci"), "trust.yaml"),
            0
        );
    }
    let merged = f.merge(&[]);
    assert_eq!(merged.code, 1, "{}", merged.stderr);
    let m = merged.json();
    assert_ne!(m["verdict"], "accepted");
    assert_eq!(m["merged"]["missing"], serde_json::json!([3]));
    assert_eq!(rows(&m).len(), 12, "every row is in the merged report");
    let not_judged: Vec<&Value> = m["criteria"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["reason"] == "not_evaluated")
        .collect();
    for c in &not_judged {
        assert_eq!(c["status"], "skip");
        assert!(
            c["summary"]
                .as_str()
                .unwrap()
                .contains("shard 3 of 4 is missing"),
            "{c}"
        );
    }
    // The same shard twice is refused, not counted twice.
    std::fs::copy(f.shard_file(1), f.dir.path().join("shards/shard-9.json")).unwrap();
    refused(&f.merge(&[]), &["shard 1 of 4 given twice"]);
}

/// The merge decides, so it is the step a CI reader looks at: under GitHub
/// Actions it annotates and summarises like `vcc check`.
#[test]
fn under_github_actions_the_merge_annotates_and_summarises() {
    let f = Fleet::new();
    for index in [0, 1] {
        assert_eq!(f.shard(index, 2), 0);
    }
    let summary = f.dir.write("summary.md", "earlier step\n");
    let out = Command::new(env!("CARGO_BIN_EXE_vcc"))
        .arg("merge")
        .args([f.shard_file(1), f.shard_file(2)])
        .arg("--contract")
        .arg(f.contract())
        .arg("--trust")
        .arg(f.path("trust.yaml"))
        .args(["--format", "json"])
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("VCC_CACHE_DIR", shared_cache())
        .env_remove("VCC_TRUST")
        .env("XDG_CONFIG_HOME", f.dir.path().join("no-config"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    // CLEAN-4 (a MUST) finds the FIXMEs, CLEAN-3 (a SHOULD) doc-1's TODO.
    for (level, row) in [
        ("::error ", "CLEAN-4 MUST fail"),
        ("::warning ", "CLEAN-3 SHOULD fail"),
    ] {
        assert!(
            stderr
                .lines()
                .any(|l| l.starts_with(level) && l.contains(row)),
            "{row}: {stderr}"
        );
    }
    assert!(!String::from_utf8_lossy(&out.stdout).contains("::error"));
    let page = std::fs::read_to_string(&summary).unwrap();
    assert!(page.starts_with("earlier step\n"), "{page}");
    assert!(page.contains("CLEAN-4"), "{page}");
}

#[test]
fn signed_shards_are_required_when_the_policy_says_so() {
    let f = Fleet::new();
    for index in 0..3 {
        assert_eq!(f.shard(index, 3), 0);
    }
    let env = f.read_shard(2);
    assert_eq!(env["payloadType"], "application/vnd.vcc.report+json");
    let merged = f.merge(&[]);
    assert_eq!(merged.code, 1, "{}", merged.stderr);
    let m = merged.json();
    assert_eq!(
        m["merged"]["shards"][0]["signed_by"],
        serde_json::json!(["ci"])
    );

    // An implementation that is not vcc's (securesystemslib) verifies a
    // shard's envelope, and its payload is the shard report.
    use base64::Engine as _;
    let engine = base64::engine::general_purpose::STANDARD;
    let payload = engine.decode(env["payload"].as_str().unwrap()).unwrap();
    let report: Value = serde_json::from_slice(&payload).unwrap();
    assert_eq!(report["partition"]["index"], 2, "{report}");
    let payload_file = f.dir.write("shard-2.payload.json", payload);
    securesystemslib_verifies(
        &f.shard_file(2),
        &f.dir.path().join("keys/ci.pub"),
        &payload_file,
        "application/vnd.vcc.report+json",
    );

    // Signed by a key the policy does not list.
    assert_eq!(
        f.shard_with("VCC_SHARD_INDEX", 1, 3, Some("stranger"), "trust.yaml"),
        0
    );
    refused(&f.merge(&[]), &["shard-2.json: UNSIGNED"]);

    // Unsigned; --allow-unsigned does not waive a policy's rule.
    assert_eq!(f.shard_with("VCC_SHARD_INDEX", 1, 3, None, "trust.yaml"), 0);
    refused(&f.merge(&[]), &["UNSIGNED"]);
    refused(&f.merge(&["--allow-unsigned"]), &["UNSIGNED"]);

    // Signed, then edited: a row turned to pass no longer verifies.
    assert_eq!(f.shard(1, 3), 0);
    let mut env = f.read_shard(2);
    let payload = env["payload"].as_str().unwrap();
    let text = String::from_utf8(engine.decode(payload).unwrap()).unwrap();
    env["payload"] = engine.encode(text.replace("\"fail\"", "\"pass\"")).into();
    f.write_shard(2, &env);
    refused(&f.merge(&[]), &["UNSIGNED"]);
}

/// Run git in `dir` with a fixed author.
fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Shards an earlier CI run signed, of a commit whose documents were
/// clean, merged for a commit where a MUST fails: they agree with each
/// other and are genuinely signed, and they are about another tree.
#[test]
fn forgery_host_shards_of_an_old_commit() {
    let f = Fleet::new();
    f.clean();
    let root = f.root();
    git(&root, &["init", "-q", "."]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "clean"]);
    for index in 0..3 {
        assert_eq!(f.shard(index, 3), 0);
    }
    // Kept from the old commit's run, they merge into ACCEPTED for it.
    let then = f.merge(&[]);
    assert_eq!(then.code, 0, "{}", then.stderr);
    assert_eq!(then.json()["verdict"], "accepted");
    // The new commit: a MUST fails.
    f.dir.write("root/doc-2.md", "# Doc\n\nFIXME\n");
    git(&root, &["commit", "-q", "-am", "not clean"]);
    let now = vcc(&["check", f.contract().to_str().unwrap(), "--format", "json"]);
    assert_eq!(now.json()["verdict"], "rejected");
    let merged = f.merge(&[]);
    refused(
        &merged,
        &[
            "shard-1.json: deliverables.root_digest is blake3:",
            "expected blake3:",
            "as walked now",
            "a shard of another tree",
        ],
    );
    // Bound to digests instead: the root digest of the commit under test.
    let d = now.json();
    let (c, r) = (
        d["contract"]["digest"].as_str().unwrap(),
        d["deliverables"]["root_digest"].as_str().unwrap(),
    );
    let trust = f.path("trust.yaml");
    let merged = f.merge_only(&[
        "--expect-contract",
        c,
        "--expect-root",
        r,
        "--trust",
        &trust,
    ]);
    refused(
        &merged,
        &[
            "deliverables.root_digest",
            &format!("expected {r} (--expect-root)"),
        ],
    );
}

/// Shards nobody signed, hand-edited so every row passes: with no trust
/// policy naming who signs shards, they are the files' word and are not
/// merged unless that is said.
#[test]
fn forgery_host_unsigned_shards() {
    let f = Fleet::new();
    for index in 0..3 {
        assert_eq!(
            f.shard_with("VCC_SHARD_INDEX", index, 3, None, "plain.yaml"),
            0
        );
    }
    for k in 1..=3 {
        let text = std::fs::read_to_string(f.shard_file(k)).unwrap();
        std::fs::write(f.shard_file(k), text.replace("\"fail\"", "\"pass\"")).unwrap();
    }
    let contract = f.contract().display().to_string();
    let plain = f.path("plain.yaml");
    let merged = f.merge_only(&["--contract", &contract, "--trust", &plain]);
    refused(
        &merged,
        &[
            "UNSIGNED",
            "names no keys that sign shards",
            "--allow-unsigned",
        ],
    );
    // Without any trust policy, the same.
    let merged = f.merge_only(&["--contract", &contract]);
    refused(
        &merged,
        &["UNSIGNED", "there is no trust policy (--trust FILE"],
    );
}

/// `--allow-unsigned` merges unsigned shards and says so in the report.
#[test]
fn unsigned_shards_merge_only_when_said_and_the_report_says_so() {
    let f = Fleet::new();
    for index in 0..2 {
        assert_eq!(
            f.shard_with("VCC_SHARD_INDEX", index, 2, None, "plain.yaml"),
            0
        );
    }
    let contract = f.contract().display().to_string();
    let plain = f.path("plain.yaml");
    let merged = f.merge_only(&[
        "--contract",
        &contract,
        "--trust",
        &plain,
        "--allow-unsigned",
    ]);
    assert_eq!(merged.code, 1, "{}", merged.stderr);
    let m = merged.json();
    assert_eq!(m["merged"]["unsigned"], true);
    assert!(reason(&merged).contains("merged --allow-unsigned"), "{m}");
}

/// A trust policy the worker can write (in the repository it checks out)
/// lists the worker's own key for shards: `vcc check` refuses such a
/// policy, and so does the merge.
#[test]
fn forgery_host_trust_policy_in_the_repository() {
    let f = Fleet::new();
    f.clean();
    let own = f.root().join(".vcc/worker");
    std::fs::create_dir_all(own.parent().unwrap()).unwrap();
    assert_eq!(vcc(&["key", "generate", own.to_str().unwrap()]).code, 0);
    let policy = f.dir.write(
        "root/.vcc/trust.yaml",
        "trust: 1\nkeys:\n  - { id: ci, public_key: worker.pub }\nattestations: { signers: [ci] }\n",
    );
    // The worker's shards, signed with its key, checked under no policy.
    for index in 0..2 {
        let out = vcc(&[
            "check",
            f.contract().to_str().unwrap(),
            "--partition",
            &format!("hash:{}/2", index + 1),
            "--key",
            own.with_extension("key").to_str().unwrap(),
            "--report",
            f.shard_file(index + 1).to_str().unwrap(),
            "--format",
            "json",
        ]);
        assert_eq!(out.code, 1, "{}", out.stderr);
    }
    let contract = f.contract().display().to_string();
    let policy = policy.display().to_string();
    refused(
        &f.merge_only(&["--contract", &contract, "--trust", &policy]),
        &["TRUST_IN_ROOT"],
    );
    // Bound to digests, the merge has no tree: the root the shards name
    // is here, and the policy lies in it.
    let whole = vcc(&["check", &contract, "--format", "json"]).json();
    let merged = f.merge_only(&[
        "--expect-contract",
        whole["contract"]["digest"].as_str().unwrap(),
        "--expect-root",
        whole["deliverables"]["root_digest"].as_str().unwrap(),
        "--trust",
        &policy,
    ]);
    refused(&merged, &["TRUST_IN_ROOT", "lies in the deliverable root"]);
}

/// Hand-written shard fields: each refused (exit 2, invalid, the field
/// named), none a crash — and the report file an earlier merge left
/// saying `accepted` says `invalid` afterwards.
#[test]
fn hostile_shard_fields_are_invalid_never_a_crash() {
    let f = Fleet::new();
    for index in 0..3 {
        assert_eq!(
            f.shard_with("VCC_SHARD_INDEX", index, 3, None, "plain.yaml"),
            0
        );
    }
    let honest: Vec<Value> = (1..=3).map(|k| f.read_shard(k)).collect();
    let report = f.dir.path().join("merged.json");
    let contract = f.contract().display().to_string();
    let plain = f.path("plain.yaml");
    let report_arg = report.display().to_string();
    let args = [
        "--contract",
        contract.as_str(),
        "--trust",
        plain.as_str(),
        "--allow-unsigned",
        "--report",
        report_arg.as_str(),
    ];
    // The shard that holds CLEAN-4 (the failing MUST), and one that does not.
    let holder = (0..3)
        .find(|&i| {
            honest[i]["criteria"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["id"] == "CLEAN-4")
        })
        .unwrap();
    let other = (holder + 1) % 3;
    type Edit = Box<dyn Fn(&mut Vec<Value>)>;
    let cases: Vec<(&str, Edit)> = vec![
        (
            "partition.total is 0",
            Box::new(|s| {
                s.iter_mut()
                    .for_each(|x| x["partition"]["total"] = 0.into())
            }),
        ),
        (
            "partition.total is 4294967295",
            Box::new(|s| {
                s.iter_mut()
                    .for_each(|x| x["partition"]["total"] = u32::MAX.into())
            }),
        ),
        (
            "not a vcc report",
            Box::new(|s| s[0]["partition"]["total"] = (1u64 << 40).into()),
        ),
        (
            "not a vcc report: invalid type",
            Box::new(|s| s[0]["partition"]["total"] = "3".into()),
        ),
        (
            "not a vcc report: unknown variant `random`",
            Box::new(|s| s[0]["partition"]["scheme"] = "random".into()),
        ),
        (
            "partition.index is 4 of 3",
            Box::new(|s| s[2]["partition"]["index"] = 4.into()),
        ),
        (
            "partition.index is 0 of 3",
            Box::new(|s| s[0]["partition"]["index"] = 0.into()),
        ),
        (
            "given twice",
            Box::new(|s| {
                let copy = s[0].clone();
                s.push(copy);
            }),
        ),
        (
            "criteria holds `CLEAN-4` twice",
            Box::new(move |s| {
                // The failing row again, passing: the last one would win.
                let rows = s[holder]["criteria"].as_array_mut().unwrap();
                let mut again = rows.iter().find(|c| c["id"] == "CLEAN-4").unwrap().clone();
                again["status"] = "pass".into();
                rows.push(again);
            }),
        ),
        (
            "holds rows",
            Box::new(move |s| {
                // The failing row moved into another shard, passing.
                let rows = s[holder]["criteria"].as_array_mut().unwrap();
                let at = rows.iter().position(|c| c["id"] == "CLEAN-4").unwrap();
                let mut moved = rows.remove(at);
                moved["status"] = "pass".into();
                s[other]["criteria"].as_array_mut().unwrap().push(moved);
            }),
        ),
        (
            "criterion `CLEAN-4` is may, but partition.rows says must",
            Box::new(move |s| {
                let rows = s[holder]["criteria"].as_array_mut().unwrap();
                let c = rows.iter_mut().find(|c| c["id"] == "CLEAN-4").unwrap();
                c["severity"] = "may".into();
            }),
        ),
        (
            "expected [HAS-0 must",
            Box::new(|s| {
                // CLEAN-4 in no shard: dropped from every row list and shard.
                for x in s.iter_mut() {
                    x["partition"]["rows"]
                        .as_array_mut()
                        .unwrap()
                        .retain(|r| r["id"] != "CLEAN-4");
                    x["criteria"]
                        .as_array_mut()
                        .unwrap()
                        .retain(|c| c["id"] != "CLEAN-4");
                }
            }),
        ),
        (
            "criteria holds `NEW-1`, which partition.rows does not list",
            Box::new(|s| {
                let mut extra = s[0]["criteria"][0].clone();
                extra["id"] = "NEW-1".into();
                s[0]["criteria"].as_array_mut().unwrap().push(extra);
            }),
        ),
        (
            "runtime.host_digest is blake3:0000",
            Box::new(|s| {
                s.iter_mut().for_each(|x| {
                    x["runtime"]["host_digest"] = format!("blake3:{}", "0".repeat(64)).into()
                })
            }),
        ),
    ];
    let accepted_before =
        r#"{"schema_version": 1, "verdict": "accepted", "reason": "all 7 MUST criteria passed"}"#;
    for (want, edit) in cases {
        let _ = std::fs::remove_dir_all(f.dir.path().join("shards"));
        std::fs::create_dir_all(f.dir.path().join("shards")).unwrap();
        let mut shards = honest.clone();
        edit(&mut shards);
        for (i, s) in shards.iter().enumerate() {
            f.write_shard(i as u32 + 1, s);
        }
        std::fs::write(&report, accepted_before).unwrap();
        let merged = f.merge_only(&args);
        refused(&merged, &[want]);
        let kept: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        assert_eq!(kept["verdict"], "invalid", "{want}: {kept}");
    }
    // Not JSON at all, and a FIFO where a shard should be: refused, not
    // waited on.
    std::fs::write(f.shard_file(1), "not json").unwrap();
    refused(&f.merge_only(&args), &["shard-1.json: not JSON"]);
    std::fs::remove_file(f.shard_file(1)).unwrap();
    vcc_test_support::make_fifo(&f.shard_file(1));
    refused(&f.merge_only(&args), &["shard-1.json"]);
}

/// The merge binds to what it is told: nothing said is refused (and the
/// report file says so), digests given are compared, `--unbound` is
/// written into the verdict's reason.
#[test]
fn a_merge_is_bound_to_something_or_says_it_is_not() {
    let f = Fleet::new();
    for index in 0..2 {
        assert_eq!(f.shard(index, 2), 0);
    }
    let trust = f.path("trust.yaml");
    let report = f.dir.write("merged.json", r#"{"verdict": "accepted"}"#);
    let report = report.display().to_string();
    let merged = f.merge_only(&["--trust", &trust, "--report", &report]);
    refused(
        &merged,
        &["bound to nothing", "--contract FILE", "--unbound"],
    );
    let kept: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(kept["verdict"], "invalid");

    let whole = vcc(&["check", f.contract().to_str().unwrap(), "--format", "json"]).json();
    let (c, r) = (
        whole["contract"]["digest"].as_str().unwrap(),
        whole["deliverables"]["root_digest"].as_str().unwrap(),
    );
    let merged = f.merge_only(&[
        "--expect-contract",
        c,
        "--expect-root",
        r,
        "--trust",
        &trust,
    ]);
    assert_eq!(merged.code, 1, "{}", merged.stderr);
    assert_eq!(merged.json()["merged"]["binding"], "digests");
    assert_eq!(merged.json()["reason"], whole["reason"]);
    refused(
        &f.merge_only(&[
            "--expect-contract",
            "abc",
            "--expect-root",
            r,
            "--trust",
            &trust,
        ]),
        &["--expect-contract abc: not a digest"],
    );
    let other = format!("blake3:{}", "1".repeat(64));
    refused(
        &f.merge_only(&[
            "--expect-contract",
            &other,
            "--expect-root",
            r,
            "--trust",
            &trust,
        ]),
        &[
            "contract.digest is",
            &format!("expected {other} (--expect-contract)"),
            "a shard of another contract",
        ],
    );

    let merged = f.merge_only(&["--unbound", "--trust", &trust]);
    assert_eq!(merged.code, 1, "{}", merged.stderr);
    assert_eq!(merged.json()["merged"]["binding"], "unbound");
    assert!(
        reason(&merged).contains("merged --unbound"),
        "{}",
        merged.stdout
    );
    // Flags that read the contract need the contract.
    refused(
        &f.merge_only(&["--unbound", "--trust", &trust, "--locked"]),
        &["--locked: only with --contract"],
    );
    refused(
        &f.merge_only(&["--unbound", "--trust", &trust, "--judge-calls", "3"]),
        &["--judge-calls: a merge asks no judge"],
    );
}

/// Shards of the contract as it was, or checked under another trust
/// policy, are not the contract's shards.
#[test]
fn shards_of_another_contract_or_policy_are_refused_naming_the_field() {
    let f = Fleet::new();
    for index in 0..2 {
        assert_eq!(f.shard(index, 2), 0);
    }
    // The same keys and rule, another policy file (a pin added, say).
    let text = std::fs::read_to_string(f.dir.path().join("trust.yaml")).unwrap();
    let other = f
        .dir
        .write("other-trust.yaml", format!("{text}# reviewed\n"));
    let contract = f.contract().display().to_string();
    let other = other.display().to_string();
    refused(
        &f.merge_only(&["--contract", &contract, "--trust", &other]),
        &[
            "contract.policy is blake3:",
            "other-trust.yaml",
            "a shard checked under another trust policy",
        ],
    );
    // A criterion added since the shards ran.
    let mut text = contract_text(&f);
    text.push_str("  - { id: NEW-1, severity: must, validator: exists, targets: [docs] }\n");
    std::fs::write(f.contract(), text).unwrap();
    refused(
        &f.merge(&[]),
        &["contract.digest is blake3:", "a shard of another contract"],
    );
}

fn contract_text(f: &Fleet) -> String {
    std::fs::read_to_string(f.contract()).unwrap()
}

/// A shard's integrity pass speaks about its own rows: a validator only
/// the other shard's rows use is not "unused" there (as for `--gate` and
/// `--only`). The merged report has the whole contract's problems, and a
/// run id of its own.
#[test]
fn the_merged_report_is_a_run_of_its_own_with_the_wholes_problems() {
    let f = Fleet::new();
    std::fs::create_dir_all(f.dir.path().join("shards")).unwrap();
    let mut runs = Vec::new();
    for k in 1..=2 {
        // Round-robin: shard 1 holds every HAS row, shard 2 every CLEAN.
        let out = shard_direct(&f, &format!("count:{k}/2"), &[]);
        assert_eq!(out.code, 1, "{}", out.stderr);
        let s = out.json();
        let codes: Vec<&str> = s["problems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["code"].as_str().unwrap())
            .collect();
        assert!(!codes.contains(&"UNUSED_VALIDATOR"), "{codes:?}");
        runs.push(s["run"]["id"].as_str().unwrap().to_string());
    }
    let merged = f.merge(&[]);
    assert_eq!(merged.code, 1, "{}", merged.stderr);
    let m = merged.json();
    assert_eq!(m["problems"], serde_json::json!([]), "{m}");
    let id = m["run"]["id"].as_str().unwrap();
    assert_eq!(id.len(), 32);
    assert!(!runs.contains(&id.to_string()), "{id} is a shard's run");
    assert!(m["runtime"].get("reuse_key").is_none(), "{m}");
}

/// `vcc check CONTRACT --partition P --key ci.key --report shards/shard-K.json`
/// under trust.yaml, with EXTRA.
fn shard_direct(f: &Fleet, partition: &str, extra: &[&str]) -> Run {
    let k = partition
        .split_once(':')
        .and_then(|(_, r)| r.split_once('/'))
        .map(|(k, _)| k.to_string())
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vcc"))
        .arg("check")
        .arg(f.contract())
        .args(["--partition", partition, "--format", "json", "--key"])
        .arg(f.dir.path().join("keys/ci.key"))
        .arg("--report")
        .arg(f.dir.path().join(format!("shards/shard-{k}.json")))
        .args(extra)
        .env("VCC_CACHE_DIR", shared_cache())
        .env("VCC_TRUST", f.dir.path().join("trust.yaml"))
        .env_remove("VCC_LEDGER")
        .env("XDG_CONFIG_HOME", f.dir.path().join("no-config"))
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A shard's ledger entry says it is a shard (counted apart, its outcome
/// the merge's); the merge's entry is the check of the whole, signed
/// with --ledger-key.
#[test]
fn shards_and_their_merge_are_logged_as_what_they_are() {
    let f = Fleet::new();
    let ledger = f.path("verdicts.jsonl");
    let key = f.path("keys/ci.key");
    std::fs::create_dir_all(f.dir.path().join("shards")).unwrap();
    for k in 1..=2 {
        let out = shard_direct(
            &f,
            &format!("hash:{k}/2"),
            &["--ledger", &ledger, "--ledger-key", &key],
        );
        assert!(out.code <= 1, "{}", out.stderr);
    }
    let merged = f.merge(&["--ledger", &ledger, "--ledger-key", &key]);
    assert_eq!(merged.code, 1, "{}", merged.stderr);
    assert_eq!(merged.json()["ledger"]["seq"], 2);
    let shown = vcc(&["ledger", "show", &ledger, "--format", "json"]).json();
    let kinds: Vec<&str> = shown
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["shard", "shard", "merge"]);
    assert_eq!(shown[0]["outcome"], "skipped");
    assert_eq!(shown[2]["outcome"], "blocked");
    let stats = vcc(&["ledger", "stats", &ledger, "--format", "json"]).json();
    assert_eq!(stats["all"]["checks"]["rows"], 1, "{stats}");
    assert_eq!(stats["all"]["checks"]["blocked"], 1, "{stats}");
    assert_eq!(stats["all"]["shards"]["rows"], 2, "{stats}");
    assert_eq!(stats["all"]["shards"]["blocked"], 0, "{stats}");
    let verify = vcc(&["ledger", "verify", &ledger, "--key", &f.path("keys/ci.pub")]);
    assert_eq!(verify.code, 0, "{}{}", verify.stdout, verify.stderr);
}

/// Until the merge is done, its report file says it did not finish: held
/// at its ledger append (another process has the log's lock), the file
/// an earlier merge left saying `accepted` already says `invalid`.
#[test]
fn a_merge_says_it_did_not_finish_before_anything_else() {
    let f = Fleet::new();
    for index in 0..2 {
        assert_eq!(f.shard(index, 2), 0);
    }
    let ledger = f.dir.write("verdicts.jsonl", "");
    let report = f.dir.path().join("merged.json");
    let old =
        r#"{"schema_version": 1, "verdict": "accepted", "reason": "all 7 MUST criteria passed"}"#;
    std::fs::write(&report, old).unwrap();
    let mut holder = Command::new("python3")
        .args([
            "-c",
            "import fcntl, sys, time; f = open(sys.argv[1], 'a'); fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); time.sleep(600)",
        ])
        .arg(&ledger)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(holder.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line.trim(), "held");
    let mut merge = Command::new(env!("CARGO_BIN_EXE_vcc"))
        .arg("merge")
        .args([f.shard_file(1), f.shard_file(2)])
        .arg("--contract")
        .arg(f.contract())
        .arg("--trust")
        .arg(f.path("trust.yaml"))
        .arg("--ledger")
        .arg(&ledger)
        .arg("--report")
        .arg(&report)
        .env("VCC_CACHE_DIR", shared_cache())
        .env_remove("VCC_TRUST")
        .env("XDG_CONFIG_HOME", f.dir.path().join("no-config"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while std::fs::read_to_string(&report).is_ok_and(|t| t == old)
        && start.elapsed() < std::time::Duration::from_secs(120)
    {
        std::thread::yield_now();
    }
    // The merge cannot end before the lock is released: what the file
    // says now is what it said first.
    let during = std::fs::read_to_string(&report).unwrap();
    holder.kill().unwrap();
    holder.wait().unwrap();
    assert_ne!(during, old, "the merge never began");
    let during: Value = serde_json::from_str(&during).unwrap();
    let code = merge.wait().unwrap().code();
    assert_eq!(during["verdict"], "invalid", "{during}");
    assert!(
        during["reason"]
            .as_str()
            .unwrap()
            .contains("did not finish"),
        "{during}"
    );
    assert_eq!(code, Some(1));
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(after["verdict"], "rejected", "{after}");
}

/// `--attest` on a merge: the attestation names the files the merge
/// walked, and `vcc attest verify --dir` holds them to it.
#[test]
fn a_merge_attests_the_files_it_walked() {
    let f = Fleet::new();
    f.clean();
    for index in 0..3 {
        assert_eq!(f.shard(index, 3), 0);
    }
    let attest = f.path("merge.intoto.jsonl");
    let key = f.path("keys/ci.key");
    let merged = f.merge(&["--attest", &attest, "--key", &key]);
    assert_eq!(merged.code, 0, "{}", merged.stderr);
    let m = merged.json();
    assert_eq!(m["verdict"], "accepted");
    assert_eq!(m["deliverables"]["subjects"].as_array().unwrap().len(), 7);
    let root = f.root().display().to_string();
    let trust = f.path("trust.yaml");
    let verify = vcc(&[
        "attest", "verify", &attest, "--trust", &trust, "--dir", &root,
    ]);
    assert_eq!(verify.code, 0, "{}{}", verify.stdout, verify.stderr);
    f.dir.write("root/doc-0.md", "# Doc\n\nchanged since\n");
    let verify = vcc(&[
        "attest", "verify", &attest, "--trust", &trust, "--dir", &root,
    ]);
    assert_eq!(verify.code, 1, "{}{}", verify.stdout, verify.stderr);
    // Without the contract there are no files to name.
    refused(
        &f.merge_only(&["--unbound", "--attest", &attest, "--key", &key]),
        &["--attest: only with --contract FILE"],
    );
    let out = f.merge_only(&["--attest", &attest, "--key", &key]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("--contract <FILE>"), "{}", out.stderr);
}

/// Shards checked with walk limits (`--max-file-size`) saw another tree
/// than the default walk: the merge walks with the same limits, or
/// refuses them as shards of another tree.
#[test]
fn a_merge_walks_the_root_with_the_limits_the_shards_used() {
    let f = Fleet::new();
    std::fs::create_dir_all(f.dir.path().join("shards")).unwrap();
    for k in 1..=2 {
        let out = shard_direct(&f, &format!("hash:{k}/2"), &["--max-file-size", "10B"]);
        assert_eq!(out.code, 1, "{}", out.stderr);
    }
    refused(
        &f.merge(&[]),
        &["deliverables.root_digest is", "a shard of another tree"],
    );
    let merged = f.merge(&["--max-file-size", "10B"]);
    assert_eq!(merged.code, 1, "{}", merged.stderr);
    assert_eq!(merged.json()["verdict"], "withheld", "{}", merged.stdout);
    assert_eq!(merged.json()["merged"]["binding"], "contract");
}

#[test]
fn merge_help_says_what_every_flag_does() {
    let help = vcc(&["merge", "--help"]);
    assert_eq!(help.code, 0);
    let bare: Vec<&str> = help
        .stdout
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            t.starts_with("--") && {
                // `--flag <VALUE>` and nothing after it.
                let words: Vec<&str> = t.split_whitespace().collect();
                words.len() <= 2 && words.get(1).is_none_or(|w| w.starts_with('<'))
            }
        })
        .collect();
    assert!(bare.is_empty(), "flags without help: {bare:?}");
    for flag in [
        "--report-json",
        "--contract",
        "--expect-root",
        "--unbound",
        "--allow-unsigned",
        "--ledger",
        "--attest",
    ] {
        assert!(help.stdout.contains(flag), "{flag}");
    }
}

#[test]
fn the_example_workflows_are_what_they_say() {
    let dir = repo().join("examples/scale-out");
    let gha: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(dir.join("github-actions.yml")).unwrap())
            .unwrap();
    let matrix = gha["jobs"]["shard"]["strategy"]["matrix"]["index"]
        .as_sequence()
        .unwrap();
    assert!(!matrix.is_empty() && matrix.len() <= 256);
    assert_eq!(gha["jobs"]["merge"]["needs"], "shard");
    // The merge is bound to the contract it decides about.
    let steps = serde_yaml::to_string(&gha["jobs"]["merge"]["steps"]).unwrap();
    assert!(steps.contains("--contract"), "{steps}");
    let job: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(dir.join("kubernetes-job.yaml")).unwrap())
            .unwrap();
    assert_eq!(job["kind"], "Job");
    assert_eq!(job["spec"]["completionMode"], "Indexed");
    assert!(job["spec"]["backoffLimitPerIndex"].is_u64());
    assert_eq!(
        job["spec"]["completions"].as_u64().unwrap().to_string(),
        job["spec"]["template"]["spec"]["containers"][0]["env"][0]["value"]
            .as_str()
            .unwrap()
    );
}
