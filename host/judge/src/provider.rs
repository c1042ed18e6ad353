//! The two APIs a judge speaks: what the host sends, and how it reads the
//! answer — strictly. An answer that is not exactly one JSON document
//! matching the request's schema is refused, never repaired or guessed.

use serde_json::{Value, json};
use vcc_contract::{Judge, Provider};
use vcc_report::judge::JudgeTokens;

use crate::config::Structured;
use crate::prompt::Prompt;

/// Output tokens per call unless the judge says.
pub const DEFAULT_MAX_TOKENS: u32 = 1024;
/// The tool an Anthropic judge answers through.
const ANSWER_TOOL: &str = "answer";
/// Anthropic's API version header.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The sampling parameters sent for sample `sample`: the judge's, with
/// vcc's pinned defaults for what it leaves out (temperature 0, seed 0
/// where the API has one, 1024 output tokens) and the seed moved on by the
/// sample's index, so K samples are K different draws that each repeat.
pub fn sampling(judge: &Judge, sample: u32) -> Value {
    let p = &judge.params;
    let mut out = serde_json::Map::new();
    out.insert("temperature".into(), json!(p.temperature.unwrap_or(0.0)));
    if let Some(top_p) = p.top_p {
        out.insert("top_p".into(), json!(top_p));
    }
    if let Some(top_k) = p.top_k {
        out.insert("top_k".into(), json!(top_k));
    }
    if judge.provider == Provider::OpenaiCompatible {
        let seed = p.seed.unwrap_or(0).wrapping_add(u64::from(sample));
        out.insert("seed".into(), json!(seed));
    }
    out.insert(
        "max_tokens".into(),
        json!(p.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS)),
    );
    Value::Object(out)
}

/// The HTTP path under the endpoint's URL.
pub fn path(provider: Provider) -> &'static str {
    match provider {
        Provider::OpenaiCompatible => "/chat/completions",
        Provider::Anthropic => "/messages",
    }
}

/// The request body.
pub fn body(
    provider: Provider,
    model: &str,
    sampling: &Value,
    prompt: &Prompt,
    structured: Structured,
) -> Vec<u8> {
    let mut body = serde_json::Map::new();
    body.insert("model".into(), json!(model));
    match provider {
        Provider::OpenaiCompatible => {
            body.insert("messages".into(), json!(prompt.messages));
            if let Some(schema) = &prompt.schema {
                match structured {
                    Structured::JsonSchema => {
                        body.insert(
                            "response_format".into(),
                            json!({
                                "type": "json_schema",
                                "json_schema": { "name": "answer", "schema": schema, "strict": true }
                            }),
                        );
                    }
                    Structured::JsonObject => {
                        body.insert("response_format".into(), json!({ "type": "json_object" }));
                    }
                    Structured::JsonObjectSchema => {
                        body.insert(
                            "response_format".into(),
                            json!({ "type": "json_object", "schema": schema }),
                        );
                    }
                    Structured::None => {}
                }
            }
        }
        Provider::Anthropic => {
            let (system, rest) = prompt.split_system();
            body.insert("system".into(), json!(system));
            body.insert("messages".into(), json!(rest));
            if let Some(schema) = &prompt.schema {
                body.insert(
                    "tools".into(),
                    json!([{
                        "name": ANSWER_TOOL,
                        "description": "Give your answer.",
                        "input_schema": schema,
                    }]),
                );
                body.insert(
                    "tool_choice".into(),
                    json!({ "type": "tool", "name": ANSWER_TOOL }),
                );
            }
        }
    }
    if let Value::Object(params) = sampling {
        for (k, v) in params {
            body.insert(k.clone(), v.clone());
        }
    }
    serde_json::to_vec(&Value::Object(body)).unwrap_or_default()
}

/// What a successful response said, before the answer is checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    pub model: Option<String>,
    pub tokens: JudgeTokens,
    /// The answer's text, or why there is none (a refusal, a truncated
    /// answer, no choice at all).
    pub text: Result<String, String>,
}

/// Read a 2xx response body. `Err`: it is not the provider's response at
/// all.
pub fn envelope(provider: Provider, body: &[u8], schema: bool) -> Result<Envelope, String> {
    let v: Value =
        serde_json::from_slice(body).map_err(|e| format!("the response is not JSON: {e}"))?;
    let model = v.get("model").and_then(Value::as_str).map(str::to_string);
    let count = |key: &str| v.pointer(key).and_then(Value::as_u64).unwrap_or(0);
    match provider {
        Provider::OpenaiCompatible => {
            let tokens = JudgeTokens {
                input: count("/usage/prompt_tokens"),
                output: count("/usage/completion_tokens"),
            };
            let choice = v
                .get("choices")
                .and_then(Value::as_array)
                .and_then(|c| c.first())
                .ok_or("the response has no `choices`")?;
            let message = choice.get("message").ok_or("the choice has no `message`")?;
            let text = if let Some(refusal) = message.get("refusal").and_then(Value::as_str) {
                Err(format!("the judge refused: {}", clip(refusal)))
            } else if choice.get("finish_reason").and_then(Value::as_str) == Some("length") {
                Err("the answer was cut off at max_tokens".into())
            } else {
                match message.get("content") {
                    Some(Value::String(text)) => Ok(text.clone()),
                    _ => Err("the message has no text `content`".into()),
                }
            };
            Ok(Envelope {
                model,
                tokens,
                text,
            })
        }
        Provider::Anthropic => {
            let tokens = JudgeTokens {
                input: count("/usage/input_tokens"),
                output: count("/usage/output_tokens"),
            };
            let content = v
                .get("content")
                .and_then(Value::as_array)
                .ok_or("the response has no `content`")?;
            let text = if v.get("stop_reason").and_then(Value::as_str) == Some("max_tokens") {
                Err("the answer was cut off at max_tokens".into())
            } else if schema {
                content
                    .iter()
                    .find(|b| {
                        b.get("type").and_then(Value::as_str) == Some("tool_use")
                            && b.get("name").and_then(Value::as_str) == Some(ANSWER_TOOL)
                    })
                    .and_then(|b| b.get("input"))
                    .map(Value::to_string)
                    .ok_or_else(|| {
                        format!("the judge did not answer through the `{ANSWER_TOOL}` tool")
                    })
            } else {
                let texts: Vec<&str> = content
                    .iter()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect();
                if texts.is_empty() {
                    Err("the response has no text".into())
                } else {
                    Ok(texts.concat())
                }
            };
            Ok(Envelope {
                model,
                tokens,
                text,
            })
        }
    }
}

/// The answer the validator gets: with a schema, the text must be exactly
/// one JSON document that matches it.
pub fn answer(text: &str, schema: Option<&Value>) -> Result<Value, String> {
    let Some(schema) = schema else {
        return Ok(Value::String(text.to_string()));
    };
    let value: Value = serde_json::from_str(text.trim())
        .map_err(|e| format!("the answer is not one JSON document ({e}): {}", clip(text)))?;
    let validator = jsonschema::options()
        .with_pattern_options(jsonschema::PatternOptions::regex())
        .build(schema)
        .map_err(|e| format!("the answer's schema is not valid: {e}"))?;
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .take(3)
        .map(|e| {
            let at = e.instance_path().to_string();
            format!(
                "{}{e}",
                if at.is_empty() {
                    String::new()
                } else {
                    format!("{at}: ")
                }
            )
        })
        .collect();
    if errors.is_empty() {
        Ok(value)
    } else {
        Err(format!(
            "the answer does not match the schema: {}",
            clip(&errors.join("; "))
        ))
    }
}

/// What an error response says, for the report.
pub fn error_text(status: u16, body: &[u8]) -> String {
    let said = serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|v| {
            v.pointer("/error/message")
                .or_else(|| v.get("error"))
                .or_else(|| v.get("message"))
                .map(|m| m.as_str().map_or_else(|| m.to_string(), str::to_string))
        })
        .unwrap_or_else(|| String::from_utf8_lossy(body).into_owned());
    format!("the endpoint answered HTTP {status}: {}", clip(said.trim()))
}

/// At most 300 characters, on a char boundary.
pub fn clip(text: &str) -> String {
    const MAX: usize = 300;
    if text.len() <= MAX {
        return text.to_string();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prompt::{Message, Prompt};

    fn judge(provider: Provider) -> Judge {
        Judge {
            provider,
            model: "m".into(),
            endpoint: None,
            params: vcc_contract::JudgeParams {
                temperature: Some(0.7),
                seed: (provider == Provider::OpenaiCompatible).then_some(10),
                ..Default::default()
            },
            extensions: Default::default(),
        }
    }

    fn prompt() -> Prompt {
        Prompt::compose(
            &[Message {
                role: "user".into(),
                content: "Score it.".into(),
            }],
            &[],
            Some(r#"{"type":"object","properties":{"score":{"type":"integer"}},"required":["score"],"additionalProperties":false}"#),
        )
        .unwrap()
    }

    #[test]
    fn samples_move_the_seed_and_defaults_are_pinned() {
        let s = sampling(&judge(Provider::OpenaiCompatible), 2);
        assert_eq!(
            s,
            json!({"temperature": 0.7, "seed": 12, "max_tokens": 1024})
        );
        let s = sampling(&judge(Provider::Anthropic), 2);
        assert_eq!(s, json!({"temperature": 0.7, "max_tokens": 1024}));
    }

    #[test]
    fn bodies_ask_for_structured_answers() {
        let p = prompt();
        let s = sampling(&judge(Provider::OpenaiCompatible), 0);
        let b: Value = serde_json::from_slice(&body(
            Provider::OpenaiCompatible,
            "m",
            &s,
            &p,
            Structured::JsonSchema,
        ))
        .unwrap();
        assert_eq!(b["response_format"]["type"], "json_schema");
        assert_eq!(b["seed"], 10);
        assert_eq!(b["messages"][0]["role"], "system");
        let b: Value = serde_json::from_slice(&body(
            Provider::Anthropic,
            "m",
            &sampling(&judge(Provider::Anthropic), 0),
            &p,
            Structured::JsonSchema,
        ))
        .unwrap();
        assert_eq!(b["tool_choice"]["name"], "answer");
        assert!(b["system"].as_str().unwrap().contains("VCC-UNTRUSTED"));
        assert_eq!(b["messages"][0]["role"], "user");
    }

    #[test]
    fn answers_are_read_strictly() {
        let schema = prompt().schema.unwrap();
        assert_eq!(
            answer(r#"{"score": 4}"#, Some(&schema)).unwrap(),
            json!({"score": 4})
        );
        assert!(answer(r#"{"score": 4} and more"#, Some(&schema)).is_err());
        assert!(
            answer(
                r#"```json
{"score": 4}
```"#,
                Some(&schema)
            )
            .is_err()
        );
        let extra = answer(r#"{"score": 5, "pass": true}"#, Some(&schema)).unwrap_err();
        assert!(extra.contains("does not match"), "{extra}");
        assert!(answer(r#"{"score": "5"}"#, Some(&schema)).is_err());
        assert_eq!(answer("free text", None).unwrap(), json!("free text"));
    }

    #[test]
    fn envelopes_of_both_apis() {
        let openai = br#"{"model":"m-2024","choices":[{"message":{"role":"assistant","content":"{\"score\":3}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":11,"completion_tokens":4}}"#;
        let e = envelope(Provider::OpenaiCompatible, openai, true).unwrap();
        assert_eq!(e.model.as_deref(), Some("m-2024"));
        assert_eq!(
            e.tokens,
            JudgeTokens {
                input: 11,
                output: 4
            }
        );
        assert_eq!(e.text.unwrap(), r#"{"score":3}"#);
        let cut = br#"{"choices":[{"message":{"content":"{\"sc"},"finish_reason":"length"}]}"#;
        assert!(
            envelope(Provider::OpenaiCompatible, cut, true)
                .unwrap()
                .text
                .is_err()
        );
        let anthropic = br#"{"model":"claude","content":[{"type":"tool_use","name":"answer","input":{"score":5}}],"stop_reason":"tool_use","usage":{"input_tokens":20,"output_tokens":7}}"#;
        let e = envelope(Provider::Anthropic, anthropic, true).unwrap();
        assert_eq!(e.text.unwrap(), r#"{"score":5}"#);
        assert_eq!(e.tokens.total(), 27);
        assert!(envelope(Provider::Anthropic, b"[1]", true).is_err());
        assert!(envelope(Provider::OpenaiCompatible, b"<html>", true).is_err());
    }
}
