//! Builds the standard validators in `plugins/` from source and embeds
//! them: each component's bytes (deflated: they are only read when this
//! CPU cannot run the native code), their blake3, and the component
//! precompiled to native code for this architecture's baseline CPU, so vcc
//! loads std validators from its own executable — never compiling them on
//! a user's machine, and never from the on-disk cache, which other
//! processes of the same user could write. The native code is stored as
//! is, page-aligned, so the runtime can run it where the executable is
//! mapped instead of copying it (W3, W12 in bench/README.md).

use std::path::PathBuf;

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
    // zlib's best level; miniz_oxide's 10 is a slower extension of it.
    const LEVEL: u8 = 9;
    for b in built {
        let bytes = std::fs::read(&b.wasm).expect("read a built component");
        let native = vcc_engine::precompile_baseline(&triple, &bytes)
            .unwrap_or_else(|e| panic!("precompiling std/{}: {e:#}", b.package));
        let cwasm = out.join(format!("{}.cwasm", b.package));
        std::fs::write(&cwasm, native).expect("write a precompiled component");
        let deflated = out.join(format!("{}.wasm.deflate", b.package));
        std::fs::write(
            &deflated,
            miniz_oxide::deflate::compress_to_vec(&bytes, LEVEL),
        )
        .expect("write a deflated component");
        code.push_str(&format!(
            "    Embedded {{ name: \"std/{}\", deflated: include_bytes!({:?}), size: {}, digest: {:?}, precompiled: page_aligned!({:?}) }},\n",
            b.package,
            deflated.display().to_string(),
            bytes.len(),
            blake3::hash(&bytes).as_bytes(),
            cwasm.display().to_string()
        ));
    }
    code.push_str("];\n");
    std::fs::write(out.join("builtins.rs"), code).expect("write builtins.rs");
}
