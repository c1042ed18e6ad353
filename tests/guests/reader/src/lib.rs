//! Reads every target file through the host interface, prints to stdout,
//! and returns a line count per file as evidence, with the deliverable ids
//! and every file it finds under /deliverables through WASI.
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
        let mut tree = Vec::new();
        list("/deliverables", &mut tree)?;
        tree.sort();
        Ok(Outcome::pass("read every target")
            .evidence("line-counts.txt", "text/plain", counts)
            .evidence("deliverables.txt", "text/plain", ids)
            .evidence("wasi-tree.txt", "text/plain", tree.join("\n")))
    }
}

/// Every file under `dir`, as WASI shows the deliverables.
fn list(dir: &str, out: &mut Vec<String>) -> Result<(), String> {
    for entry in std::fs::read_dir(dir).map_err(|e| format!("{dir}: {e}"))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let path = format!("{dir}/{}", entry.file_name().to_string_lossy());
        if entry.file_type().map_err(|e| e.to_string())?.is_dir() {
            list(&path, out)?;
        } else {
            out.push(relative(&path).to_string());
        }
    }
    Ok(())
}

vcc_sdk::export_validator!(Reader);
