//! A wall-clock guard that holds even when a guest blocks inside a host call.
//!
//! Epoch interruption stops a guest running WebAssembly, but not one waiting
//! inside a host function (sleeping on a clock, reading a FIFO through WASI):
//! such a guest would hang a synchronous host. So every guest call runs on
//! a thread of its own, and the caller stops waiting once the budget (plus a
//! grace for the epoch trap to land) is spent. A thread that never returns
//! is abandoned: it holds no lock the host needs, and ends with the process.
//!
//! Threads are reused: starting one per call (an 8 MiB stack, wasmtime's
//! signal stack) cost ~165 µs, more than the call itself for small
//! validators. A thread goes back to the idle list only after its call
//! returned in time; an abandoned one is never handed another call.

use std::ffi::CStr;
use std::sync::mpsc;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// Guest threads need room for the wasm stack (1 MiB) plus host frames.
const STACK: usize = 8 << 20;

type Job = Box<dyn FnOnce() + Send>;

/// Threads waiting for a call, each by the sending end of its queue.
static IDLE: Mutex<Vec<mpsc::Sender<Job>>> = Mutex::new(Vec::new());

/// How long after its budget a run may take to report the epoch trap.
pub fn grace(budget: Duration) -> Duration {
    budget / 4 + Duration::from_millis(200)
}

/// Why a guarded call gave no result.
#[derive(Debug, PartialEq)]
pub enum Stopped {
    /// Still running after `budget` plus grace; abandoned.
    TimedOut,
    /// The thread could not start, or panicked (a host bug).
    Failed,
}

/// Run a guest call `f` on a guest thread and wait at most `budget` plus
/// grace (the guest's own epoch deadline is `budget`).
pub fn guarded<T: Send + 'static>(
    name: &'static CStr,
    budget: Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Stopped> {
    wait_at_most(name, budget + grace(budget), f)
}

/// Run `f` on a guest thread and wait at most `wait`: also for host work
/// with no deadline of its own, such as compiling a component.
pub fn wait_at_most<T: Send + 'static>(
    name: &'static CStr,
    wait: Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Stopped> {
    let (tx, rx) = mpsc::sync_channel(1);
    let job: Job = Box::new(move || {
        // Named for what it runs (tests and `top` see it), then idle again.
        set_thread_name(name);
        let value = f();
        set_thread_name(c"vcc-idle");
        let _ = tx.send(value);
    });
    let idle = IDLE.lock().unwrap_or_else(PoisonError::into_inner).pop();
    let thread = match idle {
        // A thread that ended (it panicked) refuses the job: start another.
        Some(thread) => match thread.send(job) {
            Ok(()) => thread,
            Err(mpsc::SendError(job)) => start(job)?,
        },
        None => start(job)?,
    };
    match rx.recv_timeout(wait) {
        Ok(value) => {
            IDLE.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(thread);
            Ok(value)
        }
        Err(mpsc::RecvTimeoutError::Timeout) => Err(Stopped::TimedOut),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(Stopped::Failed),
    }
}

fn set_thread_name(name: &CStr) {
    // SAFETY: PR_SET_NAME reads a NUL-terminated string (truncated to 15
    // bytes) and names the calling thread; it has no other effect.
    unsafe {
        libc::prctl(libc::PR_SET_NAME, name.as_ptr());
    }
}

/// A new guest thread running `first`, then whatever it is sent, until its
/// queue is dropped.
fn start(first: Job) -> Result<mpsc::Sender<Job>, Stopped> {
    let (tx, rx) = mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name("vcc-idle".into())
        .stack_size(STACK)
        .spawn(move || {
            first();
            while let Ok(job) = rx.recv() {
                job();
            }
        })
        .map_err(|_| Stopped::Failed)?;
    Ok(tx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn returns_results_and_gives_up_on_stuck_work() {
        assert_eq!(guarded(c"t", Duration::from_secs(1), || 7), Ok(7));
        assert_eq!(
            guarded(c"t", Duration::from_secs(1), || panic!("host bug")),
            Err::<(), _>(Stopped::Failed)
        );
        let start = Instant::now();
        let stuck = guarded(c"t", Duration::from_millis(50), || {
            std::thread::sleep(Duration::from_secs(30));
        });
        assert_eq!(stuck, Err(Stopped::TimedOut));
        assert!(start.elapsed() < Duration::from_secs(5));
    }
}
