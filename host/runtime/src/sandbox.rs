//! The sandbox one validator run gets, and the one place wasmtime is driven.
//!
//! One `Engine` for the process (and a Winch one for large components'
//! first runs); each component compiled once and turned into a
//! `PluginPre`; a fresh `Store` per run, unless the validator is stateless
//! (`warm.rs`). A run sees: the snapshot
//! through the `deliverables` import and, read-only, as the WASI filesystem
//! `/deliverables` (served from the snapshot by `vfs.rs`, never from the
//! live root), no network, no environment, no arguments, closed stdin,
//! captured and capped stdout/stderr, fixed clocks and random, and bounded
//! memory, tables, instances, stack and wall-clock time. Whatever goes wrong
//! becomes an `error` status with a reason; nothing a guest does is a pass
//! unless `validate` returns `pass` within every limit.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::mpsc;
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use vcc_report::output::{Evidence, MAX_TEXT, Returned};
use vcc_report::{FileRead, Finding, Reason, Status};
use wasmtime::StoreContextMut;
use wasmtime::component::{Component, HasSelf, Linker, Resource, ResourceTable};
use wasmtime::{Engine, ResourceLimiter, Store, Trap};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::p2::{DynPollable, Pollable, subscribe};
use wasmtime_wasi::{
    Deterministic, HostMonotonicClock, HostWallClock, I32Exit, WasiCtx, WasiCtxBuilder,
    WasiCtxView, WasiView,
};

use crate::snapshot::Snapshot;
use crate::vfs::{FileAccess, SnapshotFs, SnapshotFsData, Tree};

pub use crate::vfs::GUEST_ROOT;

pub use crate::bindings::CheckerPre;
pub use crate::bindings::RunnerPre as PluginPre;
use crate::bindings::judge_wit;
use crate::bindings::vcc::validator::{deliverables, types as wit};

mod host;
mod outcome;
mod warm;

pub use warm::Reuse;

use host::Limiter;
pub use host::RunState;
#[cfg(test)]
use host::snapshot_key;
use outcome::{accept, classify, clip, explain};

/// What the host does with one import of a component.
#[derive(Debug, Clone, PartialEq)]
pub enum ImportUse {
    /// Linked, with the host's restriction in words.
    Provided(&'static str),
    /// Linked, but every use fails at run time.
    Denied(&'static str),
    /// Not provided: the component cannot be instantiated.
    Refused,
}

/// How the host treats an import, by name. Versions match as wasmtime's
/// linker does: any `0.2.x` of WASI, any `0.1.x` of `vcc:validator`.
pub fn import_use(name: &str) -> ImportUse {
    let (iface, version) = name.split_once('@').unwrap_or((name, ""));
    let wasi = version.starts_with("0.2.");
    match iface {
        "wasi:sockets/network"
        | "wasi:sockets/instance-network"
        | "wasi:sockets/tcp"
        | "wasi:sockets/udp"
        | "wasi:sockets/tcp-create-socket"
        | "wasi:sockets/udp-create-socket"
        | "wasi:sockets/ip-name-lookup"
            if wasi =>
        {
            ImportUse::Denied("no network: every socket and lookup is refused")
        }
        "wasi:cli/environment" if wasi => ImportUse::Provided("empty: no variables, no arguments"),
        "wasi:cli/stdin" if wasi => ImportUse::Provided("closed"),
        "wasi:cli/stdout" | "wasi:cli/stderr" if wasi => {
            ImportUse::Provided("captured, 64 KiB cap, kept as evidence")
        }
        "wasi:clocks/wall-clock" | "wasi:clocks/monotonic-clock" if wasi => {
            ImportUse::Provided("fixed time")
        }
        "wasi:random/random" | "wasi:random/insecure" | "wasi:random/insecure-seed" if wasi => {
            ImportUse::Provided("fixed bytes")
        }
        "wasi:filesystem/types" | "wasi:filesystem/preopens" if wasi => {
            ImportUse::Provided("read-only /deliverables: the hashed snapshot")
        }
        _ if wasi && (iface.starts_with("wasi:io/") || iface.starts_with("wasi:cli/")) => {
            ImportUse::Provided("")
        }
        "vcc:validator/deliverables" if version.starts_with("0.1.") => {
            ImportUse::Provided("the deliverable snapshot")
        }
        "vcc:validator/judge" if version.starts_with("0.1.") => ImportUse::Provided(
            "completions from the AI judges the criterion grants, through the host (no key, no network)",
        ),
        "vcc:validator/types" if version.starts_with("0.1.") => ImportUse::Provided("shared types"),
        _ => ImportUse::Refused,
    }
}

/// The interface a validator exports, and the versions this host runs.
pub const EXPORT: &str = "vcc:validator/validator";
/// The optional export of `check-params` (since 0.1.2).
pub const PARAMS_EXPORT: &str = "vcc:validator/params";
pub const SUPPORTED_WIT: &str = "0.1.x";

/// How a validator's `err` says that the params are wrong (WIT 0.1.2).
pub const INVALID_PARAMS: &str = "invalid params:";

/// Epoch tick: the granularity of wall-clock budgets.
const TICK: Duration = Duration::from_millis(5);
/// Caps on what one run may produce.
const STDIO_CAP: usize = 64 << 10;
const MAX_TABLE_ELEMENTS: usize = 1 << 20;
const MAX_INSTANCES: usize = 64;
const MAX_TABLES: usize = 64;
const MAX_MEMORIES: usize = 16;
const MAX_RESOURCES: usize = 10_000;
/// Problems one `check-params` call may report (lint lists each).
const MAX_PARAM_PROBLEMS: usize = 20;

/// Cheap to clone: runs on other threads own a handle.
#[derive(Clone)]
pub struct Sandbox {
    engine: Engine,
    linker: Arc<Linker<RunState>>,
    /// Winch, for the first run of a large component (bench W15); made on
    /// first use, `None` if it cannot be.
    quick: Arc<OnceLock<Option<Linked>>>,
    _ticker: Arc<Ticker>,
}

/// An engine and the host's imports linked for it.
struct Linked {
    engine: Engine,
    linker: Arc<Linker<RunState>>,
}

impl Linked {
    fn new(config: wasmtime::Config) -> anyhow::Result<Linked> {
        let mut config = config;
        // Not a compile setting: precompiled artifacts stay compatible.
        config.with_custom_code_memory(crate::code_memory::custom());
        let engine = Engine::new(&config)?;
        let mut linker = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker)?;
        frozen_time(&mut linker)?;
        snapshot_filesystem(&mut linker)?;
        deliverables::add_to_linker::<RunState, HasSelf<RunState>>(&mut linker, |s| s)?;
        judge_wit::add_to_linker::<RunState, HasSelf<RunState>>(&mut linker, |s| s)?;
        Ok(Linked {
            engine,
            linker: Arc::new(linker),
        })
    }
}

/// Per run.
#[derive(Debug, Clone, Copy)]
pub struct RunLimits {
    pub timeout: Duration,
    pub memory: u64,
}

/// What the host hands to a validator.
pub struct Request {
    pub criterion_id: String,
    pub params: String,
    /// (deliverable id, relative paths of its files)
    pub targets: Vec<(String, Vec<String>)>,
    pub snapshot: Arc<Snapshot>,
    /// Every deliverable id → its files (for `list-files`).
    pub deliverables: Arc<HashMap<String, Vec<String>>>,
    /// Deliverable ids in contract order (for `list-deliverables`).
    pub order: Vec<String>,
    /// The snapshot's folders, for the WASI view of it (made on first use).
    pub tree: Arc<OnceLock<Tree>>,
    pub limits: RunLimits,
    /// The keys the trust policy names for records (`signatures`).
    pub signers: Option<Arc<crate::signatures::RecordSigners>>,
    /// The judges the criterion grants (`judge`), when it grants any.
    pub judge: Option<crate::judging::JudgeGrant>,
    /// Set for a stateless validator: the instance may serve the next
    /// criterion with the same key on this thread (`warm.rs`).
    pub reuse: Option<Reuse>,
    /// Where the run adds every file it looked up (`FileAccess::consulted`).
    pub consulted: Option<Arc<std::sync::Mutex<HashSet<String>>>>,
}

/// The host's record of one run.
pub struct RunOutput {
    pub status: Status,
    pub reason: Reason,
    pub summary: String,
    pub findings: Vec<Finding>,
    pub evidence: Vec<Evidence>,
    pub files_read: Vec<FileRead>,
    /// A file read through the host interface no longer matched its digest.
    pub saw_change: bool,
    /// Every completion the validator asked of a judge.
    pub judge_calls: Vec<vcc_report::judge::JudgeCall>,
}

impl RunOutput {
    pub fn error(reason: Reason, summary: impl Into<String>) -> RunOutput {
        RunOutput {
            status: Status::Error,
            reason,
            summary: summary.into(),
            findings: Vec::new(),
            evidence: Vec::new(),
            files_read: Vec::new(),
            saw_change: false,
            judge_calls: Vec::new(),
        }
    }
}

/// A component linked once: `validator`, and `params` when it exports it.
#[derive(Clone)]
pub struct Prepared {
    pub runner: PluginPre<RunState>,
    pub checker: Option<CheckerPre<RunState>>,
}

/// What `describe()` said.
#[derive(Debug, Clone)]
pub struct Description {
    pub name: String,
    pub version: String,
    pub summary: String,
    pub params_schema: serde_json::Value,
}

impl Description {
    /// One line of JSON, as the component cache keeps it.
    pub fn to_json(&self) -> String {
        serde_json::json!({
            "name": self.name,
            "version": self.version,
            "summary": self.summary,
            "params_schema": self.params_schema,
        })
        .to_string()
    }

    /// The inverse of [`Description::to_json`]; `None` for anything else.
    pub fn from_json(text: &str) -> Option<Description> {
        let value: serde_json::Value = serde_json::from_str(text).ok()?;
        let text = |key: &str| value.get(key)?.as_str().map(str::to_string);
        Some(Description {
            name: text("name")?,
            version: text("version")?,
            summary: text("summary")?,
            params_schema: value.get("params_schema")?.clone(),
        })
    }
}

impl Sandbox {
    pub fn new() -> anyhow::Result<Sandbox> {
        let Linked { engine, linker } = Linked::new(vcc_engine::config())?;
        let quick = Arc::new(OnceLock::new());
        let ticker = Ticker::start(engine.clone(), quick.clone());
        Ok(Sandbox {
            engine,
            linker,
            quick,
            _ticker: Arc::new(ticker),
        })
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The Winch engine, for a first run that should not wait for
    /// Cranelift; `None` where it cannot be made (then Cranelift compiles).
    pub fn quick_engine(&self) -> Option<&Engine> {
        self.quick
            .get_or_init(|| Linked::new(vcc_engine::config_for(vcc_engine::Compiler::Winch)).ok())
            .as_ref()
            .map(|q| &q.engine)
    }

    /// The linker of the engine `component` was compiled by.
    fn linker_for(&self, component: &Component) -> Option<&Linker<RunState>> {
        if Engine::same(component.engine(), &self.engine) {
            return Some(&self.linker);
        }
        match self.quick.get() {
            Some(Some(q)) if Engine::same(component.engine(), &q.engine) => Some(&q.linker),
            _ => None,
        }
    }

    /// The `vcc:validator` version a component exports, if this host runs it.
    pub fn wit_version(&self, component: &Component) -> Result<String, String> {
        let ty = component.component_type();
        let exports: Vec<String> = ty
            .exports(component.engine())
            .map(|(name, _)| name.to_string())
            .collect();
        let Some(name) = exports.iter().find(|n| n.starts_with(EXPORT)) else {
            return Err(format!(
                "it does not export `{EXPORT}` (it exports: {}); build it against vcc:validator@0.1.0",
                if exports.is_empty() {
                    "nothing".to_string()
                } else {
                    exports.join(", ")
                }
            ));
        };
        let version = name
            .strip_prefix(EXPORT)
            .and_then(|v| v.strip_prefix('@'))
            .unwrap_or("");
        let mut parts = version.split(['.', '-', '+']);
        let (major, minor) = (parts.next(), parts.next());
        if major == Some("0") && minor == Some("1") {
            Ok(version.to_string())
        } else {
            let found = if version.is_empty() {
                "an unversioned interface".to_string()
            } else {
                format!("vcc:validator@{version}")
            };
            Err(format!(
                "it was built against {found}; this vcc supports vcc:validator@{SUPPORTED_WIT}"
            ))
        }
    }

    /// Whether a component imports the `judge` interface (0.1.4): it asks
    /// AI judges, so its criteria must grant some.
    pub fn imports_judge(&self, component: &Component) -> bool {
        let (imports, _) = self.interface(component);
        imports
            .iter()
            .any(|i| i.split('@').next() == Some("vcc:validator/judge"))
    }

    /// The names a component imports and exports, in its own order.
    pub fn interface(&self, component: &Component) -> (Vec<String>, Vec<String>) {
        let ty = component.component_type();
        let imports = ty
            .imports(component.engine())
            .map(|(n, _)| n.to_string())
            .collect();
        let exports = ty
            .exports(component.engine())
            .map(|(n, _)| n.to_string())
            .collect();
        (imports, exports)
    }

    /// Link a component once; runs instantiate from this cheaply. The
    /// `params` export is optional (components before 0.1.2 lack it), but
    /// one that is there and does not match is refused, not ignored.
    pub fn prepare(&self, component: &Component) -> Result<Prepared, String> {
        let pre = self
            .linker_for(component)
            .ok_or("it was compiled for an engine this sandbox does not run")?
            .instantiate_pre(component)
            .map_err(|err| format!("it cannot be linked: {err:#}"))?;
        let checker = match CheckerPre::new(pre.clone()) {
            Ok(checker) => Some(checker),
            Err(err) => {
                let (_, exports) = self.interface(component);
                if exports.iter().any(|e| e.starts_with(PARAMS_EXPORT)) {
                    return Err(format!(
                        "its `{PARAMS_EXPORT}` export does not match vcc:validator: {err:#}"
                    ));
                }
                None
            }
        };
        let runner = PluginPre::new(pre)
            .map_err(|err| format!("its exports do not match vcc:validator: {err:#}"))?;
        Ok(Prepared { runner, checker })
    }

    /// Call `check-params` in a fresh, file-less sandbox: `Ok(problems)`
    /// as (JSON pointer, message), empty when the params are fine.
    pub fn check_params(
        &self,
        checker: &CheckerPre<RunState>,
        params: &str,
        limits: RunLimits,
    ) -> Result<Vec<(String, String)>, String> {
        let (mut store, pipes) = self
            .store(checker.engine(), limits, None)
            .map_err(|e| format!("{e:#}"))?;
        let instance = checker
            .instantiate(&mut store)
            .map_err(|e| explain(&e, &store))?;
        let answer = instance
            .vcc_validator_params()
            .call_check_params(&mut store, params)
            .map_err(|e| classify(&e, &store, &pipes).1)?;
        if let Some(name) = pipes.overflowed() {
            return Err(format!(
                "check-params wrote more than {} KiB to {name}",
                STDIO_CAP >> 10
            ));
        }
        Ok(match answer {
            Ok(()) => Vec::new(),
            Err(findings) => findings
                .into_iter()
                .take(MAX_PARAM_PROBLEMS)
                .map(|f| {
                    (
                        clip(f.path.as_deref().unwrap_or(""), 1000),
                        clip(&f.message, 2000),
                    )
                })
                .collect(),
        })
    }

    /// Call `describe()` in a fresh, file-less sandbox.
    pub fn describe(
        &self,
        pre: &PluginPre<RunState>,
        limits: RunLimits,
    ) -> Result<Description, String> {
        let (mut store, _pipes) = self
            .store(pre.engine(), limits, None)
            .map_err(|e| format!("{e:#}"))?;
        let plugin = pre
            .instantiate(&mut store)
            .map_err(|e| explain(&e, &store))?;
        let d = plugin
            .vcc_validator_validator()
            .call_describe(&mut store)
            .map_err(|e| explain(&e, &store))?;
        let params_schema = serde_json::from_str(&d.params_schema)
            .map_err(|e| format!("describe() returned a parameter schema that is not JSON: {e}"))?;
        Ok(Description {
            name: d.name,
            version: d.version,
            summary: d.summary,
            params_schema,
        })
    }

    /// Run `validate()` for one criterion.
    pub fn validate(&self, pre: &PluginPre<RunState>, request: Request) -> RunOutput {
        let files = FileAccess {
            snapshot: request.snapshot.clone(),
            tree: request.tree.clone(),
            deliverables: request.deliverables.clone(),
            order: request.order.clone(),
            reads: BTreeMap::new(),
            consulted: Default::default(),
            read_cap: request.limits.memory,
            deadline: Instant::now() + request.limits.timeout,
            saw_change: false,
            signers: request.signers.clone(),
        };
        let judge = request
            .judge
            .clone()
            .map(|grant| crate::judging::JudgeAccess {
                grant,
                until: Instant::now() + request.limits.timeout,
                calls: Vec::new(),
                evidence: Vec::new(),
            });
        let key = request.reuse.clone();
        let consulted = request.consulted.clone();
        let (mut store, pipes, plugin) = match warm::take(key.as_ref()) {
            Some(warm) => {
                let mut store = warm.store;
                let data = store.data_mut();
                data.files = Some(files);
                data.limiter.hit = None;
                set_deadline(&mut store, request.limits);
                (store, warm.pipes, Some(warm.plugin))
            }
            None => match self.store(pre.engine(), request.limits, Some(files)) {
                Ok((store, pipes)) => (store, pipes, None),
                Err(err) => {
                    return RunOutput::error(
                        Reason::Internal,
                        format!("cannot set up the sandbox: {err:#}"),
                    );
                }
            },
        };
        store.data_mut().judge = judge;
        store.data_mut().criterion = request.criterion_id.clone();
        let criterion = wit::Criterion {
            id: request.criterion_id,
            params: request.params,
            targets: request
                .targets
                .into_iter()
                .map(|(id, paths)| wit::Target {
                    id,
                    paths: paths.iter().map(|p| format!("{GUEST_ROOT}/{p}")).collect(),
                })
                .collect(),
        };
        let plugin = match plugin {
            Some(plugin) => Ok(plugin),
            None => pre.instantiate(&mut store),
        };
        let (plugin, result) = match plugin {
            Ok(plugin) => {
                let result = plugin
                    .vcc_validator_validator()
                    .call_validate(&mut store, &criterion);
                (Some(plugin), result)
            }
            Err(err) => (None, Err(err)),
        };
        let (stdout, stderr) = (pipes.0.contents(), pipes.1.contents());
        let returned = result.is_ok();
        let mut out = match result {
            // A capped stream means the host dropped output: whatever the
            // validator then said is not trusted.
            Ok(_) if pipes.overflowed().is_some() => {
                let name = pipes.overflowed().unwrap_or("stdout");
                RunOutput::error(
                    Reason::OutputLimit,
                    format!(
                        "the validator wrote more than {} KiB to {name}",
                        STDIO_CAP >> 10
                    ),
                )
            }
            Err(err) => {
                let (reason, summary) = classify(&err, &store, &pipes);
                RunOutput::error(reason, summary)
            }
            // The validator blames the params, not the deliverables: a
            // contract bug that no change to the deliverables can fix.
            Ok(Err(message)) => match message.strip_prefix(INVALID_PARAMS) {
                Some(why) => RunOutput::error(
                    Reason::InvalidParams,
                    format!(
                        "the validator refuses the criterion's params: {}",
                        clip(why.trim(), MAX_TEXT)
                    ),
                ),
                None => RunOutput::error(
                    Reason::ValidatorError,
                    format!("the validator could not work: {}", clip(&message, MAX_TEXT)),
                ),
            },
            Ok(Ok(outcome)) => accept(outcome),
        };
        let clean = returned
            && stdout.is_empty()
            && stderr.is_empty()
            && store.data().limiter.hit.is_none();
        let data = store.data_mut();
        if let Some(judge) = data.judge.take() {
            out.judge_calls = judge.calls;
            out.evidence.extend(judge.evidence);
        }
        if let Some(files) = data.files.take() {
            if let Some(sink) = &consulted
                && let Ok(mut sink) = sink.lock()
            {
                sink.extend(files.consulted.into_inner());
            }
            out.files_read = files
                .reads
                .into_iter()
                .map(|(path, digest)| FileRead { path, digest })
                .collect();
            out.saw_change = files.saw_change;
        }
        for (name, bytes) in [("stdout", stdout), ("stderr", stderr)] {
            if !bytes.is_empty() {
                out.evidence.push(Evidence {
                    name: name.into(),
                    media_type: "text/plain".into(),
                    bytes: bytes.to_vec(),
                });
            }
        }
        if let (Some(key), Some(plugin), true) = (key, plugin, clean) {
            warm::keep(warm::Warm {
                key,
                store,
                plugin,
                pipes,
            });
        }
        out
    }

    fn store(
        &self,
        engine: &Engine,
        limits: RunLimits,
        files: Option<FileAccess>,
    ) -> anyhow::Result<(Store<RunState>, Pipes)> {
        let stdout = MemoryOutputPipe::new(STDIO_CAP);
        let stderr = MemoryOutputPipe::new(STDIO_CAP);
        let mut wasi = WasiCtxBuilder::new();
        // Must precede `preopened_dir`, which reads it (bench/TARGETS.md).
        wasi.allow_blocking_current_thread(true)
            .stdout(stdout.clone())
            .stderr(stderr.clone())
            .wall_clock(FixedWallClock)
            .monotonic_clock(FixedMonotonicClock)
            .secure_random(Deterministic::new(FIXED_RANDOM.to_vec()))
            .insecure_random(Deterministic::new(FIXED_RANDOM.to_vec()))
            .insecure_random_seed(0)
            .allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .socket_addr_check(|_, _| Box::pin(async { false }));
        // No preopened folder: `/deliverables` is the snapshot itself,
        // served by `vfs.rs` in place of WASI's own filesystem.
        let mut table = ResourceTable::new();
        table.set_max_capacity(MAX_RESOURCES);
        let memory = usize::try_from(limits.memory).unwrap_or(usize::MAX);
        let state = RunState {
            wasi: wasi.build(),
            table,
            limiter: Limiter { memory, hit: None },
            files,
            judge: None,
            criterion: String::new(),
        };
        let mut store = Store::new(engine, state);
        store.limiter(|s| &mut s.limiter);
        set_deadline(&mut store, limits);
        store.epoch_deadline_trap();
        Ok((store, Pipes(stdout, stderr)))
    }
}

/// The run's wall-clock budget, counted in epoch ticks from now.
fn set_deadline(store: &mut Store<RunState>, limits: RunLimits) {
    let ticks = limits.timeout.as_nanos().div_ceil(TICK.as_nanos()).max(1);
    store.set_epoch_deadline(u64::try_from(ticks).unwrap_or(u64::MAX));
}

struct Pipes(MemoryOutputPipe, MemoryOutputPipe);

impl Pipes {
    /// The stream that reached its cap, if one did.
    fn overflowed(&self) -> Option<&'static str> {
        [("stdout", &self.0), ("stderr", &self.1)]
            .into_iter()
            .find(|(_, pipe)| pipe.contents().len() >= STDIO_CAP)
            .map(|(name, _)| name)
    }
}

const FIXED_RANDOM: [u8; 16] = *b"vcc-fixed-random";

/// 2000-01-01T00:00:00Z, forever: validators cannot depend on the time.
struct FixedWallClock;
impl HostWallClock for FixedWallClock {
    fn resolution(&self) -> Duration {
        Duration::from_secs(1)
    }
    fn now(&self) -> Duration {
        Duration::from_secs(946_684_800)
    }
}

/// The WASI clocks version wasmtime-wasi defines (its `clocks.wit`). A
/// test (`sleeps_in_host_calls`) fails if this stops shadowing its sleeps.
const WASI_CLOCKS: &str = "wasi:clocks/monotonic-clock@0.2.12";

/// The WASI filesystem a guest sees is the snapshot (see `vfs.rs`): its
/// implementation replaces wasmtime-wasi's, which would open the live root.
fn snapshot_filesystem(linker: &mut Linker<RunState>) -> anyhow::Result<()> {
    fn view(state: &mut RunState) -> SnapshotFs<'_> {
        SnapshotFs {
            table: &mut state.table,
            files: state.files.as_mut(),
        }
    }
    linker.allow_shadowing(true);
    wasmtime_wasi::p2::bindings::sync::filesystem::types::add_to_linker::<RunState, SnapshotFsData>(
        linker, view,
    )?;
    wasmtime_wasi::p2::bindings::filesystem::preopens::add_to_linker::<RunState, SnapshotFsData>(
        linker, view,
    )?;
    linker.allow_shadowing(false);
    Ok(())
}

/// Time does not pass in the sandbox, so a sleep is over as soon as it
/// starts: a guest can never block the host by waiting on a clock.
fn frozen_time(linker: &mut Linker<RunState>) -> anyhow::Result<()> {
    struct Elapsed;
    #[wasmtime_wasi::async_trait]
    impl Pollable for Elapsed {
        async fn ready(&mut self) {}
    }
    fn elapsed(
        mut store: StoreContextMut<'_, RunState>,
        _: (u64,),
    ) -> wasmtime::Result<(Resource<DynPollable>,)> {
        let table = &mut store.data_mut().table;
        let ready = table.push(Elapsed)?;
        Ok((subscribe(table, ready)?,))
    }
    linker.allow_shadowing(true);
    let mut clock = linker.instance(WASI_CLOCKS)?;
    clock.func_wrap("subscribe-duration", elapsed)?;
    clock.func_wrap("subscribe-instant", elapsed)?;
    linker.allow_shadowing(false);
    Ok(())
}

struct FixedMonotonicClock;
impl HostMonotonicClock for FixedMonotonicClock {
    fn resolution(&self) -> u64 {
        1
    }
    fn now(&self) -> u64 {
        0
    }
}

/// Advances the engine's epoch every tick, for wall-clock budgets.
struct Ticker {
    /// Dropping the sender wakes the thread at once: a run that ends
    /// mid-tick does not wait for the tick (it was up to 5 ms of every
    /// short `vcc check`).
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Ticker {
    fn start(engine: Engine, quick: Arc<OnceLock<Option<Linked>>>) -> Ticker {
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("vcc-epoch".into())
            .spawn(move || {
                let start = Instant::now();
                let mut ticks: u128 = 0;
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(TICK) {
                    // Catch up if the thread slept long: the epoch follows
                    // real time, so budgets never stretch on a loaded machine.
                    let due = start.elapsed().as_nanos() / TICK.as_nanos();
                    while ticks < due {
                        engine.increment_epoch();
                        if let Some(Some(q)) = quick.get() {
                            q.engine.increment_epoch();
                        }
                        ticks += 1;
                    }
                }
            })
            .ok();
        Ticker {
            stop: Some(stop),
            thread,
        }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests;
