//! `vcc lint --adapters FILE`: an adapters file checked on its own, every
//! problem with its line, before any contract uses it. The file maps each
//! adapter a VCC v1 criterion names (`rule.adapter`) to a validator
//! binding, like `x-vcc-adapters` in the contract, and may name AI judges
//! under `x-vcc-judges`, like the contract's own.

use std::path::Path;

use serde_json::Value;

use crate::problem::{Code, FieldPath, Level, Problem};
use crate::spans::Spans;
use crate::vcc1::{Explicit, JUDGES_KEY};

/// Every problem of the adapters file at `path` (none: it is usable).
pub fn lint_adapters(path: &Path) -> Vec<Problem> {
    let file = path.display().to_string();
    let whole = |message: String, at: Option<(usize, usize)>| Problem {
        code: Code::InvalidValue,
        level: Level::Error,
        message,
        file: file.clone(),
        field: None,
        line: at.map(|a| a.0),
        column: at.map(|a| a.1),
        help: None,
    };
    let text = match std::fs::metadata(path).and_then(|m| {
        // A device or a FIFO has no length to bound the read by.
        if !m.is_file() {
            Err(std::io::Error::other("not a regular file"))
        } else if m.len() > crate::MAX_CONTRACT_BYTES {
            Err(std::io::Error::other("larger than a contract may be"))
        } else {
            // Bounded: the file may grow after it was looked at.
            let mut text = String::new();
            std::io::Read::read_to_string(
                &mut std::io::Read::take(std::fs::File::open(path)?, crate::MAX_CONTRACT_BYTES),
                &mut text,
            )
            .map(|_| text)
        }
    }) {
        Ok(text) => text,
        Err(e) => return vec![whole(format!("cannot be read: {e}"), None)],
    };
    let value = match crate::parse::parse_yaml_value(&text) {
        Ok(v) => v,
        Err((_, message, at)) => return vec![whole(message, at)],
    };
    let Value::Object(map) = value else {
        return vec![whole(
            "expected a map of adapter name → binding, e.g. `software.tests.run: { component: std/exit-record, record: evidence/tests.vcc.json }`".into(),
            Some((1, 1)),
        )];
    };
    let spans = Spans::index(&text);
    let mut problems = Vec::new();
    let mut at = |field: FieldPath, message: String, help: &str| {
        let place = spans.find(&field);
        problems.push(Problem {
            code: Code::InvalidValue,
            level: Level::Error,
            message,
            file: file.clone(),
            field: Some(field.render()),
            line: place.map(|p| p.0),
            column: place.map(|p| p.1),
            help: (!help.is_empty()).then(|| help.to_string()),
        });
    };
    for (name, binding) in &map {
        let field = FieldPath::root().key(name);
        if name == JUDGES_KEY {
            let Value::Object(judges) = binding else {
                at(
                    field,
                    format!(
                        "`{JUDGES_KEY}` is a map of judge name → {{ provider, model, params }}"
                    ),
                    "",
                );
                continue;
            };
            for (judge, spec) in judges {
                if let Err(e) = serde_json::from_value::<crate::model::Judge>(spec.clone()) {
                    at(
                        field.key(judge),
                        format!("judge `{judge}` is not valid: {e}"),
                        "e.g. `reviewer: { provider: openai-compatible, model: qwen2.5-7b-instruct, params: { temperature: 0 } }`",
                    );
                }
            }
            continue;
        }
        let example = "e.g. `{ component: std/exit-record, record: evidence/tests.vcc.json, params: { command_matches: pytest } }`";
        match serde_json::from_value::<Explicit>(binding.clone()) {
            Err(e) => {
                // An unknown field is pointed at where it is written.
                let message = e.to_string();
                let unknown = message
                    .strip_prefix("unknown field `")
                    .and_then(|rest| rest.split_once('`'))
                    .map(|(key, _)| field.key(key))
                    .filter(|f| spans.find(f).is_some());
                at(
                    unknown.unwrap_or(field),
                    format!("the binding of adapter `{name}` is not valid: {message}"),
                    example,
                )
            }
            Ok(x) if x.component.is_some() == x.bundle.is_some() => at(
                field,
                format!(
                    "the binding of adapter `{name}` names either `component` (std/NAME or a .wasm path) or `bundle` (with `validator` and `version`), exactly one"
                ),
                example,
            ),
            Ok(x) if x.params.as_ref().is_some_and(|p| !p.is_object()) => at(
                field.key("params"),
                format!("the params of adapter `{name}` are a map of the validator's params"),
                example,
            ),
            Ok(_) => {}
        }
    }
    problems
}
