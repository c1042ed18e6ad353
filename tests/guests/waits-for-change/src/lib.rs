//! Reads `/deliverables/flag.txt` again and again, through WASI
//! (`std::fs`) or the host interface (`via: host`), until it says
//! `params.until` — then passes — or `tries` reads have gone by — then
//! fails. Tests rewrite the file while it runs (and write it back): the
//! validator must only ever see the bytes the host hashed, and the host
//! must notice the rewrite.
use vcc_sdk::serde_json::{Value, json};
use vcc_sdk::{Criterion, Description, Outcome, Validator};

struct WaitsForChange;

impl Validator for WaitsForChange {
    fn describe() -> Description {
        Description::new("waits-for-change", "0.1.0", "waits for a file to change").params_schema(
            json!({"type": "object", "required": ["until"], "properties": {
                "until": {"type": "string"},
                "tries": {"type": "integer", "minimum": 1},
                "via": {"enum": ["wasi", "host"]}
            }}),
        )
    }
    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params = criterion.params::<Value>()?;
        let until = params["until"].as_str().unwrap_or("").to_string();
        let tries = params["tries"].as_u64().unwrap_or(300_000);
        let via_host = params["via"] == "host";
        let mut now = String::new();
        for _ in 0..tries {
            now = if via_host {
                vcc_sdk::read_to_string("/deliverables/flag.txt")?
            } else {
                std::fs::read_to_string("/deliverables/flag.txt").map_err(|e| e.to_string())?
            };
            if now.trim() == until {
                return Ok(Outcome::pass(format!("flag.txt now says {:?}", now.trim())));
            }
        }
        Ok(Outcome::fail(format!(
            "flag.txt still says {:?} after {tries} reads",
            now.trim()
        )))
    }
}

vcc_sdk::export_validator!(WaitsForChange);
