//! What the walk of the deliverable root leaves out.
//!
//! Four sources, in this order of precedence: the root's `.git` (always,
//! see below), the contract's `exclude:`, `--exclude` on the command line,
//! and — only with `gitignore: true` — the `.ignore` and `.gitignore` files found
//! inside the root, the deeper folder's first, `.ignore` before
//! `.gitignore` in one folder (the order ripgrep's `ignore` crate uses).
//! Every pattern is a gitignore pattern, matched by that crate's own
//! matcher, so `target/`, `*.log`, `/build` and `!keep.log` mean what they
//! mean to git.
//!
//! The root's `.git` (a repository's folder, or a worktree's `.git` file)
//! is never part of the deliverables: it is version-control state, often
//! the largest tree in a repository, and no validator should judge it.
//! Only the root's: a folder named `.git` deeper in the tree is written by
//! the producer of the deliverables like any other, and a build can
//! include a file from it (`#[path = ".git/x.rs"]`), so it is judged
//! unless the contract excludes it (`**/.git`) in plain sight.
//!
//! Folders vcc owns inside the root (the approvals folder beside a
//! contract with gates) are left out too, but they are no patterns: each
//! is one folder path, matched literally (a folder named `*` or `[a]` is
//! that folder, not a glob), and only a real folder at exactly that path
//! is left out — the walk never follows a link, so a link of that name is
//! an entry of the root like any other, and what it points to is walked
//! where it really is.
//!
//! Files vcc itself writes into the root during a check (the report files
//! of `vcc check --report-sarif vcc.sarif` run in the workspace) are left
//! out the same way, one literal path each, and only where the walk finds
//! a regular file at exactly that path ([`Excludes::with_host_files`]): a
//! link, a folder or anything else of that name is an entry like any
//! other. The caller refuses a path that a deliverable names, so this
//! never hides a deliverable.
//!
//! The contract's and the command line's patterns decide first, and an
//! ignore file cannot bring back what they exclude. Ignore files are
//! written by the producer of the deliverables; they only ever hide files,
//! and a hidden file a deliverable names is missing, never passing.

use std::path::Path;

use ignore::Match;

use crate::paths::{self, PathSpec};
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// The names of the ignore files read with `gitignore: true`, in the order
/// they take precedence within one folder.
pub const IGNORE_FILES: [&str; 2] = [".ignore", ".gitignore"];

/// Ignore files larger than this are refused (not read, an error).
pub const MAX_IGNORE_FILE: u64 = 1 << 20;

/// The patterns that apply everywhere in the root.
#[derive(Debug, Clone)]
pub struct Excludes {
    /// `.git`, then the contract's, then the command line's patterns.
    fixed: Gitignore,
    /// Folders vcc owns, relative to the root (`a/b`), matched literally
    /// and only as folders ([`Excludes::with_host`]).
    host: Vec<String>,
    /// Files vcc writes during the run, relative to the root, with the
    /// flag that asked for each; matched literally and only as regular
    /// files ([`Excludes::with_host_files`]).
    host_files: Vec<(String, String)>,
    /// Read `.ignore` and `.gitignore` files in the root.
    pub gitignore: bool,
}

/// An ignore file of one folder of the root.
#[derive(Debug, Clone)]
pub struct IgnoreFile {
    /// The folder it is in, relative to the root (`""` for the root).
    folder: String,
    matcher: Gitignore,
}

/// What a pattern said about one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Left out, and the rule that did it (`exclude: target/`).
    Excluded(String),
    /// Explicitly kept (a `!pattern`).
    Kept,
    /// No pattern matched.
    Undecided,
}

/// A pattern that is not a valid gitignore pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadPattern {
    /// `exclude` or `--exclude`.
    pub source: &'static str,
    pub index: usize,
    pub message: String,
}

impl Excludes {
    /// `.git` only.
    pub fn none() -> Excludes {
        Excludes::new(&[], &[], false).unwrap_or_else(|_| Excludes {
            fixed: Gitignore::empty(),
            host: Vec::new(),
            host_files: Vec::new(),
            gitignore: false,
        })
    }

    pub fn new(
        contract: &[String],
        command_line: &[String],
        gitignore: bool,
    ) -> Result<Excludes, BadPattern> {
        let mut builder = GitignoreBuilder::new(".");
        let bad = |source, index, message: String| BadPattern {
            source,
            index,
            message,
        };
        builder
            .add_line(Some("(always)".into()), "/.git")
            .map_err(|e| bad("exclude", 0, e.to_string()))?;
        for (source, patterns) in [("exclude", contract), ("--exclude", command_line)] {
            for (index, pattern) in patterns.iter().enumerate() {
                check_pattern(pattern).map_err(|m| bad(source, index, m))?;
                builder
                    .add_line(Some(source.into()), pattern)
                    .map_err(|e| bad(source, index, e.to_string()))?;
            }
        }
        let fixed = builder
            .build()
            .map_err(|e| bad("exclude", 0, e.to_string()))?;
        Ok(Excludes {
            fixed,
            host: Vec::new(),
            host_files: Vec::new(),
            gitignore,
        })
    }

    /// Also leave out these folders vcc owns (relative to the root,
    /// `/`-separated, no `.`, `..` or empty part): each matched literally,
    /// and only where the walk finds a real folder at that path. `Err`
    /// names a path that is not one.
    pub fn with_host(mut self, folders: &[String]) -> Result<Excludes, String> {
        for folder in folders {
            let parts_ok = folder
                .split('/')
                .all(|p| !p.is_empty() && p != "." && p != "..");
            if !parts_ok || folder.contains('\0') {
                return Err(format!(
                    "`{folder}` is not a folder path relative to the deliverable root"
                ));
            }
            self.host.push(folder.clone());
        }
        Ok(self)
    }

    /// Also leave out these files vcc writes during the run (`(path,
    /// flag)`, the path relative to the root as for
    /// [`Excludes::with_host`]): each only where the walk finds a regular
    /// file at exactly that path. `Err` names a path that is not one.
    pub fn with_host_files(mut self, files: &[(String, String)]) -> Result<Excludes, String> {
        for (file, flag) in files {
            let parts_ok = file
                .split('/')
                .all(|p| !p.is_empty() && p != "." && p != "..");
            if !parts_ok || file.contains('\0') {
                return Err(format!(
                    "{flag}: `{file}` is not a file path relative to the deliverable root"
                ));
            }
            self.host_files.push((file.clone(), flag.clone()));
        }
        Ok(self)
    }

    /// The rule that leaves out `path` when it is a regular file vcc
    /// writes during the run (`(vcc): /vcc.sarif (--report-sarif)`); the
    /// walk asks only of regular files.
    pub fn host_file(&self, path: &str) -> Option<String> {
        self.host_files
            .iter()
            .find(|(file, _)| file == path)
            .map(|(file, flag)| Excludes::host_file_rule(file, flag))
    }

    /// The rules of the files vcc writes, for the report.
    pub fn host_file_rules(&self) -> Vec<String> {
        self.host_files
            .iter()
            .map(|(file, flag)| Excludes::host_file_rule(file, flag))
            .collect()
    }

    /// The rule a file vcc writes is reported under.
    pub fn host_file_rule(file: &str, flag: &str) -> String {
        format!("(vcc): /{file} ({flag})")
    }

    /// The rule a folder vcc owns is reported under (`(vcc): /a/b/`).
    pub fn host_rule(folder: &str) -> String {
        format!("(vcc): /{folder}/")
    }

    /// What the contract, the command line, `.git` and vcc's own folders
    /// say about `path` (relative to the root, `/`-separated).
    pub fn fixed(&self, path: &str, is_dir: bool) -> Decision {
        // vcc's folders first: no `!pattern` of the contract brings one
        // back, and a file or link of that name is not one of them.
        if is_dir && self.host.iter().any(|h| h == path) {
            return Decision::Excluded(Excludes::host_rule(path));
        }
        decision(self.fixed.matched(path, is_dir))
    }

    /// Whether `path` is left out, given the ignore files of the folders
    /// above it (`layers`, the root's first).
    pub fn decide(&self, path: &str, is_dir: bool, layers: &[&[IgnoreFile]]) -> Decision {
        match self.fixed(path, is_dir) {
            Decision::Undecided => {}
            decided => return decided,
        }
        for layer in layers.iter().rev() {
            for file in layer.iter() {
                let relative = if file.folder.is_empty() {
                    path
                } else {
                    path.strip_prefix(file.folder.as_str())
                        .and_then(|p| p.strip_prefix('/'))
                        .unwrap_or(path)
                };
                match decision(file.matcher.matched(relative, is_dir)) {
                    Decision::Undecided => {}
                    decided => return decided,
                }
            }
        }
        Decision::Undecided
    }

    /// Whether `path` or a folder above it is left out by the contract,
    /// the command line or `.git` (a walk never enters an excluded folder).
    pub fn fixed_on_path(&self, path: &str, is_dir: bool) -> Decision {
        let mut at = 0;
        while let Some(i) = path[at..].find('/') {
            let folder = &path[..at + i];
            if let decided @ Decision::Excluded(_) = self.fixed(folder, true) {
                return decided;
            }
            at += i + 1;
        }
        self.fixed(path, is_dir)
    }

    /// The rule that leaves out every file a deliverable path can name,
    /// judged from the path alone: the path, a folder above it, or (for a
    /// glob like `src/**/*.rs`) a file it matches (`src/x.rs`).
    pub fn hides(&self, spec: &PathSpec) -> Option<String> {
        let excluded = |d| match d {
            Decision::Excluded(rule) => Some(rule),
            _ => None,
        };
        match spec {
            PathSpec::Literal(p) => excluded(self.fixed_on_path(p, true))
                .or_else(|| excluded(self.fixed_on_path(p, false))),
            PathSpec::Glob(g) => {
                let prefix = paths::glob_prefix(g);
                let folder = (!prefix.is_empty())
                    .then(|| excluded(self.fixed_on_path(&prefix, true)))
                    .flatten();
                folder.or_else(|| {
                    paths::example(g).and_then(|p| excluded(self.fixed_on_path(&p, false)))
                })
            }
        }
    }
}

impl IgnoreFile {
    /// Parse the ignore file `name` of `folder` (relative to the root).
    /// A line that is not a valid pattern is an error naming the file and
    /// the line: a rule the walk cannot read must not be guessed at.
    pub fn parse(folder: &str, name: &str, bytes: &[u8]) -> Result<IgnoreFile, String> {
        let shown = if folder.is_empty() {
            name.to_string()
        } else {
            format!("{folder}/{name}")
        };
        let text = std::str::from_utf8(bytes).map_err(|_| format!("{shown}: not UTF-8"))?;
        let mut builder = GitignoreBuilder::new(".");
        for (n, line) in text.lines().enumerate() {
            let from = format!("{shown}:{}", n + 1);
            builder
                .add_line(Some(from.into()), line)
                .map_err(|e| format!("{shown}:{}: {e}", n + 1))?;
        }
        let matcher = builder.build().map_err(|e| format!("{shown}: {e}"))?;
        Ok(IgnoreFile {
            folder: folder.to_string(),
            matcher,
        })
    }
}

fn decision(m: Match<&ignore::gitignore::Glob>) -> Decision {
    match m {
        Match::None => Decision::Undecided,
        Match::Whitelist(_) => Decision::Kept,
        Match::Ignore(glob) => {
            let from = glob
                .from()
                .map(Path::display)
                .map(|d| d.to_string())
                .unwrap_or_default();
            Decision::Excluded(format!("{from}: {}", glob.original()))
        }
    }
}

/// Refuse patterns that could never mean what their writer meant.
fn check_pattern(pattern: &str) -> Result<(), String> {
    if pattern.trim().is_empty() {
        return Err("an empty pattern excludes nothing; remove it".into());
    }
    if pattern.starts_with('#') {
        return Err(format!(
            "`{pattern}` is a comment in gitignore syntax and excludes nothing; write `\\{pattern}` for a name starting with #"
        ));
    }
    if pattern.contains('\\') && cfg!(windows) {
        return Err("use `/` as the separator".into());
    }
    if pattern.split('/').any(|part| part == "..") {
        return Err(format!(
            "`{pattern}` names `..`: patterns are relative to the deliverable root"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn excluded(d: Decision) -> bool {
        matches!(d, Decision::Excluded(_))
    }

    #[test]
    fn the_roots_git_is_always_left_out() {
        let e = Excludes::none();
        assert!(excluded(e.fixed(".git", true)));
        assert!(excluded(e.fixed(".git", false)));
        assert!(excluded(e.fixed_on_path(".git/x.rs", false)));
        // Deeper, a `.git` is the producer's folder like any other.
        assert_eq!(e.fixed("sub/.git", true), Decision::Undecided);
        assert_eq!(e.fixed_on_path("sub/.git/x.rs", false), Decision::Undecided);
        assert_eq!(e.fixed("src/git.rs", false), Decision::Undecided);
    }

    #[test]
    fn patterns_are_gitignore_patterns() {
        let e = Excludes::new(
            &["target/".into(), "*.log".into(), "!keep.log".into()],
            &["/build".into()],
            false,
        )
        .unwrap();
        assert_eq!(
            e.fixed("target", true),
            Decision::Excluded("exclude: target/".into())
        );
        assert_eq!(e.fixed("target", false), Decision::Undecided);
        assert!(excluded(e.fixed("a/b/x.log", false)));
        assert_eq!(e.fixed("keep.log", false), Decision::Kept);
        assert_eq!(
            e.fixed("build", true),
            Decision::Excluded("--exclude: /build".into())
        );
        assert_eq!(e.fixed("sub/build", true), Decision::Undecided);
        assert!(excluded(e.fixed_on_path("target/debug/x.rlib", false)));
    }

    #[test]
    fn deeper_ignore_files_decide_first_and_cannot_undo_the_contract() {
        let e = Excludes::new(&["*.tmp".into()], &[], true).unwrap();
        let root = [IgnoreFile::parse("", ".gitignore", b"*.out\n").unwrap()];
        let sub = [IgnoreFile::parse("sub", ".gitignore", b"!keep.out\n!x.tmp\n").unwrap()];
        let layers: [&[IgnoreFile]; 2] = [&root, &sub];
        assert_eq!(
            e.decide("a.out", false, &layers[..1]),
            Decision::Excluded(".gitignore:1: *.out".into())
        );
        assert_eq!(e.decide("sub/keep.out", false, &layers), Decision::Kept);
        assert!(excluded(e.decide("sub/other.out", false, &layers)));
        assert!(excluded(e.decide("sub/x.tmp", false, &layers)));
    }

    #[test]
    fn host_folders_are_literal_folders() {
        let host = ["vcc-approvals".to_string(), "[a]/*".to_string()];
        let e = Excludes::none().with_host(&host).unwrap();
        assert_eq!(
            e.fixed("vcc-approvals", true),
            Decision::Excluded("(vcc): /vcc-approvals/".into())
        );
        // A link (or a file) of that name is not the folder.
        assert_eq!(e.fixed("vcc-approvals", false), Decision::Undecided);
        // Not a pattern: anywhere else, or what a glob would match, stays.
        assert_eq!(e.fixed("sub/vcc-approvals", true), Decision::Undecided);
        assert_eq!(e.fixed("a/x", true), Decision::Undecided);
        assert!(excluded(e.fixed("[a]/*", true)));
        assert!(excluded(e.fixed_on_path("[a]/*/f.txt", false)));
        for bad in ["", "/abs", "a/../b", "./a", "a//b", "a/"] {
            assert!(Excludes::none().with_host(&[bad.into()]).is_err(), "{bad}");
        }
    }

    #[test]
    fn bad_patterns_are_refused() {
        let err = Excludes::new(&["ok".into(), "../up".into()], &[], false).unwrap_err();
        assert_eq!((err.source, err.index), ("exclude", 1));
        assert!(Excludes::new(&[], &["# note".into()], false).is_err());
        assert!(IgnoreFile::parse("", ".gitignore", b"\xff").is_err());
    }
}
