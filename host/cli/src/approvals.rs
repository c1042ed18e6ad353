//! The approvals a check counts: `vcc-approvals/` beside the contract, or
//! `--approvals`; each file verified against the trust policy. Written by
//! `vcc approve` (`approve.rs`), read by every evaluation (`evaluate.rs`).

use std::path::{Path, PathBuf};

use vcc_runtime::host_rows::Approval;
use vcc_trust::approval::{self, MAX_APPROVAL_BYTES};
use vcc_trust::policy::Policy;

/// The folder beside a contract where approvals are kept by default.
pub const APPROVALS_DIR: &str = "vcc-approvals";
/// At most this many files of an approvals folder are read.
const MAX_APPROVAL_FILES: usize = 1000;

/// Where a check of `contract` looks for approvals.
pub fn dir_for(contract: &Path, explicit: Option<&Path>) -> PathBuf {
    match explicit {
        Some(d) => d.to_path_buf(),
        None => contract
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .join(APPROVALS_DIR),
    }
}

/// The approvals folder as an exclude pattern, when it exists under the
/// root: approvals are about the deliverables, not part of them (writing
/// one must not change the root digest it binds).
pub fn root_exclude(dir: &Path, root: &Path) -> Option<String> {
    let dir = std::fs::canonicalize(dir).ok()?;
    let root = std::fs::canonicalize(root).ok()?;
    let rel = dir.strip_prefix(&root).ok()?;
    if rel.as_os_str().is_empty() {
        return None;
    }
    Some(format!("/{}/", rel.to_str()?.replace('\\', "/")))
}

/// Every approval file in `dir` (`*.json`), verified against `policy`; a
/// file that cannot count carries why, so the gate can say it. A missing
/// folder holds no approval.
pub fn load(dir: &Path, policy: Option<&Policy>) -> Vec<Approval> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths.truncate(MAX_APPROVAL_FILES);
    paths
        .iter()
        .map(|path| {
            let file = path.display().to_string();
            let bytes = match crate::attach::read_capped(path, MAX_APPROVAL_BYTES) {
                Ok(b) => b,
                Err(e) => return refused(file, format!("cannot be read: {e}")),
            };
            let statement = match approval::read(&bytes) {
                Ok(s) => s,
                Err(why) => return refused(file, why),
            };
            // Unsigned or untrusted, it still says which gate it is for:
            // that gate's row says why it does not count.
            let (signers, roles, problem) = match statement.signers(policy) {
                Ok(s) => (s.keys, s.roles, None),
                Err(why) => (Vec::new(), Vec::new(), Some(why)),
            };
            Approval {
                file,
                signers,
                roles,
                gate: statement.predicate.gate,
                role: statement.predicate.role,
                score: statement.predicate.score,
                contract_digest: statement.contract_digest,
                root_digest: statement.root_digest,
                problem,
            }
        })
        .collect()
}

fn refused(file: String, why: String) -> Approval {
    Approval {
        file,
        problem: Some(why),
        ..Approval::default()
    }
}
