//! Opens `/deliverables/pipe`, then `/deliverables/pipe2` if it exists,
//! through WASI. Opening a FIFO for reading waits for a writer, so with no
//! writer the guest blocks inside a host call, where epoch interruption
//! cannot reach it. (Tests also use the two opens as a handshake.)
use vcc_sdk::{Criterion, Description, Outcome, Validator};

struct BlocksOnFifo;

impl Validator for BlocksOnFifo {
    fn describe() -> Description {
        Description::new("blocks-on-fifo", "0.1.0", "opens FIFOs")
    }
    fn validate(_: Criterion) -> Result<Outcome, String> {
        for name in ["pipe", "pipe2"] {
            let path = format!("/deliverables/{name}");
            if std::fs::symlink_metadata(&path).is_ok() {
                std::fs::File::open(&path).map_err(|e| format!("{path}: {e}"))?;
            }
        }
        Ok(Outcome::pass("opened the pipes"))
    }
}

vcc_sdk::export_validator!(BlocksOnFifo);
