//! Panics inside validate (a trap: the panic strategy is abort).
use vcc_sdk::{Criterion, Description, Outcome, Validator};

struct Trap;

impl Validator for Trap {
    fn describe() -> Description {
        Description::new("trap", "0.1.0", "panics")
    }
    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        if criterion.id.is_empty() {
            return Ok(Outcome::pass("unreachable in practice"));
        }
        panic!("validator bug on purpose");
    }
}

vcc_sdk::export_validator!(Trap);
