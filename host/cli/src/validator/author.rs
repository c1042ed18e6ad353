//! `vcc validator new|build|inspect`: for people who write validators.
//!
//! A validator project is a folder with `vcc-validator.yaml` (its name and
//! language), the validator's source, and golden cases in `cases/`. `new`
//! writes one from templates inside vcc. `build` writes the SDK and the WIT
//! this vcc speaks into `.vcc/` (never edited by hand: rewritten on every
//! build, so the bindings always come from vcc's own `wit/`), then runs the
//! language's tool, and leaves the component in `build/NAME.wasm`. It
//! installs nothing: a missing tool is an error that gives the command to
//! install it.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;
use serde_json::json;
use vcc_runtime::{ImportUse, Runtime};

use crate::args::{Format, Lang};
use crate::render::clean;
use crate::validator::toolchain::{on_path, run, tools_dir};
use crate::validator::wit::WIT;

/// The SDKs built against the interface this vcc speaks.
const SDK_C_HEADER: &str = include_str!("../../../../sdk/c/vcc_sdk.h");
const SDK_C_SOURCE: &str = include_str!("../../../../sdk/c/vcc_sdk.c");
const SDK_RUST_MANIFEST: &str = include_str!("../../../../sdk/rust/Cargo.toml");
const SDK_RUST_LIB: &str = include_str!("../../../../sdk/rust/src/lib.rs");
const SDK_RUST_NATIVE: &str = include_str!("../../../../sdk/rust/src/native.rs");
const SDK_RUST_JUDGE: &str = include_str!("../../../../sdk/rust/src/judge.rs");
const SDK_PYTHON: &str = include_str!("../../../../sdk/python/vcc_sdk/__init__.py");
const SDK_JS: &str = include_str!("../../../../sdk/js/vcc-sdk.js");

/// Tool versions the SDKs are tested with.
pub const COMPONENTIZE_PY: &str = "0.25.1";
pub const COMPONENTIZE_JS: &str = "0.23.0";

const PROJECT_FILE: &str = "vcc-validator.yaml";

/// (path in the project, text with `{{name}}`, `{{type}}`, `{{lang}}`).
const COMMON: &[(&str, &str)] = &[
    (
        "README.md",
        include_str!("../../../../sdk/templates/README.md"),
    ),
    (
        "cases/pass-clean/case.yaml",
        include_str!("../../../../sdk/templates/cases/pass-clean/case.yaml"),
    ),
    (
        "cases/pass-clean/files/notes.md",
        include_str!("../../../../sdk/templates/cases/pass-clean/files/notes.md"),
    ),
    (
        "cases/fail-todo/case.yaml",
        include_str!("../../../../sdk/templates/cases/fail-todo/case.yaml"),
    ),
    (
        "cases/fail-todo/files/notes.md",
        include_str!("../../../../sdk/templates/cases/fail-todo/files/notes.md"),
    ),
];
const RUST: &[(&str, &str)] = &[
    // A Rust build is reproducible: build/ is made again, not kept.
    (
        ".gitignore",
        include_str!("../../../../sdk/templates/gitignore"),
    ),
    (
        "Cargo.toml",
        include_str!("../../../../sdk/templates/rust/Cargo.toml"),
    ),
    (
        "src/lib.rs",
        include_str!("../../../../sdk/templates/rust/src/lib.rs"),
    ),
];
const PYTHON: &[(&str, &str)] = &[
    (
        "app.py",
        include_str!("../../../../sdk/templates/python/app.py"),
    ),
    // Python and JavaScript builds are not reproducible: build/ is kept.
    (
        ".gitignore",
        include_str!("../../../../sdk/templates/gitignore-keep-build"),
    ),
];
const C: &[(&str, &str)] = &[
    // Reproducible with the same compiler: build/ is made again, not kept.
    (
        ".gitignore",
        include_str!("../../../../sdk/templates/gitignore"),
    ),
    (
        "validator.c",
        include_str!("../../../../sdk/templates/c/validator.c"),
    ),
];
const ZIG: &[(&str, &str)] = &[
    (
        ".gitignore",
        include_str!("../../../../sdk/templates/gitignore"),
    ),
    (
        "validator.zig",
        include_str!("../../../../sdk/templates/zig/validator.zig"),
    ),
];
const CUSTOM: &[(&str, &str)] = &[
    (
        ".gitignore",
        include_str!("../../../../sdk/templates/gitignore"),
    ),
    (
        "validator.c",
        include_str!("../../../../sdk/templates/c/validator.c"),
    ),
    (
        "build.sh",
        include_str!("../../../../sdk/templates/custom/build.sh"),
    ),
];
const JS: &[(&str, &str)] = &[
    (
        ".gitignore",
        include_str!("../../../../sdk/templates/gitignore-keep-build"),
    ),
    (
        "validator.js",
        include_str!("../../../../sdk/templates/js/validator.js"),
    ),
    (
        "package.json",
        include_str!("../../../../sdk/templates/js/package.json"),
    ),
];

/// `vcc-validator.yaml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Project {
    pub name: String,
    pub lang: Lang,
    /// Python: the app module (default `app`).
    pub module: Option<String>,
    /// JavaScript: the source module (default `validator.js`); Zig: the
    /// root source file (default `validator.zig`).
    pub source: Option<String>,
    /// C: the source files (default `[validator.c]`), compiled with the
    /// SDK's vcc_sdk.c.
    pub sources: Option<Vec<String>>,
    /// Custom: the build command (run with `sh -c` in the project folder).
    pub build: Option<String>,
    /// Custom: what the build command writes, a core module or a component.
    pub output: Option<PathBuf>,
}

impl Project {
    pub fn load(dir: &Path) -> Result<Project, String> {
        let path = dir.join(PROJECT_FILE);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            format!("{}: {e} (a validator project has a {PROJECT_FILE}; `vcc validator new` writes one)", path.display())
        })?;
        let project: Project =
            serde_yaml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        check_name(&project.name).map_err(|e| format!("{}: name: {e}", path.display()))?;
        Ok(project)
    }

    /// Where `build` leaves the component.
    pub fn component(&self, dir: &Path) -> PathBuf {
        dir.join("build").join(format!("{}.wasm", self.name))
    }
}

fn check_name(name: &str) -> Result<(), String> {
    let ok = name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.ends_with('-')
        && name.len() <= 64;
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{name}` is not a valid validator name: use lower-case letters, digits and `-`, starting with a letter"
        ))
    }
}

/// `no-todo` → `NoTodo`.
fn type_name(name: &str) -> String {
    name.split('-')
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// `vcc validator new --lang LANG NAME [DIR]`
pub fn new(lang: Lang, name: &str, dir: Option<&Path>) -> i32 {
    if let Err(e) = check_name(name) {
        eprintln!("vcc validator new: {e}");
        return 2;
    }
    let dir = dir.map_or_else(|| PathBuf::from(name), Path::to_path_buf);
    if dir.exists()
        && std::fs::read_dir(&dir)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        eprintln!(
            "vcc validator new: {} exists and is not empty; choose another folder",
            dir.display()
        );
        return 2;
    }
    let specific = match lang {
        Lang::Rust => RUST,
        Lang::Python => PYTHON,
        Lang::Js => JS,
        Lang::C => C,
        Lang::Zig => ZIG,
        Lang::Custom => CUSTOM,
    };
    let fill = |text: &str| {
        text.replace("{{name}}", name)
            .replace("{{type}}", &type_name(name))
            .replace("{{lang}}", lang.name())
    };
    let mut project = format!(
        "# A vcc validator project (written by `vcc validator new`).\nname: {name}\nlang: {}\n",
        lang.name()
    );
    match lang {
        Lang::Python => project.push_str("module: app\n"),
        Lang::Js => project.push_str("source: validator.js\n"),
        Lang::C => project.push_str("sources: [validator.c]\n"),
        Lang::Zig => project.push_str("source: validator.zig\n"),
        Lang::Custom => project.push_str(
            "# Any command that writes a wasip1 core module (vcc componentizes it) or a component.\nbuild: sh build.sh\noutput: build/core.wasm\n",
        ),
        Lang::Rust => {}
    }
    let files = COMMON
        .iter()
        .chain(specific)
        .map(|(p, t)| (p.to_string(), fill(t)));
    for (path, text) in std::iter::once((PROJECT_FILE.to_string(), project)).chain(files) {
        let target = dir.join(&path);
        let written = target
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&target, text));
        if let Err(e) = written {
            eprintln!("vcc validator new: cannot write {}: {e}", target.display());
            return 2;
        }
    }
    eprintln!(
        "created the {} validator `{name}` in {}\nnext: vcc validator build {dir} && vcc validator test {dir}",
        lang.name(),
        dir.display(),
        dir = dir.display()
    );
    0
}

/// `vcc validator build [DIR]`; with a runtime, the component is also
/// compiled into its cache, so the first check that uses it is a hit.
pub fn build(dir: &Path, runtime: Option<&vcc_runtime::Runtime>) -> i32 {
    match build_project(dir) {
        Ok(out) => {
            let bytes = std::fs::read(&out).unwrap_or_default();
            let digest = blake3::hash(&bytes).to_hex();
            if let Some(rt) = runtime.filter(|rt| rt.loader().cache().is_some()) {
                // Only a speed-up: a component that does not compile here
                // is said so by the check that uses it.
                match rt.loader().precompile(&bytes) {
                    Ok(_) => {
                        eprintln!("compiled it into the component cache: the first check is a hit")
                    }
                    Err(e) => eprintln!("note: not compiled into the cache: {e}"),
                }
            }
            eprintln!(
                "built {} ({}, blake3:{digest})\npin it in a contract (a validator the producer of the deliverables can reach must be pinned):\n  {{ component: {}, digest: \"blake3:{digest}\" }}",
                out.display(),
                size(bytes.len()),
                out.display(),
            );
            if let Ok(project) = Project::load(dir)
                && matches!(project.lang, Lang::Python | Lang::Js)
            {
                eprintln!(
                    "note: {} builds are not reproducible (the next build of the same source has another digest): keep this file (the project's .gitignore keeps build/; commit it or release it), or pin a signed bundle's version instead of the digest (the book: Writing validators, Reproducible builds)",
                    project.lang.name()
                );
            }
            0
        }
        Err(e) => {
            eprintln!("vcc validator build: {e}");
            2
        }
    }
}

/// `36 KiB`, `17.6 MiB`: a C component is a few KiB, a Python one MiBs.
fn size(bytes: usize) -> String {
    if bytes < 1 << 20 {
        format!("{} KiB", bytes.div_ceil(1 << 10))
    } else {
        format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
    }
}

pub fn build_project(dir: &Path) -> Result<PathBuf, String> {
    let project = Project::load(dir)?;
    write_support(dir, project.lang)?;
    let out = project.component(dir);
    std::fs::create_dir_all(out.parent().unwrap_or(dir))
        .map_err(|e| format!("{}: {e}", out.display()))?;
    let made = match project.lang {
        Lang::Rust => build_rust(dir, &out).map(|()| None),
        Lang::Python => build_python(dir, &project, &out).map(|()| None),
        Lang::Js => build_js(dir, &project, &out).map(|()| None),
        Lang::C => {
            let sources = project
                .sources
                .clone()
                .unwrap_or_else(|| vec!["validator.c".into()]);
            crate::validator::toolchain::build_c(dir, &sources).map(Some)
        }
        Lang::Zig => {
            let source = project.source.as_deref().unwrap_or("validator.zig");
            crate::validator::toolchain::build_zig(dir, source).map(Some)
        }
        Lang::Custom => {
            let (Some(command), Some(output)) = (&project.build, &project.output) else {
                return Err(format!(
                    "{}: lang: custom needs `build:` (a command, run with sh in the project folder) and `output:` (the core module or component it writes)",
                    dir.join(PROJECT_FILE).display()
                ));
            };
            crate::validator::toolchain::build_custom(dir, command, output).map(Some)
        }
    }?;
    if let Some(built) = made {
        let bytes =
            std::fs::read(&built).map_err(|e| format!("cannot read {}: {e}", built.display()))?;
        let component = if wasmparser::Parser::is_component(&bytes) {
            bytes
        } else {
            let made = crate::validator::componentize::componentize(&bytes)
                .map_err(|e| format!("{}: {e}", built.display()))?;
            eprintln!("{}", made.said(&built));
            made.component
        };
        std::fs::write(&out, component)
            .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    }
    if !out.exists() {
        return Err(format!(
            "the build reported success but wrote no {}",
            out.display()
        ));
    }
    Ok(out)
}

/// The SDK and WIT this vcc speaks, written into the project.
fn write_support(dir: &Path, lang: Lang) -> Result<(), String> {
    let vcc = dir.join(".vcc");
    let mut files: Vec<(PathBuf, &str)> = vec![(vcc.join("wit/validator.wit"), WIT)];
    match lang {
        Lang::Rust => {
            files.push((vcc.join("sdk/rust/Cargo.toml"), SDK_RUST_MANIFEST));
            files.push((vcc.join("sdk/rust/src/lib.rs"), SDK_RUST_LIB));
            files.push((vcc.join("sdk/rust/src/native.rs"), SDK_RUST_NATIVE));
            files.push((vcc.join("sdk/rust/src/judge.rs"), SDK_RUST_JUDGE));
        }
        Lang::Python => files.push((vcc.join("sdk/python/vcc_sdk/__init__.py"), SDK_PYTHON)),
        // Imported as `./vcc-sdk.js` by the validator module.
        Lang::Js => files.push((dir.join("vcc-sdk.js"), SDK_JS)),
        Lang::C | Lang::Zig | Lang::Custom => {
            files.push((vcc.join("sdk/c/vcc_sdk.h"), SDK_C_HEADER));
            files.push((vcc.join("sdk/c/vcc_sdk.c"), SDK_C_SOURCE));
        }
    }
    for (path, text) in files {
        path.parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, text))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

fn build_rust(dir: &Path, out: &Path) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    if Command::new(&cargo).arg("--version").output().is_err() {
        return Err("cargo is not installed: install Rust with rustup (https://rustup.rs)".into());
    }
    if !vcc_guest_build::target_installed(&rustc) {
        return Err(format!(
            "the {t} target is not installed: run `rustup target add {t}`",
            t = vcc_guest_build::TARGET
        ));
    }
    let mut cmd = Command::new(&cargo);
    cmd.current_dir(dir)
        .args([
            "build",
            "--release",
            "--target",
            vcc_guest_build::TARGET,
            "--message-format=json-render-diagnostics",
        ])
        .env_remove("CARGO_BUILD_TARGET");
    let output = run(cmd, "cargo build")?;
    let built = String::from_utf8_lossy(&output.stdout)
        .lines()
        .rev()
        .find_map(vcc_guest_build::artifact)
        .ok_or("cargo built no cdylib: is `crate-type = [\"cdylib\"]` in Cargo.toml?")?;
    std::fs::copy(&built.wasm, out)
        .map_err(|e| format!("cannot copy {}: {e}", built.wasm.display()))?;
    Ok(())
}

fn componentize_py() -> Result<PathBuf, String> {
    std::env::var_os("VCC_COMPONENTIZE_PY")
        .map(PathBuf::from)
        .filter(|p| p.is_file())
        .or_else(|| on_path("componentize-py"))
        .or_else(|| tools_dir().map(|d| d.join("py/bin/componentize-py")).filter(|p| p.is_file()))
        .ok_or_else(|| {
            format!(
                "componentize-py is not installed: run `pip install componentize-py=={COMPONENTIZE_PY}` \
                 (or `bash sdk/install-tools.sh` in the vcc repository), or set VCC_COMPONENTIZE_PY"
            )
        })
}

fn build_python(dir: &Path, project: &Project, out: &Path) -> Result<(), String> {
    let tool = componentize_py()?;
    let module = project.module.as_deref().unwrap_or("app");
    let rel_out = out.strip_prefix(dir).unwrap_or(out);
    let mut cmd = Command::new(&tool);
    cmd.current_dir(dir)
        .args([
            "-d",
            ".vcc/wit",
            "-w",
            "plugin",
            "componentize",
            "-p",
            ".vcc/sdk/python",
            "-p",
            ".",
            module,
            "-o",
        ])
        .arg(rel_out);
    run(cmd, "componentize-py")?;
    Ok(())
}

/// The componentize-js package folder.
fn componentize_js(dir: &Path) -> Result<PathBuf, String> {
    let package = Path::new("node_modules/@bytecodealliance/componentize-js");
    std::env::var_os("VCC_COMPONENTIZE_JS")
        .map(PathBuf::from)
        .into_iter()
        .chain([dir.join(package)])
        .chain(tools_dir().map(|d| d.join("js").join(package)))
        .find(|p| p.join("package.json").is_file())
        .ok_or_else(|| {
            format!(
                "componentize-js is not installed: run `npm install @bytecodealliance/componentize-js@{COMPONENTIZE_JS}` \
                 in {} (or `bash sdk/install-tools.sh` in the vcc repository), or set VCC_COMPONENTIZE_JS",
                dir.display()
            )
        })
}

/// Drives componentize-js through its API (its CLI does not take our WIT
/// folder reliably).
const JS_DRIVER: &str = r#"// Written by `vcc validator build`.
import { pathToFileURL } from 'node:url';
import { writeFile } from 'node:fs/promises';
const [entry, sourcePath, witPath, out] = process.argv.slice(2);
const { componentize } = await import(pathToFileURL(entry).href);
const { component } = await componentize({
  sourcePath,
  witPath,
  worldName: 'plugin',
  disableFeatures: ['http', 'fetch-event'],
});
await writeFile(out, component);
"#;

/// The module componentize-js builds from, next to the validator's source
/// (relative imports resolve from the project folder).
const JS_ENTRY: &str = "vcc-entry.js";

fn build_js(dir: &Path, project: &Project, out: &Path) -> Result<(), String> {
    if Command::new("node").arg("--version").output().is_err() {
        return Err("node is not installed: install Node.js 20 or later".into());
    }
    let package = componentize_js(dir)?;
    let entry = package.join("src/componentize.js");
    let driver = dir.join(".vcc/componentize.mjs");
    std::fs::write(&driver, JS_DRIVER)
        .map_err(|e| format!("cannot write {}: {e}", driver.display()))?;
    let source = project.source.as_deref().unwrap_or("validator.js");
    // The component exports `validator` and (since vcc:validator@0.1.2)
    // `params`; the entry module exports both from the validator's one
    // `defineValidator`, so a validator module keeps a single export.
    let entry_source = format!(
        "// Written by `vcc validator build` (rewritten on every build): the component's exports.\n\
         import {{ paramsExport }} from './vcc-sdk.js';\n\
         import * as app from './{}';\n\
         export const validator = app.validator;\n\
         export const params = app.params ?? paramsExport(app.validator);\n",
        source.trim_start_matches("./")
    );
    std::fs::write(dir.join(JS_ENTRY), entry_source)
        .map_err(|e| format!("cannot write {}: {e}", dir.join(JS_ENTRY).display()))?;
    let rel_out = out.strip_prefix(dir).unwrap_or(out);
    let mut cmd = Command::new("node");
    // Run in the project: componentize-js resolves `./vcc-sdk.js` from there.
    cmd.current_dir(dir)
        .arg(".vcc/componentize.mjs")
        .arg(&entry)
        .arg(JS_ENTRY)
        .arg(".vcc/wit")
        .arg(rel_out);
    run(cmd, "componentize-js")?;
    Ok(())
}

/// `vcc validator inspect COMPONENT`: 0 usable, 1 refused, 2 unreadable.
pub fn inspect(runtime: &Runtime, path: &Path, format: Format) -> i32 {
    let inspection = match runtime.loader().inspect(path) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("vcc validator inspect: {}: {e}", path.display());
            return 2;
        }
    };
    let code = if inspection.loaded.is_ok() { 0 } else { 1 };
    let use_json = |u: &ImportUse| match u {
        ImportUse::Provided(note) => json!({"use": "provided", "note": note}),
        ImportUse::Denied(note) => json!({"use": "denied", "note": note}),
        ImportUse::Refused => json!({"use": "refused", "note": "the host does not provide it"}),
    };
    match format {
        Format::Json => {
            let described = inspection.loaded.as_ref().ok().map(|l| {
                json!({
                    "name": l.description.name, "version": l.description.version,
                    "summary": l.description.summary, "params_schema": l.description.params_schema,
                })
            });
            let doc = json!({
                "component": path.display().to_string(),
                "size": inspection.size,
                "digest": inspection.digest,
                "wit_version": inspection.wit_version.as_ref().ok(),
                "usable": inspection.loaded.is_ok(),
                "problem": inspection.loaded.as_ref().err(),
                "describe": described,
                "imports": inspection.imports.iter().map(|(n, u)| {
                    let mut v = use_json(u);
                    v["name"] = json!(n);
                    v
                }).collect::<Vec<_>>(),
                "exports": inspection.exports,
            });
            crate::output::print_stdout(&format!(
                "{}\n",
                serde_json::to_string_pretty(&doc).unwrap_or_default()
            ));
        }
        Format::Human => {
            let mut out = String::new();
            out.push_str(&format!(
                "component  {}\n",
                clean(&path.display().to_string())
            ));
            out.push_str(&format!("size       {} bytes\n", inspection.size));
            out.push_str(&format!("digest     {}\n", inspection.digest));
            match &inspection.wit_version {
                Ok(v) => out.push_str(&format!("wit        vcc:validator@{v} (supported)\n")),
                Err(e) => out.push_str(&format!("wit        NOT SUPPORTED: {}\n", clean(e))),
            }
            match &inspection.loaded {
                Ok(l) => {
                    let d = &l.description;
                    out.push_str(&format!(
                        "validator  {} {} — {}\n",
                        clean(&d.name),
                        clean(&d.version),
                        clean(&d.summary)
                    ));
                    out.push_str("params\n");
                    out.push_str(&crate::render::params_table(&d.params_schema, "  "));
                    let pretty = serde_json::to_string_pretty(&d.params_schema).unwrap_or_default();
                    out.push_str("params schema\n");
                    for line in pretty.lines() {
                        out.push_str(&format!("  {}\n", clean(line)));
                    }
                }
                Err(e) => out.push_str(&format!("usable     NO: {}\n", clean(e))),
            }
            out.push_str("imports\n");
            for (name, u) in &inspection.imports {
                let (label, note) = match u {
                    ImportUse::Provided(n) => ("ok", *n),
                    ImportUse::Denied(n) => ("denied", *n),
                    ImportUse::Refused => ("REFUSED", "the host does not provide it"),
                };
                out.push_str(&format!("  {label:<8} {:<44} {note}\n", clean(name)));
            }
            out.push_str("exports\n");
            for name in &inspection.exports {
                out.push_str(&format!("  {}\n", clean(name)));
            }
            crate::output::print_stdout(&out);
        }
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_types() {
        assert_eq!(type_name("no-todo"), "NoTodo");
        assert_eq!(type_name("x"), "X");
        assert!(check_name("no-todo").is_ok());
        for bad in ["", "No", "9x", "a_b", "a-", "a/b"] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn templates_fill_every_placeholder() {
        for (path, text) in COMMON
            .iter()
            .chain(RUST)
            .chain(PYTHON)
            .chain(JS)
            .chain(C)
            .chain(ZIG)
            .chain(CUSTOM)
        {
            let filled = text
                .replace("{{name}}", "x")
                .replace("{{type}}", "X")
                .replace("{{lang}}", "rust");
            assert!(!filled.contains("{{"), "{path} has an unknown placeholder");
        }
    }
}
