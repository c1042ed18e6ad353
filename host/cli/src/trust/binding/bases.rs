//! A contract on its bases, beyond its own fields (those are
//! `vcc_contract::compose`'s): the root a base decides, and the approvals
//! folder a gate the contract adds would hide from a base's criteria.

use std::path::{Path, PathBuf};

use vcc_contract::{Code, Document, FieldPath, Level, Problem};
use vcc_runtime::Runtime;

use super::{Prepared, prepare_at};
use crate::args::BindingArgs;

/// Everything before evaluation (see `gate`'s module comment), and the root
/// the check judges: `--dir`, else the composed contract's, which is a
/// base's `root:` when the contract states none. What must lie outside
/// the root (trust policy, `--policy` file, adapters, judge sessions) is
/// checked against that root. `Err`: the problems that make the check
/// invalid.
pub fn prepare(
    runtime: &Runtime,
    doc: Document,
    sources: &vcc_contract::Sources,
    dir: Option<&Path>,
    binding: &BindingArgs,
) -> Result<Prepared, Vec<Problem>> {
    let root = dir.map_or_else(|| doc.default_root(), Path::to_path_buf);
    let prepared = prepare_at(runtime, doc.clone(), sources, &root, binding)?;
    let composed = prepared.doc.default_root();
    if dir.is_some() || composed == root {
        return Ok(prepared);
    }
    // A base moved the root: prepare again at the base's.
    prepare_at(runtime, doc, sources, &composed, binding)
}

/// A gate's approvals folder inside the root is left out of what criteria
/// see (writing an approval must not change the root digest it signs). A
/// base with no gate never agreed to that: a gate the contract adds would
/// hide that folder, and whatever the worker puts in it, from the base's
/// criteria. Decided from the paths, not from what exists now, so a
/// folder made later (inside a loop) is covered too.
pub(super) fn approvals_hidden_from(
    doc: &Document,
    bases: &[(String, Document)],
    approvals: &Path,
    root: &Path,
) -> Option<Problem> {
    if bases.is_empty() || bases.iter().any(|(_, b)| !b.contract.gates.is_empty()) {
        return None;
    }
    let gate = doc.contract.gates.first()?;
    let (folder, root) = (resolved(approvals), resolved(root));
    if folder == root || !folder.starts_with(&root) {
        return None;
    }
    let labels: Vec<&str> = bases.iter().map(|(label, _)| label.as_str()).collect();
    let mut p = doc.problem(
        Code::WeakensBase,
        Level::Error,
        &FieldPath::root().key("gates").index(0),
        format!(
            "gate `{}` reads its approvals from {}, inside the deliverable root, which is then left out of what criteria see; {} has no gate, and its criteria would not see the files there",
            gate.id,
            approvals.display(),
            labels.join(", ")
        ),
    );
    p.help = Some(
        "keep the approvals outside the deliverable root (--approvals DIR), or put the gate in the base".into(),
    );
    Some(p)
}

/// `path` with its nearest existing ancestor resolved (links and all) and
/// the rest as written; lexically absolute when nothing of it resolves.
fn resolved(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut at = path;
    loop {
        if let Ok(real) = std::fs::canonicalize(at) {
            return rest.iter().rev().fold(real, |p, name| p.join(name));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = if parent.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    parent
                };
            }
            _ => return std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()),
        }
    }
}
