//! `vcc hook claude-code`: a Claude Code Stop / SubagentStop hook. The
//! agent may stop when the contract is accepted; otherwise the stop is
//! blocked and the agent is handed the feedback, at most `--max-blocks`
//! times per session. Past that the stop is allowed, and the work is said
//! to be withheld: a hook never admits anything the contract did not.
//!
//! The contract is read at the first stop of a session and its bytes (with
//! its files and lock) are kept with the session's state, outside the
//! root: every later stop is judged by those bytes, so an agent that edits
//! the contract is not judged by its edit.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use serde::{Deserialize, Serialize};
use serde_json::json;
use vcc_contract::Sources;
use vcc_report::Verdict;
use vcc_report::converge::Feedback;
use vcc_runtime::{Cache, CheckOptions};

use crate::args::{Cli, HookArgs};
use crate::evaluate::Ready;
use crate::output::{print_stdout, write_atomically};
use crate::settings::runtime;

/// Where the session's transcript is offered to the contract, under the
/// deliverable root.
pub const TRANSCRIPT: &str = ".vcc/transcript.jsonl";
/// The hook's JSON input is small; a transcript is not.
const MAX_INPUT: u64 = 1 << 20;

/// What Claude Code sends that the hook uses. `stop_hook_active` (a stop
/// hook already made the agent go on) is ignored on purpose: the contract
/// decides, and --max-blocks bounds the loop.
#[derive(Deserialize)]
struct Input {
    session_id: String,
    #[serde(default)]
    transcript_path: Option<PathBuf>,
    /// The folder the agent works in; relative `--contract` and `--dir`
    /// are resolved against it (hooks run from elsewhere).
    #[serde(default)]
    cwd: Option<PathBuf>,
}

/// Kept per session in the cache folder.
#[derive(Default, Serialize, Deserialize)]
struct Session {
    blocks: u32,
    /// The contract as it was at the first stop: an agent that edits it
    /// is not judged by its own edit.
    #[serde(default)]
    pinned: Option<PinnedSources>,
}

/// [`Sources`], kept as JSON (bytes in base64).
#[derive(Serialize, Deserialize)]
struct PinnedSources {
    path: PathBuf,
    contract: String,
    files: std::collections::BTreeMap<String, String>,
    /// `null`: no lock; `{"bytes": …}` or `{"error": …}`.
    lock: serde_json::Value,
}

impl PinnedSources {
    fn of(s: &Sources) -> PinnedSources {
        PinnedSources {
            path: s.path.clone(),
            contract: B64.encode(&s.contract),
            files: s
                .files
                .iter()
                .map(|(p, b)| (p.clone(), B64.encode(b)))
                .collect(),
            lock: match &s.lock {
                Ok(None) => serde_json::Value::Null,
                Ok(Some(b)) => json!({ "bytes": B64.encode(b) }),
                Err(e) => json!({ "error": e }),
            },
        }
    }

    fn sources(&self) -> Result<Sources, String> {
        let bytes = |t: &str| B64.decode(t).map_err(|e| format!("session state: {e}"));
        let mut files = std::collections::BTreeMap::new();
        for (p, b) in &self.files {
            files.insert(p.clone(), bytes(b)?);
        }
        let lock = match (&self.lock["bytes"], &self.lock["error"]) {
            (serde_json::Value::String(b), _) => Ok(Some(bytes(b)?)),
            (_, serde_json::Value::String(e)) => Err(e.clone()),
            _ => Ok(None),
        };
        Ok(Sources {
            path: self.path.clone(),
            contract: bytes(&self.contract)?,
            files,
            lock,
            mapping: Default::default(),
        })
    }
}

pub fn claude_code(cli: &Cli, args: &HookArgs) -> i32 {
    let input = match read_input() {
        Ok(input) => input,
        Err(why) => {
            // Exit 1: Claude Code shows this to the user and lets the stop
            // go on; nothing is admitted.
            eprintln!("vcc hook claude-code: {why}");
            return 1;
        }
    };
    let Some(state_path) = state_path(cli, &input.session_id) else {
        eprintln!(
            "vcc hook claude-code: no folder for the session state: set VCC_CACHE_DIR or --cache-dir"
        );
        return 1;
    };
    let mut session: Session = std::fs::read(&state_path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let rt = match runtime(cli) {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let recorder = match args.ledger.recorder() {
        Ok(r) => r,
        Err(why) => return configuration_error(&why),
    };
    let base = base_folder(&input);
    let contract = against(&base, &args.contract);
    let dir = args.dir.as_deref().map(|d| against(&base, d));

    let mut options = CheckOptions::default();
    let mut attach_note = None;
    if let Some(path) = &input.transcript_path {
        match crate::attach::read(TRANSCRIPT, &against(&base, path)) {
            Ok(file) => options.attached.push(file),
            Err(e) => {
                attach_note = Some(format!(
                    "the transcript could not be attached ({e}), so it is not offered to the contract"
                ))
            }
        }
    }

    // The contract this session is judged by: pinned at its first stop.
    let pinned = session.pinned.as_ref().map(PinnedSources::sources);
    let ready = match pinned {
        Some(Ok(sources)) => Ready::from_sources(&rt, sources, dir.as_deref(), &args.gate),
        Some(Err(why)) => {
            return configuration_error(&format!(
                "the contract pinned for this session cannot be read back ({why}); start a new session"
            ));
        }
        None => Ready::read(&rt, &contract, dir.as_deref(), &args.gate),
    };
    let ready = match ready {
        Ok(ready) => ready,
        Err(report) => {
            // The agent cannot fix its hook's configuration: say so to the
            // human, once, instead of blocking the agent with it.
            return configuration_error(&format!("{} ({})", report.reason, contract.display()));
        }
    };
    if session.pinned.is_none() {
        session.pinned = Some(PinnedSources::of(&ready.sources));
    }
    let edited = ready.sources.unchanged_on_disk().err();
    let mut report = ready.check(&rt, options).report;
    if let Some(recorder) = &recorder {
        recorder.check(vcc_ledger::Kind::Hook, &mut report);
        if report.ledger.is_none() {
            return configuration_error(&report.reason);
        }
    }
    if report.verdict == Verdict::Invalid && !report.problems.is_empty() {
        return configuration_error(&format!(
            "{}: {} ({})",
            contract.display(),
            report.reason,
            report
                .problems
                .iter()
                .filter(|p| p.is_error())
                .map(|p| format!("{}: {}", p.code.as_str(), p.message))
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    let name = ready.id().to_string();
    let edit_note = edited.as_ref().map(|what| {
        format!(
            "the contract changed during this session ({what}); it is judged as it was at the session's first stop"
        )
    });

    let output = if report.verdict == Verdict::Accepted {
        let mut message = format!("vcc: contract {name} accepted: {}", report.reason);
        if let Some(note) = &edit_note {
            message.push_str(&format!(" (note: {note})"));
        }
        json!({ "systemMessage": message })
    } else if session.blocks >= args.max_blocks {
        json!({ "systemMessage": format!(
            "vcc: the work is WITHHELD, not accepted: contract {name} is {} after {} blocked stop(s) (--max-blocks {}). {}",
            report.verdict.as_str(),
            session.blocks,
            args.max_blocks,
            report.reason
        ) })
    } else {
        session.blocks += 1;
        let mut reason = Feedback::of(&report, None, session.blocks).markdown();
        for note in attach_note.iter().chain(&edit_note) {
            reason.push_str(&format!("\nNote: {note}.\n"));
        }
        reason.push_str(&format!(
            "\n(vcc blocked this stop: {} of at most {}. Keep working until the contract is accepted.)\n",
            session.blocks, args.max_blocks
        ));
        json!({ "decision": "block", "reason": reason })
    };
    if let Err(e) = save(&state_path, &session) {
        eprintln!(
            "vcc hook claude-code: the session state cannot be kept in {}: {e}",
            state_path.display()
        );
        return 1;
    }
    print_stdout(&format!("{output}\n"));
    0
}

/// A hook that cannot judge because of how it is set up: the agent is not
/// blocked with something it cannot fix; the session stops and the human
/// is told (stderr and the message Claude Code shows). Nothing is accepted.
fn configuration_error(why: &str) -> i32 {
    let message = format!(
        "vcc hook: CONFIGURATION ERROR, the work is NOT accepted: {why}. Fix the hook's --contract/--dir (relative paths are resolved against the session's cwd, then $CLAUDE_PROJECT_DIR) or the contract, then run `vcc check` on the work."
    );
    eprintln!("{message}");
    print_stdout(&format!(
        "{}\n",
        json!({ "continue": false, "stopReason": message, "systemMessage": message })
    ));
    0
}

/// What relative paths of the hook's command line mean: the session's
/// `cwd`, else `$CLAUDE_PROJECT_DIR`, else the hook's own folder.
fn base_folder(input: &Input) -> PathBuf {
    input
        .cwd
        .clone()
        .filter(|p| p.is_absolute() && p.is_dir())
        .or_else(|| {
            std::env::var_os("CLAUDE_PROJECT_DIR")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute() && p.is_dir())
        })
        .unwrap_or_else(|| PathBuf::from("."))
}

fn against(base: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

fn read_input() -> Result<Input, String> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(MAX_INPUT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the hook's input on stdin: {e}"))?;
    if bytes.len() as u64 > MAX_INPUT {
        return Err(format!("the hook's input is over {MAX_INPUT} bytes"));
    }
    let input: Input = serde_json::from_slice(&bytes).map_err(|e| {
        format!("the hook's input on stdin is not the JSON of a Claude Code Stop hook: {e}")
    })?;
    if input.session_id.is_empty() {
        return Err("the hook's input has an empty session_id".into());
    }
    Ok(input)
}

/// The state file of a session: named by a digest, so a session id
/// cannot name a path.
fn state_path(cli: &Cli, session: &str) -> Option<PathBuf> {
    let dir = cli.cache_dir.clone().or_else(Cache::default_dir)?;
    let name = blake3::hash(session.as_bytes()).to_hex();
    Some(
        dir.join("hooks")
            .join("claude-code")
            .join(format!("{}.json", &name[..32])),
    )
}

fn save(path: &Path, session: &Session) -> std::io::Result<()> {
    let text = serde_json::to_string(session).map_err(std::io::Error::other)?;
    write_atomically(path, text.as_bytes())
}
