//! Builds the standard validators in `plugins/` from source and embeds them.

use std::path::PathBuf;

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let repo = here.join("../..");
    let built = vcc_guest_build::build_workspace(
        &repo.join("plugins"),
        &[
            &repo.join("sdk/rust"),
            &repo.join("wit"),
            &repo.join("host/record"),
        ],
    );
    let mut code = String::from(
        "/// (name, component bytes, blake3 of the bytes) of every built-in validator.\npub static BUILTINS: &[(&str, &[u8], [u8; 32])] = &[\n",
    );
    for b in built {
        let bytes = std::fs::read(&b.wasm).expect("read a built component");
        code.push_str(&format!(
            "    (\"std/{}\", include_bytes!({:?}), {:?}),\n",
            b.package,
            b.wasm.display().to_string(),
            blake3::hash(&bytes).as_bytes()
        ));
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    std::fs::write(out.join("builtins.rs"), code).expect("write builtins.rs");
}
