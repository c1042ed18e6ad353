//! Whether a language's test runner would build and run a file at all,
//! before any name in it counts as a test (a trace matrix's test column).
//!
//! - Rust: the file is compiled by `cargo test` (`rs_crate.rs`).
//! - Go: `go test ./...` skips folders named `testdata` or `vendor`, or
//!   starting with `_` or `.`, and files starting with `_` or `.`; a test
//!   file ends in `_test.go`.
//! - JavaScript/TypeScript: the file matches the runner's test patterns
//!   (`js_match.rs`).
//!
//! Python is read elsewhere (`py_defs.rs`).

use std::cell::OnceCell;
use std::collections::BTreeSet;

use crate::defs::Lang;
use crate::{js_match, rs_crate, runners};

/// The files vcc can see (guest paths), and their text.
pub trait Fs {
    fn files(&self) -> &BTreeSet<String>;
    fn exists(&self, path: &str) -> bool {
        self.files().contains(path)
    }
    fn read(&self, path: &str) -> Result<String, String>;
}

/// The files of every deliverable of the contract, read through the host.
pub struct Guest {
    /// Listed on first use: a Go entry needs no listing.
    files: OnceCell<BTreeSet<String>>,
}

impl Guest {
    /// Made for one test entry in code.
    pub fn listed() -> Guest {
        Guest {
            files: OnceCell::new(),
        }
    }
}

impl Fs for Guest {
    fn files(&self) -> &BTreeSet<String> {
        self.files.get_or_init(|| {
            vcc_sdk::deliverable_ids()
                .iter()
                .filter_map(|id| vcc_sdk::files(id).ok())
                .flatten()
                .map(|f| f.path)
                .collect()
        })
    }
    fn read(&self, path: &str) -> Result<String, String> {
        vcc_sdk::read_to_string(path)
    }
}

/// The folder of a path (`""` for a bare name).
pub fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

pub fn join(dir: &str, rest: &str) -> String {
    if dir.is_empty() {
        rest.to_string()
    } else {
        format!("{}/{}", dir.trim_end_matches('/'), rest)
    }
}

/// `Ok` when the runner of `lang` builds and runs tests of the file at
/// `full` (a guest path), cited as `entry` (its path under the folder it
/// was resolved against: what `go test ./...` walks).
pub fn runs(lang: Lang, full: &str, entry: &str, fs: &dyn Fs) -> Result<(), String> {
    match lang {
        Lang::Rust => rs_crate::compiled(full, fs),
        // Whole or by line, the file must be one `go test` compiles.
        Lang::Go => {
            go_walks(entry)?;
            let text = fs.read(full)?;
            runners::go_file(full, &text)?;
            go_module(full, entry, fs)?;
            go_package(full, &text, fs)
        }
        Lang::Js => js_match::matched(full, fs),
        Lang::Python => Ok(()),
    }
}

/// The module `go test ./...` (run in the folder the entry was resolved
/// against) tests: the nearest `go.mod` above the file must be in that
/// folder or above it (a `go.mod` below it is another module, which
/// `./...` does not enter), and no `go.work` may choose the modules.
fn go_module(full: &str, entry: &str, fs: &dyn Fs) -> Result<(), String> {
    let root = full
        .strip_suffix(entry.trim_start_matches("./"))
        .unwrap_or("")
        .trim_end_matches('/');
    let mut dir = dir_of(full);
    let mut module: Option<String> = None;
    loop {
        let work = join(dir, "go.work");
        if fs.exists(&work) {
            return Err(format!(
                "{} chooses the modules `go test` builds, which vcc does not evaluate: it cannot tell the test runs",
                vcc_sdk::relative(&work)
            ));
        }
        let m = join(dir, "go.mod");
        if module.is_none() && fs.exists(&m) {
            if dir.len() > root.len() {
                return Err(format!(
                    "{} makes its folder another module, which `go test ./...` from `{}` does not enter",
                    vcc_sdk::relative(&m),
                    if root.is_empty() {
                        "."
                    } else {
                        vcc_sdk::relative(root)
                    }
                ));
            }
            module = Some(m);
        }
        match dir.rsplit_once('/') {
            Some((d, _)) if !d.is_empty() => dir = d,
            _ => break,
        }
    }
    if module.is_none() {
        return Err(
            "no `go.mod` in its folder or above: `go test ./...` stops (go.mod file not found)"
                .into(),
        );
    }
    Ok(())
}

/// The file and the other `_test.go` files of its folder (one package's
/// test binary: a `TestMain` or an `init` in any of them applies).
fn go_package(full: &str, text: &str, fs: &dyn Fs) -> Result<(), String> {
    let folder = dir_of(full);
    let mut files = vec![(full.to_string(), text.to_string())];
    for f in fs.files() {
        if f != full && dir_of(f) == folder && f.ends_with("_test.go") {
            files.push((f.clone(), fs.read(f)?));
        }
    }
    for (f, text) in &files {
        let code = crate::defs::masked_code(Lang::Go, text)
            .ok_or_else(|| format!("{}: a string or comment never closes", vcc_sdk::relative(f)))?;
        crate::not_run::go(text, &code).map_err(|e| format!("{} {e}", vcc_sdk::relative(f)))?;
    }
    Ok(())
}

/// Folders and files `go test ./...` never compiles.
fn go_walks(entry: &str) -> Result<(), String> {
    let parts: Vec<&str> = entry.split('/').collect();
    let Some((file, dirs)) = parts.split_last() else {
        return Ok(());
    };
    if let Some(d) = dirs
        .iter()
        .find(|d| **d == "testdata" || **d == "vendor" || d.starts_with('_') || d.starts_with('.'))
    {
        return Err(format!(
            "in the folder `{d}`, which `go test ./...` skips (it skips `testdata`, `vendor`, and folders starting with `_` or `.`)"
        ));
    }
    if file.starts_with('_') || file.starts_with('.') {
        return Err("a file starting with `_` or `.`: the go tool ignores it".into());
    }
    // The go tool matches the suffix as written: `X_TEST.GO` is no test.
    if !file.ends_with("_test.go") {
        return Err("not a `_test.go` file: `go test` compiles no test from it".into());
    }
    Ok(())
}
