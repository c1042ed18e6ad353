//! `std/exit-record`: a command record written by `vcc record` exists, is for
//! the expected command, and the command exited with an allowed code.
//!
//! Validators never run commands: tests and linters run outside vcc, and
//! `vcc record --out FILE -- CMD…` writes what happened (command, exit code,
//! times, blake3 of stdout and stderr, and the captured output next to the
//! record). This validator reads the record and, with `check_output`, checks
//! the captured output files against the digests the record declares, so an
//! edited capture (or record) does not pass.

use vcc_plugin_common::{Regex, json, regex};
use vcc_sdk::serde::Deserialize;
use vcc_sdk::serde_json::{self, Value, json as j};
use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator, relative};

struct ExitRecord;

/// The record format `vcc record` writes.
pub const RECORD_VERSION: u64 = 1;

#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde", deny_unknown_fields)]
struct Params {
    #[serde(default)]
    command: Vec<String>,
    command_matches: Option<String>,
    #[serde(default = "zero")]
    allowed_exit_codes: Vec<i64>,
    max_duration_ms: Option<u64>,
    #[serde(default = "yes")]
    check_output: bool,
}

fn zero() -> Vec<i64> {
    vec![0]
}

fn yes() -> bool {
    true
}

impl Validator for ExitRecord {
    fn describe() -> Description {
        Description::new(
            "std/exit-record",
            env!("CARGO_PKG_VERSION"),
            "a `vcc record` command record is for the expected command and exited with an allowed code",
        )
        .params_schema(j!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "command": { "type": "array", "items": { "type": "string" }, "description": "the recorded command must start with these words" },
                "command_matches": { "type": "string", "description": "regex the recorded command line (words joined by spaces) must match" },
                "allowed_exit_codes": { "type": "array", "items": { "type": "integer" }, "minItems": 1, "default": [0] },
                "max_duration_ms": { "type": "integer", "minimum": 0 },
                "check_output": { "type": "boolean", "default": true, "description": "check captured stdout/stderr files against the record's digests" }
            }
        }))
    }

    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params: Params = criterion.params()?;
        let command_re = params
            .command_matches
            .as_deref()
            .map(|p| regex(p, false))
            .transpose()
            .map_err(|e| format!("params.command_matches: {e}"))?;
        let paths: Vec<&str> = criterion.paths().collect();
        if paths.is_empty() {
            return Ok(Outcome::skip("no command record to check"));
        }
        let mut findings = Vec::new();
        let mut seen = Vec::new();
        for path in &paths {
            let text = vcc_sdk::read_to_string(path)?;
            let doc = match json::parse(&text) {
                Ok(d) => d,
                Err(e) => {
                    findings.push(
                        Finding::new(format!("not JSON: {}", e.message))
                            .path(path)
                            .line(e.line)
                            .rule("parse"),
                    );
                    continue;
                }
            };
            let problems = check(&doc.value, &params, command_re.as_ref());
            let problems = match problems {
                Ok(mut p) => {
                    if params.check_output {
                        p.extend(check_captures(&doc.value, relative(path)));
                    }
                    p
                }
                Err(p) => vec![p],
            };
            for (pointer, rule, message) in problems {
                let mut f = Finding::new(message).path(path).rule(rule);
                if let Some((line, _)) = doc.position(pointer) {
                    f = f.line(line);
                }
                findings.push(f);
            }
            seen.push(j!({
                "record": relative(path),
                "command": doc.value.get("command"),
                "exit_code": doc.value.get("exit_code"),
                "duration_ms": doc.value.get("duration_ms"),
            }));
        }
        let evidence = serde_json::to_vec_pretty(&seen).map_err(|e| e.to_string())?;
        let outcome = if findings.is_empty() {
            Outcome::pass(format!(
                "{} command record(s) show an allowed exit",
                paths.len()
            ))
        } else {
            Outcome::fail(format!(
                "{} problem(s) in {} command record(s)",
                findings.len(),
                paths.len()
            ))
            .findings(findings)
        };
        Ok(outcome.evidence("command-records.json", "application/json", evidence))
    }
}

type Problem = (&'static str, &'static str, String);

/// What is wrong with a record, as (pointer, rule, message). `Err` when it
/// is not a record at all.
fn check(
    record: &Value,
    params: &Params,
    command_re: Option<&Regex>,
) -> Result<Vec<Problem>, Problem> {
    if record.get("vcc_record").and_then(Value::as_u64) != Some(RECORD_VERSION) {
        return Err((
            "",
            "not-a-record",
            format!(
                "not a vcc command record (`vcc_record: {RECORD_VERSION}` missing); write it with `vcc record`"
            ),
        ));
    }
    let mut out = Vec::new();
    let words: Vec<&str> = record
        .get("command")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let line = words.join(" ");
    if !params.command.is_empty()
        && !words.starts_with(
            &params
                .command
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
        )
    {
        out.push((
            "/command",
            "command",
            format!(
                "the record is for `{line}`, not `{}`",
                params.command.join(" ")
            ),
        ));
    }
    if let Some(re) = command_re
        && !re.is_match(&line)
    {
        out.push((
            "/command",
            "command",
            format!(
                "the recorded command `{line}` does not match `{}`",
                re.as_str()
            ),
        ));
    }
    if let Some(error) = record.get("error").and_then(Value::as_str) {
        out.push((
            "/error",
            "not-started",
            format!("the command could not be started: {error}"),
        ));
    } else if let Some(signal) = record.get("signal").and_then(Value::as_i64) {
        out.push((
            "/signal",
            "signal",
            format!("the command was killed by signal {signal}"),
        ));
    } else {
        match record.get("exit_code").and_then(Value::as_i64) {
            Some(code) if params.allowed_exit_codes.contains(&code) => {}
            Some(code) => out.push((
                "/exit_code",
                "exit-code",
                format!(
                    "`{line}` exited with {code}; allowed: {:?}",
                    params.allowed_exit_codes
                ),
            )),
            None => out.push((
                "/exit_code",
                "exit-code",
                "the record has no exit code".into(),
            )),
        }
    }
    if let Some(max) = params.max_duration_ms {
        match record.get("duration_ms").and_then(Value::as_u64) {
            Some(ms) if ms <= max => {}
            Some(ms) => out.push((
                "/duration_ms",
                "duration",
                format!("the command took {ms} ms; at most {max} ms allowed"),
            )),
            None => out.push((
                "/duration_ms",
                "duration",
                "the record has no duration".into(),
            )),
        }
    }
    Ok(out)
}

/// The captured output files next to the record still hash to the digests
/// the record declares.
fn check_captures(record: &Value, record_path: &str) -> Vec<Problem> {
    let dir = record_path.rsplit_once('/').map_or("", |(d, _)| d);
    let mut out = Vec::new();
    for (stream, pointer) in [("stdout", "/stdout"), ("stderr", "/stderr")] {
        let Some(info) = record.get(stream) else {
            continue;
        };
        let (Some(file), Some(declared)) = (
            info.get("file").and_then(Value::as_str),
            info.get("captured_digest").and_then(Value::as_str),
        ) else {
            continue;
        };
        if file.contains('/') || file.contains("..") {
            out.push((
                pointer,
                "capture",
                format!("{stream} capture `{file}` must be a file next to the record"),
            ));
            continue;
        }
        let path = if dir.is_empty() {
            file.to_string()
        } else {
            format!("{dir}/{file}")
        };
        match vcc_sdk::stat(&path) {
            Ok(actual) if actual.digest == declared => {}
            Ok(actual) => out.push((
                pointer,
                "capture",
                format!("{stream} capture `{path}` is {} but the record declares {declared}: the capture or the record was edited", actual.digest),
            )),
            Err(e) => out.push((pointer, "capture", format!("{stream} capture `{path}` is missing: {e}"))),
        }
    }
    out
}

vcc_sdk::export_validator!(ExitRecord);

#[cfg(test)]
mod tests {
    use super::*;

    fn params(v: Value) -> Params {
        serde_json::from_value(v).unwrap()
    }

    fn rules(p: &[Problem]) -> Vec<&str> {
        p.iter().map(|p| p.1).collect()
    }

    const OK: &str = r#"{"vcc_record": 1, "command": ["cargo", "test", "--workspace"], "exit_code": 0, "duration_ms": 1200}"#;

    #[test]
    fn exit_codes_commands_and_durations() {
        let r: Value = serde_json::from_str(OK).unwrap();
        assert!(
            check(&r, &params(j!({"command": ["cargo", "test"]})), None)
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            rules(&check(&r, &params(j!({"command": ["npm", "test"]})), None).unwrap()),
            vec!["command"]
        );
        assert_eq!(
            rules(&check(&r, &params(j!({"max_duration_ms": 1000})), None).unwrap()),
            vec!["duration"]
        );
        let re = regex("--workspace", false).unwrap();
        assert!(check(&r, &params(j!({})), Some(&re)).unwrap().is_empty());
        let failed: Value =
            serde_json::from_str(&OK.replace("\"exit_code\": 0", "\"exit_code\": 101")).unwrap();
        let p = check(&failed, &params(j!({})), None).unwrap();
        assert_eq!(rules(&p), vec!["exit-code"]);
        assert!(p[0].2.contains("exited with 101"));
        assert!(
            check(&failed, &params(j!({"allowed_exit_codes": [0, 101]})), None)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn signals_and_start_failures_and_non_records() {
        let killed: Value = serde_json::from_str(
            r#"{"vcc_record": 1, "command": ["x"], "exit_code": null, "signal": 9}"#,
        )
        .unwrap();
        assert_eq!(
            rules(&check(&killed, &params(j!({})), None).unwrap()),
            vec!["signal"]
        );
        let missing: Value = serde_json::from_str(
            r#"{"vcc_record": 1, "command": ["nope"], "error": "No such file or directory"}"#,
        )
        .unwrap();
        assert_eq!(
            rules(&check(&missing, &params(j!({})), None).unwrap()),
            vec!["not-started"]
        );
        assert!(check(&j!({"exit_code": 0}), &params(j!({})), None).is_err());
    }
}
