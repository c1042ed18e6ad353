//! An instance kept for the next criterion of a stateless validator.
//!
//! A fresh store per run costs its linear memory: `mmap`, a page fault per
//! page touched, and an `munmap` whose TLB shootdown interrupts every core
//! (about half of a 5,000-criterion run, bench/README.md W9). A validator
//! that declares itself stateless (every std one does; see
//! `Loaded::stateless`) keeps its instance on the worker thread for the
//! next criterion of the same run. Nothing else is shared: the store's
//! files, judges, deadline and limiter are the new criterion's, and an
//! instance is kept only after a clean return with nothing written to
//! stdout or stderr (a trap, a hit limit or any output drops it).

use std::cell::RefCell;

use wasmtime::Store;

use super::Pipes;
use super::host::RunState;
use crate::bindings::runner::Runner;

/// What an instance may be reused for: the same validator in the same run
/// with the same memory cap.
#[derive(Clone, Debug, PartialEq)]
pub struct Reuse {
    /// The check run (one snapshot, one contract).
    pub run: u64,
    /// The validator's component digest.
    pub validator: String,
    pub memory: u64,
}

pub(super) struct Warm {
    pub(super) key: Reuse,
    pub(super) store: Store<RunState>,
    pub(super) plugin: Runner,
    pub(super) pipes: Pipes,
}

thread_local! {
    /// One per worker thread, dropped with it at the end of the run.
    static WARM: RefCell<Option<Warm>> = const { RefCell::new(None) };
}

/// The thread's kept instance when it was kept for `key`; any other is
/// dropped (its memory is not held through another validator's runs).
pub(super) fn take(key: Option<&Reuse>) -> Option<Warm> {
    let warm = WARM.with(|w| w.borrow_mut().take())?;
    (Some(&warm.key) == key).then_some(warm)
}

pub(super) fn keep(warm: Warm) {
    WARM.with(|w| *w.borrow_mut() = Some(warm));
}
