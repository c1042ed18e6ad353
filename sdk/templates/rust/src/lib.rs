use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator};

struct {{type}};

impl Validator for {{type}} {
    fn describe() -> Description {
        Description::new("{{name}}", "0.1.0", "target files contain no TODO")
    }

    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let mut findings = Vec::new();
        for path in criterion.paths() {
            for (n, line) in vcc_sdk::read_to_string(path)?.lines().enumerate() {
                if line.contains("TODO") {
                    findings.push(Finding::new("TODO left in").path(path).line(n as u32 + 1));
                }
            }
        }
        Ok(match findings.len() {
            0 => Outcome::pass("no TODO"),
            n => Outcome::fail(format!("{n} TODO(s)")).findings(findings),
        })
    }
}

vcc_sdk::export_validator!({{type}});
