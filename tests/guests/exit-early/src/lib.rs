//! Calls exit(0) instead of returning: success of the process is not a pass.
use vcc_sdk::{Criterion, Description, Outcome, Validator};

struct ExitEarly;

impl Validator for ExitEarly {
    fn describe() -> Description {
        Description::new("exit-early", "0.1.0", "exits before returning")
    }
    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        println!("PASS {}", criterion.id);
        std::process::exit(0);
    }
}

vcc_sdk::export_validator!(ExitEarly);
