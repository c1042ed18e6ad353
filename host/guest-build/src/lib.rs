//! Build a cargo workspace of guest components for `wasm32-wasip2`, from a
//! build script.
//!
//! Guests are always built from source: committed `.wasm` files drift from
//! the code they claim to be. The nested cargo gets its own target directory
//! (next to the outer one, shared by every build script that uses this
//! crate) so it cannot deadlock on the outer build's lock, and it runs with
//! the outer build's flags and wrappers cleared: they are for the host.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const TARGET: &str = "wasm32-wasip2";

/// One component produced by the build.
#[derive(Debug, Clone)]
pub struct Built {
    /// The cargo package name, e.g. `file-exists`.
    pub package: String,
    /// The `.wasm` file cargo reported for it.
    pub wasm: PathBuf,
}

/// Build every `cdylib` package of the workspace at `workspace` (a folder
/// with a `Cargo.toml`) in release mode. Panics with an actionable message on
/// failure: this runs inside a build script.
pub fn build_workspace(workspace: &Path, watch: &[&Path]) -> Vec<Built> {
    ensure_target();
    for path in std::iter::once(workspace).chain(watch.iter().copied()) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = workspace.join("Cargo.toml");
    let mut cmd = Command::new(cargo);
    cmd.arg("build")
        .arg("--release")
        .arg("--locked")
        .arg("--target")
        .arg(TARGET)
        .arg("--manifest-path")
        .arg(&manifest)
        .arg("--target-dir")
        .arg(guest_target_dir())
        .arg("--message-format=json-render-diagnostics");
    for var in [
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTFLAGS",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_BUILD_TARGET",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_RUSTFLAGS",
        "CARGO_PROFILE_RELEASE_DEBUG",
    ] {
        cmd.env_remove(var);
    }
    let output = cmd
        .output()
        .unwrap_or_else(|err| panic!("cannot run cargo to build {}: {err}", manifest.display()));
    if !output.status.success() {
        panic!(
            "building the guest components in {} failed:\n{}",
            workspace.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let mut built: Vec<Built> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(artifact)
        .collect();
    built.sort_by(|a, b| a.package.cmp(&b.package));
    built.dedup_by(|a, b| a.package == b.package);
    if built.is_empty() {
        panic!("{} built no component", workspace.display());
    }
    built
}

/// The component a `cargo --message-format=json` line announces, if any:
/// `{"reason":"compiler-artifact","target":{"kind":["cdylib"]},"filenames":[..]}`
/// — read with a minimal scan so build scripts need no JSON dependency.
pub fn artifact(line: &str) -> Option<Built> {
    if !line.contains("\"reason\":\"compiler-artifact\"") || !line.contains("\"cdylib\"") {
        return None;
    }
    let package = string_after(line, "\"package_id\":\"")?;
    // package_id is `path+file:///…/name#version` or `name version (…)`.
    let name = package
        .rsplit('/')
        .next()
        .and_then(|tail| tail.split(['#', '@', ' ']).next())
        .map(str::to_string)?;
    let files = &line[line.find("\"filenames\":[")?..];
    let wasm = files
        .split('"')
        .find(|s| s.ends_with(".wasm"))
        .map(PathBuf::from)?;
    Some(Built {
        package: name,
        wasm,
    })
}

fn string_after<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let start = line.find(key)? + key.len();
    let end = line[start..].find('"')? + start;
    Some(&line[start..end])
}

/// `<outer target>/vcc-guests`, derived from `OUT_DIR`
/// (`<target>/<profile>/build/<pkg>-<hash>/out`).
fn guest_target_dir() -> PathBuf {
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR is set for build scripts"));
    out.ancestors()
        .nth(4)
        .map(|target| target.join("vcc-guests"))
        .unwrap_or_else(|| out.join("vcc-guests"))
}

/// Is the `wasm32-wasip2` standard library installed for `rustc`?
pub fn target_installed(rustc: &str) -> bool {
    Command::new(rustc)
        .args(["--print", "target-libdir", "--target", TARGET])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .is_some_and(|dir| dir.exists())
}

/// Install the `wasm32-wasip2` standard library with rustup if it is
/// missing, so a fresh checkout builds with one command.
fn ensure_target() {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    if target_installed(&rustc) {
        return;
    }
    println!(
        "cargo:warning=installing the {TARGET} target with `rustup target add {TARGET}` (needed to build validator components)"
    );
    let status = Command::new("rustup")
        .args(["target", "add", TARGET])
        .status();
    match status {
        Ok(s) if s.success() => {}
        _ => panic!(
            "the {TARGET} target is missing and `rustup target add {TARGET}` failed; install it and build again"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_cdylib_artifacts_from_cargo_messages() {
        let line = r#"{"reason":"compiler-artifact","package_id":"path+file:///w/plugins/file-exists#0.1.0","manifest_path":"/w/plugins/file-exists/Cargo.toml","target":{"kind":["cdylib"],"crate_types":["cdylib"],"name":"file_exists"},"filenames":["/t/wasm32-wasip2/release/file_exists.wasm"],"fresh":true}"#;
        let built = artifact(line).unwrap();
        assert_eq!(built.package, "file-exists");
        assert_eq!(
            built.wasm,
            PathBuf::from("/t/wasm32-wasip2/release/file_exists.wasm")
        );
        assert!(artifact(r#"{"reason":"compiler-artifact","target":{"kind":["lib"]}}"#).is_none());
    }
}
