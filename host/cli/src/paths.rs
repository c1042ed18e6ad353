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

#[cfg(test)]
mod tests {
    use super::inside;

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
