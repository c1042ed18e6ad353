//! Whether `cargo test` compiles a Rust file at all: it must be a crate
//! root of a package (the nearest `Cargo.toml` above it) or be reached
//! from one by `mod` declarations, as rustc resolves them.
//!
//! Crate roots are cargo's default layout: `src/lib.rs`, `src/main.rs`,
//! `src/bin/*.rs`, `src/bin/*/main.rs`, `tests/*.rs`, `tests/*/main.rs`.
//! `examples/` and `benches/` are built with `test = false` by default:
//! `cargo test` runs no test in them, so they are refused. A manifest that
//! moves or turns off targets (`path`, `test`, `harness`,
//! `required-features` in a target table, `auto* = false`) is one vcc does
//! not decide, and it refuses.
//!
//! `mod name;` in a file resolves to `name.rs` or `name/mod.rs` in the
//! file's module folder (its own folder for a crate root or a `mod.rs`,
//! `<dir>/<stem>/` for any other file), through the inline `mod a { … }`
//! around it; `#[path = "…"]` is honoured as the Rust Reference says. A
//! declaration under a `cfg` other than `cfg(test)`, or a `cfg_attr`, may
//! never be compiled: reached only through one, the file is refused.

use std::collections::{BTreeSet, VecDeque};

use crate::discovery::{Fs, dir_of, join};

const ROOT_FILES: &[&str] = &["src/lib.rs", "src/main.rs"];

/// `Ok` when `file` (a guest path) is compiled by `cargo test`.
pub fn compiled(file: &str, fs: &dyn Fs) -> Result<(), String> {
    let Some(package) = package_of(file, fs) else {
        return Err("no `Cargo.toml` above it: `cargo test` builds no crate that holds it".into());
    };
    let manifest = fs.read(&join(&package, "Cargo.toml"))?;
    targets_are_default(&manifest)?;
    let rel = &file[package.len() + 1..];
    for dir in ["examples/", "benches/"] {
        if rel.starts_with(dir) {
            return Err(format!(
                "in `{dir}`: `cargo test` builds it with `test = false` and runs no test in it"
            ));
        }
    }
    let roots = roots(&package, fs);
    // The cited file, and the crate roots whose inner attributes (a
    // custom test framework) apply to every test of the crate.
    for f in roots
        .iter()
        .filter(|r| r.ends_with("lib.rs") || r.ends_with("main.rs"))
        .chain([&file.to_string()])
    {
        let Ok(text) = fs.read(f) else { continue };
        let code = crate::defs::masked_code(crate::defs::Lang::Rust, &text)
            .ok_or_else(|| format!("{}: a string or comment never closes", vcc_sdk::relative(f)))?;
        crate::not_run::rust(&code).map_err(|e| format!("{} {e}", vcc_sdk::relative(f)))?;
    }
    if roots.iter().any(|r| r == file) {
        return Ok(());
    }
    let mut undecided: Option<String> = None;
    let mut seen: BTreeSet<(String, bool)> = BTreeSet::new();
    let mut queue: VecDeque<(String, String, Option<String>)> = roots
        .iter()
        .map(|r| (r.clone(), dir_of(r).to_string(), None))
        .collect();
    while let Some((at, owner, why)) = queue.pop_front() {
        if !seen.insert((at.clone(), why.is_some())) {
            continue;
        }
        let Ok(text) = fs.read(&at) else { continue };
        let Some(code) = crate::defs::masked_code(crate::defs::Lang::Rust, &text) else {
            continue;
        };
        for decl in declarations(&code, &text) {
            let Some((child, child_owner)) = locate(&at, &owner, &decl, fs) else {
                continue;
            };
            let why = why.clone().or(decl.undecided.clone());
            if child == file {
                match why {
                    None => return Ok(()),
                    Some(w) => undecided = Some(w),
                }
                continue;
            }
            queue.push_back((child, child_owner, why));
        }
    }
    Err(match undecided {
        Some(attr) => format!(
            "reached from its crate root only under `#[{attr}]`, which vcc does not decide (only `cfg(test)` is): it may never be compiled"
        ),
        None => "no `mod` declaration reaches it from a crate root (src/lib.rs, src/main.rs, src/bin/*, tests/*): rustc never compiles it, `cargo test` never runs it".into(),
    })
}

/// The folder of the nearest `Cargo.toml` above `file`.
fn package_of(file: &str, fs: &dyn Fs) -> Option<String> {
    let mut dir = dir_of(file);
    loop {
        if fs.exists(&join(dir, "Cargo.toml")) {
            return Some(dir.to_string());
        }
        dir = dir
            .rsplit_once('/')
            .map(|(d, _)| d)
            .filter(|d| !d.is_empty())?;
    }
}

/// Refuses a manifest that is no package or moves its targets.
fn targets_are_default(manifest: &str) -> Result<(), String> {
    let mut table = String::new();
    let mut package = false;
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            table = t.chars().filter(|c| !c.is_whitespace()).collect();
            package |= table == "[package]";
            continue;
        }
        let key = t.split('=').next().unwrap_or("").trim().trim_matches('"');
        let target_table =
            ["[lib]", "[[bin]]", "[[test]]", "[[example]]", "[[bench]]"].contains(&table.as_str());
        let moves = target_table && ["path", "test", "harness", "required-features"].contains(&key);
        if moves || (table == "[package]" && key.starts_with("auto")) {
            return Err(format!(
                "its `Cargo.toml` sets `{key}` in `{table}`: vcc reads only cargo's default targets, and does not decide which tests this one runs"
            ));
        }
    }
    if package {
        Ok(())
    } else {
        Err("its nearest `Cargo.toml` has no `[package]`: vcc reads only a package's default targets".into())
    }
}

/// Cargo's default crate roots of the package at `package`.
fn roots(package: &str, fs: &dyn Fs) -> Vec<String> {
    let mut out: Vec<String> = ROOT_FILES
        .iter()
        .map(|r| join(package, r))
        .filter(|p| fs.exists(p))
        .collect();
    for dir in ["src/bin/", "tests/"] {
        let prefix = join(package, dir);
        for f in fs.files() {
            let Some(rest) = f.strip_prefix(&prefix) else {
                continue;
            };
            let parts: Vec<&str> = rest.split('/').collect();
            let root = match parts[..] {
                [one] => one.ends_with(".rs"),
                [_, "main.rs"] => true,
                _ => false,
            };
            if root {
                out.push(f.clone());
            }
        }
    }
    out
}

/// A `mod name;` declaration: the inline modules around it, its
/// `#[path]`, and the first attribute that makes it undecided.
#[derive(Debug, PartialEq)]
pub struct Decl {
    pub name: String,
    pub inline: Vec<String>,
    pub path: Option<String>,
    pub undecided: Option<String>,
}

/// Whether an attribute (whitespace removed) is a `cfg` vcc does not
/// decide.
fn undecided(attr: &str) -> bool {
    let head = attr.split(['(', '=']).next().unwrap_or(attr);
    head == "cfg_attr" || (head == "cfg" && attr != "cfg(test)")
}

/// Attributes as (masked, whitespace removed; raw text).
type Attrs = Vec<(String, String)>;

/// The `mod name;` declarations of masked `code` (`raw`: the same file
/// unmasked, for `#[path = "…"]`'s string).
pub fn declarations(code: &str, raw: &str) -> Vec<Decl> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    // Attributes as (masked without whitespace, raw text).
    let mut file_attrs: Vec<(String, String)> = Vec::new();
    // One entry per open `{`: an inline `mod`'s name and attributes, or
    // `None` for any other brace (a fn body, an impl…).
    let mut stack: Vec<Option<(String, Attrs)>> = Vec::new();
    let mut pending: Vec<(String, String)> = Vec::new();
    let mut opens: Option<(String, Attrs)> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'#' {
            let inner = b.get(i + 1) == Some(&b'!');
            let open = i + 1 + usize::from(inner);
            if b.get(open) == Some(&b'[')
                && let Some(end) = matching(b, open)
            {
                let attr: String = code[open + 1..end]
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect();
                let text = raw.get(open + 1..end).unwrap_or("").to_string();
                if inner {
                    match stack.last_mut() {
                        Some(Some((_, attrs))) => attrs.push((attr, text)),
                        Some(None) => {}
                        None => file_attrs.push((attr, text)),
                    }
                } else {
                    pending.push((attr, text));
                }
                i = end + 1;
                continue;
            }
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let prev = start.checked_sub(1).map(|p| b[p]);
            if &code[start..i] != "mod" || matches!(prev, Some(b':' | b'.')) {
                continue;
            }
            let rest = code[i..].trim_start();
            let rest = rest.strip_prefix("r#").unwrap_or(rest);
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if name.is_empty() {
                continue;
            }
            let after = rest[name.len()..].trim_start();
            let attrs: Vec<(String, String)> = std::mem::take(&mut pending);
            if after.starts_with(';') {
                // Inside a fn body or an impl, a `mod x;` is no module
                // rustc loads from a file: not a way to reach one.
                let Some(inline) = stack
                    .iter()
                    .map(|s| s.as_ref().map(|(n, _)| n.clone()))
                    .collect::<Option<Vec<String>>>()
                else {
                    continue;
                };
                let around = stack
                    .iter()
                    .flatten()
                    .flat_map(|(_, a)| a.iter())
                    .chain(file_attrs.iter())
                    .chain(attrs.iter());
                out.push(Decl {
                    name,
                    inline,
                    path: attrs.iter().find_map(|(a, t)| path_attr(a, t)),
                    undecided: around
                        .into_iter()
                        .find(|(a, _)| undecided(a))
                        .map(|(_, raw)| raw.split_whitespace().collect::<Vec<_>>().join(" ")),
                });
            } else if after.starts_with('{') {
                opens = Some((name, attrs));
            }
            continue;
        }
        match c {
            b'{' => {
                stack.push(opens.take());
                pending.clear();
            }
            b'}' => {
                stack.pop();
                opens = None;
            }
            b';' => {
                pending.clear();
                opens = None;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// `path = "x/y.rs"` (masked attribute `path="…"`, raw text) → `x/y.rs`.
fn path_attr(masked: &str, raw: &str) -> Option<String> {
    if !masked.starts_with("path=") {
        return None;
    }
    let value = raw.split_once('=')?.1.trim();
    let value = value.strip_prefix('"')?.strip_suffix('"')?;
    Some(value.to_string())
}

/// The `]` matching the `[` at `open`.
fn matching(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0;
    for (k, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// The file a declaration in `file` (whose module folder is `owner`)
/// loads, and that file's own module folder; `None` when it is missing or
/// ambiguous (`x.rs` and `x/mod.rs` both: rustc stops with E0761).
fn locate(file: &str, owner: &str, decl: &Decl, fs: &dyn Fs) -> Option<(String, String)> {
    let inline = decl.inline.join("/");
    if let Some(p) = &decl.path {
        let base = if decl.inline.is_empty() {
            dir_of(file).to_string()
        } else {
            join(owner, &inline)
        };
        let child = normal(&join(&base, p))?;
        // A file loaded by `#[path]` owns its folder, like a `mod.rs`.
        return fs
            .exists(&child)
            .then(|| (child.clone(), dir_of(&child).to_string()));
    }
    let base = if inline.is_empty() {
        owner.to_string()
    } else {
        join(owner, &inline)
    };
    let flat = join(&base, &format!("{}.rs", decl.name));
    let nested = join(&base, &format!("{}/mod.rs", decl.name));
    match (fs.exists(&flat), fs.exists(&nested)) {
        (true, false) => Some((flat, join(&base, &decl.name))),
        (false, true) => Some((nested, join(&base, &decl.name))),
        _ => None,
    }
}

/// `a/b/../c` → `a/c`; `None` when it climbs above the first component.
fn normal(path: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "." => {}
            ".." => {
                out.pop()?;
            }
            p => out.push(p),
        }
    }
    Some(out.join("/"))
}
