//! The vcc runtime: deliverable snapshots, the wasmtime sandbox, and the
//! evaluation of a contract into a report.
//!
//! wasmtime types stay inside this crate: callers see contracts, reports
//! and plain Rust types.

mod bindings;
mod cache;
mod check;
mod code_memory;
mod evict;
pub mod git;
mod guard;
pub mod host_rows;
mod judging;
mod memo;
mod progress;
mod sandbox;
pub mod signatures;
mod snapshot;
mod stat;
mod std_code;
mod validators;
mod vfs;

use std::path::Path;
use std::time::Duration;

pub use cache::{Cache, DEFAULT_MAX_SIZE, OpenError};
pub use check::{
    Attached, CheckOptions, DEFAULT_MEMORY, DEFAULT_TIMEOUT, Reuse, WASMTIME_VERSION, check,
    lint_with_validators, root_digest, root_look, unreadable_contract,
};
pub use evict::{CacheStats, Pruned};
pub use progress::{Now, Progress, Task};
pub use sandbox::{Description, GUEST_ROOT, ImportUse, SUPPORTED_WIT, import_use};
pub use snapshot::{Reserved, Snapshot, WalkLimits};
pub use validators::{
    Builtin, BundleComponent, DEFAULT_COMPILE_TIMEOUT, Frame, Inspection, LoadResult, Loaded,
    Loader, MAX_COMPONENT_BYTES, Raw,
};

/// Everything needed to load and run validators, for one process.
pub struct Runtime {
    loader: Loader,
}

impl Runtime {
    /// `cache_dir`: where precompiled components are kept (`None`: compile
    /// every time). A cache that cannot be created or read is reported and
    /// left out; one that others could write is refused (an error).
    pub fn new(
        builtins: Vec<Builtin>,
        cache_dir: Option<&Path>,
        compile_timeout: Duration,
    ) -> anyhow::Result<(Runtime, Option<String>)> {
        let sandbox = sandbox::Sandbox::new()?;
        let (cache, warning) = match cache_dir.map(Cache::open) {
            Some(Ok(cache)) => (Some(cache), None),
            Some(Err(err @ OpenError::Untrusted { .. })) => {
                anyhow::bail!("{err} (or use --no-cache)")
            }
            Some(Err(OpenError::Io(err))) => (
                None,
                Some(format!("the component cache is disabled: {err}")),
            ),
            None => (None, None),
        };
        Ok((
            Runtime {
                loader: Loader::new(sandbox, cache, builtins, compile_timeout),
            },
            warning,
        ))
    }

    pub fn loader(&self) -> &Loader {
        &self.loader
    }

    /// See [`Loader::quick_first_runs`].
    pub fn quick_first_runs(&mut self, background: validators::Background) {
        self.loader.quick_first_runs(background);
    }

    /// blake3 of the running `vcc` executable (`blake3:<hex>`), for the
    /// report. Hashing ~45 MB costs more than a whole cached run, so the
    /// digest is remembered by the file's metadata (see `memo.rs`).
    pub fn host_digest(&self) -> Option<String> {
        let exe = std::env::current_exe().ok()?;
        let stat = stat::StatKey::of_std(&std::fs::metadata(&exe).ok()?);
        let memo = self.loader.cache().map(|c| c.load_memo(&exe));
        if let Some(digest) = memo.as_ref().and_then(|m| m.get("", &stat)) {
            return Some(snapshot::digest_string(&digest));
        }
        let started = stat::now();
        let mut hasher = blake3::Hasher::new();
        hasher.update_reader(std::fs::File::open(&exe).ok()?).ok()?;
        let digest = hasher.finalize();
        // The memo's scope is the executable's own path, never a folder.
        if let Some(cache) = self.loader.cache() {
            let _ = cache.save_memo(&exe, started, std::iter::once(("", &stat, &digest)));
        }
        Some(snapshot::digest_string(&digest))
    }

    /// Load and describe every built-in validator.
    pub fn builtins(&self) -> Vec<(&'static str, LoadResult)> {
        self.loader
            .builtins()
            .iter()
            .map(|b| {
                let binding = vcc_contract::ValidatorRef {
                    component: b.name.to_string(),
                    ..Default::default()
                };
                (b.name, self.loader.load(&binding, Path::new(".")))
            })
            .collect()
    }
}
