//! Opens and reads `/deliverables/pipe` through WASI. Were that a FIFO with
//! no writer, the guest would block inside a host call, where epoch
//! interruption cannot reach it; the host never lets a FIFO be reachable.
use vcc_sdk::{Criterion, Description, Outcome, Validator};

struct BlocksOnFifo;

impl Validator for BlocksOnFifo {
    fn describe() -> Description {
        Description::new("blocks-on-fifo", "0.1.0", "opens a FIFO")
    }
    fn validate(_: Criterion) -> Result<Outcome, String> {
        let path = "/deliverables/pipe";
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        Ok(Outcome::pass(format!(
            "read {} bytes from the pipe",
            text.len()
        )))
    }
}

vcc_sdk::export_validator!(BlocksOnFifo);
