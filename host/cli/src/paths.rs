//! Whether a path the verifier names lies in the deliverable root, which
//! the worker writes.

use std::path::{Path, PathBuf};

/// `path` lies under `root` if any folder on its way, as written or as the
/// file system resolves it, is the root: `root/logs/trust.yaml` is inside
/// even when the worker made `logs` a link to a folder elsewhere (it can
/// point it anywhere), and so is a path outside that leads in through a
/// link.
pub fn inside(path: &Path, root: &Path) -> bool {
    let root_written = absolute(root);
    let root_real = real(root);
    let written = absolute(path);
    if written.starts_with(&root_written) || real(path).starts_with(&root_real) {
        return true;
    }
    written.ancestors().any(|folder| real(folder) == root_real)
}

/// `path` made absolute and `..` taken off as written.
fn absolute(path: &Path) -> PathBuf {
    vcc_contract::lexical(&std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// `path` as the file system resolves it, or as written when it does not
/// exist.
fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| absolute(path))
}

/// The top of the git work tree holding `start`: the outermost folder up
/// from it with a `.git` folder or file, found from the file system
/// alone: git is never run on a repository whose config the worker may
/// have written (`core.fsmonitor` and the like run programs). Outermost,
/// because the worker can put a `.git` anywhere in the repository to make
/// a smaller one; `$HOME` itself is left out, or a dotfiles repository
/// would hold `~/.config/vcc/trust.yaml` and every project.
pub fn work_tree(start: &Path) -> Option<PathBuf> {
    let home = std::env::var_os("HOME").map(|h| absolute(Path::new(&h)));
    absolute(start)
        .ancestors()
        .filter(|folder| Some(folder.to_path_buf()) != home)
        .filter(|folder| folder.join(".git").symlink_metadata().is_ok())
        .last()
        .map(Path::to_path_buf)
}

/// `TRUST_IN_ROOT` when the trust policy lies in any of `places` (what
/// `what` names: the deliverable root, the contract's folder, its
/// repository): whoever writes there could rewrite the policy that
/// decides which bundles are trusted.
pub fn policy_outside(policy: &Path, places: &[(&str, PathBuf)]) -> Result<(), vcc_trust::Refusal> {
    match places.iter().find(|(_, place)| inside(policy, place)) {
        Some((what, place)) => Err(vcc_trust::Refusal::new(
            vcc_trust::Code::TrustInRoot,
            format!(
                "the trust policy {} lies in {what} {}: whoever writes there could rewrite it; keep it where they cannot (outside the repository)",
                policy.display(),
                place.display()
            ),
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::{inside, work_tree};

    #[test]
    fn the_work_tree_is_found_without_git() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().join("repo");
        std::fs::create_dir_all(top.join(".git")).unwrap();
        std::fs::create_dir_all(top.join("a/b")).unwrap();
        assert_eq!(work_tree(&top.join("a/b")), Some(top.clone()));
        // A `.git` file (a worktree, a submodule, or one the worker put
        // there) inside it does not make the repository smaller.
        std::fs::write(top.join("a/.git"), "gitdir: elsewhere\n").unwrap();
        assert_eq!(work_tree(&top.join("a/b")), Some(top.clone()));
        assert_eq!(work_tree(&dir.path().join("elsewhere")), None);
    }

    #[test]
    fn a_link_in_the_root_does_not_lead_out_of_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("logs")).unwrap();
        std::os::unix::fs::symlink(&root, outside.join("into")).unwrap();
        assert!(inside(&root.join("logs/trust.yaml"), &root));
        assert!(inside(&root.join("trust.yaml"), &root));
        assert!(inside(&outside.join("into/trust.yaml"), &root));
        assert!(!inside(&outside.join("trust.yaml"), &root));
        assert!(inside(&root.join("a/../logs/x"), &root));
        assert!(!inside(&root.join("../outside/x"), &root));
    }
}
