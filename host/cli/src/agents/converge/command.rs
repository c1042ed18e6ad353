//! One run of the command: started in its own process group with the
//! loop's environment (feedback, budget left, usage file), watched against
//! the time budget and reported usage, and stopped (TERM, then KILL) when
//! a limit is reached or the loop is interrupted. If vcc itself dies, the
//! command and its group die with it (`guard.rs`).
use std::io::Read as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use vcc_report::converge::{CommandRun, Limits, Usage};

use super::guard::Guard;
use super::{BUDGET_FILE, Converge, GRACE, MAX_USAGE_FILE, POLL, Ran, USAGE_POLL, absolute};
use crate::args::Format;

impl Converge<'_> {
    /// Run the command once, with the feedback in its environment; stop
    /// it (and what it started) on a signal or when a budget runs out.
    pub(super) fn run_command(
        &mut self,
        run: u32,
        [feedback, feedback_md, usage]: &[PathBuf; 3],
        left: &vcc_report::converge::BudgetLeft,
        limits: Limits,
    ) -> Ran {
        let started = Instant::now();
        let not_started = |why: String| Ran {
            run: CommandRun {
                exit_code: None,
                stopped: Some(why.clone()),
                duration_ms: 0,
                usage: Usage::default(),
                delegated: None,
                usage_error: None,
                handed: Vec::new(),
            },
            not_started: Some(why),
            usage_error: None,
            pool_error: None,
        };
        if let Err(why) = self.publish_pool(run, limits, Usage::default()) {
            return not_started(format!("the budget pool cannot be written: {why}"));
        }
        if self.guard.is_none() {
            match Guard::start() {
                Ok(g) => self.guard = Some(g),
                Err(why) => return not_started(why),
            }
        }
        let argv = &self.args.command;
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..])
            .env("VCC_FEEDBACK", feedback)
            .env("VCC_FEEDBACK_MD", feedback_md)
            .env("VCC_USAGE", usage)
            .env(
                "VCC_BUDGET_LEFT",
                serde_json::to_string(left).unwrap_or_default(),
            )
            .env(BUDGET_FILE, absolute(self.pool.path()))
            .env("VCC_ITERATION", run.to_string())
            .env(
                "VCC_BRIEF",
                self.write_brief()
                    .map(PathBuf::into_os_string)
                    .unwrap_or_default(),
            )
            .env("VCC_CONTRACT", absolute(&self.args.contract))
            .env("VCC_ROOT", absolute(&self.root()))
            // Its own process group: vcc can stop it and whatever it started.
            .process_group(0);
        die_with_vcc(&mut cmd);
        // A background process group must not read the terminal (it would
        // be stopped); from a pipe or a file it may.
        if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
            cmd.stdin(Stdio::null());
        }
        if self.args.format == Format::Json {
            // stdout carries the report; the command's output goes to stderr.
            if let Ok(fd) = std::os::fd::AsFd::as_fd(&std::io::stderr()).try_clone_to_owned() {
                cmd.stdout(Stdio::from(fd));
            }
        }
        let mut child = match cmd.spawn() {
            Ok(child) => child,
            Err(e) => return not_started(format!("cannot run `{}`: {e}", argv[0])),
        };
        if let Some(guard) = &mut self.guard {
            guard.watch(child.id());
        }
        let spent_before = self.lp.as_ref().map(|l| l.usage).unwrap_or_default();
        let deadline = limits
            .time_ms
            .map(|ms| self.started + Duration::from_millis(ms));
        let mut stopped = None;
        let mut pool_error = None;
        let mut last_usage_look = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) => {}
                Err(_) => break None,
            }
            let why = if self.interrupted() {
                Some(("interrupted", libc::SIGINT))
            } else if deadline.is_some_and(|d| Instant::now() >= d) {
                Some(("stopped: the budget's time ran out", libc::SIGTERM))
            } else if last_usage_look.elapsed() >= USAGE_POLL {
                last_usage_look = Instant::now();
                let (now, _) = read_usage(usage);
                // What this loop's children spent so far counts as it
                // happens: the loop stops on exhaustion while they run.
                match self.sync_pool(run, limits, now) {
                    Ok(children) => {
                        let mut total = spent_before;
                        total.add(now);
                        total.add(children);
                        match self.charge_parent_running(total) {
                            Ok(()) => over_usage(total, limits).map(|why| (why, libc::SIGTERM)),
                            Err(e) => {
                                pool_error = Some(e);
                                Some((
                                    "stopped: the parent's budget pool cannot be written",
                                    libc::SIGTERM,
                                ))
                            }
                        }
                    }
                    Err(e) => {
                        pool_error = Some(e);
                        Some(("stopped: the budget pool cannot be read", libc::SIGTERM))
                    }
                }
            } else {
                None
            };
            if let Some((why, signal)) = why {
                stopped = Some(why.to_string());
                break stop_group(&mut child, signal);
            }
            std::thread::sleep(POLL);
        };
        // The command has ended (or was stopped): what is left of its group
        // is not vcc's to kill if vcc dies now.
        if let Some(guard) = &mut self.guard {
            guard.release();
        }
        let (used, usage_error) = read_usage(usage);
        self.own.add(used);
        // Children must have ended, and said what they spent, before the
        // check: one still running is stopped, one that never says is
        // charged its whole grant.
        let delegated = match self.settle_children(run, limits) {
            Ok(d) => d,
            Err(e) => {
                pool_error.get_or_insert(e);
                None
            }
        };
        let mut total = used;
        if let Some(d) = delegated {
            total.add(d);
        }
        Ran {
            run: CommandRun {
                exit_code: status.and_then(|s| s.code()),
                stopped: stopped.or_else(|| {
                    use std::os::unix::process::ExitStatusExt as _;
                    status
                        .and_then(|s| s.signal())
                        .map(|sig| format!("killed by signal {sig}"))
                }),
                duration_ms: started.elapsed().as_millis() as u64,
                usage: total,
                delegated,
                usage_error: usage_error.clone(),
                handed: Vec::new(),
            },
            not_started: None,
            usage_error,
            pool_error: pool_error.map(|e| format!("budget pool: {e}")),
        }
    }
}

/// On Linux, the command is killed by the kernel when vcc dies
/// (`PR_SET_PDEATHSIG`). The signal comes when the *thread* that started
/// it ends: the loop runs on the main thread, which ends only with vcc.
#[cfg(target_os = "linux")]
fn die_with_vcc(cmd: &mut Command) {
    let vcc = std::process::id() as libc::pid_t;
    // SAFETY: the closure runs in the child between fork and exec, and
    // makes only async-signal-safe calls (prctl(2), getppid(2)) and
    // allocation-free errors.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // vcc died before the line above: nothing would kill the
            // command now, so it does not start.
            if libc::getppid() != vcc {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

/// Elsewhere the guard alone kills the command's group.
#[cfg(not(target_os = "linux"))]
fn die_with_vcc(_: &mut Command) {}

/// What a run's `$VCC_USAGE` file adds up to, and the first line that
/// could not be read.
pub(super) fn read_usage(path: &Path) -> (Usage, Option<String>) {
    let mut text = String::new();
    let read = std::fs::File::open(path)
        .and_then(|f| f.take(MAX_USAGE_FILE + 1).read_to_string(&mut text));
    if let Err(e) = read {
        return (
            Usage::default(),
            Some(format!("$VCC_USAGE ({}): {e}", path.display())),
        );
    }
    if text.len() as u64 > MAX_USAGE_FILE {
        return (
            Usage::default(),
            Some(format!("$VCC_USAGE is over {MAX_USAGE_FILE} bytes")),
        );
    }
    let mut total = Usage::default();
    let mut error = None;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match Usage::parse_line(line) {
            Ok(u) => total.add(u),
            Err(e) => {
                error.get_or_insert_with(|| format!("$VCC_USAGE line {}: {e}", i + 1));
            }
        }
    }
    (total, error)
}

pub(super) fn over_usage(total: Usage, limits: Limits) -> Option<&'static str> {
    if limits.cost.is_some_and(|c| total.cost >= c) {
        return Some("stopped: the budget's cost is spent");
    }
    if limits.tokens.is_some_and(|t| total.tokens >= t) {
        return Some("stopped: the budget's tokens are spent");
    }
    None
}

/// Ask the command's process group to stop, then kill it after the grace
/// period; its exit status.
pub(super) fn stop_group(
    child: &mut Child,
    signal: libc::c_int,
) -> Option<std::process::ExitStatus> {
    let group = child.id() as libc::pid_t;
    // SAFETY: kill(2) with a negative pid signals the process group the
    // child leads (it was spawned with process_group(0)); no memory is
    // involved.
    unsafe { libc::kill(-group, signal) };
    let asked = Instant::now();
    let mut status = None;
    while asked.elapsed() < GRACE {
        if status.is_none() {
            status = child.try_wait().ok().flatten();
        }
        // What it started gets the rest of the grace too: a child loop
        // stops its own command and tells the pool how it ended.
        // SAFETY: signal 0 only asks whether the group has a process left.
        if status.is_some() && unsafe { libc::kill(-group, 0) } != 0 {
            return status;
        }
        std::thread::sleep(POLL);
    }
    // SAFETY: as above; whatever is left of the group goes.
    unsafe { libc::kill(-group, libc::SIGKILL) };
    status.or_else(|| child.wait().ok())
}
