//! The WebAssembly runtime a command uses, made from the global flags.

use std::path::PathBuf;

use vcc_report::law::exit;
use vcc_runtime::{Builtin, Cache, Frame, Raw, Runtime};

use crate::args::Cli;

pub fn runtime(cli: &Cli) -> Result<Runtime, i32> {
    RuntimeSettings::of(cli).runtime().map_err(|e| {
        eprintln!("vcc: {e}");
        exit::INVALID
    })
}

/// What a runtime is made from (for `vcc mcp`, which makes one per call).
#[derive(Clone)]
pub struct RuntimeSettings {
    cache_dir: Option<PathBuf>,
}

impl RuntimeSettings {
    pub fn of(cli: &Cli) -> RuntimeSettings {
        RuntimeSettings {
            cache_dir: if cli.no_cache {
                None
            } else {
                cli.cache_dir.clone().or_else(Cache::default_dir)
            },
        }
    }

    /// The cache folder, unless `--no-cache`.
    pub fn cache_dir(&self) -> Option<PathBuf> {
        self.cache_dir.clone()
    }

    pub fn runtime(&self) -> Result<Runtime, String> {
        let frame = |f: &vcc_std::Frame| Frame {
            zst: f.zst,
            size: f.size,
            digest: f.digest,
        };
        let builtins = vcc_std::BUILTINS
            .iter()
            .map(|b| Builtin {
                name: b.name,
                wasm: frame(&b.wasm),
                native: frame(&b.native),
                wasm_dictionary: frame(&vcc_std::WASM_DICTIONARY),
                native_dictionary: Raw {
                    bytes: vcc_std::NATIVE_DICTIONARY.bytes,
                    digest: vcc_std::NATIVE_DICTIONARY.digest,
                },
            })
            .collect();
        // A knob for tests and slow machines: how long one component may take
        // to compile (a duration like `300s`).
        let compile_timeout = match std::env::var("VCC_COMPILE_TIMEOUT") {
            Ok(text) if !text.is_empty() => {
                vcc_contract::DurationSpec::parse(&text)
                    .map_err(|e| format!("VCC_COMPILE_TIMEOUT: {e}"))?
                    .0
            }
            _ => vcc_runtime::DEFAULT_COMPILE_TIMEOUT,
        };
        let (runtime, warning) = Runtime::new(builtins, self.cache_dir.as_deref(), compile_timeout)
            .map_err(|err| format!("cannot start the WebAssembly runtime: {err:#}"))?;
        if let Some(warning) = warning {
            eprintln!("vcc: warning: {warning}");
        }
        Ok(runtime)
    }
}
