//! The SDK conformance validator in Rust (spec: sdk/conformance/README.md).

use std::collections::BTreeMap;

use vcc_sdk::serde::Deserialize;
use vcc_sdk::serde_json::{self, json};
use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator, relative};

struct Conformance;

#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde")]
struct Params {
    word: String,
    #[serde(default)]
    max: u64,
    #[serde(default)]
    mode: Option<String>,
}

impl Validator for Conformance {
    fn describe() -> Description {
        Description::new(
            "conformance",
            "0.1.0",
            "counts lines containing a word (the SDK conformance validator)",
        )
        .params_schema(json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["word"],
            "properties": {
                "word": { "type": "string", "minLength": 1 },
                "max": { "type": "integer", "minimum": 0, "default": 0 },
                "mode": { "enum": ["check", "skip", "error", "params-error"], "default": "check" }
            }
        }))
    }

    fn check_params(params: &str) -> Result<(), Vec<Finding>> {
        let params: Params =
            serde_json::from_str(params).map_err(|e| vec![Finding::new(e.to_string())])?;
        if params.word.chars().any(char::is_whitespace) {
            return Err(vec![Finding::new("word must be one word").param("/word")]);
        }
        Ok(())
    }

    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params: Params = criterion.params()?;
        match params.mode.as_deref() {
            Some("skip") => return Ok(Outcome::skip("asked to skip")),
            Some("error") => return Err("asked to fail".into()),
            Some("params-error") => {
                return Err(vcc_sdk::invalid_params("asked to blame the params"));
            }
            _ => {}
        }
        let mut counts: BTreeMap<String, u64> = BTreeMap::new();
        let mut findings = Vec::new();
        for path in criterion.paths() {
            let text = vcc_sdk::read_to_string(path)?;
            let mut n = 0;
            for (i, line) in text.split('\n').enumerate() {
                if line.contains(&params.word) {
                    n += 1;
                    findings.push(
                        Finding::new(format!("found {}", params.word))
                            .path(path)
                            .line(i as u32 + 1)
                            .rule("word"),
                    );
                }
            }
            counts.insert(relative(path).to_string(), n);
        }
        let total: u64 = counts.values().sum();
        let summary = format!("{total} occurrence(s) of {}", params.word);
        let evidence = serde_json::to_vec(&counts).map_err(|e| e.to_string())?;
        let outcome = if total > params.max {
            Outcome::fail(summary)
        } else {
            Outcome::pass(summary)
        };
        Ok(outcome
            .findings(findings)
            .evidence("counts.json", "application/json", evidence))
    }
}

vcc_sdk::export_validator!(Conformance);
