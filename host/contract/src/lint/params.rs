//! Params against a validator's parameter schema: compiled with the
//! linear-time regex engine (the schema comes from an untrusted component),
//! and errors said in the contract's words.

use serde_json::Value;

/// A compiled parameter schema, and the schema (for messages).
pub(super) type ParamsChecker = Result<(jsonschema::Validator, Value), String>;

/// Compile a validator's parameter schema.
///
/// The schema comes from an untrusted component, so patterns use the
/// linear-time `regex` engine: a hostile pattern cannot stall lint.
pub(super) fn compile_params_schema(schema: &Value) -> ParamsChecker {
    jsonschema::options()
        .with_pattern_options(jsonschema::PatternOptions::regex())
        .build(schema)
        .map(|v| (v, schema.clone()))
        .map_err(|err| format!("the validator's parameter schema is not valid: {err}"))
}

/// Validate params against a compiled schema: (JSON pointer, message).
pub(super) fn params_errors(checker: &ParamsChecker, params: &Value) -> Vec<(String, String)> {
    match checker {
        Ok((validator, schema)) => {
            let mut errors: Vec<(String, String)> = validator
                .iter_errors(params)
                .take(20)
                .map(|e| (e.instance_path().to_string(), params_message(&e, schema)))
                .collect();
            // An unknown parameter also fails every alternative of an
            // `anyOf`: say the first, which is the one to fix.
            if errors.len() > 1 {
                errors.sort_by_key(|(_, m)| !m.starts_with("unknown parameter"));
            }
            errors
        }
        Err(message) => vec![(String::new(), message.clone())],
    }
}

/// What a params error means, in the words of the contract: the parameter
/// names and values a user writes, did-you-mean for a misspelling, and
/// for `oneOf`/`anyOf` the forms that would be accepted — never a dump of
/// the schema or of the params.
pub(super) fn params_message(error: &jsonschema::ValidationError, schema: &Value) -> String {
    use jsonschema::error::ValidationErrorKind as Kind;
    let at = error.instance_path().to_string();
    match error.kind() {
        Kind::AdditionalProperties { unexpected } => {
            let allowed = allowed_properties(schema, error.schema_path().as_str(), &at);
            unexpected
                .iter()
                .map(|name| {
                    let guess = closest(name, &allowed)
                        .map(|g| format!("did you mean `{g}`? "))
                        .unwrap_or_default();
                    format!(
                        "unknown parameter `{name}`; {guess}allowed: {}",
                        names(&allowed)
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        }
        Kind::Required { property } => {
            format!("missing parameter `{}`", property.as_str().unwrap_or("?"))
        }
        Kind::Enum { options } => {
            let options: Vec<String> = options
                .as_array()
                .map(|o| o.iter().map(shown).collect())
                .unwrap_or_default();
            let got = shown(error.instance());
            let guess = closest(
                got.trim_matches('"'),
                &options
                    .iter()
                    .map(|o| o.trim_matches('"').to_string())
                    .collect::<Vec<_>>(),
            )
            .map(|g| format!("; did you mean `{g}`?"))
            .unwrap_or_default();
            format!("{got} is not one of {}{guess}", options.join(", "))
        }
        Kind::AnyOf { context } | Kind::OneOfNotValid { context } => {
            // A form of another type (a string where an object was written)
            // says nothing useful when a form of the right type is there.
            let wrong_type = |errors: &Vec<jsonschema::ValidationError>| {
                errors.iter().all(|e| {
                    matches!(e.kind(), Kind::Type { .. })
                        && e.instance_path() == error.instance_path()
                })
            };
            let relevant: Vec<_> = context.iter().filter(|c| !wrong_type(c)).collect();
            let context: Vec<_> = if relevant.is_empty() {
                context.iter().collect()
            } else {
                relevant
            };
            let forms: Vec<Vec<String>> = context
                .iter()
                .map(|errors| errors.iter().map(|e| params_message(e, schema)).collect())
                .collect();
            if let [only] = forms.as_slice() {
                return only.join("; ");
            }
            let needed: Option<Vec<String>> = forms
                .iter()
                .map(|f| match f.as_slice() {
                    [one] => one.strip_prefix("missing parameter ").map(String::from),
                    _ => None,
                })
                .collect();
            match needed {
                Some(needed) if !needed.is_empty() => {
                    format!("needs one of {}", needed.join(", "))
                }
                _ => format!(
                    "matches none of the {} accepted forms: {}",
                    forms.len(),
                    forms
                        .iter()
                        .enumerate()
                        .map(|(i, f)| format!(
                            "({}) {}",
                            i + 1,
                            f.first().map_or("", String::as_str)
                        ))
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            }
        }
        Kind::Type { kind } => {
            let expected = match kind {
                jsonschema::error::TypeKind::Single(t) => {
                    let t = t.to_string();
                    let article = if t.starts_with(['a', 'e', 'i', 'o', 'u']) {
                        "an"
                    } else {
                        "a"
                    };
                    format!("{article} {t}")
                }
                jsonschema::error::TypeKind::Multiple(set) => {
                    let list: Vec<String> = set.iter().map(|t| t.to_string()).collect();
                    format!("one of: {}", list.join(", "))
                }
            };
            format!(
                "{} is {}, where {expected} is expected",
                shown(error.instance()),
                kind_of(error.instance())
            )
        }
        Kind::OneOfMultipleValid { .. } => {
            "matches more than one of the accepted forms; remove what makes it ambiguous".into()
        }
        _ => {
            // jsonschema's own words, with the value shortened.
            let text = error.to_string();
            let value = error.instance().to_string();
            if value.len() > 60 {
                text.replace(&value, &shown(error.instance()))
            } else {
                text
            }
        }
    }
}

/// A JSON value as a user would read it, at most 60 characters.
pub(super) fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 60 {
        text
    } else {
        format!("{}…", text.chars().take(57).collect::<String>())
    }
}

pub(super) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The properties allowed where an `additionalProperties` error was
/// found: the subschema its schema path names, else the one the instance
/// path leads to.
pub(super) fn allowed_properties(schema: &Value, schema_path: &str, instance: &str) -> Vec<String> {
    let parent = schema_path
        .strip_suffix("/additionalProperties")
        .and_then(|p| schema.pointer(p));
    match parent
        .and_then(|p| p.get("properties"))
        .and_then(Value::as_object)
    {
        Some(props) => props.keys().cloned().collect(),
        None => properties_at(schema, instance),
    }
}

/// The properties a params schema allows at a JSON pointer into the
/// params (through `properties` and `items`).
pub(super) fn properties_at(schema: &Value, pointer: &str) -> Vec<String> {
    let mut node = schema;
    for token in pointer.split('/').skip(1) {
        node = match (
            node.get("properties").and_then(|p| p.get(token)),
            node.get("items"),
        ) {
            (Some(next), _) => next,
            (None, Some(items)) => items,
            _ => return Vec::new(),
        };
    }
    node.get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

pub(super) fn names(list: &[String]) -> String {
    if list.is_empty() {
        return "none".into();
    }
    list.iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The closest name to `got`, if it is a likely misspelling.
pub(super) fn closest<'a>(got: &str, names: &'a [String]) -> Option<&'a str> {
    crate::problem::closest(got, names.iter().map(String::as_str))
}
