//! Every stop hook (`vcc hook HARNESS`, each of `Harness::ALL`; hook
//! inputs in each harness's documented shape, fed through the real
//! binary; Claude Code's recorded sessions in `claude_code`), subagents
//! judged by their own contracts, and the hook
//! failing closed: a check that is killed or runs past --timeout blocks
//! the stop, in every harness. What the agent can reach around the hook
//! decides nothing: the folder it stops in, a transcript it writes, the
//! hook's state.

use std::io::Write as _;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use vcc_report::harness::Harness;
use vcc_test_support::{Scratch, fixtures};

use crate::Run;

mod claude_code;

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
        self.spawn_env(harness, args, input, &[])
    }

    /// The hook, with these variables set as the harness sets them (no
    /// project variable otherwise).
    fn spawn_env(
        &self,
        harness: &str,
        args: &[&str],
        input: &[u8],
        env: &[(&str, &Path)],
    ) -> Child {
        let mut command = Command::new(env!("CARGO_BIN_EXE_vcc"));
        command
            .args(["hook", harness, "--contract", "contract.yaml"])
            .args(args)
            .current_dir("/")
            .env("VCC_CACHE_DIR", self.cache.path());
        for var in [
            "CLAUDE_PROJECT_DIR",
            "CURSOR_PROJECT_DIR",
            "GEMINI_PROJECT_DIR",
        ] {
            command.env_remove(var);
        }
        for (var, value) in env {
            command.env(var, value);
        }
        let mut child = command
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

    /// A stop event as `harness` sends it, for `session`. A new harness
    /// added to `Harness::ALL` fails to compile here until its stop is
    /// written.
    fn stop_of(&self, harness: Harness, session: &str) -> Value {
        match harness {
            Harness::ClaudeCode => self.claude_stop(session, self.root.path()),
            Harness::Codex => self.codex_stop(session),
            Harness::Cursor => self.cursor_stop(session, "completed"),
            Harness::Gemini => self.gemini_after_agent(session),
        }
    }

    /// What Claude Code sends a Stop hook, from `cwd`.
    fn claude_stop(&self, session: &str, cwd: &Path) -> Value {
        json!({
            "session_id": session,
            "transcript_path": null,
            "cwd": cwd,
            "permission_mode": "default",
            "hook_event_name": "Stop",
            "stop_hook_active": false
        })
    }

    /// What Gemini CLI sends its AfterAgent hook.
    fn gemini_after_agent(&self, session: &str) -> Value {
        json!({
            "session_id": session,
            "transcript_path": "",
            "cwd": self.root.path(),
            "hook_event_name": "AfterAgent",
            "timestamp": "2026-11-26T07:00:00Z",
            "prompt": "Write the report.",
            "prompt_response": "Done.",
            "stop_hook_active": false
        })
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
    for harness in Harness::ALL {
        let child = s.spawn_bytes(harness.name(), &[], b"{\"not\": \"a hook\"");
        let (run, out) = finish(child);
        if harness == Harness::Cursor {
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
            assert_eq!(run.code, 2, "{}", harness.name());
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
                "gemini" => {
                    let mut i = s.gemini_after_agent(&format!("t-{required}"));
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

/// The reason of a block in Claude Code's and Codex's shape.
fn reason(out: &Value) -> &str {
    assert_eq!(out["decision"], "block", "{out}");
    out["reason"].as_str().unwrap()
}

/// A configuration error in Claude Code's, Codex's and Gemini CLI's
/// shape: the session stops, the person reads why, nothing is accepted.
fn halted(out: &Value) -> &str {
    assert_eq!(out["continue"], false, "{out}");
    assert!(out.get("decision").is_none(), "{out}");
    let message = out["stopReason"].as_str().unwrap();
    assert!(
        message.contains("CONFIGURATION ERROR") && message.contains("NOT accepted"),
        "{message}"
    );
    message
}

/// The agent writes the report the contract wants into a folder of its
/// own, `cd`s there and stops. With the documented `--dir .` the hook
/// judged the folder the agent stood in: ACCEPTED on the decoy. The root
/// is pinned at the session's first stop, from the harness's project
/// folder ($CLAUDE_PROJECT_DIR).
#[test]
fn forgery_host_hook_stop_in_a_decoy_folder() {
    let s = Session::new();
    let project = [("CLAUDE_PROJECT_DIR", s.root.path())];
    let stop = |cwd: &Path| s.claude_stop("decoy-1", cwd).to_string();
    let hook = |cwd: &Path| {
        finish(s.spawn_env(
            "claude-code",
            &["--dir", "."],
            stop(cwd).as_bytes(),
            &project,
        ))
    };
    let (run, out) = hook(s.root.path());
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(reason(&out).contains("### REPORT (MUST, fail)"), "{out}");

    s.root.write("decoy/REPORT.md", "# Report\n\nDone.\n");
    let (run, out) = hook(&s.root.path().join("decoy"));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = reason(&out);
    assert!(
        text.contains("### REPORT (MUST, fail)") && text.contains("2 of at most 10"),
        "judged on the root pinned at the first stop, not on the decoy: {text}"
    );
}

/// Codex names no project folder of its own: the first stop's `cwd` is
/// pinned. A later stop from a folder outside the project, holding the
/// report, is still judged on the project (ACCEPTED on main).
#[test]
fn forgery_host_hook_stop_outside_the_project() {
    let s = Session::new();
    let (run, out) = s.hook("codex", &["--dir", "."], &s.codex_stop("away-1"));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(reason(&out).contains("### REPORT (MUST, fail)"), "{out}");

    let elsewhere = Scratch::new();
    elsewhere.write("REPORT.md", "# Report\n\nDone.\n");
    let mut input = s.codex_stop("away-1");
    input["cwd"] = json!(elsewhere.path());
    let (run, out) = s.hook("codex", &["--dir", "."], &input);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        reason(&out).contains("### REPORT (MUST, fail)"),
        "judged on the first stop's project: {out}"
    );
    // The project itself, once it holds the report, is accepted.
    s.root.write("REPORT.md", "# Report\n\nDone.\n");
    let (_, out) = s.hook("codex", &["--dir", "."], &input);
    assert!(
        out["systemMessage"]
            .as_str()
            .unwrap()
            .contains("contract agent-task accepted"),
        "{out}"
    );
}

/// A contract whose MUST reads the agent's transcript with std/tool-calls.
const RAN_TESTS: &str = "vcc: 1
id: ran-tests
deliverables:
  - { id: transcript, path: .vcc/transcript.jsonl }
validators:
  calls: { component: std/tool-calls }
criteria:
  - id: RAN-TESTS
    severity: must
    validator: calls
    targets: [transcript]
    params: { required: [{ name: Bash, args: { command: { matches: '^cargo test' } } }] }
";

/// The harness gives no transcript (Claude Code: `null`; a path that is
/// not there; Gemini CLI: `""`) and the agent writes one showing
/// `cargo test` at the path the hook attaches it at. main judged the
/// agent's file as the transcript: ACCEPTED. The path stays the
/// harness's: the file is not read, and the MUST on it is an error.
#[test]
fn forgery_host_hook_transcript_written_by_the_agent() {
    let s = Session::new();
    s.root.write("contract.yaml", RAN_TESTS);
    let session =
        crate::repo().join("tests/cases/tool-calls/fail-forbidden-claude-code/out/session.jsonl");
    s.root
        .write(".vcc/transcript.jsonl", std::fs::read(session).unwrap());
    let nowhere = s.cache.path().join("no-such-transcript.jsonl");
    let mut codex = s.codex_stop("tr-2");
    codex["transcript_path"] = json!(nowhere);
    for (harness, input) in [
        ("claude-code", s.claude_stop("tr-1", s.root.path())),
        ("codex", codex),
        ("gemini", s.gemini_after_agent("tr-3")),
    ] {
        let (run, out) = s.hook(harness, &[], &input);
        assert_eq!(run.code, 0, "{harness}: {}", run.stderr);
        let key = if harness == "gemini" { "deny" } else { "block" };
        assert_eq!(out["decision"], key, "{harness}: {out}");
        let text = out["reason"].as_str().unwrap();
        assert!(
            text.contains("### RAN-TESTS (MUST, error)"),
            "{harness}: the agent's file is not the transcript: {text}"
        );
        assert!(
            text.contains(".vcc/transcript.jsonl (reserved:")
                && text.contains("not the session's transcript"),
            "{harness}: {text}"
        );
    }
}

/// A mistake on the hook's command line is answered in the harness's own
/// protocol, as a configuration error: never clap's usage text, which
/// Cursor reads as no answer (and lets the stop through).
#[test]
fn a_mistake_on_the_hooks_command_line_is_a_configuration_error() {
    let s = Session::new();
    for which in Harness::ALL {
        let harness = which.name();
        let input = s.stop_of(which, &format!("cl-{harness}"));
        for mistake in [
            &["--max-blocks", "many"][..],
            &["--dri", "."],
            &["--timeout"],
        ] {
            let (run, out) = s.hook(harness, mistake, &input);
            assert_eq!(run.code, 0, "{harness} {mistake:?}: {}", run.stderr);
            assert!(
                !run.stdout.contains("Usage:") && !run.stderr.contains("Usage:"),
                "{harness}: {} {}",
                run.stdout,
                run.stderr
            );
            let message = match which {
                Harness::Cursor => out["followup_message"].as_str().unwrap(),
                _ => halted(&out),
            };
            assert!(
                message.contains("CONFIGURATION ERROR")
                    && message.contains("the hook's command line is wrong")
                    && message.contains(
                        mistake[0]
                            .trim_start_matches('-')
                            .split('-')
                            .next()
                            .unwrap()
                    ),
                "{harness} {mistake:?}: {message}"
            );
            // Where this harness's hook is set up, and its own project
            // variable: never another harness's.
            let (setting, variable) = match which {
                Harness::ClaudeCode => (".claude/settings.json", "$CLAUDE_PROJECT_DIR"),
                Harness::Codex => ("~/.codex/config.toml", "the hook input's `cwd`"),
                Harness::Cursor => (".cursor/hooks.json", "$CURSOR_PROJECT_DIR"),
                Harness::Gemini => (".gemini/settings.json", "$GEMINI_PROJECT_DIR"),
            };
            assert!(
                message.contains(setting) && message.contains(variable),
                "{harness}: {message}"
            );
            for other in [
                "CLAUDE_PROJECT_DIR",
                "CURSOR_PROJECT_DIR",
                "GEMINI_PROJECT_DIR",
            ] {
                assert!(
                    variable.contains(other) || !message.contains(other),
                    "{harness} names {other}: {message}"
                );
            }
        }
    }
}

/// `--max-blocks` bounds a turn: once a stop is let through (withheld or
/// accepted) the next turn has the whole budget again.
#[test]
fn the_block_budget_is_per_turn() {
    let s = Session::new();
    let stop = || s.codex_stop("turns-1");
    let args = ["--max-blocks", "2"];
    for n in 1..=2 {
        let (_, out) = s.hook("codex", &args, &stop());
        assert!(
            reason(&out).contains(&format!("blocked this stop: {n} of at most 2")),
            "{out}"
        );
    }
    let (_, out) = s.hook("codex", &args, &stop());
    let message = out["systemMessage"].as_str().unwrap();
    assert!(
        message.contains("WITHHELD, not accepted") && message.contains("after 2 blocked stop(s)"),
        "{message}"
    );
    // The next turn.
    let (_, out) = s.hook("codex", &args, &stop());
    assert!(
        reason(&out).contains("blocked this stop: 1 of at most 2"),
        "a new turn starts the count again: {out}"
    );
    // An accepted stop ends a turn too.
    s.root.write("REPORT.md", "# Report\n");
    let (_, out) = s.hook("codex", &args, &stop());
    assert!(out["systemMessage"].as_str().unwrap().contains("accepted"));
    std::fs::remove_file(s.root.path().join("REPORT.md")).unwrap();
    let (_, out) = s.hook("codex", &args, &stop());
    assert!(
        reason(&out).contains("blocked this stop: 1 of at most 2"),
        "{out}"
    );
}

/// A check that runs past --timeout is a stop not accepted like any
/// other: it counts against --max-blocks, so a contract that never
/// finishes cannot hold the agent forever (main blocked it every time).
#[test]
fn a_check_past_the_timeout_counts_against_the_block_budget() {
    let s = Session::new();
    s.root.write(
        "contract.yaml",
        format!(
            "vcc: 1\nid: slow\ndeliverables:\n  - {{ id: report, path: REPORT.md, required: false }}\nvalidators:\n  loop: {{ component: {:?} }}\ncriteria:\n  - {{ id: SPINS, severity: must, validator: loop, targets: [report], limits: {{ timeout: 120s }} }}\n",
            fixtures::INFINITE_LOOP
        ),
    );
    let args = ["--timeout", "2s", "--max-blocks", "1"];
    let (run, out) = s.hook("codex", &args, &s.codex_stop("slow-1"));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = reason(&out);
    assert!(
        text.contains("did not finish within --timeout 2s")
            && text.contains("blocked this stop: 1 of at most 1"),
        "{text}"
    );
    let (run, out) = s.hook("codex", &args, &s.codex_stop("slow-1"));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(out.get("decision").is_none(), "{out}");
    let message = out["systemMessage"].as_str().unwrap();
    assert!(
        message.contains("WITHHELD, not accepted")
            && message.contains("could not judge the work")
            && message.contains("after 1 blocked stop(s)"),
        "{message}"
    );
}

/// Only a stop is judged. A hook wired to another event (or input that
/// names none) is not judged, and not answered with a verdict: main
/// judged a PreToolUse as if it were a stop, blocking tool calls.
#[test]
fn only_stop_events_are_judged() {
    let s = Session::new();
    // The contract is met: judging would let the stop through, accepted.
    s.root.write("REPORT.md", "# Report\n");
    let mut claude = s.claude_stop("ev-1", s.root.path());
    claude["hook_event_name"] = json!("PreToolUse");
    claude["tool_name"] = json!("Bash");
    let mut codex = s.codex_stop("ev-2");
    codex["hook_event_name"] = json!("UserPromptSubmit");
    let mut cursor = s.cursor_stop("ev-3", "completed");
    cursor["hook_event_name"] = json!("subagentStop");
    let mut gemini = s.gemini_after_agent("ev-4");
    gemini["hook_event_name"] = json!("BeforeTool");
    for (harness, input, event) in [
        ("claude-code", claude, "PreToolUse"),
        ("codex", codex, "UserPromptSubmit"),
        ("cursor", cursor, "subagentStop"),
        ("gemini", gemini, "BeforeTool"),
    ] {
        let (run, out) = s.hook(harness, &[], &input);
        assert_eq!(run.code, 0, "{harness}: {}", run.stderr);
        let message = match harness {
            "cursor" => out["followup_message"].as_str().unwrap(),
            _ => halted(&out),
        };
        assert!(
            message.contains(&format!("was run for a `{event}` event"))
                && !message.contains("agent-task accepted"),
            "{harness}: {message}"
        );
    }
    // An input that names no event is not a stop hook's: refused, blocked.
    let mut nameless = s.claude_stop("ev-5", s.root.path());
    nameless.as_object_mut().unwrap().remove("hook_event_name");
    let (run, out) = s.hook("claude-code", &[], &nameless);
    assert_eq!(run.code, 2, "{out}");
    assert!(run.stderr.contains("hook_event_name"), "{}", run.stderr);
}

/// An advisory contract reports and never accepts: blocking the stop
/// would ask for an acceptance that cannot come (main blocked until
/// --max-blocks). The stop goes on, with the report, and nothing is
/// accepted.
#[test]
fn an_advisory_contract_lets_the_stop_through_with_its_report() {
    let s = Session::new();
    s.root.write(
        "contract.yaml",
        CONTRACT.replace("id: agent-task\n", "id: research\nadvisory: true\n"),
    );
    let (run, out) = s.hook("codex", &[], &s.codex_stop("adv-1"));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(out.get("decision").is_none(), "{out}");
    let message = out["systemMessage"].as_str().unwrap();
    assert!(
        message.contains("contract research: an advisory contract reports and never accepts: nothing is accepted and nothing is blocked")
            && message.contains("the stop goes on, with the report")
            && message.contains("### REPORT (MUST, fail)"),
        "{message}"
    );
}

/// The hook's state (the pinned contract, the blocks) in a cache folder
/// inside the project, where the agent can write it: main judged on,
/// and an agent that deleted the state and weakened the contract was
/// ACCEPTED by the contract it wrote. Refused at the first stop.
#[test]
fn forgery_host_hook_state_inside_the_project() {
    let s = Session::new();
    let cache = s.root.path().join(".cache/vcc");
    let stop = || {
        let mut child = Command::new(env!("CARGO_BIN_EXE_vcc"))
            .args([
                "hook",
                "claude-code",
                "--contract",
                "contract.yaml",
                "--dir",
                "out",
            ])
            .current_dir("/")
            .env("VCC_CACHE_DIR", &cache)
            .env("CLAUDE_PROJECT_DIR", s.root.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let input = s.claude_stop("state-1", s.root.path()).to_string();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        finish(child)
    };
    std::fs::create_dir_all(s.root.path().join("out")).unwrap();
    let (run, out) = stop();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let message = halted(&out);
    assert!(
        message.contains("is inside the project folder"),
        "{message}"
    );
    // The agent's move: forget the session's pin, lower the contract.
    let _ = std::fs::remove_dir_all(cache.join("hooks"));
    s.root.write(
        "contract.yaml",
        "vcc: 1\nid: agent-task\ndeliverables:\n  - { id: notes, path: NOTES.md }\nvalidators:\n  exists: { component: std/file-exists }\ncriteria:\n  - { id: NOTES, severity: must, validator: exists, targets: [notes] }\n",
    );
    s.root.write("out/NOTES.md", "done\n");
    let (_, out) = stop();
    halted(&out);
}

/// The book's settings snippets are the configuration tested here: every
/// `vcc hook` command in them parses, names no `--dir .` (the folder the
/// agent stands in), and judges a stop of its harness on the project laid
/// out as the book says, whatever folder the agent stopped in.
#[test]
fn the_books_hook_commands_judge_the_project() {
    let book = std::fs::read_to_string(crate::repo().join("docs/src/guide/agents.md")).unwrap();
    let commands: Vec<Vec<String>> = book
        .lines()
        .filter(|l| l.contains("\"command\"") || l.trim_start().starts_with("command ="))
        .filter_map(|l| {
            let rest = &l[l.find("vcc hook ")?..];
            let end = rest.find('"').unwrap_or(rest.len());
            Some(rest[..end].split_whitespace().map(String::from).collect())
        })
        .collect();
    assert!(commands.len() >= 5, "{commands:?}");
    for words in commands {
        assert!(
            !words.windows(2).any(|w| w[0] == "--dir" && w[1] == "."),
            "{words:?}"
        );
        let s = Session::new();
        s.root
            .write(".vcc/contract.yaml", format!("root: ..\n{CONTRACT}"));
        s.root
            .write(".vcc/review.yaml", format!("root: ..\n{REVIEW}"));
        s.root.write("src/lib.rs", "\n");
        let deeper = s.root.path().join("src");
        let harness = words[2].as_str();
        let (input, var) = match harness {
            "claude-code" => (s.claude_stop("book-1", &deeper), Some("CLAUDE_PROJECT_DIR")),
            "codex" => (s.codex_stop("book-2"), None),
            "cursor" => {
                let mut i = s.cursor_stop("book-3", "completed");
                i["workspace_roots"] = json!([deeper]);
                (i, Some("CURSOR_PROJECT_DIR"))
            }
            "gemini" => (s.gemini_after_agent("book-4"), Some("GEMINI_PROJECT_DIR")),
            other => panic!("{other}"),
        };
        let mut command = Command::new(env!("CARGO_BIN_EXE_vcc"));
        command
            .args(&words[1..])
            .current_dir(&deeper)
            .env("VCC_CACHE_DIR", s.cache.path());
        for v in [
            "CLAUDE_PROJECT_DIR",
            "CURSOR_PROJECT_DIR",
            "GEMINI_PROJECT_DIR",
        ] {
            command.env_remove(v);
        }
        if let Some(var) = var {
            command.env(var, s.root.path());
        }
        let mut child = command
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
        let (run, out) = finish(child);
        assert_eq!(run.code, 0, "{words:?}: {}", run.stderr);
        let text = match harness {
            "cursor" => out["followup_message"].as_str().unwrap().to_string(),
            "gemini" => {
                assert_eq!(out["decision"], "deny", "{words:?}: {out}");
                out["reason"].as_str().unwrap().to_string()
            }
            _ => reason(&out).to_string(),
        };
        assert!(
            text.contains("### REPORT (MUST, fail)"),
            "{words:?}: judged on the project: {text}"
        );
    }
}

/// Feedback shows a criterion's first findings; the rest are in the
/// report the hook wrote, which the feedback names (not `$VCC_FEEDBACK`,
/// which only `vcc converge` sets).
#[test]
fn the_hook_names_the_report_that_holds_every_finding() {
    let s = Session::new();
    s.root.write(
        "contract.yaml",
        "vcc: 1\nid: todos\ndeliverables:\n  - { id: report, path: REPORT.md }\nvalidators:\n  text: { component: std/text-match }\ncriteria:\n  - { id: NO-TODO, severity: must, validator: text, targets: [report], params: { must_not_match: ['TODO'] } }\n",
    );
    let lines: String = (1..=25).map(|i| format!("TODO item {i}\n")).collect();
    s.root.write("REPORT.md", &lines);
    let (run, out) = s.hook("codex", &[], &s.codex_stop("c-todo"));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(out["decision"], "block", "{out}");
    let reason = out["reason"].as_str().unwrap();
    assert!(!reason.contains("$VCC_FEEDBACK"), "{reason}");
    let said = reason
        .lines()
        .find(|l| l.contains("more finding(s) (all of them are in "))
        .unwrap_or_else(|| panic!("{reason}"));
    let path = said
        .split("(all of them are in ")
        .nth(1)
        .and_then(|p| p.strip_suffix(')'))
        .unwrap();
    assert!(
        Path::new(path).starts_with(std::fs::canonicalize(s.cache.path()).unwrap()),
        "in the hook's state folder, outside the project: {path}"
    );
    let report: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let row = &report["criteria"][0];
    assert_eq!(row["id"], "NO-TODO");
    assert_eq!(row["findings"].as_array().unwrap().len(), 25);
}
