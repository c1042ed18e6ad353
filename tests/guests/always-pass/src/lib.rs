//! Passes whatever it is given.
use vcc_sdk::{Criterion, Description, Outcome, Validator};

struct AlwaysPass;

impl Validator for AlwaysPass {
    fn describe() -> Description {
        Description::new("always-pass", "0.1.0", "passes, always")
    }
    fn validate(_: Criterion) -> Result<Outcome, String> {
        Ok(Outcome::pass("nothing to object to"))
    }
}

vcc_sdk::export_validator!(AlwaysPass);
