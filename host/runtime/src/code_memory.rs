//! Running the std validators' native code where the executable is mapped.
//!
//! `Component::deserialize` copies a precompiled artifact into fresh
//! memory and makes the copy executable: for the embedded std validators
//! (0.5–8 MB each) that copy, and the page faults of touching the new
//! memory, were a fifth of a one-criterion check (W3, bench/README.md).
//! `Component::deserialize_raw` uses the bytes where they are, but wasmtime
//! will not change the protection of memory it does not own; it asks the
//! engine's custom code memory instead, which is this: `mprotect` to
//! read+execute.
//!
//! The embedded artifacts are read-only data of this executable, page
//! aligned (host/std), so making their code pages executable never makes
//! anything writable executable. Only where that holds (Linux on x86-64,
//! 4 KiB pages, whose instruction cache needs no flush after a write) is
//! this used; elsewhere the artifacts are copied as before.
//!
//! wasmtime registers code by address, once per process (its trap
//! handler finds the code of a faulting instruction that way), so the
//! same embedded pages can back one loaded component only: the first
//! engine to load a built-in maps it and keeps it for the life of the
//! process; another engine in the same process (tests, a long-lived
//! server) gets a copy.

use std::sync::{Arc, Mutex};

use wasmtime::component::Component;
use wasmtime::{CustomCodeMemory, Engine};

/// Built-ins loaded in place: (address of the artifact, engine, component).
static MAPPED: Mutex<Vec<(usize, Engine, Component)>> = Mutex::new(Vec::new());

/// Load an embedded artifact: in place when this platform allows it and no
/// other engine of this process holds it, else copied.
///
/// # Safety
///
/// `code` was written by `precompile_component` of this wasmtime with the
/// engine settings of `vcc_engine::config` (wasmtime checks that the
/// settings match, but not that the code is what it compiled).
pub unsafe fn load_embedded(engine: &Engine, code: &'static [u8]) -> wasmtime::Result<Component> {
    let at = code.as_ptr() as usize;
    let mut mapped = match MAPPED.lock() {
        Ok(mapped) if in_place(code) => mapped,
        // SAFETY: as this function's.
        _ => return unsafe { Component::deserialize(engine, code) },
    };
    if let Some((_, owner, component)) = mapped.iter().find(|(a, _, _)| *a == at) {
        if Engine::same(owner, engine) {
            return Ok(component.clone());
        }
        // SAFETY: as this function's.
        return unsafe { Component::deserialize(engine, code) };
    }
    // SAFETY: as this function's; the bytes are immutable and live as long
    // as the process, as `deserialize_raw` requires.
    let component = unsafe { Component::deserialize_raw(engine, std::ptr::NonNull::from(code))? };
    mapped.push((at, engine.clone(), component.clone()));
    Ok(component)
}

/// The code memory of every engine vcc makes, where mapping in place is
/// supported; `None` elsewhere (wasmtime's own handling).
pub fn custom() -> Option<Arc<dyn CustomCodeMemory>> {
    if supported() {
        Some(Arc::new(Protect))
    } else {
        None
    }
}

/// Whether `bytes` can be handed to `deserialize_raw`: custom code memory
/// is in use and the artifact starts on a page (its code section is page
/// aligned inside it; wasmtime checks that).
pub(crate) fn in_place(bytes: &[u8]) -> bool {
    supported() && (bytes.as_ptr() as usize).is_multiple_of(PAGE)
}

const PAGE: usize = 4096;

fn supported() -> bool {
    cfg!(all(target_os = "linux", target_arch = "x86_64")) && page_size() == PAGE
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(0)
}

struct Protect;

impl Protect {
    fn protect(ptr: *const u8, len: usize, prot: libc::c_int) -> wasmtime::Result<()> {
        let len = len.div_ceil(PAGE) * PAGE;
        // SAFETY: wasmtime passes the page-aligned text section of an
        // artifact it holds (an mmap of its own, or embedded read-only
        // data of this executable, which lives as long as the process).
        let rc = unsafe { libc::mprotect(ptr as *mut libc::c_void, len, prot) };
        if rc == 0 {
            Ok(())
        } else {
            Err(wasmtime::format_err!(
                "mprotect: {}",
                std::io::Error::last_os_error()
            ))
        }
    }
}

impl CustomCodeMemory for Protect {
    fn required_alignment(&self) -> usize {
        PAGE
    }

    fn publish_executable(&self, ptr: *const u8, len: usize) -> wasmtime::Result<()> {
        Self::protect(ptr, len, libc::PROT_READ | libc::PROT_EXEC)
    }

    fn unpublish_executable(&self, _ptr: *const u8, _len: usize) -> wasmtime::Result<()> {
        // Called when a component's code is dropped: wasmtime's own mmaps
        // are unmapped right after, and an embedded artifact is never
        // dropped (`MAPPED` keeps it). vcc never patches code, the one
        // other use of unpublishing.
        Ok(())
    }
}
