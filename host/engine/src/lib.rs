//! The engine configuration vcc runs components with.
//!
//! One function, shared by the runtime (`host/runtime`) and by the build of
//! the standard validator bundle (`host/std/build.rs`), which precompiles
//! the std components into the binary: an artifact loads only into an
//! engine whose settings match the ones it was compiled with, so both sides
//! take them from here.

use wasmtime::{Config, Engine};

/// Guest stack per run.
pub const MAX_WASM_STACK: usize = 1 << 20;

/// Which of wasmtime's compilers makes a component's code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compiler {
    /// Optimizing: what the cache and the embedded std validators hold.
    Cranelift,
    /// Single pass, 2.6–3.6× faster to compile and 1.03–1.11× slower to
    /// run (bench W11): the first run of a large component (W15).
    Winch,
}

impl Compiler {
    pub fn name(self) -> &'static str {
        match self {
            Compiler::Cranelift => "cranelift",
            Compiler::Winch => "winch",
        }
    }
}

/// The configuration of vcc's main engine: Cranelift, unless
/// VCC_BENCH_COMPILER=winch asks for Winch everywhere (bench W11 measures
/// it so; the std validators' embedded code, compiled by Cranelift, is then
/// compiled again).
pub fn config() -> Config {
    let winch = std::env::var_os("VCC_BENCH_COMPILER").is_some_and(|v| v == "winch");
    config_for(if winch {
        Compiler::Winch
    } else {
        Compiler::Cranelift
    })
}

/// The configuration of every engine vcc makes, for one compiler.
pub fn config_for(compiler: Compiler) -> Config {
    let mut config = Config::new();
    // Async components are not used: the concurrency machinery triples
    // the cost of every call (bench/TARGETS.md).
    config.concurrency_support(false);
    config.epoch_interruption(true);
    config.max_wasm_stack(MAX_WASM_STACK);
    config.parallel_compilation(true);
    // No native-to-wasm address maps: they only put wasm offsets into trap
    // backtraces (a trap is an `error` row either way), and they were a
    // large part of every compiled component — and of the binary, which
    // embeds the std ones (W12).
    config.generate_address_map(false);
    if compiler == Compiler::Winch {
        config.strategy(wasmtime::Strategy::Winch);
    }
    config
}

/// Precompile a component for `triple` with no optional CPU feature (the
/// architecture's baseline): the artifact loads into an engine made with
/// [`config`] on any CPU of that architecture, since a feature the code
/// does not use is never asked of the host.
pub fn precompile_baseline(triple: &str, component: &[u8]) -> anyhow::Result<Vec<u8>> {
    let mut config = config();
    // An explicit target turns off host feature inference (wasmtime's docs).
    config.target(triple)?;
    let engine = Engine::new(&config)?;
    Ok(engine.precompile_component(component)?)
}
