//! Builds the fixture components in tests/guests from source and generates
//! a constant with the path of each, plus `foreach_fixture!`, which the
//! end-to-end tests use to make a fixture without a test a compile error.

use std::path::PathBuf;

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let repo = here.join("../..");
    let built = vcc_guest_build::build_workspace(
        &repo.join("tests/guests"),
        &[&repo.join("sdk/rust"), &repo.join("wit")],
    );
    let mut consts = String::new();
    let mut names = Vec::new();
    for b in &built {
        let ident = b.package.replace('-', "_");
        consts.push_str(&format!(
            "/// The `{}` fixture component.\npub const {}: &str = {:?};\n",
            b.package,
            ident.to_uppercase(),
            b.wasm.display().to_string()
        ));
        names.push(ident);
    }
    let list = names
        .iter()
        .map(|n| format!("$mac!({n});"))
        .collect::<Vec<_>>()
        .join(" ");
    consts.push_str(&format!(
        "/// Calls `$mac!(name)` for every fixture.\n#[macro_export]\nmacro_rules! foreach_fixture {{ ($mac:ident) => {{ {list} }}; }}\n"
    ));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    std::fs::write(out.join("fixtures.rs"), consts).expect("write fixtures.rs");
}
