//! The files a task drafted with `vcc init --task` is about, found in the
//! folder: those its words name when --files names none (`README` →
//! README.md), the docs that mention a docs task's subject, and the
//! digests of them all as they are now — so the draft can fail until the
//! work changed one of them.

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::Path;

use crate::authoring::task::{MAX_DIGESTS, Rules};

/// Folders never walked: history, vcc's own, and build output.
const SKIPPED: &[&str] = &[
    ".git",
    ".vcc",
    "node_modules",
    "target",
    ".venv",
    "venv",
    "__pycache__",
    ".tox",
    "dist",
    "build",
    "vendor",
    "third_party",
];
/// At most this many files are looked at, and implied.
const MAX_WALKED: usize = 20_000;
const MAX_IMPLIED: usize = 10;
/// Docs larger than this are not read for the subject.
const MAX_DOC: u64 = 1 << 20;

/// Regular files under `dir`, as `/`-separated paths relative to it, in
/// byte order; links are not followed.
fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending = vec![String::new()];
    while let Some(prefix) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(dir.join(&prefix)) else {
            continue;
        };
        for entry in entries.flatten() {
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            let path = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            match entry.file_type() {
                Ok(t) if t.is_dir() && !SKIPPED.contains(&name.as_str()) => pending.push(path),
                Ok(t) if t.is_file() => out.push(path),
                _ => {}
            }
            if out.len() >= MAX_WALKED {
                out.sort();
                return out;
            }
        }
    }
    out.sort();
    out
}

/// The files the task implies when --files names none: those its words
/// name (a word equal to a file's name or to its name before the first
/// `.`, three letters or more, any case); else, for a docs task, the docs
/// (the rules' `docs` globs) that mention one of its subject terms.
pub fn implied(dir: &Path, task: &str, rules: &Rules) -> Vec<String> {
    let files = walk(dir);
    let words: Vec<&str> = task
        .split(|c: char| !(c.is_alphanumeric() || "._-/".contains(c)))
        .map(|w| w.trim_start_matches("./").trim_matches('.'))
        .filter(|w| !w.is_empty())
        .collect();
    // A path the task writes out is the file it means, and only that.
    let paths: Vec<String> = files
        .iter()
        .filter(|path| words.iter().any(|w| w.contains(['/', '.']) && w == path))
        .cloned()
        .collect();
    if !paths.is_empty() {
        return paths;
    }
    // Else a name: a word of four letters or more that is not a common
    // one, equal to a file's name or its name before the first `.`, in
    // any case (`README` is README.md).
    let names: Vec<String> = words
        .iter()
        .map(|w| w.to_lowercase())
        .filter(|w| w.chars().count() >= 4 && !crate::authoring::task::is_common(w))
        .collect();
    let named: Vec<String> = files
        .iter()
        .filter(|path| {
            let name = path.rsplit('/').next().unwrap_or(path).to_lowercase();
            let stem = name.split('.').next().unwrap_or(&name).to_string();
            names.iter().any(|w| *w == name || *w == stem)
        })
        .take(MAX_IMPLIED)
        .cloned()
        .collect();
    if !named.is_empty() || !rules.is_docs_task(task) {
        return named;
    }
    let subject = rules.subject(task);
    let terms: Vec<String> = subject
        .names
        .iter()
        .chain(&subject.words)
        .map(|t| t.to_lowercase())
        .collect();
    if terms.is_empty() {
        return Vec::new();
    }
    files
        .into_iter()
        .filter(|path| rules.is_doc(path))
        .filter(|path| {
            let mut text = String::new();
            let read = std::fs::File::open(dir.join(path))
                .and_then(|f| f.take(MAX_DOC).read_to_string(&mut text));
            let text = text.to_lowercase();
            read.is_ok() && terms.iter().any(|t| text.contains(t.as_str()))
        })
        .take(MAX_IMPLIED)
        .collect()
}

/// `blake3:…` of each file under `dir` that one of `globs` matches, as it
/// is now, and how many matched; empty when more than [`MAX_DIGESTS`] do.
pub fn digests(dir: &Path, globs: &[String]) -> (BTreeMap<String, String>, usize) {
    // `./README.md` is README.md: walked paths have no `./`.
    let matchers: Vec<globset::GlobMatcher> = globs
        .iter()
        .filter_map(|g| globset::Glob::new(g.trim_start_matches("./")).ok())
        .map(|g| g.compile_matcher())
        .collect();
    let matched: Vec<String> = walk(dir)
        .into_iter()
        .filter(|p| matchers.iter().any(|m| m.is_match(p)))
        .collect();
    if matched.len() > MAX_DIGESTS {
        return (BTreeMap::new(), matched.len());
    }
    let count = matched.len();
    let digests = matched
        .into_iter()
        .filter_map(|path| {
            let mut hasher = blake3::Hasher::new();
            hasher
                .update_reader(std::fs::File::open(dir.join(&path)).ok()?)
                .ok()?;
            Some((path, format!("blake3:{}", hasher.finalize().to_hex())))
        })
        .collect();
    (digests, count)
}
