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
//!
//! A check's criteria are a batch (`run_all`): their calls run one after
//! another on worker threads that need no hand-off per call, with the
//! calling thread as the one watchdog of them all.

use std::collections::{HashMap, HashSet, VecDeque};
use std::ffi::CStr;
use std::panic::AssertUnwindSafe;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

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

/// One guest call of a batch: its budget (the guest's own epoch deadline)
/// and the work.
pub struct Call<T> {
    pub budget: Duration,
    pub run: Box<dyn FnOnce() -> T + Send>,
}

/// Run every call, `workers` at a time, and wait for all of them: each
/// call's result, in order, or why it gave none.
///
/// The calls run on worker threads of their own, one after another, and
/// the calling thread is their one watchdog: it sleeps until the first
/// deadline (budget plus grace) of a running call, or until the last call
/// is done. A worker past its deadline is abandoned (its call is
/// `TimedOut`, and whatever it returns later is dropped) and a fresh
/// worker takes over the rest. Handing each call to a guest thread and
/// back cost two wake-ups per call: about a fifth of a run of 200 small
/// criteria (bench/README.md, W4).
pub fn run_all<T: Send + 'static>(
    name: &'static CStr,
    workers: usize,
    calls: Vec<Call<T>>,
) -> Vec<Result<T, Stopped>> {
    let total = calls.len();
    let batch = Arc::new(Batch {
        state: Mutex::new(State {
            queue: calls.into_iter().enumerate().collect(),
            results: (0..total).map(|_| None).collect(),
            left: total,
            running: HashMap::new(),
            abandoned: HashSet::new(),
            watch: None,
        }),
        done: Condvar::new(),
    });
    let mut next_worker = 0;
    let mut live = 0;
    for _ in 0..workers.clamp(1, total.max(1)) {
        if start_worker(name, &batch, next_worker) {
            live += 1;
        }
        next_worker += 1;
    }
    let mut state = batch.lock();
    if live == 0 {
        fail_queued(&mut state);
    }
    while state.left > 0 {
        let now = Instant::now();
        let overdue: Vec<(usize, usize)> = state
            .running
            .iter()
            .filter(|(_, (_, deadline))| *deadline <= now)
            .map(|(&worker, &(call, _))| (worker, call))
            .collect();
        for (worker, call) in overdue {
            state.running.remove(&worker);
            state.abandoned.insert(worker);
            state.results[call] = Some(Err(Stopped::TimedOut));
            state.left -= 1;
            // The abandoned worker's share of the queue needs a thread.
            if !state.queue.is_empty() {
                drop(state);
                let started = start_worker(name, &batch, next_worker);
                next_worker += 1;
                state = batch.lock();
                if !started && state.running.is_empty() {
                    fail_queued(&mut state);
                }
            }
        }
        if state.left == 0 {
            break;
        }
        let first = state.running.values().map(|(_, deadline)| *deadline).min();
        state.watch = Some(first);
        state = match first {
            Some(deadline) => {
                let wait = deadline.saturating_duration_since(Instant::now());
                batch
                    .done
                    .wait_timeout(state, wait)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0
            }
            // Nothing running yet: a worker is about to take a call, and
            // wakes this thread when it does.
            None => batch
                .done
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner),
        };
        state.watch = None;
    }
    let results = std::mem::take(&mut state.results);
    results
        .into_iter()
        .map(|r| r.unwrap_or(Err(Stopped::Failed)))
        .collect()
}

struct Batch<T> {
    state: Mutex<State<T>>,
    /// Signalled when a call starts (a new deadline to watch) and when the
    /// last one ends.
    done: Condvar,
}

struct State<T> {
    queue: VecDeque<(usize, Call<T>)>,
    results: Vec<Option<Result<T, Stopped>>>,
    /// Calls without a result yet.
    left: usize,
    /// Worker → (its call, the call's deadline).
    running: HashMap<usize, (usize, Instant)>,
    abandoned: HashSet<usize>,
    /// Whether the watchdog sleeps, and until when (`Some(None)`: until
    /// woken). A worker wakes it only for a deadline it would miss: one
    /// wake-up per run, not per call.
    watch: Option<Option<Instant>>,
}

impl<T> Batch<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// No thread can run the queued calls: each is `Failed`, never absent.
fn fail_queued<T>(state: &mut State<T>) {
    while let Some((i, _)) = state.queue.pop_front() {
        state.results[i] = Some(Err(Stopped::Failed));
        state.left -= 1;
    }
}

fn start_worker<T: Send + 'static>(name: &'static CStr, batch: &Arc<Batch<T>>, id: usize) -> bool {
    let batch = batch.clone();
    std::thread::Builder::new()
        .name("vcc-idle".into())
        .stack_size(STACK)
        .spawn(move || work(name, &batch, id))
        .is_ok()
}

/// Take calls until the queue is empty or this worker was abandoned.
fn work<T>(name: &CStr, batch: &Batch<T>, id: usize) {
    loop {
        let (i, call) = {
            let mut state = batch.lock();
            if state.abandoned.contains(&id) {
                return;
            }
            let Some((i, call)) = state.queue.pop_front() else {
                return;
            };
            let deadline = Instant::now() + call.budget + grace(call.budget);
            state.running.insert(id, (i, deadline));
            if let Some(until) = state.watch
                && until.is_none_or(|until| deadline < until)
            {
                batch.done.notify_one();
            }
            (i, call)
        };
        set_thread_name(name);
        let value =
            std::panic::catch_unwind(AssertUnwindSafe(call.run)).map_err(|_| Stopped::Failed);
        set_thread_name(c"vcc-idle");
        let mut state = batch.lock();
        if state.abandoned.contains(&id) {
            // Too late: the call is already `TimedOut`.
            return;
        }
        state.running.remove(&id);
        state.results[i] = Some(value);
        state.left -= 1;
        if state.left == 0 {
            batch.done.notify_one();
        }
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

    #[test]
    fn a_batch_outlives_a_stuck_call_and_keeps_the_order() {
        let call = |budget_ms: u64, sleep_ms: u64, value: u32| Call {
            budget: Duration::from_millis(budget_ms),
            run: Box::new(move || {
                std::thread::sleep(Duration::from_millis(sleep_ms));
                if value == 0 {
                    panic!("host bug");
                }
                value
            }),
        };
        let start = Instant::now();
        // One worker: the stuck call's share of the queue needs the
        // replacement worker, or the last two calls would never run.
        let results = run_all(
            c"t",
            1,
            vec![
                call(1000, 0, 1),
                call(20, 30_000, 2),
                call(1000, 0, 0),
                call(1000, 5, 4),
            ],
        );
        assert_eq!(
            results,
            vec![Ok(1), Err(Stopped::TimedOut), Err(Stopped::Failed), Ok(4)]
        );
        assert!(start.elapsed() < Duration::from_secs(5));
        assert_eq!(run_all::<u32>(c"t", 2, Vec::new()), Vec::new());
    }
}
