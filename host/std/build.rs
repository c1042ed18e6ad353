//! Builds the standard validators in `plugins/` from source and embeds them.

use std::path::PathBuf;

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let repo = here.join("../..");
    let built = vcc_guest_build::build_workspace(
        &repo.join("plugins"),
        &[&repo.join("sdk/rust"), &repo.join("wit")],
    );
    let mut code = String::from(
        "/// (name, component bytes) of every built-in validator.\npub static BUILTINS: &[(&str, &[u8])] = &[\n",
    );
    for b in built {
        code.push_str(&format!(
            "    (\"std/{}\", include_bytes!({:?})),\n",
            b.package,
            b.wasm.display().to_string()
        ));
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    std::fs::write(out.join("builtins.rs"), code).expect("write builtins.rs");
}
