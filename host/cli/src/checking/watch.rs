//! `vcc check --watch`: check, then check again whenever the deliverables,
//! a contract or a file beside it change — for contract authors. Changes
//! to excluded paths (`.git`, `exclude`, `--exclude`), to the report and
//! to the evidence folder do not count (the run writes those itself);
//! changes in a burst are one re-run, after 300 ms of quiet.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use notify::{EventKind, RecursiveMode, Watcher};
use vcc_contract::{Decision, Excludes};
use vcc_report::law::exit;

use crate::args::CheckArgs;

/// How long the files must hold still before the next run.
const SETTLE: Duration = Duration::from_millis(300);

/// Run `once` now and after every relevant change, until interrupted.
pub fn run(args: &CheckArgs, mut once: impl FnMut() -> i32) -> i32 {
    let (tx, rx) = mpsc::channel();
    let mut watcher = match notify::recommended_watcher(move |event| {
        let _ = tx.send(event);
    }) {
        Ok(watcher) => watcher,
        Err(err) => {
            eprintln!("vcc check --watch: cannot watch files: {err}");
            return exit::INVALID;
        }
    };
    let scope = Scope::of(args);
    for path in &scope.watched {
        if let Err(err) = watcher.watch(path, RecursiveMode::Recursive) {
            eprintln!("vcc check --watch: cannot watch {}: {err}", path.display());
            return exit::INVALID;
        }
    }
    let shown: Vec<String> = scope
        .watched
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    loop {
        let code = once();
        eprintln!(
            "vcc check --watch: waiting for changes in {} (Ctrl-C to stop)",
            shown.join(", ")
        );
        loop {
            match rx.recv() {
                Ok(Ok(event)) if scope.counts(&event) => break,
                Ok(_) => continue,
                // The watcher is gone: nothing more will come.
                Err(_) => return code,
            }
        }
        while rx.recv_timeout(SETTLE).is_ok() {}
    }
}

/// What is watched, and what a change must not be.
struct Scope {
    watched: Vec<PathBuf>,
    /// Each deliverable root with what is excluded from it.
    roots: Vec<(PathBuf, Excludes)>,
    /// Written by the run itself.
    ignored: Vec<PathBuf>,
}

impl Scope {
    fn of(args: &CheckArgs) -> Scope {
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let mut watched: Vec<PathBuf> = Vec::new();
        let mut roots = Vec::new();
        for contract in &args.contracts {
            let dir = contract
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            watched.push(canonical(dir));
            let doc = vcc_contract::load(contract).ok();
            let root = match (&args.dir, &doc) {
                (Some(dir), _) => dir.clone(),
                (None, Some(doc)) => doc.default_root(),
                (None, None) => dir.to_path_buf(),
            };
            let patterns = doc.map(|d| d.contract.exclude).unwrap_or_default();
            let excludes =
                Excludes::new(&patterns, &args.exclude, false).unwrap_or_else(|_| Excludes::none());
            let root = canonical(&root);
            watched.push(root.clone());
            roots.push((root, excludes));
        }
        // A folder inside another is watched with it.
        watched.sort();
        watched.dedup();
        let all = watched.clone();
        watched.retain(|p| !all.iter().any(|q| q != p && p.starts_with(q)));
        // What vcc itself writes: every report file, the evidence folder.
        let reports = args.reports.files.iter().map(|f| &f.path);
        let ignored = reports
            .chain(&args.evidence_dir)
            .map(|p| {
                std::path::absolute(p)
                    .map(|a| canonical(&a))
                    .unwrap_or_else(|_| p.clone())
            })
            .collect();
        Scope {
            watched,
            roots,
            ignored,
        }
    }

    /// Does this event call for a new run?
    fn counts(&self, event: &notify::Event) -> bool {
        let changes = matches!(
            event.kind,
            EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) | EventKind::Any
        );
        changes && event.paths.iter().any(|p| self.matters(p))
    }

    fn matters(&self, path: &Path) -> bool {
        // What the run writes, and the temporary files it writes them
        // through (else every run would start the next).
        if self
            .ignored
            .iter()
            .any(|i| path.starts_with(i) || crate::output::is_temporary_of(path, i))
            || path.components().any(|c| c.as_os_str() == ".git")
        {
            return false;
        }
        // Excluded under every root that holds it: not a deliverable.
        let mut under_a_root = false;
        for (root, excludes) in &self.roots {
            if let Ok(relative) = path.strip_prefix(root) {
                under_a_root = true;
                let relative = relative.to_string_lossy();
                if relative.is_empty()
                    || !matches!(
                        excludes.fixed_on_path(&relative, false),
                        Decision::Excluded(_)
                    )
                {
                    return true;
                }
            }
        }
        // Beside a contract (the contract, its files): it matters.
        !under_a_root
    }
}
