//! Declines to judge.
use vcc_sdk::{Criterion, Description, Outcome, Validator};

struct Skip;

impl Validator for Skip {
    fn describe() -> Description {
        Description::new("skip", "0.1.0", "skips, always")
    }
    fn validate(_: Criterion) -> Result<Outcome, String> {
        Ok(Outcome::skip("cannot judge this"))
    }
}

vcc_sdk::export_validator!(Skip);
