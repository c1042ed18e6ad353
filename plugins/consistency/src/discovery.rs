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
        Lang::Go => go_walks(entry).and_then(|()| runners::go_file(full, &fs.read(full)?)),
        Lang::Js => js_match::matched(full, fs),
        Lang::Python => Ok(()),
    }
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
