//! The command dies with vcc. A `vcc converge` killed outright (SIGKILL,
//! the OOM killer) cannot stop its command, which would go on working —
//! reparented to init, writing the deliverables — with nobody to judge it.
//! Two things stop it:
//!
//! - on Linux the command is started with `PR_SET_PDEATHSIG` (SIGKILL):
//!   the kernel kills it when vcc dies;
//! - that reaches the command only, not what it started (the agent's
//!   tools, a nested loop): the command runs in its own process group, and
//!   a guard — this binary again, in a process group of its own, reading
//!   a pipe only vcc holds — kills that whole group when the pipe ends
//!   while a run is going on. vcc tells it which group to watch when a run
//!   starts and that the run is over when it ends; a pipe that closes with
//!   a group still watched means vcc is gone.
//!
//! A command that leaves its process group on purpose (`setsid`, a
//! daemon) is out of reach; so it is in every CI system without cgroups.

use std::io::{BufRead as _, Write as _};
use std::process::{Child, ChildStdin, Command, Stdio};

/// Set (to vcc's pid) in the guard's environment only: what makes this
/// binary a guard, when its parent is that very vcc.
const GUARD: &str = "VCC_CONVERGE_GUARD";

pub(super) struct Guard {
    child: Child,
    /// The write end: close-on-exec, so no command inherits it.
    to: Option<ChildStdin>,
}

impl Guard {
    pub(super) fn start() -> Result<Guard, String> {
        let exe =
            std::env::current_exe().map_err(|e| format!("cannot find the vcc binary: {e}"))?;
        let mut cmd = Command::new(exe);
        cmd.env_clear()
            .env(GUARD, std::process::id().to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // Out of vcc's group: a Ctrl-C, or a kill of vcc's group, must not
        // take the guard first.
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start the guard that stops the command with vcc: {e}"))?;
        let to = child.stdin.take();
        Ok(Guard { child, to })
    }

    /// From now on, if vcc dies, process group `group` is killed.
    pub(super) fn watch(&mut self, group: u32) {
        self.say(&group.to_string());
    }

    /// The run is over: the group is no longer vcc's to kill.
    pub(super) fn release(&mut self) {
        self.say("-");
    }

    fn say(&mut self, line: &str) {
        if let Some(to) = &mut self.to {
            // A guard that is gone (something killed it) cannot be
            // helped: the command still dies by PR_SET_PDEATHSIG.
            let _ = writeln!(to, "{line}").and_then(|()| to.flush());
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.release();
        // End of input with no group watched: the guard exits.
        drop(self.to.take());
        let _ = self.child.wait();
    }
}

/// In the guard (this binary started by [`Guard::start`]): read which
/// group to watch until the pipe ends, then kill the group still watched,
/// if any. `None` in any other process.
pub fn serve() -> Option<i32> {
    let vcc: u32 = std::env::var(GUARD).ok()?.parse().ok()?;
    if vcc != std::os::unix::process::parent_id() {
        return None;
    }
    let mut watched: Option<libc::pid_t> = None;
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        watched = line.trim().parse().ok().filter(|g: &libc::pid_t| *g > 1);
    }
    if let Some(group) = watched {
        // SAFETY: kill(2) on a process group; no memory is involved.
        unsafe { libc::kill(-group, libc::SIGKILL) };
    }
    Some(0)
}
