//! Reads every target file through the host interface, prints to stdout,
//! and returns a line count per file as evidence.
use vcc_sdk::{Criterion, Description, Outcome, Validator, relative};

struct Reader;

impl Validator for Reader {
    fn describe() -> Description {
        Description::new("reader", "0.1.0", "reads its targets")
    }
    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let mut counts = String::new();
        for path in criterion.paths() {
            let text = vcc_sdk::read_to_string(path)?;
            counts.push_str(&format!("{} {}\n", relative(path), text.lines().count()));
        }
        println!("reader saw {} file(s)", criterion.paths().count());
        // list-deliverables is new in 0.1.1.
        let ids = vcc_sdk::deliverable_ids().join(",");
        Ok(Outcome::pass("read every target")
            .evidence("line-counts.txt", "text/plain", counts)
            .evidence("deliverables.txt", "text/plain", ids))
    }
}

vcc_sdk::export_validator!(Reader);
