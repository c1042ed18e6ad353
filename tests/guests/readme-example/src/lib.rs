use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator};

struct NoTodo;

impl Validator for NoTodo {
    fn describe() -> Description {
        Description::new("no-todo", "0.1.0", "target files contain no TODO")
    }

    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let mut findings = Vec::new();
        for path in criterion.paths() {
            let text = vcc_sdk::read_to_string(path)?; // recorded in files_read
            for (n, line) in text.lines().enumerate() {
                if line.contains("TODO") {
                    findings.push(Finding::new("TODO left in").path(path).line(n as u32 + 1));
                }
            }
        }
        Ok(if findings.is_empty() {
            Outcome::pass("no TODO")
        } else {
            Outcome::fail(format!("{} TODO(s)", findings.len())).findings(findings)
        })
    }
}

vcc_sdk::export_validator!(NoTodo);
