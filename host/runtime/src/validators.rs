//! Finding, checking and compiling validator components.
//!
//! A binding names a built-in (`std/NAME`, embedded in the binary) or a
//! `.wasm` file relative to the contract. Before anything runs, the host
//! checks, in order: the bytes exist and are not too large; they match the
//! pinned digest; they are a component; it exports a supported
//! `vcc:validator` version; it links against what the host provides; and
//! `describe()` returns a usable parameter schema. Each failure is a sentence
//! naming the cause.
//!
//! Built-ins run from the native code precompiled into the binary, never
//! from a cache entry: a cache entry is native code too, and any process
//! of the user could have written it (the decompressed copy of a built-in's
//! code the cache keeps is used only if it hashes to the digest in the
//! binary: `std_code.rs`). Only if this CPU cannot run the embedded code is
//! a built-in compiled, in memory.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use vcc_contract::{Catalog, ValidatorInfo, ValidatorRef};
use vcc_report::{BundleRef, CacheStats};
use wasmtime::component::Component;

use crate::cache::{Cache, Lookup};
use crate::guard::{Stopped, guarded, wait_at_most};
use crate::progress::Progress;
use crate::sandbox::{
    CheckerPre, Description, ImportUse, PluginPre, RunLimits, RunState, Sandbox, import_use,
};
use crate::snapshot::digest_string;

pub use crate::std_code::{Builtin, Frame, Raw};

/// Components larger than this are refused unread (Python and JavaScript
/// validators are 12–18 MB).
pub const MAX_COMPONENT_BYTES: u64 = 128 << 20;

/// How long compiling one component may take (Python and JavaScript
/// components take ~20 s in a debug build of vcc).
pub const DEFAULT_COMPILE_TIMEOUT: Duration = Duration::from_secs(300);
/// How much longer than a compile may take a process waits for another
/// process compiling the same component, before compiling it itself.
const LOCK_MARGIN: Duration = Duration::from_secs(30);

/// Limits for `describe()`.
pub const DESCRIBE_LIMITS: RunLimits = RunLimits {
    timeout: Duration::from_secs(10),
    memory: 256 << 20,
};

/// Limits for `check-params`: a few per lint, each on params alone.
pub const CHECK_PARAMS_LIMITS: RunLimits = RunLimits {
    timeout: Duration::from_secs(5),
    memory: 256 << 20,
};

/// A validator component from a verified bundle, as `vcc.lock` pins it.
#[derive(Clone)]
pub struct BundleComponent {
    pub bytes: Arc<Vec<u8>>,
    /// `blake3:<hex>` the lock pins for these bytes.
    pub blake3: String,
    pub bundle: BundleRef,
}

/// A validator ready to run.
pub struct Loaded {
    /// As the contract wrote it: `std/NAME`, a path, or `BUNDLE:VALIDATOR`.
    pub component: String,
    /// The bundle it came from, for a bundle validator.
    pub bundle: Option<BundleRef>,
    pub digest: String,
    pub wit_version: String,
    pub description: Description,
    pub pre: PluginPre<RunState>,
    /// Its `check-params` (vcc:validator@0.1.2), when it exports one.
    pub checker: Option<CheckerPre<RunState>>,
    /// It imports the `judge` interface (vcc:validator@0.1.4).
    pub judge: bool,
    /// It declares that no criterion's outcome depends on an earlier one
    /// in the same instance (a `vcc:stateless` custom section; every std
    /// validator): its instance may serve the next criterion.
    pub stateless: bool,
}

/// A loaded validator, or why it cannot be used.
pub type LoadResult = Result<Arc<Loaded>, String>;

/// Loads components once per process, through the on-disk cache.
pub struct Loader {
    sandbox: Sandbox,
    compile_timeout: Duration,
    cache: Option<Cache>,
    builtins: Vec<Builtin>,
    stats: Mutex<CacheStats>,
    /// By component digest: the same bytes are compiled and described once.
    loaded: Mutex<HashMap<blake3::Hash, Arc<LoadResult>>>,
    /// Components of verified bundles, by (bundle, validator, version).
    bundles: Mutex<HashMap<(String, String, String), BundleComponent>>,
    /// What is compiling now, for a progress display.
    progress: Arc<Progress>,
    /// A large component's first run gets Winch code, and this is handed
    /// its bytes to compile with Cranelift into the cache (W15); `None`:
    /// Cranelift always.
    quick: Option<Background>,
}

/// Compiles a component's bytes with Cranelift into the cache, without
/// holding up the run that asked (the CLI starts `vcc cache compile -`).
pub type Background = Box<dyn Fn(&[u8]) + Send + Sync>;

/// A component at least this large is compiled with Winch for its first
/// run: Python and JavaScript validators (12–18 MB) took 9–11 s with
/// Cranelift, ~3 s with Winch (bench W11, W15); small ones compile in
/// well under a second either way, and keep the one compiler.
pub const QUICK_MIN_BYTES: usize = 4 << 20;

impl Loader {
    pub fn new(
        sandbox: Sandbox,
        cache: Option<Cache>,
        builtins: Vec<Builtin>,
        compile_timeout: Duration,
    ) -> Loader {
        let stats = CacheStats {
            dir: cache.as_ref().map(|c| c.dir().display().to_string()),
            ..CacheStats::default()
        };
        Loader {
            progress: Arc::new(Progress::default()),
            sandbox,
            compile_timeout,
            cache,
            builtins,
            stats: Mutex::new(stats),
            loaded: Mutex::new(HashMap::new()),
            bundles: Mutex::new(HashMap::new()),
            quick: None,
        }
    }

    /// Compile a large component's first run with Winch, and hand its bytes
    /// to `background` for the cache's Cranelift code. Only with a cache:
    /// without one, every run would be a first run on slower code.
    pub fn quick_first_runs(&mut self, background: Background) {
        if self.cache.is_some() {
            self.quick = Some(background);
        }
    }

    /// Make a verified bundle's validator loadable by bindings that name
    /// it (`bundle:`, `validator:`, and `version: =VERSION`, as the CLI
    /// pins them after resolving `vcc.lock`).
    pub fn add_bundle_component(
        &self,
        bundle: &str,
        validator: &str,
        version: &str,
        component: BundleComponent,
    ) {
        if let Ok(mut bundles) = self.bundles.lock() {
            let key = (
                bundle.to_string(),
                validator.to_string(),
                version.to_string(),
            );
            bundles.insert(key, component);
        }
    }

    /// Compile a component into the cache now, with Cranelift (so the
    /// first check that uses it does not wait for it); its digest.
    pub fn precompile(&self, bytes: &[u8]) -> Result<String, String> {
        if !is_component(bytes) {
            return Err(not_a_component(bytes));
        }
        let digest = blake3::hash(bytes);
        self.component_by(bytes, &digest, &digest_string(&digest), false)?;
        Ok(digest_string(&digest))
    }

    /// The on-disk cache, unless caching is off.
    pub fn cache(&self) -> Option<&Cache> {
        self.cache.as_ref()
    }

    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }

    pub fn builtins(&self) -> &[Builtin] {
        &self.builtins
    }

    pub fn stats(&self) -> CacheStats {
        self.stats.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// Load the component a binding names, from `contract_dir`.
    pub fn load(&self, binding: &ValidatorRef, contract_dir: &Path) -> LoadResult {
        let builtin = binding.builtin().and_then(|n| self.builtin(n));
        let mut bundle = None;
        let (bytes, digest) = match builtin {
            // A built-in's bytes are only inflated if its native code cannot
            // run here (`embedded`).
            Some(b) => (
                std::borrow::Cow::Borrowed(&[][..]),
                blake3::Hash::from(b.wasm.digest),
            ),
            None => match binding.from_bundle() {
                Some((name, validator)) => {
                    let version = binding.version.as_deref().unwrap_or("");
                    let found = self.bundle_component(name, validator, version)?;
                    let digest = blake3::hash(&found.bytes);
                    // The bytes were checked against the bundle when it was
                    // read; checked again against the lock, here.
                    if digest_string(&digest) != found.blake3 {
                        return Err(format!(
                            "its digest is {} but vcc.lock pins {}",
                            digest_string(&digest),
                            found.blake3
                        ));
                    }
                    bundle = Some(found.bundle.clone());
                    (std::borrow::Cow::Owned(found.bytes.to_vec()), digest)
                }
                None => {
                    let bytes = self.bytes(binding, contract_dir)?;
                    let digest = blake3::hash(&bytes);
                    (bytes, digest)
                }
            },
        };
        let shown = binding.shown();
        if let Some(pin) = &binding.digest
            && *pin != digest_string(&digest)
        {
            return Err(format!(
                "its digest is {} but the contract pins {pin}",
                digest_string(&digest)
            ));
        }
        let slot = {
            let loaded = self
                .loaded
                .lock()
                .map_err(|_| "loader lock poisoned".to_string())?;
            loaded.get(&digest).cloned()
        };
        if let Some(done) = slot {
            return done.as_ref().clone().map(|l| rename(l, &shown, &bundle));
        }
        let result = self
            .compile_and_describe(&bytes, &digest, &shown, builtin)
            .map(|l| rename(l, &shown, &bundle));
        if let Ok(mut loaded) = self.loaded.lock() {
            loaded.insert(digest, Arc::new(result.clone()));
        }
        result
    }

    /// Everything `vcc validator inspect` shows about a component file.
    pub fn inspect(&self, path: &Path) -> Result<Inspection, String> {
        let binding = ValidatorRef {
            component: path.display().to_string(),
            ..ValidatorRef::default()
        };
        let bytes = self.bytes(&binding, Path::new("."))?;
        let digest = blake3::hash(&bytes);
        if !is_component(&bytes) {
            return Err(not_a_component(&bytes));
        }
        let (component, _) = self.component(&bytes, &digest, &binding.component)?;
        let (imports, exports) = self.sandbox.interface(&component);
        let imports = imports
            .into_iter()
            .map(|name| {
                let verdict = import_use(&name);
                (name, verdict)
            })
            .collect();
        Ok(Inspection {
            size: bytes.len() as u64,
            digest: digest_string(&digest),
            wit_version: self.sandbox.wit_version(&component),
            imports,
            exports,
            loaded: self.load(&binding, Path::new(".")),
        })
    }

    /// A built-in's component: its embedded native code, or (if this CPU
    /// or engine cannot run it) compiled now, in memory only.
    fn embedded(&self, builtin: &Builtin) -> Result<Component, String> {
        let code = crate::std_code::native_code(builtin, self.cache.as_ref().map(Cache::dir))?;
        // SAFETY: the bytes hash to the digest this executable's build
        // wrote for the code it compiled with the engine settings this
        // engine was made with (`vcc_engine::config`); wasmtime still
        // checks that the settings match.
        let component = unsafe { crate::code_memory::load_embedded(self.sandbox.engine(), code) };
        match component {
            Ok(component) => {
                self.count(|s| s.embedded += 1);
                Ok(component)
            }
            Err(_) => {
                let component = self.compile(&builtin.bytes()?)?;
                self.count(|s| s.misses += 1);
                Ok(component)
            }
        }
    }

    fn bundle_component(
        &self,
        bundle: &str,
        validator: &str,
        version: &str,
    ) -> Result<BundleComponent, String> {
        let key = (
            bundle.to_string(),
            validator.to_string(),
            version.trim_start_matches('=').to_string(),
        );
        self.bundles
            .lock()
            .ok()
            .and_then(|b| b.get(&key).cloned())
            .ok_or_else(|| {
                format!("bundle `{bundle}` validator `{validator}` is not locked: run `vcc lock` (bundles are pinned in vcc.lock)")
            })
    }

    fn builtin(&self, name: &str) -> Option<&Builtin> {
        self.builtins.iter().find(|b| b.name == name)
    }

    fn bytes(
        &self,
        binding: &ValidatorRef,
        contract_dir: &Path,
    ) -> Result<std::borrow::Cow<'static, [u8]>, String> {
        if let Some(name) = binding.builtin() {
            return self
                .builtins
                .iter()
                .find(|b| b.name == name)
                .ok_or_else(|| {
                    let names: Vec<&str> = self.builtins.iter().map(|b| b.name).collect();
                    format!(
                        "there is no built-in validator `{name}` (built in: {})",
                        names.join(", ")
                    )
                })?
                .bytes()
                .map(std::borrow::Cow::Owned);
        }
        let path: PathBuf = contract_dir.join(&binding.component);
        let file = vcc_contract::files::open_regular(&path)
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        let meta = file
            .metadata()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if meta.len() > MAX_COMPONENT_BYTES {
            return Err(format!(
                "{} is {} bytes, over the {} MiB component cap",
                path.display(),
                meta.len(),
                MAX_COMPONENT_BYTES >> 20
            ));
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        file.take(MAX_COMPONENT_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Ok(std::borrow::Cow::Owned(bytes))
    }

    fn compile_and_describe(
        &self,
        bytes: &[u8],
        digest: &blake3::Hash,
        name: &str,
        builtin: Option<&Builtin>,
    ) -> LoadResult {
        // A built-in's bytes are not at hand (see `load`); its digest was
        // taken when the binary was built.
        if builtin.is_none() && !is_component(bytes) {
            return Err(not_a_component(bytes));
        }
        let (component, remembered) = match builtin {
            Some(b) => (self.embedded(b)?, None),
            None => self.component(bytes, digest, name)?,
        };
        let wit_version = self.sandbox.wit_version(&component)?;
        let judge = self.sandbox.imports_judge(&component);
        let prepared = self.sandbox.prepare(&component)?;
        let pre = prepared.runner;
        // describe() is a pure function of the component (the sandbox fixes
        // time and randomness), so its answer is kept with the artifact.
        // A built-in's answer is kept by its digest (it has no cache entry).
        let remembered = match (builtin, &self.cache) {
            (Some(_), Some(cache)) => cache.load_described(digest),
            _ => remembered,
        };
        let description = match remembered.as_deref().and_then(Description::from_json) {
            Some(description) => description,
            None => {
                let description = self.describe(&pre)?;
                if let Some(cache) = &self.cache {
                    // Only a speed-up: asked again next time if not kept.
                    let json = description.to_json();
                    let _ = match builtin {
                        Some(_) => cache.save_described(digest, &json),
                        None => cache.remember_description(&self.key(digest), &json),
                    };
                }
                description
            }
        };
        Ok(Arc::new(Loaded {
            component: name.to_string(),
            bundle: None,
            digest: digest_string(digest),
            wit_version,
            description,
            pre,
            checker: prepared.checker,
            judge,
            stateless: builtin.is_some() || declares_stateless(bytes),
        }))
    }

    /// Ask a validator about params that satisfied its schema: (JSON
    /// pointer, message) per problem. Validators before 0.1.2 have nothing
    /// to say.
    pub fn check_params(
        &self,
        loaded: &Loaded,
        params: &serde_json::Value,
    ) -> Result<Vec<(String, String)>, String> {
        let Some(checker) = loaded.checker.clone() else {
            return Ok(Vec::new());
        };
        let sandbox = self.sandbox.clone();
        let text = params.to_string();
        guarded(c"vcc-params", CHECK_PARAMS_LIMITS.timeout, move || {
            sandbox.check_params(&checker, &text, CHECK_PARAMS_LIMITS)
        })
        .unwrap_or_else(|stopped| {
            Err(match stopped {
                Stopped::TimedOut => "check-params did not return within its budget".into(),
                Stopped::Failed => "check-params could not be run (host error)".into(),
            })
        })
    }

    fn describe(&self, pre: &PluginPre<RunState>) -> Result<Description, String> {
        let sandbox = self.sandbox.clone();
        let pre = pre.clone();
        guarded(c"vcc-describe", DESCRIBE_LIMITS.timeout, move || {
            sandbox.describe(&pre, DESCRIBE_LIMITS)
        })
        .unwrap_or_else(|stopped| {
            Err(match stopped {
                Stopped::TimedOut => "describe() did not return within its budget".into(),
                Stopped::Failed => "describe() could not be run (host error)".into(),
            })
        })
        .map_err(|e| format!("describe() failed: {e}"))
    }

    fn key(&self, digest: &blake3::Hash) -> String {
        Cache::key(
            digest,
            self.sandbox.engine().precompile_compatibility_hash(),
        )
    }

    /// From the cache if it holds a verified entry (with what `describe()`
    /// said, when known), else compiled (and stored).
    fn component(
        &self,
        bytes: &[u8],
        digest: &blake3::Hash,
        name: &str,
    ) -> Result<(Component, Option<String>), String> {
        self.component_by(bytes, digest, name, true)
    }

    /// `component`, with Winch allowed for a first run (`quick`) or not.
    fn component_by(
        &self,
        bytes: &[u8],
        digest: &blake3::Hash,
        name: &str,
        quick: bool,
    ) -> Result<(Component, Option<String>), String> {
        let engine = self.sandbox.engine();
        let key = self.key(digest);
        if let Some(cache) = &self.cache {
            match cache.get(&key) {
                Lookup::Hit(artifact) => match deserialize(engine, &artifact.file) {
                    Ok(component) => {
                        self.count(|s| s.hits += 1);
                        return Ok((component, artifact.description));
                    }
                    Err(_) => self.count(|s| s.rejected += 1),
                },
                Lookup::Rejected(_) => self.count(|s| s.rejected += 1),
                Lookup::Miss => {}
            }
        }
        if let Some(background) = self
            .quick
            .as_ref()
            .filter(|_| quick && bytes.len() >= QUICK_MIN_BYTES)
            && let Some(winch) = self.sandbox.quick_engine()
        {
            return self.first_run(bytes, digest, name, winch, background);
        }
        // Another process may be compiling the same component: wait for
        // it (the lock), then take its result instead of compiling again.
        let lock = self.cache.as_ref().and_then(|cache| {
            let lock = cache.compile_lock(&key, self.compile_timeout + LOCK_MARGIN)?;
            Some((cache, lock))
        });
        if let Some((cache, _)) = &lock
            && let Lookup::Hit(artifact) = cache.get(&key)
            && let Ok(component) = deserialize(engine, &artifact.file)
        {
            self.count(|s| s.hits += 1);
            return Ok((component, artifact.description));
        }
        let short = short_name(name);
        let component = {
            let _compiling = self.progress.start(format!("compiling {short}"));
            self.compile(bytes)?
        };
        self.count(|s| s.misses += 1);
        if let Some(cache) = &self.cache
            && let Ok(artifact) = component.serialize()
        {
            // A failed write only costs a recompile next time.
            let _ = cache.put(&key, &artifact);
        }
        // The entry is stored: whoever waits may load it now.
        drop(lock);
        Ok((component, None))
    }

    /// Compile a component, within the compile timeout: a component can
    /// be made to take very long to compile.
    fn compile(&self, bytes: &[u8]) -> Result<Component, String> {
        self.compile_with(self.sandbox.engine(), bytes)
    }

    fn compile_with(&self, engine: &wasmtime::Engine, bytes: &[u8]) -> Result<Component, String> {
        let owned = bytes.to_vec();
        let compiler = engine.clone();
        let limit = self.compile_timeout;
        wait_at_most(c"vcc-compile", limit, move || {
            Component::new(&compiler, &owned)
        })
        .map_err(|stopped| match stopped {
            Stopped::TimedOut => format!("it did not compile within {limit:?}"),
            Stopped::Failed => "the compiler failed (host error)".to_string(),
        })?
        .map_err(|e| format!("it does not compile: {e:#}"))
    }

    /// What is going on now (compiles here, hashing and criteria in a
    /// check), for a progress display.
    pub fn progress(&self) -> &Arc<Progress> {
        &self.progress
    }

    fn count(&self, f: impl FnOnce(&mut CacheStats)) {
        if let Ok(mut stats) = self.stats.lock() {
            f(&mut stats);
        }
    }
}

/// The file name of a component: enough on a progress line.
fn short_name(name: &str) -> String {
    Path::new(name)
        .file_name()
        .map_or(name.into(), |n| n.to_string_lossy().into_owned())
}

/// Load a verified cache entry. wasmtime maps the file itself (no copy, and
/// only the pages used are read), through `/proc/self/fd` so that the inode
/// mapped is the one whose seal was checked; without `/proc`, the bytes are
/// mapped here and copied.
fn deserialize(engine: &wasmtime::Engine, file: &std::fs::File) -> wasmtime::Result<Component> {
    use std::os::fd::AsRawFd;
    let by_fd = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
    if by_fd.exists() {
        // SAFETY: the entry carries this cache's MAC (checked now, or
        // vouched for by unchanged metadata), so these are bytes this host
        // serialized under an engine configuration the key covers.
        return unsafe { Component::deserialize_file(engine, &by_fd) };
    }
    // SAFETY: as above; the map is read-only and dropped after the copy.
    let map = unsafe { memmap2::Mmap::map(file) }?;
    // SAFETY: as above.
    unsafe { Component::deserialize(engine, &*map) }
}

/// The same component under another name shares the compiled code.
fn rename(loaded: Arc<Loaded>, component: &str, bundle: &Option<BundleRef>) -> Arc<Loaded> {
    if loaded.component == component && &loaded.bundle == bundle {
        return loaded;
    }
    Arc::new(Loaded {
        component: component.to_string(),
        bundle: bundle.clone(),
        digest: loaded.digest.clone(),
        wit_version: loaded.wit_version.clone(),
        description: loaded.description.clone(),
        pre: loaded.pre.clone(),
        checker: loaded.checker.clone(),
        judge: loaded.judge,
        stateless: loaded.stateless,
    })
}

/// The custom section a validator declares itself stateless with, in the
/// component or any module in it (the SDKs' `stateless` markers).
pub const STATELESS_SECTION: &str = "vcc:stateless";

fn declares_stateless(bytes: &[u8]) -> bool {
    wasmparser::Parser::new(0).parse_all(bytes).any(|payload| {
        matches!(payload, Ok(wasmparser::Payload::CustomSection(c)) if c.name() == STATELESS_SECTION)
    })
}

fn not_a_component(bytes: &[u8]) -> String {
    if bytes.starts_with(b"\0asm") {
        "it is a core WebAssembly module, not a component; build it for wasm32-wasip2".into()
    } else {
        "it is not a WebAssembly component".into()
    }
}

/// What `vcc validator inspect` reports.
pub struct Inspection {
    pub size: u64,
    pub digest: String,
    /// The supported `vcc:validator` version it exports, or why not.
    pub wit_version: Result<String, String>,
    /// Every import, and what the host does with it.
    pub imports: Vec<(String, ImportUse)>,
    pub exports: Vec<String>,
    /// Linked and described, or why it cannot be used.
    pub loaded: LoadResult,
}

/// `\0asm` then the component-model version/layer (0x0d 0x00, layer 1).
fn is_component(bytes: &[u8]) -> bool {
    bytes.len() >= 8 && &bytes[..4] == b"\0asm" && bytes[6..8] == [0x01, 0x00]
}

/// The contract's validators as lint sees them, remembering what loaded.
pub struct ContractValidators<'a> {
    loader: &'a Loader,
    contract_dir: PathBuf,
    pub loaded: HashMap<String, LoadResult>,
    /// Params checks that passed in earlier runs (from the cache), read on
    /// first use.
    known_valid: Option<HashSet<blake3::Hash>>,
}

impl<'a> ContractValidators<'a> {
    pub fn new(loader: &'a Loader, contract_dir: &Path) -> Self {
        ContractValidators {
            loader,
            contract_dir: contract_dir.to_path_buf(),
            loaded: HashMap::new(),
            known_valid: None,
        }
    }

    fn known_valid(&mut self) -> &mut HashSet<blake3::Hash> {
        let cache = self.loader.cache();
        self.known_valid
            .get_or_insert_with(|| cache.map(Cache::load_valid_params).unwrap_or_default())
    }
}

impl Catalog for ContractValidators<'_> {
    fn describe(&mut self, name: &str, binding: &ValidatorRef) -> Result<ValidatorInfo, String> {
        let result = self.loader.load(binding, &self.contract_dir);
        self.loaded.insert(name.to_string(), result.clone());
        result.map(|l| ValidatorInfo {
            params_schema: l.description.params_schema.clone(),
            digest: l.digest.clone(),
            judge: l.judge,
        })
    }

    fn check_params(
        &mut self,
        name: &str,
        params: &serde_json::Value,
    ) -> Result<Vec<(String, String)>, String> {
        match self.loaded.get(name) {
            Some(Ok(loaded)) => self.loader.check_params(loaded, params),
            Some(Err(cause)) => Err(cause.clone()),
            None => Err(format!("validator `{name}` was not loaded")),
        }
    }

    fn params_known_valid(&mut self, key: &blake3::Hash) -> bool {
        self.known_valid().contains(key)
    }

    fn params_valid(&mut self, key: blake3::Hash) {
        if self.known_valid().insert(key)
            && let Some(cache) = self.loader.cache()
            && let Some(known) = &self.known_valid
        {
            // Only a speed-up: a record that cannot be written is checked again.
            let _ = cache.save_valid_params(known);
        }
    }
}

mod quick;
#[cfg(test)]
mod tests;
