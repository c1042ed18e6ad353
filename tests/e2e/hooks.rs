//! Stop hooks for Codex, Cursor and Gemini CLI (hook inputs in each
//! harness's documented shape, fed through the real binary), subagents judged by their own contracts, and the hook
//! failing closed: a check that is killed or runs past --timeout blocks
//! the stop, in every harness.

use std::io::Write as _;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use vcc_test_support::{Scratch, fixtures};

use crate::Run;

const CONTRACT: &str = "vcc: 1
id: agent-task
deliverables:
  - { id: report, path: REPORT.md }
validators:
  exists: { component: std/file-exists }
criteria:
  - { id: REPORT, severity: must, validator: exists, targets: [report], on_fail: { prompt: Write REPORT.md. } }
";

/// A subagent's own contract: its findings file.
const REVIEW: &str = "vcc: 1
id: review
deliverables:
  - { id: findings, path: FINDINGS.md }
validators:
  exists: { component: std/file-exists }
criteria:
  - { id: FINDINGS, severity: must, validator: exists, targets: [findings] }
";

struct Session {
    root: Scratch,
    cache: Scratch,
}

impl Session {
    fn new() -> Session {
        let root = Scratch::new();
        root.write("contract.yaml", CONTRACT);
        root.write("review.yaml", REVIEW);
        Session {
            root,
            cache: Scratch::new(),
        }
    }

    fn spawn(&self, harness: &str, args: &[&str], input: &Value) -> Child {
        self.spawn_bytes(harness, args, input.to_string().as_bytes())
    }

    /// The hook fed these bytes on stdin, whatever they are.
    fn spawn_bytes(&self, harness: &str, args: &[&str], input: &[u8]) -> Child {
        let mut child = Command::new(env!("CARGO_BIN_EXE_vcc"))
            .args(["hook", harness, "--contract", "contract.yaml"])
            .args(args)
            .current_dir("/")
            .env("VCC_CACHE_DIR", self.cache.path())
            .env_remove("CLAUDE_PROJECT_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input).unwrap();
        child
    }

    fn hook(&self, harness: &str, args: &[&str], input: &Value) -> (Run, Value) {
        finish(self.spawn(harness, args, input))
    }

    /// What Codex sends a Stop hook (codex-rs/hooks `StopCommandInput`).
    fn codex_stop(&self, session: &str) -> Value {
        json!({
            "session_id": session,
            "turn_id": "turn-1",
            "transcript_path": null,
            "cwd": self.root.path(),
            "hook_event_name": "Stop",
            "model": "gpt-5-codex",
            "permission_mode": "default",
            "stop_hook_active": false,
            "last_assistant_message": "Done: the report is written."
        })
    }

    /// What Cursor sends its `stop` hook.
    fn cursor_stop(&self, conversation: &str, status: &str) -> Value {
        json!({
            "conversation_id": conversation,
            "generation_id": "gen-1",
            "model": "auto",
            "hook_event_name": "stop",
            "cursor_version": "2.1.0",
            "workspace_roots": [self.root.path()],
            "user_email": null,
            "status": status,
            "loop_count": 0
        })
    }
}

fn finish(child: Child) -> (Run, Value) {
    let out = child.wait_with_output().unwrap();
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    let value = if run.stdout.trim().is_empty() {
        Value::Null
    } else {
        run.json()
    };
    (run, value)
}

#[test]
fn codex_stop_is_blocked_until_the_contract_is_accepted() {
    let s = Session::new();
    let (run, out) = s.hook("codex", &[], &s.codex_stop("c-1"));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(out["decision"], "block", "{out}");
    let reason = out["reason"].as_str().unwrap();
    assert!(reason.contains("### REPORT (MUST, fail)"), "{reason}");
    assert!(
        reason.contains("blocked this stop: 1 of at most 10"),
        "{reason}"
    );

    s.root.write("REPORT.md", "# Report\n\nDone.\n");
    let (run, out) = s.hook("codex", &[], &s.codex_stop("c-1"));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(out.get("decision").is_none(), "{out}");
    assert!(
        out["systemMessage"]
            .as_str()
            .unwrap()
            .contains("contract agent-task accepted"),
        "{out}"
    );
}

/// Gemini CLI's AfterAgent: `decision: deny` retries the turn with the
/// reason as the next prompt.
#[test]
fn gemini_retries_the_turn_with_the_feedback() {
    let s = Session::new();
    let input = json!({
        "session_id": "g-1",
        "transcript_path": null,
        "cwd": s.root.path(),
        "hook_event_name": "AfterAgent",
        "timestamp": "2026-11-26T07:00:00Z",
        "prompt": "Write the report.",
        "prompt_response": "Done.",
        "stop_hook_active": false
    });
    let (run, out) = s.hook("gemini", &[], &input);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(out["decision"], "deny", "{out}");
    assert!(
        out["reason"]
            .as_str()
            .unwrap()
            .contains("### REPORT (MUST, fail)")
    );
    s.root.write("REPORT.md", "# Report\n");
    let (_, out) = s.hook("gemini", &[], &input);
    assert!(out.get("decision").is_none(), "{out}");
    assert!(out["systemMessage"].as_str().unwrap().contains("accepted"));
}

#[test]
fn cursor_gets_the_feedback_as_its_next_message() {
    let s = Session::new();
    let (run, out) = s.hook(
        "cursor",
        &["--max-blocks", "1"],
        &s.cursor_stop("k-1", "completed"),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let follow = out["followup_message"].as_str().unwrap();
    assert!(follow.contains("### REPORT (MUST, fail)"), "{follow}");
    assert!(follow.contains("What to do: Write REPORT.md."), "{follow}");
    // Past --max-blocks the stop goes through, and the work is withheld.
    let (run, out) = s.hook(
        "cursor",
        &["--max-blocks", "1"],
        &s.cursor_stop("k-1", "completed"),
    );
    assert_eq!(run.code, 0);
    assert_eq!(out, json!({}), "no follow-up: the stop goes through");
    assert!(
        run.stderr.contains("WITHHELD, not accepted"),
        "{}",
        run.stderr
    );
    // A turn the user aborted is not fought over, and not accepted.
    let (_, out) = s.hook("cursor", &[], &s.cursor_stop("k-2", "aborted"));
    assert_eq!(out, json!({}));
}

#[test]
fn a_subagent_is_judged_by_its_own_contract_before_the_parent_gets_its_work() {
    let s = Session::new();
    let stop = |agent_type: &str| {
        json!({
            "session_id": "sub-1",
            "turn_id": "turn-2",
            "transcript_path": null,
            "agent_transcript_path": null,
            "cwd": s.root.path(),
            "hook_event_name": "SubagentStop",
            "model": "gpt-5-codex",
            "permission_mode": "default",
            "stop_hook_active": false,
            "agent_id": "agent-7",
            "agent_type": agent_type,
            "last_assistant_message": "Review done."
        })
    };
    let args = ["--subagent", "reviewer=review.yaml"];
    let (run, out) = s.hook("codex", &args, &stop("reviewer"));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(out["decision"], "block", "{out}");
    let reason = out["reason"].as_str().unwrap();
    assert!(reason.contains("contract `review`"), "{reason}");
    assert!(reason.contains("FINDINGS"), "{reason}");
    // The parent's own criterion is not the subagent's business.
    assert!(!reason.contains("### REPORT"), "{reason}");

    s.root.write("FINDINGS.md", "# Findings\n");
    let (_, out) = s.hook("codex", &args, &stop("reviewer"));
    assert!(
        out["systemMessage"]
            .as_str()
            .unwrap()
            .contains("contract review (subagent `reviewer`) accepted"),
        "{out}"
    );
    // A subagent type with no contract is left to the session's stop.
    let (_, out) = s.hook("codex", &args, &stop("explorer"));
    assert!(
        out["systemMessage"]
            .as_str()
            .unwrap()
            .contains("subagent type `explorer` has no contract"),
        "{out}"
    );
}

/// A check that runs past --timeout: the worker is stopped, and the stop
/// is blocked (never let through) in each harness.
#[test]
fn a_check_past_the_timeout_blocks_the_stop() {
    let s = Session::new();
    s.root.write(
        "contract.yaml",
        format!(
            "vcc: 1\nid: slow\ndeliverables:\n  - {{ id: report, path: REPORT.md, required: false }}\nvalidators:\n  loop: {{ component: {:?} }}\ncriteria:\n  - {{ id: SPINS, severity: must, validator: loop, targets: [report], limits: {{ timeout: 120s }} }}\n",
            fixtures::INFINITE_LOOP
        ),
    );
    for harness in ["claude-code", "codex", "cursor"] {
        let started = Instant::now();
        let input = if harness == "cursor" {
            s.cursor_stop("t-1", "completed")
        } else {
            s.codex_stop("t-1")
        };
        let (run, out) = s.hook(harness, &["--timeout", "2s"], &input);
        assert!(started.elapsed() < Duration::from_secs(60), "{harness}");
        assert_eq!(run.code, 0, "{harness}: {}", run.stderr);
        let text = if harness == "cursor" {
            assert!(out.get("followup_message").is_some(), "{out}");
            out["followup_message"].as_str().unwrap().to_string()
        } else {
            assert_eq!(out["decision"], "block", "{harness}: {out}");
            out["reason"].as_str().unwrap().to_string()
        };
        assert!(
            text.contains("did not finish within --timeout 2s")
                && text.contains("nothing is accepted"),
            "{harness}: {text}"
        );
    }
}

/// The pids of a process's children (Linux /proc).
fn children(pid: u32) -> Vec<u32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// The checking process killed mid-check (the OOM killer, a stray kill):
/// the hook still answers, with a block.
#[test]
fn a_check_killed_mid_way_blocks_the_stop() {
    let s = Session::new();
    s.root.write(
        "contract.yaml",
        format!(
            "vcc: 1\nid: slow\ndeliverables:\n  - {{ id: report, path: REPORT.md, required: false }}\nvalidators:\n  loop: {{ component: {:?} }}\ncriteria:\n  - {{ id: SPINS, severity: must, validator: loop, targets: [report], limits: {{ timeout: 120s }} }}\n",
            fixtures::INFINITE_LOOP
        ),
    );
    let child = s.spawn("codex", &["--timeout", "100s"], &s.codex_stop("k-1"));
    let deadline = Instant::now() + Duration::from_secs(30);
    let worker = loop {
        if let Some(w) = children(child.id()).first() {
            break *w;
        }
        assert!(Instant::now() < deadline, "no worker process appeared");
        std::thread::sleep(Duration::from_millis(50));
    };
    // Once it is in the check (its validator running), kill it.
    assert!(
        vcc_test_support::wait_for_thread(worker, "vcc-validate", Duration::from_secs(120)),
        "the worker never ran the validator"
    );
    let killed = Command::new("kill")
        .args(["-9", &worker.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let (run, out) = finish(child);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(out["decision"], "block", "{out}");
    let reason = out["reason"].as_str().unwrap();
    assert!(
        reason.contains("the checking process was killed"),
        "{reason}"
    );
}

#[test]
fn unreadable_input_blocks_in_every_harness() {
    let s = Session::new();
    for harness in ["claude-code", "codex", "cursor", "gemini"] {
        let child = s.spawn_bytes(harness, &[], b"{\"not\": \"a hook\"");
        let (run, out) = finish(child);
        if harness == "cursor" {
            assert_eq!(run.code, 0);
            assert!(
                out["followup_message"]
                    .as_str()
                    .unwrap()
                    .contains("nothing is accepted"),
                "{out}"
            );
        } else {
            // Exit 2 and a reason on stderr: a block in Claude Code and
            // Codex, a retry in Gemini CLI.
            assert_eq!(run.code, 2, "{harness}");
            assert!(run.stderr.contains("nothing is accepted"), "{}", run.stderr);
        }
    }
}

/// Each harness's own transcript, named by its hook input, is attached and
/// read by std/tool-calls: the contract can require the calls the agent
/// made in Codex, Cursor and Gemini CLI as it can in Claude Code.
#[test]
fn each_harness_transcript_is_read_for_the_calls_it_records() {
    let cases = crate::repo().join("tests/cases/tool-calls");
    for (harness, transcript, call) in [
        (
            "codex",
            "fail-forbidden-codex-rollout/out/rollout.jsonl",
            "shell",
        ),
        (
            "cursor",
            "fail-forbidden-cursor-transcript/out/agent-transcript.jsonl",
            "Read",
        ),
        (
            "gemini",
            "fail-forbidden-gemini-session/out/session.json",
            "read_file",
        ),
    ] {
        for (required, accepted) in [(call, true), ("never_called", false)] {
            let s = Session::new();
            s.root.write(
                "contract.yaml",
                format!(
                    "vcc: 1\nid: calls\ndeliverables:\n  - {{ id: transcript, path: .vcc/transcript.jsonl }}\nvalidators:\n  calls: {{ component: std/tool-calls }}\ncriteria:\n  - {{ id: CALLED, severity: must, validator: calls, targets: [transcript], params: {{ required: [{required}] }} }}\n"
                ),
            );
            let path = cases.join(transcript);
            let input = match harness {
                "cursor" => {
                    let mut i = s.cursor_stop(&format!("t-{required}"), "completed");
                    i["transcript_path"] = json!(path);
                    i
                }
                _ => {
                    let mut i = s.codex_stop(&format!("t-{required}"));
                    i["transcript_path"] = json!(path);
                    i
                }
            };
            let (run, out) = s.hook(harness, &[], &input);
            assert_eq!(run.code, 0, "{harness}: {}", run.stderr);
            let blocked = match harness {
                "codex" => out.get("decision") == Some(&json!("block")),
                "cursor" => out.get("followup_message").is_some(),
                _ => out.get("decision") == Some(&json!("deny")),
            };
            assert_eq!(blocked, !accepted, "{harness} requiring {required}: {out}");
        }
    }
}
