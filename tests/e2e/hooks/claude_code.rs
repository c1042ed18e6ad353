//! `vcc hook claude-code` fed recorded Claude Code hook input: the stop
//! blocked until the contract is accepted, the session's transcript
//! attached, the contract pinned at the first stop.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use vcc_test_support::Scratch;

use crate::Run;
use crate::agents::{CONTRACT, ran_tests};

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
