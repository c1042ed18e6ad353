//! Returns `err`: the validator says it cannot work.
use vcc_sdk::{Criterion, Description, Outcome, Validator};

struct ErrResult;

impl Validator for ErrResult {
    fn describe() -> Description {
        Description::new("err-result", "0.1.0", "returns err")
    }
    fn validate(_: Criterion) -> Result<Outcome, String> {
        Err("the reference data this validator needs is missing".into())
    }
}

vcc_sdk::export_validator!(ErrResult);
