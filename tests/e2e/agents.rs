//! Where agents stop: `vcc hook claude-code` fed recorded hook input, and
//! `vcc mcp` driven by an MCP client that is not vcc's (PyPI `mcp`).

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use vcc_test_support::Scratch;

use crate::world::tools_dir;
use crate::{Run, repo};

/// The report must exist, and the agent must really have run the tests:
/// its transcript, attached by the hook, says so.
const CONTRACT: &str = "vcc: 1
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
fn ran_tests() -> std::path::PathBuf {
    repo().join("tests/cases/tool-calls/fail-forbidden-claude-code/out/session.jsonl")
}

struct Hook {
    root: Scratch,
    /// The cache folder, where the hook keeps per-session state.
    cache: Scratch,
}

impl Hook {
    fn new() -> Hook {
        let root = Scratch::new();
        root.write("contract.yaml", CONTRACT);
        Hook {
            root,
            cache: Scratch::new(),
        }
    }

    /// Run the hook with recorded Stop input for `session`.
    fn stop(&self, session: &str, transcript: &Path, extra: &[&str]) -> (Run, Value) {
        let contract = self.root.path().join("contract.yaml");
        let mut args = vec!["--contract", contract.to_str().unwrap()];
        args.extend_from_slice(extra);
        self.stop_from(session, transcript, &args, Path::new("/"))
    }

    /// The hook with these arguments, started in folder `from` (Claude Code
    /// runs hooks from elsewhere than the session's cwd).
    fn stop_from(
        &self,
        session: &str,
        transcript: &Path,
        args: &[&str],
        from: &Path,
    ) -> (Run, Value) {
        // What Claude Code sends a Stop hook (recorded from a session).
        let input = json!({
            "session_id": session,
            "transcript_path": transcript,
            "cwd": self.root.path(),
            "permission_mode": "default",
            "hook_event_name": "Stop",
            "stop_hook_active": false
        });
        let mut child = Command::new(env!("CARGO_BIN_EXE_vcc"))
            .args(["hook", "claude-code"])
            .args(args)
            .current_dir(from)
            .env("VCC_CACHE_DIR", self.cache.path())
            .env_remove("CLAUDE_PROJECT_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.to_string().as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let run = Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        };
        let decision = run.json();
        (run, decision)
    }
}

#[test]
fn the_hook_blocks_a_stop_until_the_contract_is_accepted() {
    let h = Hook::new();
    let (run, out) = h.stop("s-1", &ran_tests(), &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(out["decision"], "block", "{out}");
    let reason = out["reason"].as_str().unwrap();
    assert!(reason.contains("### REPORT (MUST, fail)"), "{reason}");
    assert!(reason.contains("What to do: Write REPORT.md."), "{reason}");
    assert!(
        !reason.contains("### RAN-TESTS"),
        "the transcript shows cargo test: {reason}"
    );
    assert!(reason.contains("1 of at most 10"), "{reason}");

    h.root.write("REPORT.md", "# Done\n");
    let (run, out) = h.stop("s-1", &ran_tests(), &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        out.get("decision").is_none(),
        "accepted: the stop is allowed: {out}"
    );
    assert!(out["systemMessage"].as_str().unwrap().contains("accepted"));
}

#[test]
fn a_transcript_without_the_tests_keeps_the_agent_working() {
    let h = Hook::new();
    h.root.write("REPORT.md", "# Done\n");
    // The same session without its Bash calls: the agent never ran the tests.
    let lazy: String = std::fs::read_to_string(ran_tests())
        .unwrap()
        .lines()
        .filter(|l| !l.contains(r#""name":"Bash""#))
        .map(|l| format!("{l}\n"))
        .collect();
    let transcript = h.cache.write("lazy.jsonl", lazy);
    let (_, out) = h.stop("s-2", &transcript, &[]);
    assert_eq!(out["decision"], "block", "{out}");
    assert!(
        out["reason"]
            .as_str()
            .unwrap()
            .contains("### RAN-TESTS (MUST, fail)")
    );
    // The agent writing its own "transcript" into the root does not help:
    // the attached one takes that path, and a file there is refused.
    h.root
        .write(".vcc/transcript.jsonl", std::fs::read(ran_tests()).unwrap());
    let (_, out) = h.stop("s-2", &transcript, &[]);
    assert_eq!(out["decision"], "block", "{out}");
}

#[test]
fn past_max_blocks_the_stop_is_allowed_and_the_work_is_withheld() {
    let h = Hook::new();
    for n in 1..=2 {
        let (_, out) = h.stop("s-3", &ran_tests(), &["--max-blocks", "2"]);
        assert_eq!(out["decision"], "block", "stop {n}: {out}");
    }
    let (run, out) = h.stop("s-3", &ran_tests(), &["--max-blocks", "2"]);
    assert_eq!(run.code, 0);
    assert!(out.get("decision").is_none(), "{out}");
    let message = out["systemMessage"].as_str().unwrap();
    assert!(message.contains("WITHHELD, not accepted"), "{message}");
    assert!(message.contains("after 2 blocked stop(s)"), "{message}");
    // Another session has its own count.
    let (_, out) = h.stop("s-4", &ran_tests(), &["--max-blocks", "2"]);
    assert_eq!(out["decision"], "block");
}

#[test]
fn a_contract_edited_during_the_session_is_judged_as_it_was_at_the_first_stop() {
    let h = Hook::new();
    let (_, out) = h.stop("s-5", &ran_tests(), &[]);
    assert_eq!(out["decision"], "block");
    // The agent drops the criterion it cannot meet (and makes the report
    // optional, or the host would still require it): under the edited
    // contract the work would be accepted (RAN-TESTS passes).
    let weakened = CONTRACT
        .replace(
            "severity: must, validator: exists",
            "severity: may, validator: exists",
        )
        .replace("path: REPORT.md }", "path: REPORT.md, required: false }");
    h.root.write("contract.yaml", &weakened);
    let edited = h.root.path().join("contract.yaml");
    let check = crate::check_json(
        &edited,
        &[
            "--attach",
            &format!(".vcc/transcript.jsonl={}", ran_tests().display()),
        ],
    );
    assert_eq!(
        check.code, 0,
        "the edit would be accepted: {}",
        check.stdout
    );
    let (_, out) = h.stop("s-5", &ran_tests(), &[]);
    assert_eq!(out["decision"], "block", "{out}");
    let reason = out["reason"].as_str().unwrap();
    assert!(reason.contains("changed during this session"), "{reason}");
    assert!(
        reason.contains("### REPORT (MUST, fail)"),
        "judged by the first stop's bytes: {reason}"
    );
    // Writing the report satisfies the contract as it was pinned.
    h.root.write("REPORT.md", "# Done\n");
    let (_, out) = h.stop("s-5", &ran_tests(), &[]);
    assert!(out.get("decision").is_none(), "{out}");
    let message = out["systemMessage"].as_str().unwrap();
    assert!(
        message.contains("accepted") && message.contains("changed during this session"),
        "{message}"
    );
}

#[test]
fn a_relative_contract_is_found_from_the_sessions_cwd_not_the_hooks() {
    let h = Hook::new();
    let (run, out) = h.stop_from(
        "s-rel",
        &ran_tests(),
        &["--contract", "contract.yaml", "--dir", "."],
        Path::new("/"),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(out["decision"], "block", "{out}");
    assert!(
        out["reason"]
            .as_str()
            .unwrap()
            .contains("### REPORT (MUST, fail)"),
        "{out}"
    );
}

#[test]
fn a_hook_that_cannot_find_its_contract_says_so_to_the_human_and_admits_nothing() {
    let h = Hook::new();
    let (run, out) = h.stop_from(
        "s-conf",
        &ran_tests(),
        &["--contract", "ci/nope.yaml"],
        Path::new("/"),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        out.get("decision").is_none(),
        "the agent is not blocked with what it cannot fix: {out}"
    );
    assert_eq!(out["continue"], false, "{out}");
    let message = out["stopReason"].as_str().unwrap();
    assert!(
        message.contains("CONFIGURATION ERROR") && message.contains("NOT accepted"),
        "{message}"
    );
    assert!(message.contains("ci/nope.yaml"), "{message}");
    assert_eq!(out["systemMessage"], out["stopReason"]);
    assert!(run.stderr.contains("CONFIGURATION ERROR"), "{}", run.stderr);
}

#[test]
fn input_that_is_not_a_stop_hook_is_an_error_not_an_allow() {
    let h = Hook::new();
    let mut child = Command::new(env!("CARGO_BIN_EXE_vcc"))
        .args(["hook", "claude-code", "--contract"])
        .arg(h.root.path().join("contract.yaml"))
        .env("VCC_CACHE_DIR", h.cache.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"[]").unwrap();
    let out = child.wait_with_output().unwrap();
    // Exit 2 with the reason on stderr: Claude Code blocks the stop (any
    // other exit would let it through).
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("not the JSON of a Claude Code stop hook"),
        "{stderr}"
    );
    assert!(stderr.contains("nothing is accepted"), "{stderr}");
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
