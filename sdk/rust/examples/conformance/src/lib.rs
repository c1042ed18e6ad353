//! The SDK conformance validator in Rust (spec: sdk/conformance/README.md).

use std::collections::BTreeMap;

use vcc_sdk::judge::{self, Request};
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
                "mode": { "enum": ["check", "skip", "error", "params-error", "judge", "signatures"], "default": "check" }
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
            Some("judge") => return judged(&criterion, &params.word),
            Some("signatures") => return signed(&criterion),
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

/// Pass with no findings, fail with any; one JSON evidence file.
fn judged_by_findings(
    summary: String,
    findings: Vec<Finding>,
    name: &str,
    evidence: Vec<u8>,
) -> Outcome {
    let outcome = if findings.is_empty() {
        Outcome::pass(summary)
    } else {
        Outcome::fail(summary)
    };
    outcome
        .findings(findings)
        .evidence(name, "application/json", evidence)
}

/// `mode: signatures`: who signed each target file, as the host says.
fn signed(criterion: &Criterion) -> Result<Outcome, String> {
    let mut signers: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut findings = Vec::new();
    let mut total = 0;
    for path in criterion.paths() {
        total += 1;
        let check = vcc_sdk::signatures(path);
        if check.signers.is_empty() {
            let code = check.problems.first().map_or("none", |p| p.code.as_str());
            findings.push(
                Finding::new(format!("not signed: {code}"))
                    .path(path)
                    .rule("signature"),
            );
        }
        signers.insert(relative(path).to_string(), check.signers);
    }
    let evidence = serde_json::to_vec(&signers).map_err(|e| e.to_string())?;
    let summary = format!("{} of {total} file(s) signed", total - findings.len());
    Ok(judged_by_findings(
        summary,
        findings,
        "signers.json",
        evidence,
    ))
}

const SCORE: &str = r#"{"type":"object","additionalProperties":false,"required":["score"],"properties":{"score":{"type":"integer","minimum":1,"maximum":5}}}"#;

fn judged(criterion: &Criterion, word: &str) -> Result<Outcome, String> {
    if judge::judges().is_empty() {
        return Err("no judge granted".into());
    }
    let paths: Vec<&str> = criterion.paths().flat_map(|p| [p, p]).collect();
    let mut asks = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        let digest = vcc_sdk::stat(path)?.digest;
        let mut ask = Request::new("", i as u32 % 2)
            .system("You rate documents.")
            .user(format!(
                "Rate the document for the word {word} from 1 to 5."
            ))
            .file(&digest);
        ask.schema = Some(SCORE.to_string());
        asks.push(ask);
    }
    let mut answers = Vec::new();
    for answer in judge::complete(&asks) {
        answers.push(answer.map_err(|why| format!("judge: {why}"))?);
    }
    let mut scores = Vec::new();
    for answer in &answers {
        let doc: serde_json::Value =
            serde_json::from_str(&answer.text).map_err(|e| e.to_string())?;
        scores.push(doc["score"].as_i64().ok_or("an answer without a score")?);
    }
    let findings: Vec<Finding> = scores
        .iter()
        .zip(&paths)
        .filter(|(s, _)| **s < 3)
        .map(|(s, p)| Finding::new(format!("score {s}")).path(p).rule("judge"))
        .collect();
    let calls: Vec<&str> = answers.iter().map(|a| a.call.as_str()).collect();
    let evidence = serde_json::to_vec(&calls).map_err(|e| e.to_string())?;
    let list: Vec<String> = scores.iter().map(i64::to_string).collect();
    let summary = format!("scores {}", list.join(","));
    Ok(judged_by_findings(
        summary,
        findings,
        "calls.json",
        evidence,
    ))
}

vcc_sdk::export_validator!(Conformance);
