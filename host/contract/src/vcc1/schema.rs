//! The VCC v1 JSON Schema, enforced.
//!
//! `vcc-v1.schema.json` is the specification's own schema, copied unedited
//! from Platano78/vcc-spec (MIT licence, commit c1d6a68,
//! `supplement/sdlaf-outputspec-bundle/schemas/vcc-v1.schema.json`). The
//! one change is made here, in code: `vccVersion` accepts both spellings
//! the specification has used (`sdlaf.vcc/v1`, `agentforge.vcc/v1`).
//! Every violation is reported, each at the field it is about, so the
//! parser can give its line.

use std::sync::OnceLock;

use serde_json::{Value, json};

use super::VERSIONS;
use crate::problem::{Code, FieldPath, Seg};

const SCHEMA: &str = include_str!("vcc-v1.schema.json");

/// At most this many violations are reported: the first ones are the fix.
const MAX_VIOLATIONS: usize = 50;

fn validator() -> Result<&'static jsonschema::Validator, String> {
    static COMPILED: OnceLock<Result<jsonschema::Validator, String>> = OnceLock::new();
    COMPILED
        .get_or_init(|| {
            let mut schema: Value = serde_json::from_str(SCHEMA)
                .map_err(|e| format!("the embedded VCC v1 schema is not JSON: {e}"))?;
            schema["properties"]["vccVersion"] = json!({ "enum": VERSIONS });
            jsonschema::options()
                .with_pattern_options(jsonschema::PatternOptions::regex())
                .build(&schema)
                .map_err(|e| format!("the embedded VCC v1 schema does not compile: {e}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Every place `doc` breaks the VCC v1 schema: (code, field, message).
pub fn violations(doc: &Value) -> Vec<(Code, FieldPath, String)> {
    let validator = match validator() {
        Ok(v) => v,
        // A host bug, never a pass: the contract cannot be read.
        Err(why) => return vec![(Code::SchemaViolation, FieldPath::root(), why)],
    };
    let mut out: Vec<(Code, FieldPath, String)> = validator
        .iter_errors(doc)
        .take(MAX_VIOLATIONS)
        .map(|e| {
            use jsonschema::error::ValidationErrorKind as Kind;
            let field = pointer_to_field(&e.instance_path().to_string());
            let (code, field) = match e.kind() {
                Kind::Required { property } => (
                    Code::MissingField,
                    field.key(property.as_str().unwrap_or("?")),
                ),
                _ => (Code::SchemaViolation, field),
            };
            let message = match e.kind() {
                Kind::Required { property } => format!(
                    "missing field `{}`, which the VCC v1 schema requires",
                    property.as_str().unwrap_or("?")
                ),
                _ => format!(
                    "{} breaks the VCC v1 schema: {}",
                    shown_field(&field),
                    e.to_string().replace('\n', " ")
                ),
            };
            (code, field, message)
        })
        .collect();
    out.sort_by_key(|a| a.1.render());
    out.dedup_by(|a, b| a.1 == b.1 && a.2 == b.2);
    out
}

fn shown_field(field: &FieldPath) -> String {
    if field.0.is_empty() {
        "the document".into()
    } else {
        format!("`{}`", field.render())
    }
}

/// `/acceptance/2/type` → `acceptance[2].type`.
fn pointer_to_field(pointer: &str) -> FieldPath {
    let segs = pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .map(|s| match s.parse::<usize>() {
            Ok(n) => Seg::Index(n),
            Err(_) => Seg::Key(s),
        })
        .collect();
    FieldPath(segs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_schema_compiles_and_names_fields() {
        let v = violations(&json!({"vccVersion": "agentforge.vcc/v1", "id": "short"}));
        let fields: Vec<String> = v.iter().map(|(_, f, _)| f.render()).collect();
        assert!(fields.contains(&"title".to_string()), "{fields:?}");
        assert!(fields.contains(&"id".to_string()), "{fields:?}");
        assert!(!fields.contains(&"vccVersion".to_string()), "{fields:?}");
        assert_eq!(
            pointer_to_field("/acceptance/2/type").render(),
            "acceptance[2].type"
        );
    }
}
