//! Reads `/deliverables/flag.txt` again and again, through WASI
//! (`std::fs`) or the host interface (`via: host`), until it says
//! `params.until` — then passes — or `tries` reads have gone by — then
//! fails. Tests rewrite the file while it runs (and write it back): the
//! validator must only ever see the bytes the host hashed, and the host
//! must notice the rewrite.
//!
//! With `barrier: TEXT`, it first reads the file once, then asks its
//! judge `TEXT` and waits for the answer before it reads again: a test
//! whose judge on loopback answers only after it has acted knows, by
//! construction, that the validator was still running when it acted —
//! however fast or slow the machine. (Give each test its own TEXT: a
//! cached answer is no barrier.)
use vcc_sdk::serde_json::{Value, json};
use vcc_sdk::{Criterion, Description, Outcome, Validator};

struct WaitsForChange;

fn read(via_host: bool) -> Result<String, String> {
    if via_host {
        vcc_sdk::read_to_string("/deliverables/flag.txt")
    } else {
        std::fs::read_to_string("/deliverables/flag.txt").map_err(|e| e.to_string())
    }
}

impl Validator for WaitsForChange {
    fn describe() -> Description {
        Description::new("waits-for-change", "0.1.0", "waits for a file to change").params_schema(
            json!({"type": "object", "required": ["until"], "properties": {
                "until": {"type": "string"},
                "tries": {"type": "integer", "minimum": 1},
                "via": {"enum": ["wasi", "host"]},
                "barrier": {"type": "string"}
            }}),
        )
    }
    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params = criterion.params::<Value>()?;
        let until = params["until"].as_str().unwrap_or("").to_string();
        let via_host = params["via"] == "host";
        let barrier = params["barrier"].as_str();
        let tries = params["tries"]
            .as_u64()
            .unwrap_or(if barrier.is_some() { 1 } else { 300_000 });
        if let Some(text) = barrier {
            read(via_host)?;
            let request = vcc_sdk::judge::Request::new("", 0).user(text);
            if let Some(Err(why)) = vcc_sdk::judge::complete(&[request]).into_iter().next() {
                return Err(format!("the barrier's judge did not answer: {why}"));
            }
        }
        let mut now = String::new();
        for _ in 0..tries {
            now = read(via_host)?;
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
