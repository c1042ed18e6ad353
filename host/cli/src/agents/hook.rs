//! `vcc hook HARNESS` (each of `Harness::ALL`): a stop hook that lets an
//! agent stop only when the contract is accepted. Otherwise the stop is
//! blocked and the agent is handed the feedback, at most `--max-blocks`
//! times in a turn; past that the stop is allowed, and the work is said to
//! be withheld: a hook never admits anything the contract did not. On a
//! SubagentStop, the contract named for that subagent's type
//! (`--subagent TYPE=CONTRACT`) judges what the subagent delivered before
//! the parent gets it. Only stop events are judged; a hook wired to any
//! other event is a configuration error.
//!
//! What a session is judged by is fixed at its first stop, from what the
//! harness says, never from where the agent stands: the project folder
//! (the harness's project variable, else the first stop's folder), the
//! contract's bytes (with its files and lock) and the deliverable root
//! resolved against it are kept with the session's state, outside the
//! project ([`state`]). An agent that edits the contract, or stops in a
//! folder it wrote, is still judged by the first stop's contract on the
//! first stop's root.
//!
//! Fail closed by construction: every harness lets a stop through when its
//! hook crashes, times out or prints nothing it understands. So the hook
//! process only reads the input and answers; the judging runs in a worker
//! (this binary again, with `VCC_HOOK_WORKER`), and a worker that panics, is
//! killed, runs past `--timeout` or prints no decision becomes a block
//! ([`vcc_report::harness`] says what blocks in each harness). The hook,
//! not the worker, counts the blocks, so those count too.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::json;
use vcc_report::Verdict;
use vcc_report::converge::Feedback;
use vcc_runtime::{CheckOptions, Reserved};

use crate::args::{Cli, HookArgs};
use crate::checking::evaluate::Ready;
use crate::output::print_stdout;
use crate::settings::runtime;
pub use vcc_report::harness::{Decision, Harness, Stop};

mod state;

use state::{PinnedSources, State};

/// Where the session's transcript is offered to the contract, under the
/// deliverable root.
pub const TRANSCRIPT: &str = ".vcc/transcript.jsonl";
/// The hook's JSON input is small; a transcript is not.
const MAX_INPUT: u64 = 1 << 20;
/// Set in the worker's environment (to the hook's pid): judge, and print
/// the decision.
const WORKER: &str = "VCC_HOOK_WORKER";

/// What the worker found. The hook turns it into the harness's answer and
/// keeps the count of blocked stops.
#[derive(Serialize, Deserialize)]
#[serde(tag = "judged", rename_all = "snake_case")]
enum Judged {
    /// Accepted: the stop goes on.
    Accepted { message: String },
    /// The stop goes on without an acceptance (an advisory contract, a
    /// turn the user aborted, a subagent no contract is named for).
    Allow { message: String },
    /// The hook is set up wrong: nothing the agent changes can fix it.
    Halt { message: String },
    /// Not accepted: the agent's feedback, and the verdict in a line for
    /// the person when the turn's blocks are spent.
    NotAccepted { feedback: String, summary: String },
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
        let judged = work(cli, harness, args, &stop);
        print_stdout(&format!("{}\n", json!(judged)));
        return 0;
    }
    answer(harness.answer(&decide(cli, harness, args, &bytes, &stop)))
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

/// The harness named by `vcc … hook HARNESS …` on this process's command
/// line, if any.
pub fn harness_in_args() -> Option<Harness> {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    let at = args.iter().position(|a| a == "hook")?;
    Harness::from_name(args.get(at + 1)?.to_str()?)
}

/// A `vcc hook HARNESS` command line that cannot be parsed: answered in
/// the harness's protocol as a configuration error. clap's usage text
/// would be no answer at all to Cursor (it lets the stop through), and a
/// block the agent cannot lift to the others.
pub fn command_line_mistake(harness: Harness, err: &clap::Error) -> i32 {
    // Read what the harness sends, so that it is not cut off while writing.
    if !std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        let _ = read_input();
    }
    let text = err.render().to_string();
    let what: Vec<&str> = text
        .split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty() && !p.starts_with("Usage:") && !p.starts_with("For more"))
        .collect();
    let what = what
        .join("; ")
        .trim_start_matches("error: ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    answer(harness.answer(&Decision::Halt(configuration_message(
        harness,
        &format!(
            "the hook's command line is wrong: {what} (see `vcc hook {} --help`)",
            harness.name()
        ),
    ))))
}

/// The hook: pin the session's project folder, have a worker judge the
/// stop, and answer, counting the turn's blocks.
fn decide(cli: &Cli, harness: Harness, args: &HookArgs, input: &[u8], stop: &Stop) -> Decision {
    let events = harness.stop_events();
    if !events.contains(&stop.event.as_str()) {
        return Decision::Halt(configuration_message(
            harness,
            &format!(
                "`vcc hook {}` was run for a `{}` event, and judges only {}: wire it to {} alone",
                harness.name(),
                stop.event,
                events.join(" and "),
                if events.len() > 1 { "those" } else { "that" }
            ),
        ));
    }
    let state = match State::open(cli, harness, stop) {
        Ok(state) => state,
        Err(why) => return Decision::Halt(configuration_message(harness, &why)),
    };
    let judged = supervise(input, args.timeout, &state.project);
    // Read after the worker ran: it pins the contract at a first stop.
    let mut session = match state.load() {
        Ok(session) => session,
        Err(why) => return Decision::Halt(configuration_message(harness, &why)),
    };
    let decision = match judged {
        Ok(Judged::Accepted { message } | Judged::Allow { message }) => {
            // The turn ends: the next one has the whole budget.
            session.blocks = 0;
            Decision::Allow(message)
        }
        Ok(Judged::Halt { message }) => return Decision::Halt(message),
        Ok(Judged::NotAccepted { feedback, summary }) => {
            spend(&mut session, args.max_blocks, feedback, summary)
        }
        // A check that crashed, was killed or ran out of time is a stop
        // not accepted like any other: it counts against the budget, so a
        // contract that always times out cannot hold the agent forever.
        Err(why) => spend(
            &mut session,
            args.max_blocks,
            format!(
                "vcc could not judge the work: {why}. The stop is blocked and nothing is accepted; run `vcc check` on the work to see why, or tell the user if this repeats.\n"
            ),
            format!("vcc could not judge the work ({why})"),
        ),
    };
    if let Err(why) = state.save(&session) {
        return Decision::Halt(configuration_message(harness, &why));
    }
    decision
}

/// A stop not accepted: blocked while the turn has blocks left, else let
/// through as withheld (the count starts again with the next turn).
fn spend(session: &mut state::Session, max: u32, feedback: String, summary: String) -> Decision {
    if session.blocks >= max {
        let blocked = session.blocks;
        session.blocks = 0;
        return Decision::Allow(format!(
            "vcc: the work is WITHHELD, not accepted: {summary}; the stop goes on after {blocked} blocked stop(s) this turn (--max-blocks {max})."
        ));
    }
    session.blocks += 1;
    Decision::Block(format!(
        "{feedback}\n(vcc blocked this stop: {} of at most {max} this turn. Keep working until the contract is accepted.)\n",
        session.blocks
    ))
}

/// Run the worker (this binary, same arguments) on the input, in the
/// project folder; what it judged, or why there is nothing.
fn supervise(input: &[u8], timeout: Duration, project: &Path) -> Result<Judged, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the vcc binary: {e}"))?;
    let mut cmd = Command::new(exe);
    // Relative paths of the command line (--contract, --dir, --trust,
    // --ledger, …) mean the project folder, not wherever the harness
    // started the hook (Claude Code: where the agent last `cd`'d).
    cmd.args(std::env::args_os().skip(1))
        .current_dir(project)
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

/// The worker: judge the stop, in the session's project folder.
fn work(cli: &Cli, harness: Harness, args: &HookArgs, stop: &Stop) -> Judged {
    let halt = |why: &str| Judged::Halt {
        message: configuration_message(harness, why),
    };
    if let Some(status) = &stop.aborted {
        return Judged::Allow {
            message: format!(
                "vcc: not judged: the user ended the agent's turn ({status}); nothing is accepted"
            ),
        };
    }
    if let Some(bad) = args.subagent.iter().find(|s| !s.contains('=')) {
        return halt(&format!(
            "--subagent {bad}: write TYPE=CONTRACT, e.g. --subagent code-reviewer=review.yaml"
        ));
    }
    // The hook pinned the project folder and started this process in it.
    let state = match State::open(cli, harness, stop) {
        Ok(state) => state,
        Err(why) => return halt(&why),
    };
    let project = state.project.clone();
    // A subagent is judged by the contract named for its type, if any.
    let contract = match &stop.subagent {
        Some(sub) => match args.subagent_contract(&sub.kind) {
            Some(path) => against(&project, &path),
            None => {
                return Judged::Allow {
                    message: format!(
                        "vcc: subagent type `{}` has no contract (--subagent TYPE=CONTRACT); its work is judged with the session's at the session's stop",
                        sub.kind
                    ),
                };
            }
        },
        None => against(&project, &args.contract),
    };
    let mut session = match state.load() {
        Ok(session) => session,
        Err(why) => return halt(&why),
    };
    let rt = match runtime(cli) {
        Ok(rt) => rt,
        Err(_) => return halt("the runtime could not start (see stderr)"),
    };
    let recorder = match args.ledger.recorder() {
        Ok(r) => r,
        Err(why) => return halt(&why),
    };

    // The contract and root this session is judged by: pinned at its
    // first stop.
    let ready = match &session.pinned {
        Some(pinned) => match pinned.sources() {
            Ok(sources) => {
                let dir = (session.root.clone())
                    .or_else(|| args.dir.as_deref().map(|d| against(&project, d)));
                Ready::from_sources(&rt, sources, dir.as_deref(), &args.binding)
            }
            Err(why) => {
                return halt(&format!(
                    "the contract pinned for this session cannot be read back ({why}); start a new session"
                ));
            }
        },
        None => {
            let dir = args.dir.as_deref().map(|d| against(&project, d));
            Ready::read(&rt, &contract, dir.as_deref(), &args.binding)
        }
    };
    let ready = match ready {
        Ok(ready) => ready,
        Err(report) => return halt(&format!("{} ({})", report.reason, contract.display())),
    };
    let root = match std::fs::canonicalize(&ready.root) {
        Ok(root) => root,
        Err(e) => {
            return halt(&format!(
                "the deliverable root {} cannot be used: {e}",
                ready.root.display()
            ));
        }
    };
    if let Err(why) = state.outside_root(&root) {
        return halt(&why);
    }
    if session.pinned.is_none() || session.root.is_none() {
        session.pinned = Some(PinnedSources::of(&ready.sources));
        session.root = Some(root);
        // Kept before the check: a check that never finishes leaves the
        // pin in place for the next stop.
        if let Err(why) = state.save(&session) {
            return halt(&why);
        }
    }

    let mut options = CheckOptions::default();
    let missing = match &stop.transcript {
        Some(path) => match crate::attach::read(TRANSCRIPT, &against(&project, path)) {
            Ok(file) => {
                options.attached.push(file);
                None
            }
            Err(e) => Some(format!(
                "the transcript the harness named could not be read ({e})"
            )),
        },
        None => Some(format!(
            "{} named no transcript for this session",
            harness.title()
        )),
    };
    // The path stays the harness's: a file the agent wrote there is not
    // the session's transcript, and is never judged as it.
    if let Some(why) = &missing {
        options.reserved.push(Reserved {
            path: TRANSCRIPT.into(),
            why: format!("{why}; a file written here is not the session's transcript"),
        });
    }
    let attach_note = missing.map(|why| {
        format!(
            "{why}, so no transcript is offered to the contract; a file at {TRANSCRIPT} is not read as one"
        )
    });

    let edited = ready.sources.unchanged_on_disk().err();
    let mut report = ready.check(&rt, options).report;
    if let Some(recorder) = &recorder {
        recorder.check(vcc_ledger::Kind::Hook, &mut report);
        if report.ledger.is_none() {
            return halt(&report.reason);
        }
    }
    if report.verdict == Verdict::Invalid && !report.problems.is_empty() {
        return halt(&format!(
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
    // Every finding, for the agent to read when the feedback shows only
    // the first few: the report, in the session's state folder (outside
    // the root, where the agent cannot rewrite what vcc reads back).
    let written = state.write_report(&report);
    let all = match &written {
        Ok(path) => path.display().to_string(),
        Err(_) => "the JSON report of `vcc check` of this contract".to_string(),
    };
    let mut feedback = Feedback::of(&report, None, 0).markdown_where(&all);
    for note in attach_note.iter().chain(&edit_note) {
        feedback.push_str(&format!("\nNote: {note}.\n"));
    }
    match report.verdict {
        Verdict::Accepted => {
            let mut message = format!("vcc: contract {name}{whose} accepted: {}", report.reason);
            if let Some(note) = &edit_note {
                message.push_str(&format!(" (note: {note})"));
            }
            Judged::Accepted { message }
        }
        // Blocking would ask for an acceptance that cannot come: the stop
        // goes on, with the report.
        Verdict::Advisory => Judged::Allow {
            message: format!(
                "vcc: contract {name}{whose}: {}; the stop goes on, with the report.\n\n{feedback}",
                vcc_report::law::ADVISORY
            ),
        },
        verdict => Judged::NotAccepted {
            feedback,
            summary: format!(
                "contract {name}{whose} is {}: {}",
                verdict.as_str(),
                report.reason
            ),
        },
    }
}

/// A hook that cannot judge because of how it is set up: the agent is not
/// blocked with something it cannot fix; the human is told. Nothing is
/// accepted.
fn configuration_message(harness: Harness, why: &str) -> String {
    format!(
        "vcc hook: CONFIGURATION ERROR, the work is NOT accepted: {why}. Fix the hook's command — {} — or the contract, then run `vcc check` on the work.",
        harness.setup()
    )
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
