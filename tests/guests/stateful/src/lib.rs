//! Counts its calls in a static, and passes only on a later call. It does
//! not declare itself stateless (`declared-stateless` does), so each run
//! gets a fresh instance: every run is its first call.
use std::sync::atomic::{AtomicU32, Ordering};

use vcc_sdk::{Criterion, Description, Outcome, Validator};

static CALLS: AtomicU32 = AtomicU32::new(0);

struct Stateful;

impl Validator for Stateful {
    fn describe() -> Description {
        Description::new("stateful", "0.1.0", "remembers earlier calls, if it can")
    }
    fn validate(_: Criterion) -> Result<Outcome, String> {
        let n = CALLS.fetch_add(1, Ordering::SeqCst) + 1;
        Ok(if n > 1 {
            Outcome::pass(format!("call #{n}"))
        } else {
            Outcome::fail(format!("call #{n}"))
        })
    }
}

vcc_sdk::export_validator!(Stateful);
