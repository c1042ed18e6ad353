//! Builds the fixture components in tests/guests from source and generates
//! a constant with the path of each, plus `foreach_fixture!`, which the
//! end-to-end tests use to make a fixture without a test a compile error.

use std::path::{Path, PathBuf};

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let repo = here.join("../..");
    let built = vcc_guest_build::build_workspace(
        &repo.join("tests/guests"),
        &[&repo.join("sdk/rust"), &repo.join("wit")],
    );
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    let mut fixtures: Vec<(String, PathBuf)> = built
        .iter()
        .map(|b| (b.package.clone(), b.wasm.clone()))
        .collect();
    fixtures.extend(wat_fixtures(&repo, &out));
    let mut consts = String::new();
    let mut names = Vec::new();
    for (package, wasm) in &fixtures {
        let ident = package.replace('-', "_");
        consts.push_str(&format!(
            "/// The `{package}` fixture component.\npub const {}: &str = {:?};\n",
            ident.to_uppercase(),
            wasm.display().to_string()
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
    std::fs::write(out.join("fixtures.rs"), consts).expect("write fixtures.rs");
}

/// Components written by hand in WebAssembly text (`tests/guests/wat`), for
/// what Rust cannot express: growing tables, many memories, return values
/// that break the canonical ABI. Each is a core module exporting the
/// canonical-ABI functions of the released 0.1.1 `plugin` world, encoded
/// as a component.
fn wat_fixtures(repo: &Path, out: &Path) -> Vec<(String, PathBuf)> {
    let dir = repo.join("tests/guests/wat");
    println!("cargo:rerun-if-changed={}", dir.display());
    println!("cargo:rerun-if-changed={}", repo.join("wit").display());
    // Written against the released 0.1.1 (validate and describe only):
    // they are also old components that a newer host must still run.
    let mut resolve = wit_parser::Resolve::default();
    let (package, _) = resolve
        .push_dir(repo.join("wit/frozen/0.1.1"))
        .expect("wit/frozen/0.1.1 parses");
    let world = resolve
        .select_world(&[package], Some("plugin"))
        .expect("wit/frozen/0.1.1 has the plugin world");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/guests/wat exists")
        .map(|e| e.expect("list tests/guests/wat").path())
        .filter(|p| p.extension().is_some_and(|e| e == "wat"))
        .collect();
    sources.sort();
    sources
        .into_iter()
        .map(|source| {
            let name = source
                .file_stem()
                .and_then(|s| s.to_str())
                .expect("a UTF-8 file name")
                .to_string();
            let mut module =
                wat::parse_file(&source).unwrap_or_else(|e| panic!("{}: {e}", source.display()));
            wit_component::embed_component_metadata(
                &mut module,
                &resolve,
                world,
                wit_component::StringEncoding::UTF8,
            )
            .expect("embed the world");
            let component = wit_component::ComponentEncoder::default()
                .module(&module)
                .and_then(|e| e.validate(true).encode())
                .unwrap_or_else(|e| panic!("{}: {e:#}", source.display()));
            let wasm = out.join(format!("{name}.wasm"));
            std::fs::write(&wasm, component).expect("write a fixture");
            (name, wasm)
        })
        .collect()
}
