//! Builds the standard validators in `plugins/` from source and embeds
//! them: each component's bytes, its blake3, and the component precompiled
//! to native code for this architecture's baseline CPU, so vcc runs std
//! validators with code from its own executable — never compiling them on
//! a user's machine, and never trusting the on-disk cache, which other
//! processes of the same user could write.
//!
//! Both are stored zstd-compressed (W12: the native code alone was 40 MB
//! of an 81 MB binary; compressed it is ~7 MB). The runtime decompresses a
//! validator's native code the first time it is used and keeps it in the
//! cache, where each later run reads it back only if it hashes to the
//! digest embedded here (host/runtime/src/std_code.rs).

use std::path::PathBuf;

/// zstd's strongest regular level: decompression speed does not depend on
/// it, and it runs once per build of this crate.
const LEVEL: i32 = 19;

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
    let mut code =
        String::from("/// Every built-in validator.\npub static BUILTINS: &[Embedded] = &[\n");
    for b in built {
        let bytes = std::fs::read(&b.wasm).expect("read a built component");
        let native = vcc_engine::precompile_baseline(&triple, &bytes)
            .unwrap_or_else(|e| panic!("precompiling std/{}: {e:#}", b.package));
        let compress = |data: &[u8], name: String| {
            let path = out.join(name);
            let packed = zstd::bulk::compress(data, LEVEL).expect("zstd compresses in memory");
            std::fs::write(&path, packed).expect("write a compressed component");
            path.display().to_string()
        };
        let wasm_zst = compress(&bytes, format!("{}.wasm.zst", b.package));
        let native_zst = compress(&native, format!("{}.cwasm.zst", b.package));
        code.push_str(&format!(
            "    Embedded {{ name: \"std/{}\", wasm: include_bytes!({:?}), size: {}, digest: {:?}, native: include_bytes!({:?}), native_size: {}, native_digest: {:?} }},\n",
            b.package,
            wasm_zst,
            bytes.len(),
            blake3::hash(&bytes).as_bytes(),
            native_zst,
            native.len(),
            blake3::hash(&native).as_bytes(),
        ));
    }
    code.push_str("];\n");
    std::fs::write(out.join("builtins.rs"), code).expect("write builtins.rs");
}
