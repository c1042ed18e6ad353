//! What agents call: `vcc mcp` driven by MCP clients that are not vcc's
//! (PyPI `mcp`, the TypeScript SDK), and pre-commit running `vcc check`.
//! The stop hooks, Claude Code's included, are tested in `hooks`.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use vcc_test_support::Scratch;

use crate::repo;
use crate::world::tools_dir;

/// The report must exist, and the agent must really have run the tests:
/// its transcript, attached by the hook, says so.
pub(crate) const CONTRACT: &str = "vcc: 1
id: agent-task
deliverables:
  - { id: report, path: REPORT.md }
  - { id: transcript, path: .vcc/transcript.jsonl }
validators:
  exists: { component: std/file-exists }
  calls: { component: std/tool-calls }
criteria:
  - { id: REPORT, severity: must, validator: exists, targets: [report], on_fail: { prompt: Write REPORT.md. } }
  - id: RAN-TESTS
    severity: must
    validator: calls
    targets: [transcript]
    params: { required: [{ name: Bash, args: { command: { matches: '^cargo test' } } }] }
";

/// A Claude Code session that ran `cargo test` (tests/cases fixture).
pub(crate) fn ran_tests() -> std::path::PathBuf {
    repo().join("tests/cases/tool-calls/fail-forbidden-claude-code/out/session.jsonl")
}

/// The official TypeScript SDK as the client, at each revision it speaks;
/// it validates every structuredContent against the published schema.
#[test]
fn the_typescript_sdk_client_speaks_to_vcc_mcp_at_each_revision() {
    let sdk = tools_dir().join("mcp-npm");
    assert!(
        sdk.join("node_modules/@modelcontextprotocol/sdk").exists(),
        "{} is missing: run tests/install-tools.sh",
        sdk.display()
    );
    let root = Scratch::new();
    root.write("contract.yaml", CONTRACT);
    let cache = Scratch::new();
    let out = Command::new("node")
        .arg(repo().join("tests/agents/mcp_client.mjs"))
        .arg(env!("CARGO_BIN_EXE_vcc"))
        .arg(root.path().join("contract.yaml"))
        .env("MCP_SDK_DIR", &sdk)
        .env("VCC_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    for version in ["2025-06-18", "2025-11-25"] {
        let rev = &r[version];
        assert_eq!(rev["server"], "vcc", "{rev}");
        assert_eq!(rev["negotiated"], version, "{rev}");
        assert_eq!(rev["tools"], json!(["check", "explain", "lint"]));
        assert_eq!(rev["read_only"], true);
        assert_eq!(rev["verdict"], "rejected", "{rev}");
        assert_eq!(rev["failing"], json!(["REPORT", "RAN-TESTS"]));
        assert_eq!(rev["lint_ok"], true);
    }
}

#[test]
fn an_mcp_client_checks_lints_and_explains_and_is_admitted_nothing() {
    let python = tools_dir().join("agents-py/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run tests/install-tools.sh",
        python.display()
    );
    let root = Scratch::new();
    root.write("contract.yaml", CONTRACT);
    // A check that spins until its 20 s timeout: the lint sent once the
    // check's validator runs takes milliseconds, far inside it.
    let slow = root.write(
        "slow/contract.yaml",
        format!(
            "vcc: 1\nid: slow\ndeliverables:\n  - {{ id: c, path: contract.yaml }}\nvalidators:\n  spin: {{ component: {:?} }}\ncriteria:\n  - {{ id: SPIN, severity: must, validator: spin, targets: [c], limits: {{ timeout: 20s }} }}\n",
            vcc_test_support::fixtures::INFINITE_LOOP
        ),
    );
    let advisory = root.write(
        "advisory/contract.yaml",
        "vcc: 1\nid: research\nadvisory: true\ndeliverables:\n  - { id: f, path: FINDINGS.md }\nvalidators:\n  exists: { component: std/file-exists }\ncriteria:\n  - { id: F, severity: must, validator: exists, targets: [f] }\n",
    );
    let cache = Scratch::new();
    let out = Command::new(&python)
        .arg(repo().join("tests/agents/mcp_client.py"))
        .arg(env!("CARGO_BIN_EXE_vcc"))
        .arg(root.path().join("contract.yaml"))
        .env("VCC_CACHE_DIR", cache.path())
        .env("ATTACH_TRANSCRIPT", ran_tests())
        .env("SLOW_CONTRACT", &slow)
        .env("ADVISORY_CONTRACT", &advisory)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["server"], "vcc");
    assert_eq!(r["tools"], json!(["check", "explain", "lint"]));

    let check: Value = serde_json::from_str(r["check"]["text"].as_str().unwrap()).unwrap();
    assert_eq!(check["verdict"], "rejected");
    // No transcript is attached over MCP: both MUSTs are missing.
    assert_eq!(check["failing"], json!(["REPORT", "RAN-TESTS"]));
    assert!(check["note"].as_str().unwrap().contains("not an admission"));
    assert_eq!(check["feedback"]["must"][0]["prompt"], "Write REPORT.md.");

    // An advisory contract: the one sentence every way of running vcc says.
    let advisory: Value = serde_json::from_str(r["advisory"]["text"].as_str().unwrap()).unwrap();
    assert_eq!(advisory["verdict"], "advisory", "{advisory}");
    assert!(
        advisory["note"]
            .as_str()
            .unwrap()
            .starts_with("an advisory contract reports and never accepts: nothing is accepted and nothing is blocked"),
        "{advisory}"
    );

    // With the transcript attached (`attach`), only the report is missing.
    let attached: Value = serde_json::from_str(r["attached"]["text"].as_str().unwrap()).unwrap();
    assert_eq!(attached["failing"], json!(["REPORT"]), "{attached}");

    let lint: Value = serde_json::from_str(r["lint"]["text"].as_str().unwrap()).unwrap();
    assert_eq!(lint["ok"], true, "{lint}");

    // structuredContent, the same as the text, with a published
    // outputSchema (the client checks one against the other).
    assert_eq!(r["check"]["structured"], check, "{}", r["check"]);
    assert_eq!(r["lint"]["structured"], lint);
    let criteria = check["criteria"].as_array().unwrap();
    assert_eq!(criteria.len(), 2);
    assert_eq!(criteria[0]["id"], "REPORT");
    assert_eq!(criteria[0]["status"], "fail");
    assert!(
        check["contract_digest"]
            .as_str()
            .unwrap()
            .starts_with("blake3:")
    );
    assert!(
        check["root_digest"]
            .as_str()
            .unwrap()
            .starts_with("blake3:")
    );
    for tool in ["check", "lint"] {
        let schema = &r["listing"][tool]["output_schema"];
        assert_eq!(schema["type"], "object", "{tool}: {schema}");
    }
    for tool in ["check", "lint", "explain"] {
        assert_eq!(r["listing"][tool]["read_only"], true, "{tool}");
        assert_eq!(r["listing"][tool]["idempotent"], true, "{tool}");
    }
    assert!(r["check"]["structured"]["verdict"].is_string());
    // A long check does not hold the server's other requests.
    let c = &r["concurrent"];
    assert_eq!(c["check_dispatched_before_lint"], true, "{c}");
    assert_eq!(c["check_running_when_lint_answered"], true, "{c}");
    assert_eq!(c["lint_ok"], true, "{c}");
    assert_eq!(
        c["check_verdict"], "withheld",
        "the spinning check timed out: {c}"
    );
    // Each protocol revision the client speaks, on a connection of its own.
    for version in ["2025-06-18", "2025-11-25", "2026-07-28"] {
        let rev = &r["revisions"][version];
        assert_eq!(rev["negotiated"], version, "{rev}");
        assert_eq!(rev["verdict"], "rejected", "{version}: {rev}");
    }

    let explain = r["explain"]["text"].as_str().unwrap();
    // The brief first (every criterion, numbered), then what is missing.
    assert!(explain.starts_with("# Contract `agent-task`"), "{explain}");
    assert!(explain.contains("### 1. "), "{explain}");
    assert!(
        explain.contains("\n---\n\n# vcc: contract `agent-task` is not accepted"),
        "{explain}"
    );

    // A contract that cannot be read is an invalid verdict, said plainly.
    let missing: Value = serde_json::from_str(r["missing"]["text"].as_str().unwrap()).unwrap();
    assert_eq!(missing["verdict"], "invalid");
}

/// `git` in `dir`, as a throwaway identity.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=vcc-test",
            "-c",
            "user.email=vcc@test.invalid",
        ])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn pre_commit_runs_vcc_check_from_the_hook_definition() {
    let pre_commit = tools_dir().join("agents-py/bin/pre-commit");
    assert!(
        pre_commit.exists(),
        "{} is missing: run tests/install-tools.sh",
        pre_commit.display()
    );
    // A hook repository holding this checkout's .pre-commit-hooks.yaml.
    let hooks = Scratch::new();
    std::fs::copy(
        repo().join(".pre-commit-hooks.yaml"),
        hooks.path().join(".pre-commit-hooks.yaml"),
    )
    .unwrap();
    git(hooks.path(), &["init", "-q"]);
    git(hooks.path(), &["add", "."]);
    git(hooks.path(), &["commit", "-q", "-m", "hooks"]);
    let rev = git(hooks.path(), &["rev-parse", "HEAD"]);

    // A project that uses it.
    let project = Scratch::new();
    project.write(
        "contract.yaml",
        "vcc: 1\nid: notes\ndeliverables:\n  - { id: notes, path: NOTES.md }\nvalidators:\n  exists: { component: std/file-exists }\ncriteria:\n  - { id: NOTES, severity: must, validator: exists, targets: [notes] }\n",
    );
    project.write(
        ".pre-commit-config.yaml",
        format!(
            "repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n      - id: vcc-check\n        args: [contract.yaml]\n",
            hooks.path().display()
        ),
    );
    git(project.path(), &["init", "-q"]);
    git(project.path(), &["add", "."]);
    let vcc_dir = Path::new(env!("CARGO_BIN_EXE_vcc"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        vcc_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let home = Scratch::new();
    let run = || {
        Command::new(&pre_commit)
            .args(["run", "--all-files"])
            .current_dir(project.path())
            .env("PATH", &path)
            .env("PRE_COMMIT_HOME", home.path())
            .env("VCC_CACHE_DIR", crate::shared_cache())
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    };
    let out = run();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("vcc check") && text.contains("Failed"),
        "{text}"
    );
    assert!(text.contains("NOTES"), "vcc's output is shown: {text}");

    project.write("NOTES.md", "# Notes\n");
    git(project.path(), &["add", "NOTES.md"]);
    let out = run();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("Passed"), "{text}");
}
