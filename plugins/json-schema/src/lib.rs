//! `std/json-schema`: JSON or YAML deliverables conform to a JSON Schema.
//!
//! The schema is given inline (`schema`), as a deliverable of the contract
//! (`schema_deliverable`, its id), or as a file of the deliverable root
//! (`schema_file`); schema files may be JSON or YAML. A schema from a
//! file is written by whoever writes the deliverables: `digest`
//! (`blake3:<hex>`) pins its bytes, checked here where they are read, so a
//! replaced schema is an error, never a pass (unpinned, lint warns
//! `CONTRACT_FILE_IN_ROOT`). The draft comes from the schema's `$schema`
//! (2020-12 when absent). Every target file is parsed by its extension
//! (`.yaml`/`.yml` as YAML, `.csv` as rows typed by the schema (csv.rs),
//! anything else as JSON) unless `format` says otherwise; a file that does
//! not parse is a failure with its line. A YAML plain scalar or `<<`
//! merge key that YAML 1.1 readers (PyYAML, go-yaml v2, Psych) read
//! otherwise than YAML 1.2 is a failure with its line (yaml11.rs).

mod csv;
mod yaml11;

use vcc_plugin_common::bounded::{self, Findings};
use vcc_plugin_common::{allow_empty_schema, json, nothing, parse_params};
use vcc_sdk::serde::Deserialize;
use vcc_sdk::serde_json::{self, Value, json};
use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator, invalid_params, relative};

pub struct JsonSchema;

#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde", deny_unknown_fields)]
struct Params {
    schema: Option<Value>,
    schema_file: Option<String>,
    schema_deliverable: Option<String>,
    /// `blake3:<64 hex>` of the schema file's bytes.
    digest: Option<String>,
    #[serde(default)]
    format: Format,
    #[serde(default)]
    allow_empty: bool,
}

#[derive(Deserialize, Default, Clone, Copy, PartialEq)]
#[serde(crate = "vcc_sdk::serde", rename_all = "lowercase")]
enum Format {
    #[default]
    Auto,
    Json,
    Yaml,
    Csv,
}

const ONE_SCHEMA: &str =
    "params: give exactly one of `schema`, `schema_file` and `schema_deliverable`";

/// At most this many validation errors are reported per file; the summary
/// still gives the full count.
const MAX_FINDINGS_PER_FILE: usize = 50;

impl Validator for JsonSchema {
    fn describe() -> Description {
        Description::new(
            "std/json-schema",
            env!("CARGO_PKG_VERSION"),
            "JSON or YAML deliverables validate against a JSON Schema (inline or from a file)",
        )
        .params_schema(json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "schema": {
                    "type": ["object", "boolean"],
                    "description": "the JSON Schema, inline"
                },
                "schema_file": {
                    "type": "string", "minLength": 1,
                    "description": "path of a JSON or YAML schema file, relative to the deliverable root",
                    "x-vcc-root-file": true,
                    "x-vcc-pinned-by": "digest"
                },
                "schema_deliverable": {
                    "type": "string", "minLength": 1,
                    "description": "id of a deliverable holding exactly one JSON or YAML schema file",
                    "x-vcc-deliverable": true,
                    "x-vcc-pinned-by": "digest"
                },
                "digest": {
                    "type": "string", "pattern": "^blake3:[0-9a-f]{64}$",
                    "description": "blake3 of the schema file's bytes (`b3sum`): a schema file that is not these bytes is an error"
                },
                "format": {
                    "enum": ["auto", "json", "yaml", "csv"], "default": "auto",
                    "description": "how to parse target files; auto uses the extension (`.csv`: rows typed by the schema)"
                },
                "allow_empty": allow_empty_schema("no target file")
            },
            "oneOf": [
                { "required": ["schema"] },
                { "required": ["schema_file"] },
                { "required": ["schema_deliverable"] }
            ]
        }))
    }

    fn check_params(params: &str) -> Result<(), Vec<Finding>> {
        let params: Params = parse_params(params)?;
        if params.digest.is_some() && params.schema.is_some() {
            return Err(vec![
                Finding::new(
                    "`digest` pins a schema file (`schema_file` or `schema_deliverable`); an inline `schema` needs no pin",
                )
                .param("/digest"),
            ]);
        }
        match &params.schema {
            Some(schema) => jsonschema::validator_for(schema).map(|_| ()).map_err(|e| {
                vec![Finding::new(format!("not a valid JSON Schema: {e}")).param("/schema")]
            }),
            None => Ok(()),
        }
    }

    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params: Params = criterion.params()?;
        let file = match (&params.schema_file, &params.schema_deliverable) {
            (Some(file), None) => Some(file.clone()),
            (None, Some(id)) => {
                let files =
                    vcc_sdk::files(id).map_err(|e| format!("params.schema_deliverable: {e}"))?;
                match files.as_slice() {
                    [one] => Some(one.path.clone()),
                    _ => {
                        return Err(format!(
                            "params.schema_deliverable: deliverable `{id}` has {} files; it must be exactly one schema file",
                            files.len()
                        ));
                    }
                }
            }
            (None, None) => None,
            (Some(_), Some(_)) => return Err(invalid_params(ONE_SCHEMA)),
        };
        if params.digest.is_some() && file.is_none() {
            return Err(invalid_params(
                "`digest` pins a schema file; an inline `schema` needs no pin",
            ));
        }
        let schema = match (params.schema, file) {
            (Some(schema), None) => schema,
            (None, Some(file)) => {
                let bytes = vcc_sdk::read(&file).map_err(|err| format!("schema: {err}"))?;
                if let Some(pin) = &params.digest {
                    pinned(&file, &bytes, pin)?;
                }
                let text = String::from_utf8(bytes)
                    .map_err(|_| format!("schema: {}: not valid UTF-8", relative(&file)))?;
                parse(&file, &text, Format::Auto).map_err(|(msg, _)| {
                    invalid_params(format!(
                        "the schema {} does not parse: {msg}",
                        relative(&file)
                    ))
                })?
            }
            _ => return Err(invalid_params(ONE_SCHEMA)),
        };
        let validator = jsonschema::validator_for(&schema)
            .map_err(|err| invalid_params(format!("not a valid JSON Schema: {err}")))?;

        let paths: Vec<&str> = criterion.paths().collect();
        if paths.is_empty() {
            return Ok(nothing(params.allow_empty, "no target file to validate"));
        }

        let mut findings = Findings::default();
        let mut report = Vec::new();
        let mut bad_files = 0;
        for path in &paths {
            let text = vcc_sdk::read_to_string(path)?;
            if is_csv(path, params.format) {
                match csv::instance(&text, &schema) {
                    Ok((instance, lines)) => {
                        let errors: Vec<_> = validator.iter_errors(&instance).collect();
                        if !errors.is_empty() {
                            bad_files += 1;
                            for e in errors.iter().take(MAX_FINDINGS_PER_FILE) {
                                let at = e.instance_path().to_string();
                                let mut f = Finding::new(format!(
                                    "{}: {e}",
                                    if at.is_empty() { "/" } else { &at }
                                ))
                                .path(path)
                                .rule(e.kind().keyword());
                                if let Some(line) = csv_line(&at, &lines) {
                                    f = f.line(line);
                                }
                                findings.push(f);
                            }
                            report
                                .push(json!({"file": relative(path), "error_count": errors.len()}));
                        }
                    }
                    Err(why) => {
                        bad_files += 1;
                        findings.push(
                            Finding::new(format!("does not parse as the schema's rows: {why}"))
                                .path(path)
                                .rule("parse"),
                        );
                        report.push(json!({"file": relative(path), "parse_error": why}));
                    }
                }
                continue;
            }
            // JSON keeps the position of every value, for line numbers.
            let mut located = if is_yaml(path, params.format) {
                None
            } else {
                json::parse(&text).ok()
            };
            // The document is judged as parsed; `located` keeps the text's
            // positions for findings.
            let parsed = match located.as_mut() {
                Some(doc) => Ok(std::mem::take(&mut doc.value)),
                None => parse(path, &text, params.format),
            };
            let instance = match parsed {
                Ok(value) => value,
                Err((message, line)) => {
                    bad_files += 1;
                    let mut finding = Finding::new(format!("does not parse: {message}"))
                        .path(path)
                        .rule("parse");
                    if let Some((line, column)) = line {
                        finding = finding.line(line).column(column);
                    }
                    report.push(json!({"file": relative(path), "parse_error": message}));
                    findings.push(finding);
                    continue;
                }
            };
            // A YAML file whose meaning depends on the reader (YAML 1.1 or
            // 1.2) is refused where it differs, before it is judged by one.
            if is_yaml(path, params.format) {
                let differ = yaml11::differences(&text);
                if !differ.is_empty() {
                    bad_files += 1;
                    report
                        .push(json!({"file": relative(path), "yaml11_differences": differ.len()}));
                    for d in differ.into_iter().take(MAX_FINDINGS_PER_FILE) {
                        findings.push(
                            Finding::new(d.message)
                                .path(path)
                                .line(d.line)
                                .rule("yaml11"),
                        );
                    }
                    continue;
                }
            }
            let errors: Vec<_> = validator.iter_errors(&instance).collect();
            if errors.is_empty() {
                continue;
            }
            bad_files += 1;
            for error in errors.iter().take(MAX_FINDINGS_PER_FILE) {
                let at = error.instance_path().to_string();
                let at = if at.is_empty() { "/".to_string() } else { at };
                let mut finding = Finding::new(format!("{at}: {error}"))
                    .path(path)
                    .rule(error.kind().keyword());
                if let Some((line, column)) = located
                    .as_ref()
                    .and_then(|d| d.position(&error.instance_path().to_string()))
                {
                    finding = finding.line(line).column(column);
                }
                findings.push(finding);
            }
            if errors.len() > MAX_FINDINGS_PER_FILE {
                findings.push(
                    Finding::new(format!(
                        "{} more validation error(s) not listed",
                        errors.len() - MAX_FINDINGS_PER_FILE
                    ))
                    .path(path),
                );
            }
            let listed: Vec<Value> = errors
                .iter()
                .take(MAX_FINDINGS_PER_FILE)
                .map(|e| {
                    json!({
                        "instance_path": e.instance_path().to_string(),
                        "schema_path": e.schema_path().to_string(),
                        "message": e.to_string(),
                    })
                })
                .collect();
            report.push(
                json!({"file": relative(path), "error_count": errors.len(), "errors": listed}),
            );
        }

        let total = paths.len();
        if bad_files == 0 {
            return Ok(Outcome::pass(format!(
                "{total} file(s) valid against the schema"
            )));
        }
        let evidence = bounded::evidence(json!({}), &report);
        Ok(
            Outcome::fail(format!("{bad_files} of {total} file(s) do not validate"))
                .findings(findings.into_vec())
                .evidence("validation-errors.json", "application/json", evidence),
        )
    }
}

fn is_yaml(path: &str, format: Format) -> bool {
    match format {
        Format::Yaml => true,
        Format::Json | Format::Csv => false,
        Format::Auto => path.ends_with(".yaml") || path.ends_with(".yml"),
    }
}

fn is_csv(path: &str, format: Format) -> bool {
    format == Format::Csv || (format == Format::Auto && path.to_lowercase().ends_with(".csv"))
}

/// The CSV line of an error at `/3/qty` or `/items/3/qty`: its row's.
fn csv_line(at: &str, lines: &[u32]) -> Option<u32> {
    at.split('/')
        .find_map(|seg| seg.parse::<usize>().ok())
        .and_then(|row| lines.get(row).copied())
}

/// Parse JSON or YAML; on failure, the message and (line, column) if known.
fn parse(path: &str, text: &str, format: Format) -> Result<Value, (String, Option<(u32, u32)>)> {
    if is_yaml(path, format) {
        serde_yaml::from_str(text).map_err(|err| {
            let at = err.location().map(|l| (l.line() as u32, l.column() as u32));
            (err.to_string(), at)
        })
    } else {
        serde_json::from_str(text).map_err(|err| {
            (
                err.to_string(),
                Some((err.line() as u32, err.column() as u32)),
            )
        })
    }
}

vcc_sdk::export_validator!(JsonSchema);

/// The schema file's bytes are the ones the contract pinned: otherwise
/// whoever wrote the deliverables replaced the schema (an error: nothing
/// was checked against the schema the author meant).
fn pinned(file: &str, bytes: &[u8], pin: &str) -> Result<(), String> {
    let actual = format!("blake3:{}", blake3::hash(bytes).to_hex());
    if actual == pin {
        Ok(())
    } else {
        Err(format!(
            "the schema {} is not the one the contract pins: its digest is {actual}, the contract's `digest` is {pin}",
            relative(file)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vcc_sdk::Status;
    use vcc_sdk::native::Files;

    /// The validator's own logic, run natively over files in memory.
    #[test]
    fn judges_files_natively() {
        let mut files = Files::default();
        files.add("data", "/deliverables/a.json", b"{\"n\": 1}".to_vec());
        files.add("data", "/deliverables/b.json", b"{\"n\": \"x\"}".to_vec());
        let params = r#"{"schema": {"properties": {"n": {"type": "integer"}}}}"#;
        let outcome = files
            .run(|| JsonSchema::validate(files.criterion("AC-1", params, &["data"])))
            .unwrap();
        assert_eq!(outcome.status, Status::Fail);
        assert_eq!(outcome.summary, "1 of 2 file(s) do not validate");
        assert_eq!(outcome.findings[0].path.as_deref(), Some("b.json"));
        assert_eq!(outcome.findings[0].line, Some(1));
    }

    #[test]
    fn a_pinned_schema_file_must_be_the_pinned_bytes() {
        let schema = br#"{"properties": {"n": {"type": "integer"}}}"#;
        let pin = format!("blake3:{}", blake3::hash(schema).to_hex());
        let run = |bytes: &[u8], pin: &str| {
            let mut files = Files::default();
            files.add("data", "/deliverables/a.json", b"{\"n\": 1}".to_vec());
            files.add("s", "/deliverables/schemas/s.json", bytes.to_vec());
            let params =
                format!(r#"{{"schema_file": "/deliverables/schemas/s.json", "digest": "{pin}"}}"#);
            files.run(|| JsonSchema::validate(files.criterion("AC-1", &params, &["data"])))
        };
        assert_eq!(run(schema, &pin).unwrap().status, Status::Pass);
        let err = run(br#"{"properties": {}}"#, &pin).unwrap_err();
        assert!(err.contains("is not the one the contract pins"), "{err}");
        assert!(err.contains(&pin), "{err}");
        assert!(
            JsonSchema::check_params(&format!(r#"{{"schema": {{}}, "digest": "{pin}"}}"#)).is_err()
        );
        assert!(
            JsonSchema::check_params(&format!(
                r#"{{"schema_file": "s.json", "digest": "{pin}"}}"#
            ))
            .is_ok()
        );
    }

    #[test]
    fn an_invalid_inline_schema_is_a_params_error() {
        let problems =
            JsonSchema::check_params(r#"{"schema": {"type": "no-such-type"}}"#).unwrap_err();
        assert_eq!(problems[0].path.as_deref(), Some("/schema"));
        assert!(JsonSchema::check_params(r#"{"schema": {"type": "object"}}"#).is_ok());
    }
}
