//! Builds the standard validators in `plugins/` from source and embeds
//! them: each component's bytes, its blake3, and the component precompiled
//! to native code for this architecture's baseline CPU, so vcc runs std
//! validators with code from its own executable — never compiling them on
//! a user's machine, and never trusting the on-disk cache, which other
//! processes of the same user could write.
//!
//! Both are stored as zstd frames (W12: the native code alone was 40 MB
//! of an 81 MB binary; compressed it is ~8 MB), each compressed with
//! std/file-exists's bytes as a raw-content dictionary. std/file-exists's
//! native code itself is stored as is, page-aligned: it is that dictionary,
//! and it runs where the executable is mapped, with nothing to decompress
//! or check (W3). The runtime decompresses a
//! validator's native code the first time it is used and keeps it in the
//! cache, where each later run reads it back only if it hashes to the
//! digest embedded here (host/runtime/src/std_code.rs).

use std::path::PathBuf;

/// zstd's strongest regular level: decompression speed does not depend on
/// it, and it runs once per build of this crate.
const LEVEL: i32 = 19;

/// 32 MB (zstd decoders accept up to 128 MB).
const WINDOW_LOG: u32 = 25;

/// The validator whose bytes are the dictionary of every frame (its own
/// frame then costs almost nothing): the std validators share the Rust
/// standard library, serde and plugins/common, so each compresses to about
/// two thirds of its size alone (11.8 -> 8.3 MB of native code, 5.0 -> 3.3
/// MB of components). std/file-exists is the smallest of the general ones,
/// and the one most contracts use first.
const BASE: &str = "file-exists";

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let repo = here.join("../..");
    let built = vcc_guest_build::build_workspace(
        &repo.join("plugins"),
        // The SDK's sources, not its folder: the tests build its example
        // under sdk/rust/examples, and a watched folder with fresh files
        // in it would rebuild this crate on every cargo run after them.
        &[
            &repo.join("sdk/rust/Cargo.toml"),
            &repo.join("sdk/rust/src"),
            &repo.join("wit"),
            &repo.join("host/record"),
        ],
    );
    println!(
        "cargo:rerun-if-changed={}",
        repo.join("host/engine").display()
    );
    let triple = std::env::var("TARGET").expect("set by cargo");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    let all: Vec<(String, Vec<u8>, Vec<u8>)> = built
        .into_iter()
        .map(|b| {
            let wasm = std::fs::read(&b.wasm).expect("read a built component");
            let native = vcc_engine::precompile_baseline(&triple, &wasm)
                .unwrap_or_else(|e| panic!("precompiling std/{}: {e:#}", b.package));
            (b.package, wasm, native)
        })
        .collect();
    let (_, base_wasm, base_native) = all
        .iter()
        .find(|(name, _, _)| name == BASE)
        .unwrap_or_else(|| panic!("no std/{BASE} among the std validators"));
    let frame = |data: &[u8], dictionary: &[u8], name: String| {
        let mut z =
            zstd::bulk::Compressor::with_dictionary(LEVEL, dictionary).expect("a zstd compressor");
        // A window that reaches back over the whole dictionary from the
        // end of the largest validator (8 MB of native code).
        z.set_parameter(zstd::zstd_safe::CParameter::WindowLog(WINDOW_LOG))
            .expect("a zstd window size");
        let packed = z.compress(data).expect("zstd compresses in memory");
        let path = out.join(name);
        std::fs::write(&path, packed).expect("write a compressed component");
        format!(
            "Frame {{ zst: include_bytes!({:?}), size: {}, digest: {:?} }}",
            path.display().to_string(),
            data.len(),
            blake3::hash(data).as_bytes()
        )
    };
    let mut code = format!(
        "/// std/{BASE}'s component, the dictionary of every `wasm` frame.\npub static WASM_DICTIONARY: Frame = {};\n\
         /// std/{BASE}'s native code, as is: the dictionary of every `native` frame.\npub static NATIVE_DICTIONARY: Raw = Raw {{ bytes: page_aligned!({:?}), digest: {:?} }};\n\
         /// Every built-in validator.\npub static BUILTINS: &[Embedded] = &[\n",
        frame(base_wasm, &[], "dictionary.wasm.zst".into()),
        {
            let path = out.join("dictionary.cwasm");
            std::fs::write(&path, base_native).expect("write the native dictionary");
            path.display().to_string()
        },
        blake3::hash(base_native).as_bytes(),
    );
    for (name, wasm, native) in &all {
        code.push_str(&format!(
            "    Embedded {{ name: \"std/{name}\", wasm: {}, native: {} }},\n",
            frame(wasm, base_wasm, format!("{name}.wasm.zst")),
            frame(native, base_native, format!("{name}.cwasm.zst")),
        ));
    }
    code.push_str("];\n");
    std::fs::write(out.join("builtins.rs"), code).expect("write builtins.rs");
}
