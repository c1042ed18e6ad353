//! `vcc validator componentize CORE.wasm -o X.wasm`: a core module from any
//! toolchain (C, Zig, Go…) made into a validator component.
//!
//! Two steps a team outside would otherwise do by hand: embed the world
//! (`vcc:validator@VERSION`, `plugin`) unless the module carries one, and
//! adapt its `wasi_snapshot_preview1` imports with the WASI preview1
//! adapter of the very wasmtime release vcc runs (the provider crate is
//! pinned next to wasmtime in Cargo.toml). The result is then loaded by
//! the caller (`describe()` through the real sandbox), so a module that
//! would not instantiate is refused here, with the reason, and not at the
//! first check.

use std::path::Path;

use wasi_preview1_component_adapter_provider::{
    WASI_SNAPSHOT_PREVIEW1_ADAPTER_NAME, WASI_SNAPSHOT_PREVIEW1_COMMAND_ADAPTER,
    WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER,
};
use wasmparser::{Parser, Payload};
use wit_component::{ComponentEncoder, StringEncoding, embed_component_metadata};
use wit_parser::Resolve;

use vcc_runtime::Runtime;

use crate::render::clean;
use crate::validator::wit::{WIT, WIT_VERSION};

/// How a core module expects to be started (wasi-libc's exec models).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    /// Exports `_initialize` (or nothing to start): a library of exports.
    Reactor,
    /// Exports `_start`: a program whose other exports are called too.
    Command,
}

impl Model {
    pub fn name(self) -> &'static str {
        match self {
            Model::Reactor => "reactor",
            Model::Command => "command",
        }
    }
}

/// What componentize made.
pub struct Made {
    pub component: Vec<u8>,
    pub model: Model,
    /// The world was embedded here (not already in the module).
    pub embedded_world: bool,
    /// The module imports wasip1 and was adapted.
    pub adapted: bool,
}

impl Made {
    /// One line for stderr: what was done to `core`.
    pub fn said(&self, core: &Path) -> String {
        let mut steps = Vec::new();
        if self.embedded_world {
            steps.push(format!("embedded the world vcc:validator@{}", WIT_VERSION));
        }
        if self.adapted {
            steps.push(format!(
                "adapted WASI preview1 with the {} adapter of wasmtime {}",
                self.model.name(),
                ADAPTER_WASMTIME
            ));
        }
        if steps.is_empty() {
            steps.push("encoded it".into());
        }
        format!(
            "componentized {} ({} module): {}",
            core.display(),
            self.model.name(),
            steps.join("; ")
        )
    }
}

/// The wasmtime release whose adapter is built in (Cargo.toml pins the
/// provider crate to the same version as wasmtime).
const ADAPTER_WASMTIME: &str = "48.0.8";

/// What a core module says about itself.
struct CoreFacts {
    exports: Vec<String>,
    wasip1: bool,
    has_world: bool,
}

fn read_core(bytes: &[u8]) -> Result<CoreFacts, String> {
    if wasmparser::Parser::is_component(bytes) {
        return Err(
            "this is already a component: nothing to componentize (give it to `vcc validator inspect` to see whether vcc can use it)".into(),
        );
    }
    if !wasmparser::Parser::is_core_wasm(bytes) {
        return Err("not a WebAssembly module (no `\\0asm` header of a core module)".into());
    }
    let mut facts = CoreFacts {
        exports: Vec::new(),
        wasip1: false,
        has_world: false,
    };
    for payload in Parser::new(0).parse_all(bytes) {
        match payload.map_err(|e| format!("not a valid WebAssembly module: {e}"))? {
            Payload::ExportSection(reader) => {
                for export in reader {
                    let export =
                        export.map_err(|e| format!("not a valid WebAssembly module: {e}"))?;
                    facts.exports.push(export.name.to_string());
                }
            }
            Payload::ImportSection(reader) => {
                for imports in reader {
                    let imports =
                        imports.map_err(|e| format!("not a valid WebAssembly module: {e}"))?;
                    for import in imports {
                        let (_, import) =
                            import.map_err(|e| format!("not a valid WebAssembly module: {e}"))?;
                        facts.wasip1 |= import.module == WASI_SNAPSHOT_PREVIEW1_ADAPTER_NAME;
                    }
                }
            }
            Payload::CustomSection(section) => {
                // wit-bindgen's `*_component_type.o` and `wasm-tools
                // component embed` both name theirs `component-type…`.
                facts.has_world |= section.name().starts_with("component-type");
            }
            _ => {}
        }
    }
    Ok(facts)
}

/// The export name of a function of the world's `validator` interface, as
/// a core module must spell it.
fn export_name(interface: &str, function: &str) -> String {
    format!("vcc:validator/{interface}@{}#{function}", WIT_VERSION)
}

/// Embed and adapt. Errors say what the module lacks and how to give it.
pub fn componentize(core: &[u8]) -> Result<Made, String> {
    let facts = read_core(core)?;
    let model = if facts.exports.iter().any(|e| e == "_start") {
        Model::Command
    } else {
        Model::Reactor
    };
    if !facts.has_world {
        let missing: Vec<String> = [
            ("validator", "describe"),
            ("validator", "validate"),
            ("params", "check-params"),
        ]
        .iter()
        .map(|(i, f)| export_name(i, f))
        .filter(|name| !facts.exports.contains(name))
        .collect();
        if !missing.is_empty() {
            return Err(format!(
                "the module does not export {} (the C SDK's vcc_sdk.c exports them; with other bindings, export every function of the `plugin` world that `vcc validator wit` writes){}",
                missing
                    .iter()
                    .map(|m| format!("`{m}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                if missing.len() == 3 {
                    ": it exports none of them. Was vcc_sdk.c compiled in, and the module linked as a library (`-mexec-model=reactor` for clang and zig cc, `-fno-entry` for zig build-exe)?"
                } else {
                    ""
                }
            ));
        }
        if !facts.exports.iter().any(|e| e == "cabi_realloc") {
            return Err(
                "the module does not export `cabi_realloc` (the host allocates the criterion's strings in the guest with it; the C SDK's vcc_sdk.c exports it)".into(),
            );
        }
    }
    let mut module = core.to_vec();
    if !facts.has_world {
        let mut resolve = Resolve::default();
        let package = resolve
            .push_str("validator.wit", WIT)
            .map_err(|e| format!("vcc's own WIT does not parse: {e:#}"))?;
        let world = resolve
            .select_world(&[package], Some("plugin"))
            .map_err(|e| format!("vcc's own WIT has no `plugin` world: {e:#}"))?;
        embed_component_metadata(&mut module, &resolve, world, StringEncoding::UTF8)
            .map_err(|e| format!("cannot embed the world: {e:#}"))?;
    }
    let mut encoder = ComponentEncoder::default()
        .validate(true)
        .module(&module)
        .map_err(|e| format!("cannot read the module's world: {e:#}"))?;
    if facts.wasip1 {
        let adapter = match model {
            Model::Reactor => WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER,
            Model::Command => WASI_SNAPSHOT_PREVIEW1_COMMAND_ADAPTER,
        };
        encoder = encoder
            .adapter(WASI_SNAPSHOT_PREVIEW1_ADAPTER_NAME, adapter)
            .map_err(|e| format!("cannot read the WASI adapter: {e:#}"))?;
    }
    let component = encoder.encode().map_err(|e| {
        format!(
            "the module does not fit the `plugin` world of vcc:validator@{}: {e:#}",
            WIT_VERSION
        )
    })?;
    Ok(Made {
        component,
        model,
        embedded_world: !facts.has_world,
        adapted: facts.wasip1,
    })
}

/// `vcc validator componentize CORE -o OUT`: 0 made and usable, 1 made
/// but refused by the host (not written), 2 not made.
pub fn command(runtime: &Runtime, core: &Path, out: &Path) -> i32 {
    let bytes = match std::fs::read(core) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("vcc validator componentize: {}: {e}", core.display());
            return 2;
        }
    };
    let made = match componentize(&bytes) {
        Ok(made) => made,
        Err(e) => {
            eprintln!("vcc validator componentize: {}: {e}", core.display());
            return 2;
        }
    };
    if let Err(e) = std::fs::write(out, &made.component) {
        eprintln!(
            "vcc validator componentize: cannot write {}: {e}",
            out.display()
        );
        return 2;
    }
    eprintln!("{}", made.said(core));
    // The host's own load (instantiate, describe) decides, not the encoder.
    match runtime.loader().inspect(out).map(|i| i.loaded) {
        Ok(Ok(loaded)) => {
            let digest = blake3::hash(&made.component).to_hex();
            eprintln!(
                "wrote {} ({} bytes, blake3:{digest}): {} {}",
                out.display(),
                made.component.len(),
                clean(&loaded.description.name),
                clean(&loaded.description.version)
            );
            0
        }
        Ok(Err(why)) | Err(why) => {
            let _ = std::fs::remove_file(out);
            eprintln!(
                "vcc validator componentize: the component would not run in vcc (not written): {}",
                clean(&why)
            );
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_adapter_is_the_wasmtime_releases() {
        let manifest = include_str!("../../../../Cargo.toml");
        for krate in ["wasmtime", "wasi-preview1-component-adapter-provider"] {
            assert!(
                manifest.contains(&format!("{krate} = \"={ADAPTER_WASMTIME}\""))
                    || manifest
                        .contains(&format!("{krate} = {{ version = \"={ADAPTER_WASMTIME}\"")),
                "{krate} is not pinned to {ADAPTER_WASMTIME}"
            );
        }
    }

    #[test]
    fn refuses_what_is_not_a_core_module() {
        let err = componentize(b"hello").err().unwrap_or_default();
        assert!(err.contains("not a WebAssembly module"), "{err}");
        let component = wat::parse_str("(component)").expect("wat");
        let err = componentize(&component).err().unwrap_or_default();
        assert!(err.contains("already a component"), "{err}");
    }

    #[test]
    fn names_every_missing_export() {
        let module = wat::parse_str(r#"(module (func (export "_start")))"#).expect("wat");
        let err = componentize(&module).err().unwrap_or_default();
        assert!(err.contains("#describe`"), "{err}");
        assert!(err.contains("#check-params`"), "{err}");
        let empty = wat::parse_str("(module)").expect("wat");
        let err = componentize(&empty).err().unwrap_or_default();
        assert!(err.contains("-mexec-model=reactor"), "{err}");
    }
}
