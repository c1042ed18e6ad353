//! `stateful`, but declaring itself stateless (falsely: it counts its calls
//! in a static). vcc trusts the declaration and keeps the instance for the
//! next criterion, so the counter shows the reuse a stateless validator
//! gets; `stateful` shows that without it every criterion is a first call.
use std::sync::atomic::{AtomicU32, Ordering};

use vcc_sdk::{Criterion, Description, Outcome, Validator};

static CALLS: AtomicU32 = AtomicU32::new(0);

struct DeclaredStateless;

impl Validator for DeclaredStateless {
    fn describe() -> Description {
        Description::new("declared-stateless", "0.1.0", "counts its calls")
    }
    fn validate(_: Criterion) -> Result<Outcome, String> {
        let n = CALLS.fetch_add(1, Ordering::SeqCst) + 1;
        Ok(Outcome::pass(format!("call #{n}")))
    }
}

vcc_sdk::export_validator!(DeclaredStateless);
vcc_sdk::stateless!();
