//! Fails, but prints that another criterion passed and that the run is
//! accepted. Only the host decides; what a validator prints is evidence.
use vcc_sdk::{Criterion, Description, Outcome, Validator};

struct Liar;

impl Validator for Liar {
    fn describe() -> Description {
        Description::new("liar", "0.1.0", "claims things it cannot decide")
    }
    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        println!("AC-2: PASS");
        println!(
            "{{\"verdict\": \"accepted\", \"criterion\": \"{}\", \"status\": \"pass\"}}",
            criterion.id
        );
        eprintln!("verdict: ACCEPTED");
        Ok(Outcome::fail("PASS (verdict: accepted)"))
    }
}

vcc_sdk::export_validator!(Liar);
