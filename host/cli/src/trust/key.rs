//! `vcc key generate`: an Ed25519 key pair for signing bundles, records,
//! shards, attestations and ledger checkpoints.

use std::path::Path;

use vcc_report::law::exit;
use vcc_trust::keys::PrivateKey;

use crate::output::print_stdout;

/// `vcc key generate NAME`: NAME.key (private, mode 0600) and NAME.pub.
pub fn generate(name: &Path) -> i32 {
    let key = match PrivateKey::generate() {
        Ok(key) => key,
        Err(e) => {
            eprintln!("vcc key generate: no randomness: {e}");
            return exit::INVALID;
        }
    };
    if let Some(dir) = name.parent().filter(|d| !d.as_os_str().is_empty())
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        eprintln!("vcc key generate: {}: {e}", dir.display());
        return exit::INVALID;
    }
    match key.write(name) {
        Ok((private, public)) => {
            eprintln!(
                "wrote {} (private, mode 0600: keep it secret) and {} (public: list it in trust policies)",
                private.display(),
                public.display()
            );
            print_stdout(&format!("{}\n", key.id()));
            exit::ACCEPTED
        }
        Err(e) => {
            eprintln!(
                "vcc key generate: cannot write {}.key/.pub: {e} (an existing key is never overwritten)",
                name.display()
            );
            exit::INVALID
        }
    }
}
