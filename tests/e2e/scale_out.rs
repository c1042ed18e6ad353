//! Scale-out: a contract checked in shards (`vcc check --partition`) by
//! the example scripts a CI matrix or a Kubernetes Indexed Job runs
//! (examples/scale-out/), then put back together by `vcc merge`.

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

struct Fleet {
    dir: Scratch,
}

impl Fleet {
    fn new() -> Fleet {
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
        Fleet { dir }
    }

    fn contract(&self) -> PathBuf {
        self.dir.path().join("root/contract.yaml")
    }

    /// examples/scale-out/shard.sh as a matrix job (or an Indexed Job's
    /// pod, with `index_var`) would run it.
    fn shard(&self, index_var: &str, index: u32, total: u32, key: Option<&Path>) -> i32 {
        let mut cmd = Command::new("bash");
        cmd.arg(repo().join("examples/scale-out/shard.sh"))
            .arg(self.contract())
            .arg(self.dir.path().join("shards"))
            .env("VCC", env!("CARGO_BIN_EXE_vcc"))
            .env("VCC_CACHE_DIR", shared_cache())
            .env("VCC_SHARDS", total.to_string())
            .env_remove("VCC_SHARD_INDEX")
            .env_remove("JOB_COMPLETION_INDEX")
            .env(index_var, index.to_string());
        if let Some(key) = key {
            cmd.env("VCC_SHARD_KEY", key);
        }
        cmd.status().unwrap().code().unwrap_or(-1)
    }

    /// examples/scale-out/merge.sh SHARDS --format json EXTRA…
    fn merge(&self, extra: &[&str]) -> Run {
        let out = Command::new("bash")
            .arg(repo().join("examples/scale-out/merge.sh"))
            .arg(self.dir.path().join("shards"))
            .args(["--format", "json"])
            .args(extra)
            .env("VCC", env!("CARGO_BIN_EXE_vcc"))
            .env_remove("VCC_TRUST")
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

#[test]
fn shards_from_a_matrix_merge_into_exactly_the_unsharded_check() {
    let f = Fleet::new();
    let whole = vcc(&["check", f.contract().to_str().unwrap(), "--format", "json"]);
    assert_eq!(whole.code, 1, "{}", whole.stderr);
    let whole = whole.json();
    for total in [1, 3, 5] {
        let _ = std::fs::remove_dir_all(f.dir.path().join("shards"));
        for index in 0..total {
            assert_eq!(f.shard("VCC_SHARD_INDEX", index, total, None), 0);
        }
        // Every shard names its partition and is never accepted alone.
        for k in 1..=total {
            let s: Value =
                serde_json::from_str(&std::fs::read_to_string(f.shard_file(k)).unwrap()).unwrap();
            assert_eq!(s["partition"]["index"], k);
            assert_eq!(s["partition"]["total"], total);
            assert_eq!(s["partition"]["rows"].as_array().unwrap().len(), 12);
            assert_ne!(s["verdict"], "accepted");
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
        assert_eq!(f.shard("JOB_COMPLETION_INDEX", index, 4, None), 0);
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
    let merged = f.merge(&[]);
    assert_eq!(merged.code, 2);
    assert!(
        merged.json()["reason"]
            .as_str()
            .unwrap()
            .contains("shard 1 of 4 given twice")
    );
}

/// The merge decides, so it is the step a CI reader looks at: under GitHub
/// Actions it annotates and summarises like `vcc check`.
#[test]
fn under_github_actions_the_merge_annotates_and_summarises() {
    let f = Fleet::new();
    for index in [0, 1] {
        assert_eq!(f.shard("VCC_SHARD_INDEX", index, 2, None), 0);
    }
    let summary = f.dir.write("summary.md", "earlier step\n");
    let out = Command::new(env!("CARGO_BIN_EXE_vcc"))
        .arg("merge")
        .args([f.shard_file(1), f.shard_file(2)])
        .args(["--format", "json"])
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", &summary)
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
    let keys = f.dir.path().join("keys");
    std::fs::create_dir_all(&keys).unwrap();
    for name in ["ci", "stranger"] {
        assert_eq!(
            vcc(&["key", "generate", keys.join(name).to_str().unwrap()]).code,
            0
        );
    }
    let policy = f.dir.write(
        "trust.yaml",
        "trust: 1\nkeys:\n  - { id: ci, public_key: keys/ci.pub }\nattestations: { signers: [ci] }\n",
    );
    let policy = policy.to_str().unwrap();
    for index in 0..3 {
        assert_eq!(
            f.shard("VCC_SHARD_INDEX", index, 3, Some(&keys.join("ci.key"))),
            0
        );
    }
    let env: Value =
        serde_json::from_str(&std::fs::read_to_string(f.shard_file(2)).unwrap()).unwrap();
    assert_eq!(env["payloadType"], "application/vnd.vcc.report+json");
    let merged = f.merge(&["--trust", policy]);
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
        &keys.join("ci.pub"),
        &payload_file,
        "application/vnd.vcc.report+json",
    );

    // Signed by a key the policy does not list.
    assert_eq!(
        f.shard("VCC_SHARD_INDEX", 1, 3, Some(&keys.join("stranger.key"))),
        0
    );
    let merged = f.merge(&["--trust", policy]);
    assert_eq!(merged.code, 2);
    let reason = merged.json()["reason"].as_str().unwrap().to_string();
    assert!(reason.contains("shard-2.json: UNSIGNED"), "{reason}");

    // Unsigned.
    assert_eq!(f.shard("VCC_SHARD_INDEX", 1, 3, None), 0);
    let merged = f.merge(&["--trust", policy]);
    assert_eq!(merged.code, 2);
    assert!(
        merged.json()["reason"]
            .as_str()
            .unwrap()
            .contains("UNSIGNED")
    );

    // Signed, then edited: a row turned to pass no longer verifies.
    assert_eq!(
        f.shard("VCC_SHARD_INDEX", 1, 3, Some(&keys.join("ci.key"))),
        0
    );
    let path = f.shard_file(2);
    let mut env: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let payload = env["payload"].as_str().unwrap();
    let text = String::from_utf8(engine.decode(payload).unwrap()).unwrap();
    env["payload"] = engine.encode(text.replace("\"fail\"", "\"pass\"")).into();
    std::fs::write(&path, env.to_string()).unwrap();
    let merged = f.merge(&["--trust", policy]);
    assert_eq!(merged.code, 2);
    assert!(
        merged.json()["reason"]
            .as_str()
            .unwrap()
            .contains("UNSIGNED")
    );
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
