//! The std validators' native code, out of the executable.
//!
//! The executable holds each validator's native code as a zstd frame (W12:
//! 44 MB of code compress to ~8 MB), compressed with one validator's code
//! as a raw-content dictionary, with the blake3 of the code itself. That
//! one validator (std/file-exists) is the dictionary, stored as is: it
//! runs in place, like every std validator did before they were
//! compressed.
//!
//! Decompressing a 3 MB validator costs a few milliseconds, as much as the
//! rest of a one-criterion check (W3), so the first run that uses it keeps
//! the decompressed code in the cache (`std/DIGEST.cwasm`) and later runs
//! read it from there.
//!
//! The cache is writable by every process of the user, the worker included,
//! and this is native code: a copy is read into this process's own memory
//! first and used only if it hashes to the digest embedded in the
//! executable (~1 ms per MB, read and hashed together), so what runs is
//! what was built — a replaced, truncated or swapped file is decompressed
//! again and rewritten. Hashing the copy, not a mapping of the file, means
//! no write after the check can change what runs.

use std::alloc::Layout;
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Bytes embedded in the binary as one zstd frame (host/std).
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    pub zst: &'static [u8],
    /// The size, decompressed.
    pub size: usize,
    /// blake3 of the bytes, decompressed, computed when the binary was
    /// built (hashing the embedded components on every run cost more than
    /// loading them).
    pub digest: [u8; 32],
}

/// A validator embedded in the binary (host/std).
#[derive(Debug, Clone, Copy)]
pub struct Builtin {
    pub name: &'static str,
    /// The component: read only when the native code cannot run here (and
    /// by `vcc validator inspect`).
    pub wasm: Frame,
    /// The component compiled when the binary was built, with the engine
    /// settings of `vcc-engine`, for the architecture's baseline CPU
    /// (`std_code.rs`).
    pub native: Frame,
    /// The raw-content dictionaries the two frames were compressed with:
    /// a frame of its own, and one validator's native code as is (which
    /// that validator runs from, in place).
    pub wasm_dictionary: Frame,
    pub native_dictionary: Raw,
}

/// Bytes embedded as they are, page-aligned (host/std).
#[derive(Debug, Clone, Copy)]
pub struct Raw {
    pub bytes: &'static [u8],
    /// blake3 of the bytes, computed when the binary was built.
    pub digest: [u8; 32],
}

impl Builtin {
    /// The component's bytes, decompressed and checked against the digest.
    pub fn bytes(&self) -> Result<Vec<u8>, String> {
        let mut bytes = vec![0; self.wasm.size];
        let dictionary = dictionary_bytes(&self.wasm_dictionary);
        dictionary
            .and_then(|d| unpack(&self.wasm, d, &mut bytes))
            .map_err(|()| {
                format!(
                    "{}: the embedded component does not decompress to its digest",
                    self.name
                )
            })?;
        Ok(bytes)
    }
}

/// The code is handed to wasmtime where it lies (`code_memory.rs`), which
/// makes whole pages of it executable: each copy starts on a page and owns
/// every page it touches.
const PAGE: usize = 4096;

/// What `read_cached` reads and hashes at a time.
const CHUNK: usize = 256 << 10;

/// Code already read or decompressed in this process, by native digest: it
/// lives as long as the process, and a second engine (tests, a server)
/// must get the same bytes, at the same address.
static CODE: Mutex<Vec<([u8; 32], &'static [u8])>> = Mutex::new(Vec::new());

/// `builtin`'s native code, checked against its embedded digest: from this
/// process's memory, from the cache in `cache_dir`, or decompressed from
/// the executable (and then stored in the cache for the next run).
pub(crate) fn native_code(
    builtin: &Builtin,
    cache_dir: Option<&Path>,
) -> Result<&'static [u8], String> {
    let mut known = CODE
        .lock()
        .map_err(|_| "the std code lock is poisoned".to_string())?;
    // The dictionary's own validator runs from the executable, in place.
    if builtin.native.digest == builtin.native_dictionary.digest {
        return Ok(builtin.native_dictionary.bytes);
    }
    if let Some((_, code)) = known.iter().find(|(d, _)| *d == builtin.native.digest) {
        return Ok(code);
    }
    let code = load(builtin, cache_dir)?.leak();
    known.push((builtin.native.digest, code));
    Ok(code)
}

/// The checked code from the cache, else decompressed (and stored).
fn load(builtin: &Builtin, cache_dir: Option<&Path>) -> Result<PageBuf, String> {
    let path = cache_dir.map(|dir| cached_path(dir, builtin));
    if let Some(code) = path.as_deref().and_then(|p| read_cached(p, builtin)) {
        return Ok(code);
    }
    let code = decompress(builtin)?;
    if let Some(path) = &path {
        // A cache that cannot be written costs the next run a
        // decompression, nothing else.
        let _ = store(path, code.bytes());
    }
    Ok(code)
}

fn cached_path(dir: &Path, builtin: &Builtin) -> PathBuf {
    let name = blake3::Hash::from(builtin.native.digest).to_hex();
    dir.join("std").join(format!("{name}.cwasm"))
}

/// The cached copy, if it is a regular file of the right size whose bytes,
/// read into memory, hash to the embedded digest.
fn read_cached(path: &Path, builtin: &Builtin) -> Option<PageBuf> {
    let mut file = open_no_follow(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() != builtin.native.size as u64 {
        return None;
    }
    let mut buf = PageBuf::new(builtin.native.size)?;
    // Hashed as it is read, a chunk at a time, while the chunk is still in
    // the CPU's cache: one pass over the memory instead of two.
    let mut hasher = blake3::Hasher::new();
    for chunk in buf.bytes_mut().chunks_mut(CHUNK) {
        file.read_exact(chunk).ok()?;
        hasher.update(chunk);
    }
    (hasher.finalize().as_bytes() == &builtin.native.digest).then_some(buf)
}

fn decompress(builtin: &Builtin) -> Result<PageBuf, String> {
    let mut buf = PageBuf::new(builtin.native.size)
        .ok_or_else(|| format!("{}: no memory for its native code", builtin.name))?;
    unpack(
        &builtin.native,
        builtin.native_dictionary.bytes,
        buf.bytes_mut(),
    )
    .map_err(|()| {
        format!(
            "{}: the embedded native code does not decompress to its digest",
            builtin.name
        )
    })?;
    Ok(buf)
}

/// Decompress `frame`, compressed with `dictionary`, into `out` (exactly
/// its size), and check it against its digest.
pub(crate) fn unpack(frame: &Frame, dictionary: &[u8], out: &mut [u8]) -> Result<(), ()> {
    let size = zstd::bulk::Decompressor::with_dictionary(dictionary)
        .and_then(|mut z| z.decompress_to_buffer(frame.zst, out))
        .map_err(|_| ())?;
    let right = size == frame.size && blake3::hash(out).as_bytes() == &frame.digest;
    right.then_some(()).ok_or(())
}

/// A dictionary, decompressed once per process (only a first use of a
/// validator, or `vcc validator inspect`, needs one).
pub(crate) fn dictionary_bytes(dictionary: &Frame) -> Result<&'static [u8], ()> {
    static DICTIONARIES: Mutex<Vec<([u8; 32], &'static [u8])>> = Mutex::new(Vec::new());
    let mut known = DICTIONARIES.lock().map_err(|_| ())?;
    if let Some((_, bytes)) = known.iter().find(|(d, _)| *d == dictionary.digest) {
        return Ok(bytes);
    }
    let bytes = zstd::bulk::decompress(dictionary.zst, dictionary.size).map_err(|_| ())?;
    if blake3::hash(&bytes).as_bytes() != &dictionary.digest {
        return Err(());
    }
    let bytes: &'static [u8] = Vec::leak(bytes);
    known.push((dictionary.digest, bytes));
    Ok(bytes)
}

/// Write the code next to its final name and rename it there, so a reader
/// never sees a torn file (one would fail the digest anyway).
fn store(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    private_dir(dir)?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    // Never write through a file that was there (a link to another file
    // of the user's): remove it, then create a new one.
    let _ = fs::remove_file(&tmp);
    let written = create_private(&tmp).and_then(|mut f| f.write_all(bytes));
    let renamed = written.and_then(|()| fs::rename(&tmp, path));
    if renamed.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    renamed
}

/// Neither a link (followed, it could name any file) nor a FIFO or device
/// (opening one for reading can block until a writer comes, and this runs
/// under the lock every later load waits on): `O_NONBLOCK` makes the open
/// return at once, and the caller then refuses all but a regular file.
#[cfg(unix)]
fn open_no_follow(path: &Path) -> std::io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> std::io::Result<fs::File> {
    fs::File::open(path)
}

#[cfg(unix)]
fn create_private(path: &Path) -> std::io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

#[cfg(not(unix))]
fn create_private(path: &Path) -> std::io::Result<fs::File> {
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
}

#[cfg(unix)]
fn private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

#[cfg(not(unix))]
fn private_dir(dir: &Path) -> std::io::Result<()> {
    fs::create_dir_all(dir)
}

/// Zeroed memory starting on a page, rounded up to whole pages (so making
/// its pages executable touches nothing else), freed unless leaked.
struct PageBuf {
    ptr: std::ptr::NonNull<u8>,
    layout: Layout,
    len: usize,
}

impl PageBuf {
    fn new(len: usize) -> Option<PageBuf> {
        let layout = Layout::from_size_align(len.max(1).div_ceil(PAGE) * PAGE, PAGE).ok()?;
        // SAFETY: the layout's size is not zero.
        let ptr = std::ptr::NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })?;
        Some(PageBuf { ptr, layout, len })
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: `len` <= the allocation's size, which is initialised
        // (zeroed) and owned by this value.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as `bytes`, and `&mut self` is the only access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    /// Keep the bytes for the life of the process (wasmtime runs them where
    /// they are, and registers them by address).
    fn leak(self) -> &'static [u8] {
        let me = std::mem::ManuallyDrop::new(self);
        // SAFETY: never freed (the drop is suppressed), never written again.
        unsafe { std::slice::from_raw_parts(me.ptr.as_ptr(), me.len) }
    }
}

impl Drop for PageBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout, not leaked.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

#[cfg(test)]
mod tests;
