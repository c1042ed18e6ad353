//! `std/tool-calls`: an agent transcript contains the required tool calls
//! (by name, with optional argument conditions, counts and order) and none
//! of the forbidden ones.
//!
//! A transcript is JSON Lines (one event per line) or JSON (an array of
//! events, or an object holding one under `calls`, `tool_calls`, `messages`
//! or `events`). Calls are read from the common shapes: `{"name", "arguments"
//! | "args" | "input"}`, OpenAI-style `tool_calls: [{"function": {"name",
//! "arguments"}}]`, and Anthropic-style `content: [{"type": "tool_use",
//! "name", "input"}]`. String arguments holding JSON are parsed.

use std::collections::BTreeMap;

use vcc_plugin_common::{Rule, json, select, short};
use vcc_sdk::serde::Deserialize;
use vcc_sdk::serde_json::{self, Value, json as j};
use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator, relative};

struct ToolCalls;

#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde", deny_unknown_fields)]
struct Params {
    #[serde(default)]
    required: Vec<Required>,
    #[serde(default)]
    forbidden: Vec<String>,
    #[serde(default)]
    order: Vec<String>,
}

#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde", untagged)]
enum Required {
    Name(String),
    Spec {
        name: String,
        #[serde(default = "one")]
        min: usize,
        max: Option<usize>,
        #[serde(default)]
        args: BTreeMap<String, Condition>,
    },
}

fn one() -> usize {
    1
}

/// An argument condition: a rule object, or a plain value to equal.
#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde", untagged)]
enum Condition {
    Rule(Rule),
    Value(Value),
}

impl Condition {
    fn check(&self, value: Option<&Value>) -> Result<(), String> {
        match self {
            Condition::Rule(rule) => rule.check(value),
            Condition::Value(expected) => Rule {
                expect: Some(expected.clone()),
                ..Rule::default()
            }
            .check(value),
        }
    }
}

/// One tool call found in a transcript.
#[derive(Debug, Clone, PartialEq)]
struct Call {
    name: String,
    args: Value,
    line: Option<u32>,
}

impl Validator for ToolCalls {
    fn describe() -> Description {
        Description::new(
            "std/tool-calls",
            env!("CARGO_PKG_VERSION"),
            "an agent transcript has the required tool calls (args, counts, order) and no forbidden ones",
        )
        .params_schema(j!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "required": {
                    "type": "array",
                    "description": "tools that must be called: a name, or {name, min, max, args}",
                    "items": {
                        "oneOf": [
                            { "type": "string", "minLength": 1 },
                            {
                                "type": "object", "additionalProperties": false, "required": ["name"],
                                "properties": {
                                    "name": { "type": "string", "minLength": 1 },
                                    "min": { "type": "integer", "minimum": 0, "default": 1 },
                                    "max": { "type": "integer", "minimum": 0 },
                                    "args": {
                                        "type": "object",
                                        "description": "argument path → a value to equal, or a rule {expect, matches, gte, lte, gt, lt, one_of}"
                                    }
                                }
                            }
                        ]
                    }
                },
                "forbidden": { "type": "array", "items": { "type": "string", "minLength": 1 }, "description": "tools that must not be called" },
                "order": { "type": "array", "items": { "type": "string", "minLength": 1 }, "description": "tools whose first calls must come in this order" }
            },
            "anyOf": [{ "required": ["required"] }, { "required": ["forbidden"] }, { "required": ["order"] }]
        }))
    }

    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params: Params = criterion.params()?;
        let paths: Vec<&str> = criterion.paths().collect();
        if paths.is_empty() {
            return Ok(Outcome::skip("no transcript to check"));
        }
        let mut findings = Vec::new();
        let mut summary = Vec::new();
        for path in &paths {
            let text = vcc_sdk::read_to_string(path)?;
            let calls = match calls(&text, path.ends_with(".jsonl") || path.ends_with(".ndjson")) {
                Ok(calls) => calls,
                Err((message, line)) => {
                    let mut f = Finding::new(format!("not a transcript: {message}"))
                        .path(path)
                        .rule("parse");
                    if let Some(line) = line {
                        f = f.line(line);
                    }
                    findings.push(f);
                    continue;
                }
            };
            for p in check(&calls, &params)? {
                let mut f = Finding::new(p.message).path(path).rule(p.rule);
                if let Some(line) = p.line {
                    f = f.line(line);
                }
                findings.push(f);
            }
            let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
            for c in &calls {
                *counts.entry(&c.name).or_default() += 1;
            }
            summary.push(j!({"file": relative(path), "calls": calls.len(), "by_tool": counts}));
        }
        let evidence = serde_json::to_vec_pretty(&summary).map_err(|e| e.to_string())?;
        let outcome = if findings.is_empty() {
            Outcome::pass(format!(
                "{} transcript(s) meet every tool-call rule",
                paths.len()
            ))
        } else {
            Outcome::fail(format!("{} tool-call problem(s)", findings.len())).findings(findings)
        };
        Ok(outcome.evidence("tool-calls.json", "application/json", evidence))
    }
}

struct Problem {
    message: String,
    line: Option<u32>,
    rule: &'static str,
}

fn check(calls: &[Call], params: &Params) -> Result<Vec<Problem>, String> {
    let mut problems = Vec::new();
    for req in &params.required {
        let (name, min, max, args) = match req {
            Required::Name(n) => (n.as_str(), 1, None, None),
            Required::Spec {
                name,
                min,
                max,
                args,
            } => (name.as_str(), *min, *max, Some(args)),
        };
        let matching: Vec<&Call> = calls
            .iter()
            .filter(|c| c.name == name)
            .filter(|c| args.is_none_or(|a| args_hold(&c.args, a).is_ok()))
            .collect();
        let with = match args {
            Some(a) if !a.is_empty() => {
                format!(" with {}", a.keys().cloned().collect::<Vec<_>>().join(", "))
            }
            _ => String::new(),
        };
        if matching.len() < min {
            // Say why the calls that exist did not count.
            let reason = args
                .and_then(|a| {
                    calls
                        .iter()
                        .find(|c| c.name == name)
                        .map(|c| args_hold(&c.args, a))
                })
                .and_then(Result::err)
                .map(|e| format!(" ({e})"))
                .unwrap_or_default();
            problems.push(Problem {
                message: format!(
                    "`{name}`{with} was called {} time(s); at least {min} required{reason}",
                    matching.len()
                ),
                line: None,
                rule: "required-call",
            });
        }
        if let Some(max) = max
            && matching.len() > max
        {
            problems.push(Problem {
                message: format!(
                    "`{name}`{with} was called {} time(s); at most {max} allowed",
                    matching.len()
                ),
                line: matching[max].line,
                rule: "max-calls",
            });
        }
    }
    for name in &params.forbidden {
        for c in calls.iter().filter(|c| &c.name == name) {
            problems.push(Problem {
                message: format!("forbidden tool `{name}` was called with {}", short(&c.args)),
                line: c.line,
                rule: "forbidden-call",
            });
        }
    }
    let firsts: Vec<(usize, &str)> = params
        .order
        .iter()
        .filter_map(|n| {
            calls
                .iter()
                .position(|c| &c.name == n)
                .map(|i| (i, n.as_str()))
        })
        .collect();
    for name in params
        .order
        .iter()
        .filter(|n| !calls.iter().any(|c| &c.name == *n))
    {
        problems.push(Problem {
            message: format!("`{name}` is in the required order but was never called"),
            line: None,
            rule: "order",
        });
    }
    for pair in firsts.windows(2) {
        if pair[1].0 < pair[0].0 {
            problems.push(Problem {
                message: format!(
                    "`{}` was first called before `{}`; the required order puts it after",
                    pair[1].1, pair[0].1
                ),
                line: calls[pair[1].0].line,
                rule: "order",
            });
        }
    }
    Ok(problems)
}

fn args_hold(args: &Value, conditions: &BTreeMap<String, Condition>) -> Result<(), String> {
    for (path, condition) in conditions {
        let found = select(args, path)?;
        let result = if found.is_empty() {
            condition.check(None)
        } else {
            found.iter().try_for_each(|(_, v)| condition.check(Some(v)))
        };
        result.map_err(|e| format!("argument `{path}` {e}"))?;
    }
    Ok(())
}

/// Every call in a transcript, in order.
fn calls(text: &str, json_lines: bool) -> Result<Vec<Call>, (String, Option<u32>)> {
    if !json_lines && let Ok(doc) = json::parse(text) {
        let (prefix, events) = match &doc.value {
            Value::Array(items) => (String::new(), items.as_slice()),
            Value::Object(map) => ["calls", "tool_calls", "messages", "events"]
                .iter()
                .find_map(|k| {
                    map.get(*k)
                        .and_then(Value::as_array)
                        .map(|a| (format!("/{k}"), a.as_slice()))
                })
                .ok_or_else(|| {
                    (
                        "a JSON object without a calls, tool_calls, messages or events array"
                            .to_string(),
                        Some(1),
                    )
                })?,
            _ => {
                return Err((
                    "JSON that is neither an array nor an object".into(),
                    Some(1),
                ));
            }
        };
        let mut out = Vec::new();
        for (i, event) in events.iter().enumerate() {
            let line = doc.position(&format!("{prefix}/{i}")).map(|p| p.0);
            out.extend(from_event(event, line));
        }
        return Ok(out);
    }
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let event: Value = serde_json::from_str(line).map_err(|e| {
            (
                format!("line {} is not JSON: {e}", n + 1),
                Some(n as u32 + 1),
            )
        })?;
        out.extend(from_event(&event, Some(n as u32 + 1)));
    }
    Ok(out)
}

/// The calls one event holds (often none).
fn from_event(event: &Value, line: Option<u32>) -> Vec<Call> {
    if let Some(list) = event.get("tool_calls").and_then(Value::as_array) {
        return list.iter().filter_map(|c| as_call(c, line)).collect();
    }
    if let Some(content) = event.get("content").and_then(Value::as_array) {
        let uses: Vec<Call> = content
            .iter()
            .filter(|c| c.get("type").and_then(Value::as_str) == Some("tool_use"))
            .filter_map(|c| as_call(c, line))
            .collect();
        if !uses.is_empty() {
            return uses;
        }
    }
    let kind = event.get("type").and_then(Value::as_str).unwrap_or("");
    let looks_like_call = matches!(
        kind,
        "tool_use" | "tool_call" | "function_call" | "function"
    ) || ["arguments", "args", "input", "parameters"]
        .iter()
        .any(|k| event.get(*k).is_some())
        || event.get("function").is_some();
    if looks_like_call && let Some(call) = as_call(event, line) {
        return vec![call];
    }
    Vec::new()
}

fn as_call(v: &Value, line: Option<u32>) -> Option<Call> {
    let function = v.get("function");
    let name = function
        .and_then(|f| f.get("name"))
        .or_else(|| v.get("name"))
        .or_else(|| v.get("tool"))
        .or_else(|| v.get("tool_name"))
        .and_then(Value::as_str)?;
    let args = function
        .and_then(|f| f.get("arguments"))
        .or_else(|| {
            ["arguments", "args", "input", "parameters"]
                .iter()
                .find_map(|k| v.get(*k))
        })
        .cloned()
        .unwrap_or(Value::Null);
    let args = match args {
        Value::String(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
        other => other,
    };
    Some(Call {
        name: name.to_string(),
        args,
        line,
    })
}

vcc_sdk::export_validator!(ToolCalls);

#[cfg(test)]
mod tests {
    use super::*;

    const JSONL: &str = r#"{"type": "message", "role": "user", "content": "find sources"}
{"type": "tool_use", "name": "plan", "input": {"steps": 3}}
{"role": "assistant", "tool_calls": [{"id": "1", "type": "function", "function": {"name": "search", "arguments": "{\"query\": \"pagination\", \"limit\": 5}"}}]}
{"role": "assistant", "content": [{"type": "text", "text": "ok"}, {"type": "tool_use", "name": "search", "input": {"query": "latency"}}]}
{"tool": "write_report", "args": {"path": "out/report.md"}}
"#;

    fn params(v: Value) -> Params {
        serde_json::from_value(v).unwrap()
    }

    fn rules(p: &[Problem]) -> Vec<&str> {
        p.iter().map(|p| p.rule).collect()
    }

    #[test]
    fn reads_the_common_call_shapes() {
        let c = calls(JSONL, true).unwrap();
        let names: Vec<(&str, Option<u32>)> = c.iter().map(|c| (c.name.as_str(), c.line)).collect();
        assert_eq!(
            names,
            vec![
                ("plan", Some(2)),
                ("search", Some(3)),
                ("search", Some(4)),
                ("write_report", Some(5))
            ]
        );
        assert_eq!(c[1].args["limit"], 5, "string arguments are parsed");
        let array = format!("[{}]", JSONL.trim().lines().collect::<Vec<_>>().join(",\n"));
        assert_eq!(calls(&array, false).unwrap(), calls(JSONL, true).unwrap());
    }

    #[test]
    fn required_counts_args_forbidden_and_order() {
        let c = calls(JSONL, true).unwrap();
        assert!(check(&c, &params(j!({"required": ["plan", "search"], "order": ["plan", "search", "write_report"]}))).unwrap().is_empty());
        let p = check(&c, &params(j!({"required": [{"name": "search", "args": {"query": "pagination", "limit": {"lte": 3}}}]}))).unwrap();
        assert_eq!(rules(&p), vec!["required-call"]);
        assert!(
            p[0].message
                .contains("argument `limit` is 5 but must be <= 3"),
            "{}",
            p[0].message
        );
        let p = check(
            &c,
            &params(
                j!({"required": [{"name": "search", "max": 1}], "forbidden": ["write_report"]}),
            ),
        )
        .unwrap();
        assert_eq!(rules(&p), vec!["max-calls", "forbidden-call"]);
        assert_eq!(p[1].line, Some(5));
        let p = check(&c, &params(j!({"order": ["search", "plan", "deploy"]}))).unwrap();
        assert_eq!(rules(&p), vec!["order", "order"]);
    }

    #[test]
    fn bad_lines_are_reported_with_their_number() {
        let err = calls("{\"name\": \"a\", \"args\": {}}\nnot json\n", true).unwrap_err();
        assert_eq!(err.1, Some(2));
    }
}
