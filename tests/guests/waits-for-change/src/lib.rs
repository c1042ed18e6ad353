//! Reads `/deliverables/flag.txt` through WASI until it says `params.until`,
//! then passes. Tests edit the file mid-run and expect the host to notice
//! that the deliverables changed.
use vcc_sdk::{Criterion, Description, Outcome, Validator};

struct WaitsForChange;

impl Validator for WaitsForChange {
    fn describe() -> Description {
        Description::new("waits-for-change", "0.1.0", "waits for a file to change")
            .params_schema(vcc_sdk::serde_json::json!({"type": "object", "required": ["until"]}))
    }
    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let until = criterion.params::<vcc_sdk::serde_json::Value>()?["until"]
            .as_str()
            .unwrap_or("")
            .to_string();
        loop {
            let now =
                std::fs::read_to_string("/deliverables/flag.txt").map_err(|e| e.to_string())?;
            if now.trim() == until {
                return Ok(Outcome::pass(format!("flag.txt now says {:?}", now.trim())));
            }
        }
    }
}

vcc_sdk::export_validator!(WaitsForChange);
