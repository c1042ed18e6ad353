//! `vcc hook claude-code|codex|cursor`: a stop hook that lets an agent
//! stop only when the contract is accepted. Otherwise the stop is blocked
//! and the agent is handed the feedback, at most `--max-blocks` times per
//! session; past that the stop is allowed, and the work is said to be
//! withheld: a hook never admits anything the contract did not. On a
//! SubagentStop, the contract named for that subagent's type
//! (`--subagent TYPE=CONTRACT`) judges what the subagent delivered before
//! the parent gets it.
//!
//! The contract is read at the first stop of a session and its bytes (with
//! its files and lock) are kept with the session's state, outside the
//! root: every later stop is judged by those bytes, so an agent that edits
//! the contract is not judged by its edit.
//!
//! Fail closed by construction: every harness lets a stop through when its
//! hook crashes, times out or prints nothing it understands. So the hook
//! process only reads the input and answers; the judging runs in a worker
//! (this binary again, with `VCC_HOOK_WORKER`), and a worker that panics, is
//! killed, runs past `--timeout` or prints no decision becomes a block
//! ([`vcc_report::harness`] says what blocks in each harness).

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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
pub use vcc_report::harness::{Decision, Harness, Stop};

/// Where the session's transcript is offered to the contract, under the
/// deliverable root.
pub const TRANSCRIPT: &str = ".vcc/transcript.jsonl";
/// The hook's JSON input is small; a transcript is not.
const MAX_INPUT: u64 = 1 << 20;
/// Set in the worker's environment (to the hook's pid): judge, and print
/// the decision.
const WORKER: &str = "VCC_HOOK_WORKER";

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

pub fn run(cli: &Cli, harness: Harness, args: &HookArgs) -> i32 {
    let bytes = match read_input() {
        Ok(b) => b,
        Err(why) => return answer(harness.refuse(&why)),
    };
    let stop = match harness.parse(&bytes) {
        Ok(stop) => stop,
        Err(why) => return answer(harness.refuse(&why)),
    };
    if is_worker() {
        let decision = judge(cli, harness, args, &stop);
        print_stdout(&format!("{}\n", json!(decision)));
        return 0;
    }
    let decision = match supervise(&bytes, args.timeout) {
        Ok(decision) => decision,
        Err(why) => Decision::Block(format!(
            "vcc could not judge the work: {why}. The stop is blocked and nothing is accepted; run `vcc check` on the work to see why, or tell the user if this repeats."
        )),
    };
    answer(harness.answer(&decision))
}

fn answer((stdout, stderr, code): (Option<serde_json::Value>, Option<String>, i32)) -> i32 {
    if let Some(message) = stderr {
        eprintln!("{message}");
    }
    if let Some(out) = stdout {
        print_stdout(&format!("{out}\n"));
    }
    code
}

/// Run the worker (this binary, same arguments) on the input; its
/// decision, or why there is none.
fn supervise(input: &[u8], timeout: Duration) -> Result<Decision, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the vcc binary: {e}"))?;
    let mut cmd = Command::new(exe);
    cmd.args(std::env::args_os().skip(1))
        .env(WORKER, std::process::id().to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    // Its own process group: on a timeout, the worker and anything it
    // started are stopped together.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start the checking process: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        // A worker that dies before reading is seen at wait().
        let _ = stdin.write_all(input);
    }
    let stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(mut s) = stdout {
            let _ = s.read_to_end(&mut out);
        }
        out
    });
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                kill_group(&mut child);
                return Err(format!(
                    "the check did not finish within --timeout {}",
                    humantime::format_duration(timeout)
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("cannot wait for the checking process: {e}")),
        }
    };
    let out = reader.join().unwrap_or_default();
    if !status.success() {
        return Err(match status.code() {
            Some(code) => format!("the checking process failed (exit {code})"),
            None => format!("the checking process was killed ({status})"),
        });
    }
    serde_json::from_slice(&out).map_err(|e| format!("the checking process gave no decision ({e})"))
}

/// A worker is started by a hook with `VCC_HOOK_WORKER` set to the
/// hook's pid: a variable left in some environment by accident does not
/// turn a hook into a worker (whose answer no harness reads).
fn is_worker() -> bool {
    std::env::var(WORKER)
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .is_some_and(|pid| pid == std::os::unix::process::parent_id())
}

fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        // SAFETY: kill(2) with a negative pid signals the process group the
        // worker leads (process_group(0) above); it touches no memory.
        unsafe {
            libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The worker: judge the stop.
fn judge(cli: &Cli, harness: Harness, args: &HookArgs, stop: &Stop) -> Decision {
    if let Some(status) = &stop.aborted {
        return Decision::Allow(format!(
            "vcc: not judged: the user ended the agent's turn ({status}); nothing is accepted"
        ));
    }
    if let Some(bad) = args.subagent.iter().find(|s| !s.contains('=')) {
        return Decision::Halt(configuration_message(&format!(
            "--subagent {bad}: write TYPE=CONTRACT, e.g. --subagent code-reviewer=review.yaml"
        )));
    }
    let base = base_folder(stop);
    // A subagent is judged by the contract named for its type, if any.
    let contract = match &stop.subagent {
        Some(sub) => match args.subagent_contract(&sub.kind) {
            Some(path) => against(&base, &path),
            None => {
                return Decision::Allow(format!(
                    "vcc: subagent type `{}` has no contract (--subagent TYPE=CONTRACT); its work is judged with the session's at the session's stop",
                    sub.kind
                ));
            }
        },
        None => against(&base, &args.contract),
    };
    let Some(state_path) = state_path(cli, harness, stop) else {
        return Decision::Halt(configuration_message(
            "no folder for the session state: set VCC_CACHE_DIR or --cache-dir",
        ));
    };
    let mut session: Session = std::fs::read(&state_path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let rt = match runtime(cli) {
        Ok(rt) => rt,
        Err(_) => {
            return Decision::Halt(configuration_message(
                "the runtime could not start (see stderr)",
            ));
        }
    };
    let recorder = match args.ledger.recorder() {
        Ok(r) => r,
        Err(why) => return Decision::Halt(configuration_message(&why)),
    };
    let dir = args.dir.as_deref().map(|d| against(&base, d));

    let mut options = CheckOptions::default();
    let mut attach_note = None;
    if let Some(path) = &stop.transcript {
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
            return Decision::Halt(configuration_message(&format!(
                "the contract pinned for this session cannot be read back ({why}); start a new session"
            )));
        }
        None => Ready::read(&rt, &contract, dir.as_deref(), &args.gate),
    };
    let ready = match ready {
        Ok(ready) => ready,
        Err(report) => {
            return Decision::Halt(configuration_message(&format!(
                "{} ({})",
                report.reason,
                contract.display()
            )));
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
            return Decision::Halt(configuration_message(&report.reason));
        }
    }
    if report.verdict == Verdict::Invalid && !report.problems.is_empty() {
        return Decision::Halt(configuration_message(&format!(
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
        )));
    }
    let name = ready.id().to_string();
    let whose = stop
        .subagent
        .as_ref()
        .map(|s| format!(" (subagent `{}`)", s.kind))
        .unwrap_or_default();
    let edit_note = edited.as_ref().map(|what| {
        format!(
            "the contract changed during this session ({what}); it is judged as it was at the session's first stop"
        )
    });

    let decision = if report.verdict == Verdict::Accepted {
        let mut message = format!("vcc: contract {name}{whose} accepted: {}", report.reason);
        if let Some(note) = &edit_note {
            message.push_str(&format!(" (note: {note})"));
        }
        Decision::Allow(message)
    } else if session.blocks >= args.max_blocks {
        Decision::Allow(format!(
            "vcc: the work is WITHHELD, not accepted: contract {name}{whose} is {} after {} blocked stop(s) (--max-blocks {}). {}",
            report.verdict.as_str(),
            session.blocks,
            args.max_blocks,
            report.reason
        ))
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
        Decision::Block(reason)
    };
    if let Err(e) = save(&state_path, &session) {
        return Decision::Block(format!(
            "vcc could not keep the session state in {}: {e}. The stop is blocked and nothing is accepted.",
            state_path.display()
        ));
    }
    decision
}

/// A hook that cannot judge because of how it is set up: the agent is not
/// blocked with something it cannot fix; the human is told. Nothing is
/// accepted.
fn configuration_message(why: &str) -> String {
    format!(
        "vcc hook: CONFIGURATION ERROR, the work is NOT accepted: {why}. Fix the hook's --contract/--dir/--subagent (relative paths are resolved against the session's cwd, then $CLAUDE_PROJECT_DIR) or the contract, then run `vcc check` on the work."
    )
}

/// What relative paths of the hook's command line mean: the session's
/// `cwd`, else `$CLAUDE_PROJECT_DIR`, else the hook's own folder.
fn base_folder(stop: &Stop) -> PathBuf {
    stop.cwd
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

fn read_input() -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(MAX_INPUT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the hook's input on stdin: {e}"))?;
    if bytes.len() as u64 > MAX_INPUT {
        return Err(format!("the hook's input is over {MAX_INPUT} bytes"));
    }
    Ok(bytes)
}

/// The state file of a session (and subagent): named by a digest, so a
/// session id cannot name a path.
fn state_path(cli: &Cli, harness: Harness, stop: &Stop) -> Option<PathBuf> {
    let dir = cli.cache_dir.clone().or_else(Cache::default_dir)?;
    let mut key = stop.session.clone();
    if let Some(sub) = &stop.subagent {
        key.push_str(&format!("\0{}\0{}", sub.kind, sub.id));
    }
    let name = blake3::hash(key.as_bytes()).to_hex();
    Some(
        dir.join("hooks")
            .join(harness.name())
            .join(format!("{}.json", &name[..32])),
    )
}

fn save(path: &Path, session: &Session) -> std::io::Result<()> {
    let text = serde_json::to_string(session).map_err(std::io::Error::other)?;
    write_atomically(path, text.as_bytes())
}
