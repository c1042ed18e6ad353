//! `vcc hook claude-code`: a Claude Code Stop / SubagentStop hook. The
//! agent may stop when the contract is accepted; otherwise the stop is
//! blocked and the agent is handed the feedback, at most `--max-blocks`
//! times per session. Past that the stop is allowed, and the work is said
//! to be withheld: a hook never admits anything the contract did not.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::json;
use vcc_report::Verdict;
use vcc_report::converge::Feedback;
use vcc_runtime::{Attached, Cache, CheckOptions};

use crate::args::{Cli, HookArgs};
use crate::commands::{evaluate, print_stdout, runtime, write_atomically};

/// Where the session's transcript is offered to the contract, under the
/// deliverable root.
pub const TRANSCRIPT: &str = ".vcc/transcript.jsonl";
/// The hook's JSON input is small; a transcript is not.
const MAX_INPUT: u64 = 1 << 20;
const MAX_TRANSCRIPT: u64 = 256 << 20;

/// What Claude Code sends that the hook uses. `stop_hook_active` (a stop
/// hook already made the agent go on) is ignored on purpose: the contract
/// decides, and --max-blocks bounds the loop.
#[derive(Deserialize)]
struct Input {
    session_id: String,
    #[serde(default)]
    transcript_path: Option<PathBuf>,
}

/// Kept per session in the cache folder.
#[derive(Default, Serialize, Deserialize)]
struct Session {
    blocks: u32,
    /// The contract as it was at the first stop: an agent that edits it
    /// is not judged by its own edit.
    contract_digest: Option<String>,
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
    let mut options = CheckOptions::default();
    let mut attach_note = None;
    if let Some(path) = &input.transcript_path {
        match read_capped(path, MAX_TRANSCRIPT) {
            Ok(bytes) => options.attached.push(Attached {
                path: TRANSCRIPT.into(),
                source: path.display().to_string(),
                bytes: Arc::from(bytes),
            }),
            Err(e) => {
                attach_note = Some(format!(
                    "the transcript {} could not be read ({e}), so it is not offered to the contract",
                    path.display()
                ))
            }
        }
    }
    let report = evaluate(
        &rt,
        &args.contract,
        args.dir.as_deref(),
        &args.gate,
        options,
    )
    .report;
    // The first readable contract of the session is the one it is judged by.
    let digest = report.contract.digest.clone();
    if session.contract_digest.is_none() {
        session.contract_digest = digest.clone();
    }
    let contract_changed = session.contract_digest != digest;
    let name = report
        .contract
        .id
        .clone()
        .unwrap_or_else(|| args.contract.display().to_string());

    let output = if report.verdict == Verdict::Accepted && !contract_changed {
        json!({ "systemMessage": format!("vcc: contract {name} accepted: {}", report.reason) })
    } else if session.blocks >= args.max_blocks {
        json!({ "systemMessage": format!(
            "vcc: the work is WITHHELD, not accepted: contract {name} is {} after {} blocked stop(s) (--max-blocks {}). {}",
            if contract_changed { "changed" } else { report.verdict.as_str() },
            session.blocks,
            args.max_blocks,
            report.reason
        ) })
    } else {
        session.blocks += 1;
        let mut reason = if contract_changed {
            format!(
                "# vcc: the contract {} changed during this session\n\nIt is judged as it was when the session first stopped ({}). Restore it; the work is not accepted until then.\n",
                args.contract.display(),
                session.contract_digest.as_deref().unwrap_or("?")
            )
        } else {
            Feedback::of(&report, None, session.blocks).markdown()
        };
        if let Some(note) = &attach_note {
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

fn read_capped(path: &Path, cap: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(cap + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(std::io::Error::other(format!("over {cap} bytes")));
    }
    Ok(bytes)
}
