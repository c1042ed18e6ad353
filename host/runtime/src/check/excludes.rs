//! What the walk of a check leaves out: the contract's and the command
//! line's patterns, the folders vcc owns, and the files this run writes
//! into its own root.
//!
//! A report written inside the deliverable root (`vcc check contract.yaml
//! --report-sarif vcc.sarif` in the workspace) would otherwise be part of
//! the evidence: its "did not finish" placeholder is hashed, then replaced
//! by the report, so the root digest changes with every run (no reuse) and
//! an attestation names bytes that are gone (`vcc attest verify --dir`
//! fails). Such a file is vcc's, not the producer's, and is left out —
//! exactly that path, and only where the walk finds a regular file there.
//!
//! The producer of the deliverables controls the root, so:
//! - where a report lands is decided from the canonical path of its
//!   folder, after vcc has created it: a link in the root that sends
//!   `out/vcc.sarif` to `src/vcc.sarif` leaves out `src/vcc.sarif`, the
//!   file really written, and nothing at `out/`;
//! - a link, folder or FIFO at the report path is not left out (the walk
//!   records it as any entry), and the report replaces it by rename, never
//!   writing through it;
//! - a report path that a deliverable names (the path itself, a folder
//!   above it, or a glob matching it) is refused, naming the flag and the
//!   path: leaving it out would hide a deliverable, and writing the report
//!   would overwrite one. Fail closed rather than guess which was meant.
//!
//! What is left out is listed under `excluded` (`(vcc): /vcc.sarif
//! (--report-sarif)`). It is not carried into the reuse key or the
//! attestation: the root digest binds every entry the walk kept, so the
//! same digest means validators saw the same files, and `vcc attest verify
//! --dir` compares each attested subject, none of which is a left-out file.

use super::*;

/// A file this run writes, where it lands inside the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Written {
    /// Relative to the root, `/`-separated.
    pub path: String,
    /// The flag that asked for it (`--report-sarif`).
    pub flag: String,
    /// The path as the flag gave it.
    pub given: String,
}

/// The files of `writes` that land inside `root`: each file's folder,
/// canonical (it exists: report files are written before the walk), under
/// the canonical root. A file whose folder cannot be resolved, or whose
/// name is not UTF-8, is not left out (it is then an entry like any other).
pub(super) fn inside_root(root: &Path, writes: &[(PathBuf, String)]) -> Vec<Written> {
    let Ok(root) = std::fs::canonicalize(root) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (file, flag) in writes {
        let Ok(absolute) = std::path::absolute(file) else {
            continue;
        };
        let (Some(folder), Some(name)) = (absolute.parent(), absolute.file_name()) else {
            continue;
        };
        let Ok(folder) = std::fs::canonicalize(folder) else {
            continue;
        };
        let Ok(below) = folder.strip_prefix(&root) else {
            continue;
        };
        let mut parts: Vec<&str> = Vec::new();
        let plain = below.components().all(|c| match c {
            std::path::Component::Normal(p) => p.to_str().map(|p| parts.push(p)).is_some(),
            _ => false,
        });
        let Some(name) = name.to_str().filter(|_| plain) else {
            continue;
        };
        parts.push(name);
        out.push(Written {
            path: parts.join("/"),
            flag: flag.clone(),
            given: file.display().to_string(),
        });
    }
    out
}

/// Refuse a written file that a deliverable names: the path itself, a
/// folder above it, or a glob that matches it.
pub(super) fn refuse_named(contract: &Contract, written: &[Written]) -> Result<(), String> {
    for w in written {
        for d in &contract.deliverables {
            let named = match paths::check(&d.path) {
                Ok(PathSpec::Literal(p)) => {
                    p == "."
                        || p == w.path
                        || w.path
                            .strip_prefix(p.as_str())
                            .is_some_and(|r| r.starts_with('/'))
                }
                Ok(PathSpec::Glob(g)) => paths::matcher(&g).map_or(true, |m| m.is_match(&w.path)),
                // A path the integrity pass refuses anyway.
                Err(_) => false,
            };
            if named {
                return Err(format!(
                    "{} {}: the report would be written to `{}` in the deliverable root, which deliverable `{}` (path `{}`) names; vcc would leave it out of the check and then overwrite it. Write the report outside the deliverable root, or at a path no deliverable names",
                    w.flag, w.given, w.path, d.id, d.path
                ));
            }
        }
    }
    Ok(())
}

/// What the walk leaves out. A contract built on a base takes no
/// `--exclude`: it would hide files from the base's criteria.
pub(super) fn excludes(
    doc: &Document,
    options: &CheckOptions,
    root: &Path,
) -> Result<Excludes, String> {
    let contract = &doc.contract;
    if !options.exclude.is_empty() && !doc.bases.is_empty() {
        return Err(format!(
            "--exclude cannot be used with a contract built on a base ({}): it would hide files from the base's criteria; exclude them in the base contract",
            doc.bases
                .iter()
                .map(|b| b.label.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let excludes =
        Excludes::new(&contract.exclude, &options.exclude, contract.gitignore).map_err(|bad| {
            let pattern = match bad.source {
                "--exclude" => options.exclude.get(bad.index),
                _ => contract.exclude.get(bad.index),
            };
            format!(
                "{} `{}`: {}",
                bad.source,
                pattern.map_or("", String::as_str),
                bad.message
            )
        })?;
    let written = inside_root(root, &options.writes);
    refuse_named(contract, &written)?;
    let files: Vec<(String, String)> = written.into_iter().map(|w| (w.path, w.flag)).collect();
    excludes
        .with_host(&options.host_exclude)
        .map_err(|why| format!("a folder vcc leaves out: {why}"))?
        .with_host_files(&files)
        .map_err(|why| format!("a file vcc writes: {why}"))
}

/// The exclude rules in force, for the report.
pub(super) fn exclude_rules(contract: &Contract, options: &CheckOptions) -> Vec<String> {
    let mut rules = vec!["(always): /.git".to_string()];
    rules.extend(contract.exclude.iter().map(|p| format!("exclude: {p}")));
    rules.extend(options.exclude.iter().map(|p| format!("--exclude: {p}")));
    rules.extend(options.host_exclude.iter().map(|p| Excludes::host_rule(p)));
    if contract.gitignore {
        rules.push("gitignore: true".into());
    }
    rules
}
