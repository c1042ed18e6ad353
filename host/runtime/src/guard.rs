//! A wall-clock guard that holds even when a guest blocks inside a host call.
//!
//! Epoch interruption stops a guest running WebAssembly, but not one waiting
//! inside a host function (sleeping on a clock, reading a FIFO through WASI):
//! such a guest would hang a synchronous host. So every guest call runs on
//! its own thread, and the caller stops waiting once the budget (plus a
//! grace for the epoch trap to land) is spent. A thread that never returns
//! is abandoned: it holds no lock the host needs, and ends with the process.

use std::sync::mpsc;
use std::time::Duration;

/// Guest threads need room for the wasm stack (1 MiB) plus host frames.
const STACK: usize = 8 << 20;

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

/// Run a guest call `f` on a thread called `name` and wait at most
/// `budget` plus grace (the guest's own epoch deadline is `budget`).
pub fn guarded<T: Send + 'static>(
    name: &str,
    budget: Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Stopped> {
    wait_at_most(name, budget + grace(budget), f)
}

/// Run `f` on a thread called `name` and wait at most `wait`: for host work
/// with no deadline of its own, such as compiling a component.
pub fn wait_at_most<T: Send + 'static>(
    name: &str,
    wait: Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Stopped> {
    let (tx, rx) = mpsc::sync_channel(1);
    std::thread::Builder::new()
        .name(name.into())
        .stack_size(STACK)
        .spawn(move || {
            let _ = tx.send(f());
        })
        .map_err(|_| Stopped::Failed)?;
    rx.recv_timeout(wait).map_err(|err| match err {
        mpsc::RecvTimeoutError::Timeout => Stopped::TimedOut,
        mpsc::RecvTimeoutError::Disconnected => Stopped::Failed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn returns_results_and_gives_up_on_stuck_work() {
        assert_eq!(guarded("t", Duration::from_secs(1), || 7), Ok(7));
        assert_eq!(
            guarded("t", Duration::from_secs(1), || panic!("host bug")),
            Err::<(), _>(Stopped::Failed)
        );
        let start = Instant::now();
        let stuck = guarded("t", Duration::from_millis(50), || {
            std::thread::sleep(Duration::from_secs(30));
        });
        assert_eq!(stuck, Err(Stopped::TimedOut));
        assert!(start.elapsed() < Duration::from_secs(5));
    }
}
