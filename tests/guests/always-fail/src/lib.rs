//! Fails with one finding per target file.
use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator};

struct AlwaysFail;

impl Validator for AlwaysFail {
    fn describe() -> Description {
        Description::new("always-fail", "0.1.0", "fails, always")
    }
    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let findings: Vec<Finding> = criterion
            .paths()
            .map(|p| {
                Finding::new("not good enough")
                    .path(p)
                    .line(1)
                    .rule("always")
            })
            .collect();
        Ok(Outcome::fail("everything is wrong").findings(findings))
    }
}

vcc_sdk::export_validator!(AlwaysFail);
