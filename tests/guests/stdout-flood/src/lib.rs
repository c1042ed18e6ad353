//! Prints without bound, then would claim a pass.
use std::io::Write;

use vcc_sdk::{Criterion, Description, Outcome, Validator};

struct StdoutFlood;

impl Validator for StdoutFlood {
    fn describe() -> Description {
        Description::new("stdout-flood", "0.1.0", "floods stdout")
    }
    fn validate(_: Criterion) -> Result<Outcome, String> {
        let line = [b'y'; 1023];
        let mut out = std::io::stdout();
        for _ in 0..1_000_000 {
            if out
                .write_all(&line)
                .and_then(|()| out.write_all(b"\n"))
                .is_err()
            {
                break;
            }
        }
        Ok(Outcome::pass("printed a lot"))
    }
}

vcc_sdk::export_validator!(StdoutFlood);
