//! `std/provenance`: a provenance record lists its inputs, tools and
//! deliverable digests, and every declared digest matches the actual file.
//!
//! A record is JSON: `{"inputs": [...], "tools": [...], "actions": [...],
//! "parameters": {...}, "dependencies": [...], "artifacts": [{"path",
//! "digest"}]}`; an in-toto Statement (`subject[].name` + `digest`) is read
//! too. Digests are `blake3:<hex>` (compared with the host's digest of the
//! file, without reading it) or `sha256:<hex>` (the file is read and
//! hashed). With `record`, the record is that file and the criterion's
//! targets are deliverables it must cover; otherwise every target file is a
//! record. `cover` names more deliverables whose every file must be listed.
//! A record that is not JSON is an error; records that require nothing and
//! declare no digest are judged as nothing (skip, unless `allow_empty`).
//!
//! A record is the word of whoever wrote it: it proves what its digests
//! bind (these files, these bytes), not who made them or how.

use sha2::{Digest, Sha256};
use vcc_plugin_common::bounded::{self, Findings};
use vcc_plugin_common::json::{self, Located};
use vcc_plugin_common::{allow_empty_schema, nothing};
use vcc_sdk::serde::Deserialize;
use vcc_sdk::serde_json::{Value, json as j};
use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator, relative};

struct Provenance;

#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde", deny_unknown_fields)]
struct Params {
    record: Option<String>,
    #[serde(default = "default_require")]
    require: Vec<String>,
    #[serde(default)]
    cover: Vec<String>,
    #[serde(default)]
    allow_empty: bool,
    #[serde(default)]
    require_signed: bool,
    #[serde(default)]
    signers: Vec<String>,
}

fn default_require() -> Vec<String> {
    vec!["inputs".into(), "tools".into(), "artifacts".into()]
}

/// Record fields, and the VCC v1 `provenancePolicy.require` names for them.
const FIELDS: &[(&str, &str)] = &[
    ("inputs", "inputs.enumerated"),
    ("tools", "tooling.recorded"),
    ("actions", "agentActions.logged"),
    ("artifacts", "artifactHashes.recorded"),
    ("dependencies", "dependencies.recorded"),
    ("parameters", "parameters.recorded"),
];

fn field_name(requirement: &str) -> Option<&'static str> {
    FIELDS
        .iter()
        .find(|(field, vcc)| *field == requirement || *vcc == requirement)
        .map(|(field, _)| *field)
}

/// One `artifacts` entry: where it is in the record, what it names, and
/// the digest it declares.
struct Declared {
    pointer: String,
    path: String,
    digest: String,
}

impl Validator for Provenance {
    fn describe() -> Description {
        let names: Vec<&str> = FIELDS.iter().flat_map(|(f, v)| [*f, *v]).collect();
        Description::new(
            "std/provenance",
            env!("CARGO_PKG_VERSION"),
            "a provenance record lists inputs, tools and deliverable digests, and every digest matches its file",
        )
        .params_schema(j!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "record": { "type": "string", "minLength": 1, "description": "path of the record (relative to the root); targets are then deliverables to cover" },
                "require": {
                    "type": "array", "items": { "enum": names },
                    "default": ["inputs", "tools", "artifacts"],
                    "description": "record fields that must be present and non-empty"
                },
                "cover": { "type": "array", "items": { "type": "string" }, "description": "deliverable ids whose every file must be listed in `artifacts`", "x-vcc-deliverable": true },
                "require_signed": { "type": "boolean", "default": false, "description": "each record must be signed (a DSSE envelope beside it, `vcc record --key`) by keys the trust policy names for records; the host verifies (VCC `attestation.signed`)" },
                "signers": { "type": "array", "items": { "type": "string", "minLength": 1 }, "description": "with require_signed: signed by one of these trust-policy key ids" },
                "allow_empty": allow_empty_schema("no record, or nothing required and no digest declared")
            }
        }))
    }

    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params: Params = criterion.params()?;
        let required: Vec<&str> = params
            .require
            .iter()
            .map(|r| {
                field_name(r)
                    .ok_or_else(|| format!("params.require: `{r}` is not a provenance field"))
            })
            .collect::<Result<_, _>>()?;
        let mut cover_ids: Vec<String> = params.cover.clone();
        let records: Vec<String> = match &params.record {
            Some(record) => {
                cover_ids.extend(criterion.targets.iter().map(|t| t.id.clone()));
                vec![record.clone()]
            }
            None => criterion.paths().map(str::to_string).collect(),
        };
        if records.is_empty() {
            return Ok(nothing(params.allow_empty, "no provenance record"));
        }
        let mut cover_files = Vec::new();
        for id in &cover_ids {
            cover_files.extend(
                vcc_sdk::files(id)
                    .map_err(|e| format!("params.cover: {e}"))?
                    .into_iter()
                    .map(|f| f.path),
            );
        }

        let mut findings = Findings::default();
        let mut checked = Vec::new();
        for record in &records {
            let text = match vcc_sdk::read_to_string(record) {
                Ok(t) => t,
                Err(e) => {
                    findings.push(
                        Finding::new(format!("the provenance record cannot be read: {e}"))
                            .path(record)
                            .rule("record"),
                    );
                    continue;
                }
            };
            let doc = json::parse(&text).map_err(|e| {
                format!(
                    "{} is not a provenance record (line {}: {}); std/provenance reads JSON records and in-toto Statements",
                    relative(record),
                    e.line,
                    e.message
                )
            })?;
            if params.require_signed {
                let (_, problems) = vcc_plugin_common::signed::check(record, &params.signers);
                for (rule, message) in problems {
                    findings.push(Finding::new(message).path(record).rule(&rule));
                }
            }
            let normal = normalize(&doc.value);
            let at = |f: Finding, pointer: &str| match doc.position(pointer) {
                Some((line, _)) => f.line(line),
                None => f,
            };
            for field in &required {
                if normal.get(*field).is_none_or(is_empty) {
                    findings.push(at(
                        Finding::new(format!("`{field}` is missing or empty"))
                            .path(record)
                            .rule("required-field"),
                        &format!("/{field}"),
                    ));
                }
            }
            let declared = declared(&normal, &doc);
            for d in &declared {
                let verdict = verify(d);
                checked.push(j!({"path": d.path, "declared": d.digest, "ok": verdict.is_ok()}));
                if let Err(problem) = verdict {
                    findings.push(at(
                        Finding::new(format!("`{}`: {problem}", d.path))
                            .path(record)
                            .rule("digest"),
                        &d.pointer,
                    ));
                }
            }
            for file in &cover_files {
                let rel = relative(file);
                if !declared.iter().any(|d| same_path(&d.path, rel)) {
                    findings.push(
                        Finding::new(format!(
                            "deliverable file `{rel}` is not listed in the record's artifacts"
                        ))
                        .path(record)
                        .rule("not-covered"),
                    );
                }
            }
        }
        let evidence = bounded::evidence(
            j!({"records": records.iter().take(100).map(|r| relative(r)).collect::<Vec<_>>()}),
            &checked,
        );
        if findings.is_empty()
            && checked.is_empty()
            && required.is_empty()
            && cover_files.is_empty()
            && !params.require_signed
        {
            let outcome = nothing(
                params.allow_empty,
                "the records declare no digest and nothing is required of them",
            );
            return Ok(outcome.evidence("provenance-check.json", "application/json", evidence));
        }
        let outcome = if findings.is_empty() {
            Outcome::pass(format!(
                "{} artifact digest(s) verified; required fields present",
                checked.len()
            ))
        } else {
            Outcome::fail(format!("{} provenance problem(s)", findings.len()))
                .findings(findings.into_vec())
        };
        Ok(outcome.evidence("provenance-check.json", "application/json", evidence))
    }
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::String(s) => s.is_empty(),
        _ => false,
    }
}

/// An in-toto Statement seen as a vcc record; a vcc record as it is.
fn normalize(v: &Value) -> Value {
    let is_statement = v
        .get("_type")
        .and_then(Value::as_str)
        .is_some_and(|t| t.starts_with("https://in-toto.io/Statement"));
    if !is_statement {
        return v.clone();
    }
    let p = v.get("predicate").cloned().unwrap_or(Value::Null);
    let deps = p
        .pointer("/buildDefinition/resolvedDependencies")
        .cloned()
        .unwrap_or(Value::Null);
    j!({
        "inputs": deps,
        "dependencies": deps,
        "tools": p.pointer("/runDetails/builder").cloned().map(|b| j!([b])).unwrap_or(Value::Null),
        "parameters": p.pointer("/buildDefinition/externalParameters").cloned().unwrap_or(Value::Null),
        "actions": p.pointer("/runDetails/byproducts").cloned().unwrap_or(Value::Null),
        "artifacts": v.get("subject").cloned().unwrap_or(Value::Null),
    })
}

/// The `artifacts` (or in-toto `subject`) entries with a path and digest.
fn declared(normal: &Value, doc: &Located) -> Vec<Declared> {
    let list_name = if doc.value.get("subject").is_some() {
        "subject"
    } else {
        "artifacts"
    };
    normal
        .get("artifacts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, entry)| {
            let path = ["path", "name", "uri"]
                .iter()
                .find_map(|k| entry.get(*k).and_then(Value::as_str))
                .unwrap_or("")
                .to_string();
            let digest = match entry.get("digest") {
                Some(Value::String(s)) => s.clone(),
                // in-toto: {"sha256": "…"} (blake3 preferred when present)
                Some(Value::Object(map)) => ["blake3", "sha256"]
                    .iter()
                    .find_map(|alg| {
                        map.get(*alg)
                            .and_then(Value::as_str)
                            .map(|h| format!("{alg}:{h}"))
                    })
                    .unwrap_or_default(),
                _ => String::new(),
            };
            Declared {
                pointer: format!("/{list_name}/{i}"),
                path,
                digest,
            }
        })
        .collect()
}

fn same_path(a: &str, b: &str) -> bool {
    a.trim_start_matches("./") == b.trim_start_matches("./")
}

/// Check one declared digest against the file it names.
fn verify(d: &Declared) -> Result<(), String> {
    if d.path.is_empty() {
        return Err("the entry names no path".into());
    }
    let (alg, hex) = d.digest.split_once(':').ok_or_else(|| {
        format!(
            "digest {} is not `algorithm:hex`",
            vcc_plugin_common::quoted(&d.digest)
        )
    })?;
    let hex = hex.to_ascii_lowercase();
    let actual = match alg {
        "blake3" => vcc_sdk::stat(&d.path)
            .map(|info| info.digest.trim_start_matches("blake3:").to_string())
            .map_err(|e| format!("the file cannot be found: {e}"))?,
        "sha256" => {
            let bytes =
                vcc_sdk::read(&d.path).map_err(|e| format!("the file cannot be read: {e}"))?;
            hex_string(&Sha256::digest(&bytes))
        }
        other => {
            return Err(format!(
                "digest algorithm `{other}` is not supported (use blake3 or sha256)"
            ));
        }
    };
    if actual == hex {
        Ok(())
    } else {
        Err(format!(
            "the record declares {alg}:{hex} but the file is {alg}:{actual}"
        ))
    }
}

fn hex_string(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

vcc_sdk::export_validator!(Provenance);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vcc_policy_names_map_to_fields() {
        assert_eq!(field_name("tooling.recorded"), Some("tools"));
        assert_eq!(field_name("artifacts"), Some("artifacts"));
        assert_eq!(field_name("attestation.signed"), None);
    }

    #[test]
    fn in_toto_statements_are_read_as_records() {
        let text = r#"{"_type": "https://in-toto.io/Statement/v1",
            "subject": [{"name": "out/app.tar", "digest": {"sha256": "ab"}}],
            "predicateType": "https://slsa.dev/provenance/v1",
            "predicate": {"buildDefinition": {"externalParameters": {"ref": "main"}, "resolvedDependencies": [{"uri": "git+https://x"}]},
                          "runDetails": {"builder": {"id": "https://ci"}}}}"#;
        let doc = json::parse(text).unwrap();
        let normal = normalize(&doc.value);
        assert!(!is_empty(&normal["tools"]));
        let d = declared(&normal, &doc);
        assert_eq!(
            (
                d[0].path.as_str(),
                d[0].digest.as_str(),
                d[0].pointer.as_str()
            ),
            ("out/app.tar", "sha256:ab", "/subject/0")
        );
    }

    #[test]
    fn sha256_hex() {
        assert_eq!(
            hex_string(&Sha256::digest(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
