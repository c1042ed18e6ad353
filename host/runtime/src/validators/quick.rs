//! A large component's first run, on Winch code (bench W15).
//!
//! Cranelift takes 9–11 s to compile a Python or JavaScript validator
//! (12–18 MB), Winch about a third of that, for code that runs 1.03–1.11×
//! slower (W11). So a check that finds no Cranelift code for such a
//! component compiles it with Winch, caches that too (apart: its key
//! covers the compiler), and hands the bytes to the background compile
//! (`vcc cache compile -`), whose Cranelift code the next run finds first.
//! The verdict never waits for Cranelift, and nothing here is trusted more
//! than a Cranelift entry: both are sealed with the cache's key.

use std::time::Duration;

use wasmtime::Engine;
use wasmtime::component::Component;

use super::{Background, LOCK_MARGIN, Loader, deserialize, short_name};
use crate::cache::{Cache, Lookup};

impl Loader {
    pub(super) fn first_run(
        &self,
        bytes: &[u8],
        digest: &blake3::Hash,
        name: &str,
        winch: &Engine,
        background: &Background,
    ) -> Result<(Component, Option<String>), String> {
        let quick_key = Cache::key(digest, (winch.precompile_compatibility_hash(), "winch"));
        // One process compiles with Winch; the others wait, then load it.
        let lock = self.cache.as_ref().and_then(|cache| {
            let lock = cache.compile_lock(&quick_key, self.compile_timeout + LOCK_MARGIN)?;
            Some((cache, lock))
        });
        let cached = match &lock {
            Some((cache, _)) => match cache.get(&quick_key) {
                Lookup::Hit(artifact) => deserialize(winch, &artifact.file).ok(),
                _ => None,
            },
            None => None,
        };
        let component = match cached {
            Some(component) => {
                self.count(|s| {
                    s.hits += 1;
                    s.winch += 1;
                });
                component
            }
            None => {
                let component = {
                    let short = short_name(name);
                    let _compiling = self.progress.start(format!("compiling {short} (Winch)"));
                    self.compile_with(winch, bytes)?
                };
                self.count(|s| {
                    s.misses += 1;
                    s.winch += 1;
                });
                if let Some(cache) = &self.cache
                    && let Ok(artifact) = component.serialize()
                {
                    let _ = cache.put(&quick_key, &artifact);
                }
                component
            }
        };
        drop(lock);
        // Cranelift's code for the next run, unless it is being compiled
        // now (a background compile holds its lock): never two at once.
        if let Some(cache) = &self.cache
            && let Some(free) = cache.compile_lock(&self.key(digest), Duration::ZERO)
        {
            drop(free);
            background(bytes);
        }
        Ok((component, None))
    }
}
