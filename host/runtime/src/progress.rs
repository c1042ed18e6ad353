//! What a run is doing, for a display the caller polls: `vcc check` shows
//! a spinner on a terminal. Only names, counters and start times live
//! here; nothing is printed by the runtime.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[derive(Default)]
pub struct Progress {
    /// Work in flight (a component compiling, a criterion being judged),
    /// with when it started.
    tasks: Mutex<Vec<(u64, String, Instant)>>,
    next: AtomicU64,
    hashing: AtomicBool,
    files_found: AtomicU64,
    files_hashed: AtomicU64,
    bytes_hashed: AtomicU64,
}

/// A task in flight; it ends when dropped.
pub struct Task<'a> {
    progress: &'a Progress,
    id: u64,
}

/// What is going on now.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Now {
    /// Oldest first: what, and for how long.
    pub tasks: Vec<(String, Duration)>,
    /// While the root is walked and hashed: files found, hashed, bytes hashed.
    pub hashing: Option<(u64, u64, u64)>,
}

impl Progress {
    /// Start a task, named as a person would read it (`compiling x.wasm`).
    pub fn start(&self, what: impl Into<String>) -> Task<'_> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut tasks) = self.tasks.lock() {
            tasks.push((id, what.into(), Instant::now()));
        }
        Task { progress: self, id }
    }

    pub(crate) fn hashing(&self, on: bool) {
        if on {
            for counter in [&self.files_found, &self.files_hashed, &self.bytes_hashed] {
                counter.store(0, Ordering::Relaxed);
            }
        }
        self.hashing.store(on, Ordering::Relaxed);
    }

    pub(crate) fn found(&self, files: u64) {
        self.files_found.store(files, Ordering::Relaxed);
    }

    pub(crate) fn hashed(&self, bytes: u64) {
        self.files_hashed.fetch_add(1, Ordering::Relaxed);
        self.bytes_hashed.fetch_add(bytes, Ordering::Relaxed);
    }

    pub fn now(&self) -> Now {
        let tasks = self
            .tasks
            .lock()
            .map(|t| {
                t.iter()
                    .map(|(_, what, since)| (what.clone(), since.elapsed()))
                    .collect()
            })
            .unwrap_or_default();
        let hashing = self.hashing.load(Ordering::Relaxed).then(|| {
            (
                self.files_found.load(Ordering::Relaxed),
                self.files_hashed.load(Ordering::Relaxed),
                self.bytes_hashed.load(Ordering::Relaxed),
            )
        });
        Now { tasks, hashing }
    }
}

impl Drop for Task<'_> {
    fn drop(&mut self) {
        if let Ok(mut tasks) = self.progress.tasks.lock() {
            tasks.retain(|(id, _, _)| *id != self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_end_when_dropped_and_hashing_is_counted() {
        let p = Progress::default();
        let a = p.start("compiling a.wasm");
        {
            let _b = p.start("judging AC-1");
            assert_eq!(p.now().tasks.len(), 2);
        }
        assert_eq!(p.now().tasks[0].0, "compiling a.wasm");
        drop(a);
        assert_eq!(p.now(), Now::default());
        p.hashing(true);
        p.found(3);
        p.hashed(10);
        assert_eq!(p.now().hashing, Some((3, 1, 10)));
        p.hashing(false);
        assert_eq!(p.now().hashing, None);
    }
}
