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

/// The approvals folder as a folder vcc leaves out of the root (relative
/// to it), when the contract has gates and the folder is under the root:
/// approvals are about the deliverables, not part of them (writing one
/// must not change the root digest it binds).
///
/// The producer of the deliverables can make links in the root, so the
/// folder is left out only when it is a real folder at that exact place:
/// every part of its path below the root a folder, none a link, and the
/// folder the same one approvals are read from. A link named like the
/// approvals folder leaves nothing out (what it points to is judged where
/// it is); a contract without gates reads no approval and leaves out
/// nothing.
pub fn root_exclude(has_gates: bool, dir: &Path, root: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt as _;
    if !has_gates {
        return None;
    }
    let root = std::fs::canonicalize(root).ok()?;
    let dir = std::path::absolute(dir).ok()?;
    // The deepest folder above `dir` that is the root (the root may be
    // named through a link the verifier chose); what is below it must be
    // plain names.
    let above = dir
        .ancestors()
        .skip(1)
        .find(|a| std::fs::canonicalize(a).is_ok_and(|a| a == root))?;
    let mut parts = Vec::new();
    let mut at = root.clone();
    for part in dir.strip_prefix(above).ok()?.components() {
        let std::path::Component::Normal(name) = part else {
            return None;
        };
        at.push(name);
        // Never through a link: each part is looked at, not followed.
        if !std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_dir()) {
            return None;
        }
        parts.push(name.to_str()?);
    }
    // The folder left out is the folder approvals are read from.
    let (left_out, read) = (
        std::fs::symlink_metadata(&at).ok()?,
        std::fs::metadata(&dir).ok()?,
    );
    if parts.is_empty() || (left_out.dev(), left_out.ino()) != (read.dev(), read.ino()) {
        return None;
    }
    Some(parts.join("/"))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_real_folder_under_the_root_is_left_out() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        std::fs::create_dir_all(root.join("ci/vcc-approvals")).unwrap();
        std::fs::create_dir_all(root.join("src/vendor")).unwrap();
        std::os::unix::fs::symlink("src/vendor", root.join("vcc-approvals")).unwrap();
        std::os::unix::fs::symlink("ci", root.join("link")).unwrap();
        let exclude = |dir: &str| root_exclude(true, &root.join(dir), root);
        assert_eq!(
            exclude("ci/vcc-approvals").as_deref(),
            Some("ci/vcc-approvals")
        );
        // A link named like the folder, or a link on the way to it.
        assert_eq!(exclude("vcc-approvals"), None);
        assert_eq!(exclude("link/vcc-approvals"), None);
        // Named another way, the same real folder; missing, or the root
        // itself: nothing.
        assert_eq!(
            exclude("ci/../ci/vcc-approvals").as_deref(),
            Some("ci/vcc-approvals")
        );
        assert_eq!(exclude("missing"), None);
        assert_eq!(root_exclude(true, root, root), None);
        // No gates, no approvals read: nothing is vcc's.
        assert_eq!(
            root_exclude(false, &root.join("ci/vcc-approvals"), root),
            None
        );
    }
}
