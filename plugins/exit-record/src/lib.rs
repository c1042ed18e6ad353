//! `std/exit-record`: a command record written by `vcc record` is intact,
//! is for the expected command, exited with an allowed code, and ran on the
//! code that is here now.
//!
//! Validators never run commands: tests and linters run outside vcc, and
//! `vcc record --inputs PATH… --out FILE -- CMD…` writes what happened. A
//! record is checked for:
//!
//! - integrity: `record_digest` matches the record (an edited or
//!   hand-written record fails), and, with `check_output`, the captured
//!   stdout/stderr files next to it still hash to what it declares;
//! - place: it was written for this deliverable root (its `path` is where
//!   it lies now) and the command ran inside that root;
//! - the command, its exit code and its duration;
//! - its inputs: every input file it recorded is in this snapshot with the
//!   same digest (otherwise the tests ran on other code), none changed
//!   while the command ran, `cover` deliverables are all among them, and
//!   `require_inputs` refuses a record that binds no input;
//! - its outputs: files it recorded as written are here unchanged, and
//!   `produced` deliverables (a JUnit report, say) are all among them.
//!
//! A record is the word of whoever ran the command: its digest proves it
//! was not edited after `vcc record` wrote it, not who wrote it. With
//! `require_signed`, it must also be signed (`vcc record --key`) by keys
//! the trust policy names for records — checked by the host, never here
//! (`signatures`, vcc:validator@0.1.3) — and, with `signers`, by one of
//! those.

use vcc_plugin_common::bounded::{self, Findings};
use vcc_plugin_common::{Regex, allow_empty_schema, json, nothing, parse_params, regex};
use vcc_sdk::serde::Deserialize;
use vcc_sdk::serde_json::{Value, json as j};
use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator, invalid_params, relative};

pub struct ExitRecord;

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
    #[serde(default)]
    require_inputs: bool,
    #[serde(default)]
    cover: Vec<String>,
    #[serde(default)]
    produced: Vec<String>,
    #[serde(default)]
    allow_cwd_outside_root: bool,
    #[serde(default)]
    require_signed: bool,
    #[serde(default)]
    signers: Vec<String>,
    #[serde(default)]
    allow_empty: bool,
}

fn zero() -> Vec<i64> {
    vec![0]
}

fn yes() -> bool {
    true
}

fn command_re(params: &Params) -> Result<Option<Regex>, Finding> {
    params
        .command_matches
        .as_deref()
        .map(|p| regex(p, false))
        .transpose()
        .map_err(|e| Finding::new(e).param("/command_matches"))
}

/// The files of deliverables named in a param, as (relative path, digest).
fn deliverable_files(ids: &[String], param: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for id in ids {
        let files = vcc_sdk::files(id).map_err(|e| invalid_params(format!("{param}: {e}")))?;
        out.extend(
            files
                .into_iter()
                .map(|f| (relative(&f.path).to_string(), f.digest)),
        );
    }
    Ok(out)
}

impl Validator for ExitRecord {
    fn describe() -> Description {
        Description::new(
            "std/exit-record",
            env!("CARGO_PKG_VERSION"),
            "a `vcc record` command record is intact, for the expected command, exited with an allowed code, and ran on the code that is here",
        )
        .params_schema(j!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "command": { "type": "array", "items": { "type": "string" }, "description": "the recorded command must start with these words" },
                "command_matches": { "type": "string", "description": "regex the recorded command line (words joined by spaces) must match" },
                "allowed_exit_codes": { "type": "array", "items": { "type": "integer" }, "minItems": 1, "default": [0] },
                "max_duration_ms": { "type": "integer", "minimum": 0 },
                "check_output": { "type": "boolean", "default": true, "description": "check captured stdout/stderr files against the record's digests" },
                "require_inputs": { "type": "boolean", "default": false, "description": "a record that binds no input file (`vcc record --inputs`) fails" },
                "cover": { "type": "array", "items": { "type": "string", "minLength": 1 }, "description": "deliverable ids whose every file must be among the record's inputs, unchanged", "x-vcc-deliverable": true },
                "produced": { "type": "array", "items": { "type": "string", "minLength": 1 }, "description": "deliverable ids whose every file must be among the record's outputs, unchanged", "x-vcc-deliverable": true },
                "allow_cwd_outside_root": { "type": "boolean", "default": false, "description": "accept a command run outside the deliverable root" },
                "require_signed": { "type": "boolean", "default": false, "description": "the record must be signed (`vcc record --key`) by keys the trust policy names for records; the host verifies" },
                "signers": { "type": "array", "items": { "type": "string", "minLength": 1 }, "description": "with require_signed: the record must be signed by one of these trust-policy key ids" },
                "allow_empty": allow_empty_schema("no record")
            }
        }))
    }

    fn check_params(params: &str) -> Result<(), Vec<Finding>> {
        let params: Params = parse_params(params)?;
        command_re(&params).map(|_| ()).map_err(|f| vec![f])
    }

    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params: Params = criterion.params()?;
        let command_re = command_re(&params).map_err(|f| invalid_params(f.message))?;
        let cover = deliverable_files(&params.cover, "cover")?;
        let produced = deliverable_files(&params.produced, "produced")?;
        let paths: Vec<&str> = criterion.paths().collect();
        if paths.is_empty() {
            return Ok(nothing(params.allow_empty, "no command record"));
        }
        let mut findings = Findings::default();
        let mut seen = Vec::new();
        let excluded = std::cell::RefCell::new(Vec::new());
        for path in &paths {
            let text = vcc_sdk::read_to_string(path)?;
            let doc = json::parse(&text).map_err(|e| {
                format!(
                    "{} is not a command record (line {}: not JSON: {}); std/exit-record reads records written by `vcc record`",
                    relative(path),
                    e.line,
                    e.message
                )
            })?;
            let record = &doc.value;
            let ctx = Context {
                params: &params,
                command_re: command_re.as_ref(),
                at: relative(path),
                cover: &cover,
                produced: &produced,
                excluded: &excluded,
            };
            for (pointer, rule, message) in ctx.check(record) {
                let mut f = Finding::new(message).path(path).rule(rule);
                if let Some((line, _)) = doc.position(&pointer) {
                    f = f.line(line);
                }
                findings.push(f);
            }
            let signed_by = if params.require_signed {
                let (signed_by, problems) = vcc_plugin_common::signed::check(path, &params.signers);
                for (rule, message) in problems {
                    findings.push(Finding::new(message).path(path).rule(&rule));
                }
                signed_by
            } else {
                Vec::new()
            };
            seen.push(j!({
                "record": relative(path),
                "command": record.get("command"),
                "exit_code": record.get("exit_code"),
                "duration_ms": record.get("duration_ms"),
                "inputs": record.get("inputs").and_then(Value::as_array).map_or(0, Vec::len),
                "outputs": record.get("outputs").and_then(Value::as_array).map_or(0, Vec::len),
                "record_digest": record.get(vcc_record::DIGEST_FIELD),
                "signed_by": signed_by,
            }));
        }
        let excluded = excluded.into_inner();
        let evidence = bounded::evidence(
            j!({ "excluded_files": excluded.iter().take(100).collect::<Vec<_>>() }),
            &seen,
        );
        // Recorded files the contract leaves out are not deliverables: said,
        // not compared.
        let not_compared = if excluded.is_empty() {
            String::new()
        } else {
            format!(
                "; {} recorded file(s) the check excludes were not compared ({}{})",
                excluded.len(),
                excluded
                    .iter()
                    .take(3)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", "),
                if excluded.len() > 3 { ", …" } else { "" }
            )
        };
        let outcome = if findings.is_empty() {
            Outcome::pass(format!(
                "{} command record(s) intact, on this code, with an allowed exit{not_compared}",
                paths.len()
            ))
        } else {
            Outcome::fail(format!(
                "{} problem(s) in {} command record(s){not_compared}",
                findings.len(),
                paths.len()
            ))
            .findings(findings.into_vec())
        };
        Ok(outcome.evidence("command-records.json", "application/json", evidence))
    }
}

/// (JSON pointer, rule, message).
type Problem = (String, &'static str, String);

fn problem(pointer: &str, rule: &'static str, message: String) -> Problem {
    (pointer.to_string(), rule, message)
}

/// What one record is checked against.
struct Context<'a> {
    params: &'a Params,
    command_re: Option<&'a Regex>,
    /// Where the record lies, relative to the root.
    at: &'a str,
    cover: &'a [(String, String)],
    produced: &'a [(String, String)],
    /// Recorded files the check leaves out, seen so far.
    excluded: &'a std::cell::RefCell<Vec<String>>,
}

impl Context<'_> {
    /// Everything wrong with a record. A record that is not intact is not
    /// read further: its other fields prove nothing.
    fn check(&self, record: &Value) -> Vec<Problem> {
        let version = record.get("vcc_record").and_then(Value::as_u64);
        if version != Some(vcc_record::VERSION) {
            let why = match version {
                Some(v) => format!(
                    "a format {v} record (this vcc reads format {}); record the command again with `vcc record`",
                    vcc_record::VERSION
                ),
                None => {
                    "not a vcc command record (`vcc_record` missing); write it with `vcc record`"
                        .into()
                }
            };
            return vec![problem("", "not-a-record", why)];
        }
        match record.get(vcc_record::DIGEST_FIELD).and_then(Value::as_str) {
            Some(d) if d == vcc_record::digest(record) => {}
            Some(_) => {
                return vec![problem(
                    "/record_digest",
                    "record-digest",
                    "the record was edited after `vcc record` wrote it: its record_digest does not match its fields".into(),
                )];
            }
            None => {
                return vec![problem(
                    "",
                    "record-digest",
                    "the record has no record_digest: it was not written by `vcc record` (or was rewritten by hand)".into(),
                )];
            }
        }
        let mut out = self.place(record);
        out.extend(self.command(record));
        if self.params.check_output {
            out.extend(captures(record, self.at));
        }
        out.extend(self.inputs(record));
        out.extend(self.outputs(record));
        out
    }

    /// The record was written for this root, by a command run inside it.
    fn place(&self, record: &Value) -> Vec<Problem> {
        let mut out = Vec::new();
        match record.get("path").and_then(Value::as_str) {
            Some(p) if p == self.at => {}
            Some(p) => out.push(problem(
                "/path",
                "place",
                format!(
                    "the record was written as `{p}` under its root, but is `{}` here: it was moved, or the check's root is not the one it was recorded in (run `vcc check --dir` on the folder given to `vcc record --root`)",
                    self.at
                ),
            )),
            None => out.push(problem(
                "/path",
                "place",
                "the record was written outside its deliverable root and copied in".into(),
            )),
        }
        let inside = record
            .get("cwd")
            .and_then(Value::as_str)
            .is_some_and(|c| !c.starts_with('/') && !c.split('/').any(|p| p == ".."));
        if !inside && !self.params.allow_cwd_outside_root {
            let cwd = record
                .get("cwd_absolute")
                .and_then(Value::as_str)
                .unwrap_or("?");
            out.push(problem(
                "/cwd",
                "cwd",
                format!("the command ran in {cwd}, outside the deliverable root it was recorded for (set `allow_cwd_outside_root` if that is intended)"),
            ));
        }
        out
    }

    fn command(&self, record: &Value) -> Vec<Problem> {
        let params = self.params;
        let mut out = Vec::new();
        let words: Vec<&str> = record
            .get("command")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let line = words.join(" ");
        let wanted: Vec<&str> = params.command.iter().map(String::as_str).collect();
        if !wanted.is_empty() && !words.starts_with(&wanted) {
            out.push(problem(
                "/command",
                "command",
                format!("the record is for `{line}`, not `{}`", wanted.join(" ")),
            ));
        }
        if let Some(re) = self.command_re
            && !re.is_match(&line)
        {
            out.push(problem(
                "/command",
                "command",
                format!(
                    "the recorded command `{line}` does not match `{}`",
                    re.as_str()
                ),
            ));
        }
        if let Some(error) = record.get("error").and_then(Value::as_str) {
            out.push(problem(
                "/error",
                "not-started",
                format!("the command could not be started: {error}"),
            ));
        } else if let Some(signal) = record.get("signal").and_then(Value::as_i64) {
            out.push(problem(
                "/signal",
                "signal",
                format!("the command was killed by signal {signal}"),
            ));
        } else {
            match record.get("exit_code").and_then(Value::as_i64) {
                Some(code) if params.allowed_exit_codes.contains(&code) => {}
                Some(code) => out.push(problem(
                    "/exit_code",
                    "exit-code",
                    format!(
                        "`{line}` exited with {code}; allowed: {}",
                        params
                            .allowed_exit_codes
                            .iter()
                            .map(i64::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )),
                None => out.push(problem(
                    "/exit_code",
                    "exit-code",
                    "the record has no exit code".into(),
                )),
            }
        }
        if let Some(max) = params.max_duration_ms {
            match record.get("duration_ms").and_then(Value::as_u64) {
                Some(ms) if ms <= max => {}
                Some(ms) => out.push(problem(
                    "/duration_ms",
                    "duration",
                    format!("the command took {ms} ms; at most {max} ms allowed"),
                )),
                None => out.push(problem(
                    "/duration_ms",
                    "duration",
                    "the record has no duration".into(),
                )),
            }
        }
        out
    }

    /// Inputs: here and unchanged, unchanged during the run, covering what
    /// the contract names.
    fn inputs(&self, record: &Value) -> Vec<Problem> {
        let listed = files(record, "inputs");
        let mut out = compare(&listed, "input", &mut self.excluded.borrow_mut(), |what| {
            format!("{what}: the command ran on other code than the deliverables hold now")
        });
        for (i, path) in record
            .get("inputs_changed")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            out.push(problem(
                &format!("/inputs_changed/{i}"),
                "input-changed",
                format!(
                    "input `{}` changed while the command ran",
                    path.as_str().unwrap_or("?")
                ),
            ));
        }
        if self.params.require_inputs && listed.is_empty() {
            out.push(problem(
                "/inputs",
                "no-inputs",
                "the record binds no input file: record with `vcc record --inputs PATH…` so it says which code was tested".into(),
            ));
        }
        out.extend(covered(&listed, self.cover, "/inputs", "cover", "inputs"));
        out
    }

    /// Outputs: here and unchanged, and every `produced` file among them.
    fn outputs(&self, record: &Value) -> Vec<Problem> {
        let listed = files(record, "outputs");
        let mut out = compare(&listed, "output", &mut self.excluded.borrow_mut(), |what| {
            format!("{what}: it is not the file the recorded command wrote")
        });
        for (i, missing) in record
            .get("outputs_missing")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            out.push(problem(
                &format!("/outputs_missing/{i}"),
                "missing-output",
                format!(
                    "the command did not write `{}`",
                    missing.get("path").and_then(Value::as_str).unwrap_or("?")
                ),
            ));
        }
        out.extend(covered(
            &listed,
            self.produced,
            "/outputs",
            "produced",
            "outputs",
        ));
        out
    }
}

/// (path, declared digest, JSON pointer) of a record's file list.
fn files(record: &Value, key: &str) -> Vec<(String, String, String)> {
    record
        .get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, f)| {
            let text = |k: &str| f.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            (text("path"), text("digest"), format!("/{key}/{i}"))
        })
        .collect()
}

/// Each listed file against the host's snapshot (digest only, no read):
/// `input` or `output` names the list in messages and rules. A file the
/// check leaves out (`exclude`) is not a deliverable: it is not compared,
/// and is added to `excluded`.
fn compare(
    listed: &[(String, String, String)],
    what: &'static str,
    excluded: &mut Vec<String>,
    changed: impl Fn(String) -> String,
) -> Vec<Problem> {
    let (stale, missing) = match what {
        "input" => ("stale-input", "missing-input"),
        _ => ("stale-output", "missing-output"),
    };
    let mut out = Vec::new();
    for (path, declared, pointer) in listed {
        match vcc_sdk::stat(path) {
            Ok(now) if &now.digest == declared => {}
            Ok(_) => out.push((
                pointer.clone(),
                stale,
                changed(format!("{what} `{path}` changed since the record")),
            )),
            Err(e) if e.starts_with("excluded:") => excluded.push(path.clone()),
            Err(_) => out.push((
                pointer.clone(),
                missing,
                format!("{what} `{path}` is not among the deliverables (it was removed, or the check's root is not the record's)"),
            )),
        }
    }
    out
}

/// Every file of the `param` deliverables is in the record's list, with
/// the digest the host hashed.
fn covered(
    listed: &[(String, String, String)],
    wanted: &[(String, String)],
    pointer: &str,
    param: &str,
    list: &str,
) -> Vec<Problem> {
    wanted
        .iter()
        .filter(|(path, digest)| !listed.iter().any(|(p, d, _)| p == path && d == digest))
        .map(|(path, _)| {
            problem(
                pointer,
                "not-covered",
                format!("`{path}` ({param}) is not among the record's {list} as it is now"),
            )
        })
        .collect()
}

/// The captured output files next to the record still hash to the digests
/// the record declares; both streams must be declared.
fn captures(record: &Value, record_path: &str) -> Vec<Problem> {
    let dir = record_path.rsplit_once('/').map_or("", |(d, _)| d);
    let mut out = Vec::new();
    for stream in ["stdout", "stderr"] {
        let pointer = format!("/{stream}");
        let info = record.get(stream);
        let (Some(file), Some(declared)) = (
            info.and_then(|i| i.get("file")).and_then(Value::as_str),
            info.and_then(|i| i.get("captured_digest"))
                .and_then(Value::as_str),
        ) else {
            out.push(problem(
                &pointer,
                "capture",
                format!("the record declares no {stream} capture (file and captured_digest)"),
            ));
            continue;
        };
        if file.contains('/') || file.contains("..") {
            out.push(problem(
                &pointer,
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
            Ok(actual) => out.push(problem(
                &pointer,
                "capture",
                format!("{stream} capture `{path}` is {} but the record declares {declared}: the capture was edited", actual.digest),
            )),
            Err(e) => out.push(problem(&pointer, "capture", format!("{stream} capture `{path}` is missing: {e}"))),
        }
    }
    out
}

vcc_sdk::export_validator!(ExitRecord);

#[cfg(test)]
mod tests {
    use super::*;
    use vcc_sdk::serde_json;

    fn params(v: Value) -> Params {
        serde_json::from_value(v).unwrap()
    }

    fn sealed(mut record: Value) -> Value {
        let d = vcc_record::digest(&record);
        record[vcc_record::DIGEST_FIELD] = j!(d);
        record
    }

    fn rules(p: &[Problem]) -> Vec<&str> {
        p.iter().map(|p| p.1).collect()
    }

    fn record() -> Value {
        j!({"vcc_record": 2, "command": ["cargo", "test", "--workspace"], "exit_code": 0, "duration_ms": 1200,
            "path": "out/tests.json", "cwd": ".", "cwd_absolute": "/w", "inputs": [], "outputs": []})
    }

    fn check(record: &Value, p: &Params) -> Vec<Problem> {
        let re = command_re(p).unwrap();
        Context {
            params: p,
            command_re: re.as_ref(),
            at: "out/tests.json",
            cover: &[],
            produced: &[],
            excluded: &Default::default(),
        }
        .check(record)
    }

    #[test]
    fn exit_codes_commands_and_durations() {
        let p = params(j!({"command": ["cargo", "test"], "check_output": false}));
        assert!(check(&sealed(record()), &p).is_empty());
        let p = params(
            j!({"command": ["npm", "test"], "max_duration_ms": 1000, "check_output": false}),
        );
        assert_eq!(
            rules(&check(&sealed(record()), &p)),
            vec!["command", "duration"]
        );
        let mut failed = record();
        failed["exit_code"] = j!(101);
        let p = params(j!({"check_output": false}));
        let got = check(&sealed(failed.clone()), &p);
        assert_eq!(rules(&got), vec!["exit-code"]);
        assert!(got[0].2.contains("exited with 101"));
        let p = params(j!({"allowed_exit_codes": [0, 101], "check_output": false}));
        assert!(check(&sealed(failed), &p).is_empty());
    }

    #[test]
    fn edited_hand_written_and_old_records_fail_first() {
        let p = params(j!({"check_output": false}));
        let mut edited = sealed(record());
        edited["exit_code"] = j!(0);
        edited["command"] = j!(["cargo", "test"]);
        assert_eq!(rules(&check(&edited, &p)), vec!["record-digest"]);
        assert_eq!(rules(&check(&record(), &p)), vec!["record-digest"]);
        let mut old = record();
        old["vcc_record"] = j!(1);
        assert_eq!(rules(&check(&sealed(old), &p)), vec!["not-a-record"]);
        assert_eq!(
            rules(&check(&j!({"exit_code": 0}), &p)),
            vec!["not-a-record"]
        );
    }

    #[test]
    fn records_from_elsewhere_fail() {
        let p = params(j!({"check_output": false}));
        let mut moved = record();
        moved["path"] = j!("tests.json");
        assert_eq!(rules(&check(&sealed(moved), &p)), vec!["place"]);
        let mut outside = record();
        outside["cwd"] = Value::Null;
        assert_eq!(rules(&check(&sealed(outside.clone()), &p)), vec!["cwd"]);
        let p = params(j!({"check_output": false, "allow_cwd_outside_root": true}));
        assert!(check(&sealed(outside), &p).is_empty());
        let p = params(j!({"check_output": false, "require_inputs": true}));
        assert_eq!(rules(&check(&sealed(record()), &p)), vec!["no-inputs"]);
    }

    #[test]
    fn the_digest_agrees_with_vcc_record() {
        // The vector of host/record's own test.
        let r =
            j!({"vcc_record": 2, "command": ["sh", "-c", "exit 0"], "exit_code": 0, "note": "é\n"});
        assert_eq!(
            vcc_record::canonical(&r),
            r#"{"command":["sh","-c","exit 0"],"exit_code":0,"note":"é\n","vcc_record":2}"#
        );
    }

    #[test]
    fn a_bad_command_regex_is_a_params_error() {
        let problems = ExitRecord::check_params(r#"{"command_matches": "("}"#).unwrap_err();
        assert_eq!(problems[0].path.as_deref(), Some("/command_matches"));
    }
}
