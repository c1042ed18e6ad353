//! What each harness sends a stop hook, and how it reads the answer.
//!
//! | harness | event | blocks the stop | on the hook's own failure |
//! |---|---|---|---|
//! | Claude Code | Stop, SubagentStop | exit 0 + `{"decision":"block","reason"}`, or exit 2 + stderr | any other exit, a crash or a timeout lets the stop through |
//! | Codex | Stop, SubagentStop | exit 0 + `{"decision":"block","reason"}` (a non-empty reason), or exit 2 + non-empty stderr | the same |
//! | Cursor | stop | exit 0 + `{"followup_message"}` (sent as the next user message, up to the hook's `loop_limit`) | the same |
//! | Gemini CLI | AfterAgent | exit 0 + `{"decision":"deny","reason"}` (the reason is the next prompt), or exit 2 + stderr | any other exit is a warning and the turn ends |
//!
//! So every harness fails open when its hook fails. vcc never lets its
//! own failure reach the harness: the judging runs in a worker process,
//! and whatever the worker does — crash, panic, be killed, run past
//! `--timeout`, print nothing — the hook answers with a block.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A stop, as the harness described it.
pub struct Stop {
    pub session: String,
    /// `hook_event_name`: only a stop event ([`Harness::stop_events`]) is
    /// judged.
    pub event: String,
    /// The folder the event names: Claude Code's, Codex's and Gemini CLI's
    /// `cwd`, Cursor's first `workspace_roots`. Where the agent stands may
    /// be a folder it wrote, so this is read only at a session's first
    /// stop, when the harness gives no project folder of its own
    /// ([`Harness::project_vars`]).
    pub cwd: Option<PathBuf>,
    /// The session's transcript, when the harness names one (an empty
    /// path, Gemini CLI's when it records none, is none).
    pub transcript: Option<PathBuf>,
    pub subagent: Option<Subagent>,
    /// Cursor's `status: aborted`: the user stopped the agent.
    pub aborted: Option<String>,
}

/// Whose stop a SubagentStop is.
pub struct Subagent {
    pub kind: String,
    pub id: String,
}

/// What the hook answers, in words the harness renders.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "decision", content = "message", rename_all = "snake_case")]
pub enum Decision {
    /// The stop may go on; the message is for the human.
    Allow(String),
    /// The agent keeps working; the message is its feedback.
    Block(String),
    /// The hook is set up wrong: the agent cannot fix that. The session
    /// stops and the human is told; nothing is accepted.
    Halt(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Harness {
    ClaudeCode,
    Codex,
    Cursor,
    Gemini,
}

/// What Claude Code and Codex send: the same shape (Codex adds `turn_id`
/// and `model`; SubagentStop adds `agent_id`, `agent_type` and
/// `agent_transcript_path`). `stop_hook_active` is ignored on purpose: the
/// contract decides, and --max-blocks bounds the loop.
#[derive(Deserialize)]
struct ClaudeInput {
    session_id: String,
    #[serde(default)]
    transcript_path: Option<PathBuf>,
    #[serde(default)]
    cwd: Option<PathBuf>,
    hook_event_name: String,
    #[serde(default)]
    agent_id: Option<String>,
    #[serde(default)]
    agent_type: Option<String>,
    #[serde(default)]
    agent_transcript_path: Option<PathBuf>,
}

/// What Cursor sends its `stop` hook.
#[derive(Deserialize)]
struct CursorInput {
    conversation_id: String,
    hook_event_name: String,
    #[serde(default)]
    workspace_roots: Vec<PathBuf>,
    #[serde(default)]
    transcript_path: Option<PathBuf>,
    /// `completed`, `aborted` or `error`.
    #[serde(default)]
    status: Option<String>,
}

impl Harness {
    /// Every harness: `vcc hook NAME` has a subcommand for each, and the
    /// tests and the fuzz target go through this list. A new harness is a
    /// variant and its arms in this file.
    pub const ALL: [Harness; 4] = [
        Harness::ClaudeCode,
        Harness::Codex,
        Harness::Cursor,
        Harness::Gemini,
    ];

    /// Its name on the command line: `vcc hook NAME`.
    pub fn name(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "claude-code",
            Harness::Codex => "codex",
            Harness::Cursor => "cursor",
            Harness::Gemini => "gemini",
        }
    }

    /// What `vcc hook NAME --help` says the hook is.
    pub fn about(self) -> &'static str {
        match self {
            Harness::ClaudeCode => {
                "A Claude Code Stop/SubagentStop hook: reads the hook's JSON on stdin, checks the \
                 contract (with the session's transcript attached at .vcc/transcript.jsonl), and \
                 blocks the stop with the feedback until the contract is accepted"
            }
            Harness::Codex => {
                "A Codex Stop/SubagentStop hook (the same protocol: `decision: block` with the \
                 feedback as the reason continues the turn)"
            }
            Harness::Cursor => {
                "A Cursor `stop` hook: the feedback goes back as the next user message \
                 (`followup_message`), within the hook's `loop_limit`"
            }
            Harness::Gemini => {
                "A Gemini CLI `AfterAgent` hook: `decision: deny` with the feedback as the reason, \
                 which Gemini CLI sends as the next prompt"
            }
        }
    }

    /// The harness `vcc hook NAME` names.
    pub fn from_name(name: &str) -> Option<Harness> {
        Harness::ALL.into_iter().find(|h| h.name() == name)
    }

    /// The events a stop hook of this harness judges (`hook_event_name`).
    pub fn stop_events(self) -> &'static [&'static str] {
        match self {
            Harness::ClaudeCode | Harness::Codex => &["Stop", "SubagentStop"],
            Harness::Cursor => &["stop"],
            Harness::Gemini => &["AfterAgent"],
        }
    }

    /// The environment variables in which the harness names the project
    /// folder of the session when it starts a hook, first the most
    /// specific. The agent cannot change them. Codex names none: its hook
    /// input's `cwd` is the session's folder, not where a command of the
    /// agent ran.
    pub fn project_vars(self) -> &'static [&'static str] {
        match self {
            Harness::ClaudeCode => &["CLAUDE_PROJECT_DIR"],
            Harness::Codex => &[],
            // Both also set CLAUDE_PROJECT_DIR, to the same folder.
            Harness::Cursor => &["CURSOR_PROJECT_DIR"],
            Harness::Gemini => &["GEMINI_PROJECT_DIR"],
        }
    }

    /// Where this harness's hook is set up, and the folder a relative path
    /// on its command line is resolved against: what a configuration
    /// error tells the person who set it up.
    pub fn setup(self) -> &'static str {
        match self {
            Harness::ClaudeCode => {
                "the Stop hook in .claude/settings.json (or ~/.claude/settings.json); relative paths are resolved against $CLAUDE_PROJECT_DIR as it was at the session's first stop"
            }
            Harness::Codex => {
                "the Stop hook in ~/.codex/config.toml or hooks.json (or the project's .codex/, in a trusted project); relative paths are resolved against the hook input's `cwd` at the session's first stop"
            }
            Harness::Cursor => {
                "the stop hook in .cursor/hooks.json (or ~/.cursor/hooks.json); relative paths are resolved against $CURSOR_PROJECT_DIR as it was at the session's first stop"
            }
            Harness::Gemini => {
                "the AfterAgent hook in .gemini/settings.json (or ~/.gemini/settings.json); relative paths are resolved against $GEMINI_PROJECT_DIR as it was at the session's first stop"
            }
        }
    }

    /// The harness's name, as its maker writes it.
    pub fn title(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "Claude Code",
            Harness::Codex => "Codex",
            Harness::Cursor => "Cursor",
            Harness::Gemini => "Gemini CLI",
        }
    }

    /// The stop event in `bytes`, or why it is not one.
    pub fn parse(self, bytes: &[u8]) -> Result<Stop, String> {
        let not = |e: serde_json::Error| {
            format!(
                "the hook's input on stdin is not the JSON of a {} stop hook: {e}",
                self.title()
            )
        };
        let mut stop = match self {
            // Gemini CLI's AfterAgent carries the same base fields
            // (`session_id`, `transcript_path`, `cwd`); it has no subagents.
            Harness::ClaudeCode | Harness::Codex | Harness::Gemini => {
                let i: ClaudeInput = serde_json::from_slice(bytes).map_err(not)?;
                let subagent = match i.hook_event_name.as_str() {
                    "SubagentStop" if self != Harness::Gemini => Some(Subagent {
                        kind: i.agent_type.unwrap_or_default(),
                        id: i.agent_id.unwrap_or_default(),
                    }),
                    _ => None,
                };
                Stop {
                    session: i.session_id,
                    event: i.hook_event_name,
                    cwd: i.cwd,
                    transcript: if subagent.is_some() {
                        i.agent_transcript_path.or(i.transcript_path)
                    } else {
                        i.transcript_path
                    },
                    subagent,
                    aborted: None,
                }
            }
            Harness::Cursor => {
                let i: CursorInput = serde_json::from_slice(bytes).map_err(not)?;
                Stop {
                    session: i.conversation_id,
                    event: i.hook_event_name,
                    cwd: i.workspace_roots.into_iter().next(),
                    transcript: i.transcript_path,
                    subagent: None,
                    aborted: i.status.filter(|s| s == "aborted"),
                }
            }
        };
        if stop.session.is_empty() {
            return Err("the hook's input has an empty session id".into());
        }
        // Gemini CLI sends "" when it records no session.
        stop.transcript = stop.transcript.filter(|p| !p.as_os_str().is_empty());
        Ok(stop)
    }

    /// The answer the harness reads: stdout, stderr, exit code.
    pub fn answer(self, decision: &Decision) -> (Option<Value>, Option<String>, i32) {
        match (self, decision) {
            (Harness::Cursor, Decision::Allow(m)) => (Some(json!({})), Some(m.clone()), 0),
            (Harness::Cursor, Decision::Block(r)) => {
                (Some(json!({ "followup_message": r })), None, 0)
            }
            // Cursor cannot end a session from a hook: the agent is told to
            // stop and hand the message to the user; nothing is accepted.
            (Harness::Cursor, Decision::Halt(m)) => (
                Some(
                    json!({ "followup_message": format!("{m}\n\nStop working and tell the user this message: it is about how the verifier is set up, and nothing you change in the work can fix it.") }),
                ),
                Some(m.clone()),
                0,
            ),
            (Harness::Gemini, Decision::Block(r)) => {
                (Some(json!({ "decision": "deny", "reason": r })), None, 0)
            }
            (_, Decision::Allow(m)) => (Some(json!({ "systemMessage": m })), None, 0),
            (_, Decision::Block(r)) => (Some(json!({ "decision": "block", "reason": r })), None, 0),
            (_, Decision::Halt(m)) => (
                Some(json!({ "continue": false, "stopReason": m, "systemMessage": m })),
                Some(m.clone()),
                0,
            ),
        }
    }

    /// The answer when the input itself cannot be read: a block, in the
    /// one form that needs no parsed input.
    pub fn refuse(self, why: &str) -> (Option<Value>, Option<String>, i32) {
        let message = format!(
            "vcc hook {}: {why}; the stop is blocked and nothing is accepted",
            self.name()
        );
        match self {
            // Exit 2 with the reason on stderr blocks a stop (Gemini CLI:
            // retries the turn with it) in all three.
            Harness::ClaudeCode | Harness::Codex | Harness::Gemini => (None, Some(message), 2),
            Harness::Cursor => (
                Some(json!({ "followup_message": message })),
                Some(message),
                0,
            ),
        }
    }
}
