//! Helpers shared by the standard validators (a library, not a component).
//!
//! - [`LineIndex`]: byte offset → 1-based line and column.
//! - [`json`]: parse JSON and keep the line of every value, so findings about
//!   `/items/3/name` can point at a line.
//! - [`select`]: find values by JSON pointer or dotted path, with `[*]`.
//! - [`Rule`]: what a value must be (`expect`, `matches`, `gte`, …).
//! - [`glob`]: the deliverable-path glob rules (`*` within a component).
//! - [`bounded`]: findings, summaries and evidence under the host's caps.
//! - [`text`]: invisible characters and NFKC, as a reader sees text.

pub mod bounded;
pub mod csv;
pub mod json;
#[cfg(feature = "markdown")]
pub mod markdown;
pub mod signed;
pub mod text;
#[cfg(feature = "xml")]
pub mod xml;

use std::fmt::Write as _;

pub use globset::GlobMatcher;
pub use regex::{Match, Regex};

use vcc_sdk::serde::Deserialize;
use vcc_sdk::serde_json::{self, Value, json};

/// Maps byte offsets of one text to 1-based (line, column).
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// 1-based line of a byte offset.
    pub fn line(&self, offset: usize) -> u32 {
        self.starts.partition_point(|&s| s <= offset) as u32
    }

    /// 1-based (line, column in bytes) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (u32, u32) {
        let line = self.line(offset);
        let start = self.starts[(line as usize).saturating_sub(1)];
        (line, (offset - start) as u32 + 1)
    }
}

/// The glob rules of deliverable paths: `*` and `?` stay within one path
/// component, `**` crosses components.
pub fn glob(pattern: &str) -> Result<globset::GlobMatcher, String> {
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| format!("glob `{pattern}`: {}", e.kind()))
}

/// A regex with bounded compile size (patterns come from contracts).
pub fn regex(pattern: &str, case_insensitive: bool) -> Result<regex::Regex, String> {
    regex::RegexBuilder::new(pattern)
        .case_insensitive(case_insensitive)
        .multi_line(true)
        .size_limit(1 << 20)
        .dfa_size_limit(4 << 20)
        .build()
        .map_err(|e| {
            // The regex crate draws the pattern with a caret over several
            // lines; the last line says what is wrong.
            let text = e.to_string();
            let why = text.lines().last().unwrap_or(&text);
            format!("regex `{pattern}`: {}", why.trim_start_matches("error: "))
        })
}

/// Values found at a path, with the JSON pointer of each.
///
/// A path is a JSON pointer (`/checks/0/status`) or a dotted path
/// (`checks[0].status`, `checks[*].status`, `meta.score`). `[*]` (or `*` as
/// a pointer token) selects every element of an array (or every member of
/// an object).
pub fn select<'a>(root: &'a Value, path: &str) -> Result<Vec<(String, &'a Value)>, String> {
    let tokens = path_tokens(path)?;
    let mut current: Vec<(String, &Value)> = vec![(String::new(), root)];
    for token in tokens {
        let mut next = Vec::new();
        for (pointer, value) in current {
            match (token.as_str(), value) {
                ("*", Value::Array(items)) => {
                    next.extend(
                        items
                            .iter()
                            .enumerate()
                            .map(|(i, v)| (format!("{pointer}/{i}"), v)),
                    );
                }
                ("*", Value::Object(map)) => {
                    next.extend(
                        map.iter()
                            .map(|(k, v)| (format!("{pointer}/{}", escape(k)), v)),
                    );
                }
                (t, Value::Array(items)) => {
                    if let Some(v) = t.parse::<usize>().ok().and_then(|i| items.get(i)) {
                        next.push((format!("{pointer}/{t}"), v));
                    }
                }
                (t, Value::Object(map)) => {
                    if let Some(v) = map.get(t) {
                        next.push((format!("{pointer}/{}", escape(t)), v));
                    }
                }
                _ => {}
            }
        }
        current = next;
    }
    Ok(current)
}

/// Like [`select`], but every branch a wildcard opened is kept: a branch
/// that dies (a missing key, an index past the end, a scalar where the path
/// goes on) is `(pointer it would have had, None)`, so `checks[*].status`
/// over an element without `status` says which element lacks it instead of
/// silently judging only the others. A path with no wildcard yields one
/// entry. A wildcard over an empty array or object yields no branch at all:
/// the caller decides what an empty selection means.
pub fn select_each<'a>(
    root: &'a Value,
    path: &str,
) -> Result<Vec<(String, Option<&'a Value>)>, String> {
    let tokens = path_tokens(path)?;
    let mut current: Vec<(String, Option<&Value>)> = vec![(String::new(), Some(root))];
    for token in tokens {
        let mut next = Vec::new();
        for (pointer, value) in current {
            match (token.as_str(), value) {
                ("*", Some(Value::Array(items))) => next.extend(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, v)| (format!("{pointer}/{i}"), Some(v))),
                ),
                ("*", Some(Value::Object(map))) => next.extend(
                    map.iter()
                        .map(|(k, v)| (format!("{pointer}/{}", escape(k)), Some(v))),
                ),
                (t, Some(Value::Array(items))) => {
                    let v = t.parse::<usize>().ok().and_then(|i| items.get(i));
                    next.push((format!("{pointer}/{}", escape(t)), v));
                }
                (t, Some(Value::Object(map))) => {
                    next.push((format!("{pointer}/{}", escape(t)), map.get(t)));
                }
                // A dead branch stays dead: its pointer grows with the path.
                (t, _) => next.push((format!("{pointer}/{}", escape(t)), None)),
            }
        }
        current = next;
    }
    Ok(current)
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn path_tokens(path: &str) -> Result<Vec<String>, String> {
    if path.is_empty() || path == "/" {
        return Ok(Vec::new());
    }
    if let Some(rest) = path.strip_prefix('/') {
        return Ok(rest
            .split('/')
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .collect());
    }
    let mut tokens = Vec::new();
    for part in path.split('.') {
        let (name, mut indexes) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !name.is_empty() {
            tokens.push(name.to_string());
        }
        while let Some(rest) = indexes.strip_prefix('[') {
            let end = rest
                .find(']')
                .ok_or_else(|| format!("path `{path}`: unclosed `[`"))?;
            tokens.push(rest[..end].to_string());
            indexes = &rest[end + 1..];
        }
        if !indexes.is_empty() {
            return Err(format!("path `{path}`: unexpected `{indexes}`"));
        }
        if name.is_empty() && !part.starts_with('[') {
            return Err(format!("path `{path}`: empty segment"));
        }
    }
    Ok(tokens)
}

/// What a value must be. Every condition given must hold.
///
/// `expect` is a closed set of words (a misspelt one is refused by the
/// parameter schema, never taken as a value to equal); literals go in
/// `equals`. `null` counts as absent: a field that is there but says
/// nothing is not `present`.
#[derive(Deserialize, Default, Debug, Clone)]
#[serde(crate = "vcc_sdk::serde", deny_unknown_fields)]
pub struct Rule {
    pub expect: Option<Expect>,
    /// The value must equal this (any JSON value).
    pub equals: Option<Value>,
    /// A regex the (string) value must match.
    pub matches: Option<String>,
    pub gte: Option<f64>,
    pub lte: Option<f64>,
    pub gt: Option<f64>,
    pub lt: Option<f64>,
    /// The value must equal one of these.
    pub one_of: Option<Vec<Value>>,
}

/// The words `expect` takes.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(crate = "vcc_sdk::serde", untagged)]
pub enum Expect {
    /// `true` or `false`: the value is that boolean.
    Bool(bool),
    Word(Word),
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(crate = "vcc_sdk::serde", rename_all = "snake_case")]
pub enum Word {
    /// There, and not `null`.
    Present,
    /// Not there, or `null`.
    Absent,
    /// Present, and not `""`, `[]` or `{}`.
    NonEmpty,
}

/// A [`Rule`] with its regex compiled: built once (by `check_params` first,
/// so a bad pattern is a lint error), then checked against many values.
#[derive(Debug, Clone)]
pub struct CompiledRule {
    rule: Rule,
    matches: Option<regex::Regex>,
}

impl Rule {
    /// The JSON Schema of a rule's conditions, for `describe()`.
    pub fn schema_properties() -> Value {
        json!({
            "expect": {
                "enum": ["present", "absent", "non_empty", true, false],
                "description": "present (there and not null), absent (missing or null), non_empty (present and not \"\", [] or {}), true or false"
            },
            "equals": { "description": "a value the field must equal (any JSON value)" },
            "matches": { "type": "string", "description": "regex the string value must match" },
            "gte": { "type": "number" }, "lte": { "type": "number" },
            "gt": { "type": "number" }, "lt": { "type": "number" },
            "one_of": { "type": "array", "description": "allowed values" }
        })
    }

    /// The rule ready to check values, or why its params are wrong.
    pub fn compile(&self) -> Result<CompiledRule, String> {
        let matches = self
            .matches
            .as_deref()
            .map(|p| regex(p, false))
            .transpose()?;
        Ok(CompiledRule {
            rule: self.clone(),
            matches,
        })
    }

    /// A rule that the value equals `value`.
    pub fn equal_to(value: Value) -> Rule {
        Rule {
            equals: Some(value),
            ..Rule::default()
        }
    }
}

impl CompiledRule {
    /// The rule in words: `matches \`git push\``, `equals "x"`, `>= 3`.
    pub fn describe(&self) -> String {
        let r = &self.rule;
        let mut parts = Vec::new();
        match r.expect {
            Some(Expect::Word(Word::Present)) => parts.push("is present".to_string()),
            Some(Expect::Word(Word::Absent)) => parts.push("is absent".to_string()),
            Some(Expect::Word(Word::NonEmpty)) => parts.push("is not empty".to_string()),
            Some(Expect::Bool(b)) => parts.push(format!("is {b}")),
            None => {}
        }
        if let Some(v) = &r.equals {
            parts.push(format!("equals {}", short(v)));
        }
        if let Some(m) = &r.matches {
            parts.push(format!("matches {}", quoted(m)));
        }
        for (op, bound) in [(">=", r.gte), ("<=", r.lte), (">", r.gt), ("<", r.lt)] {
            if let Some(b) = bound {
                parts.push(format!("{op} {b}"));
            }
        }
        if let Some(values) = &r.one_of {
            parts.push(format!("is one of {}", short(&Value::from(values.clone()))));
        }
        parts.join(" and ")
    }

    /// `Ok(())` if `value` (absent: `None`) satisfies the rule; otherwise
    /// what is wrong, in words.
    pub fn check(&self, value: Option<&Value>) -> Result<(), String> {
        let rule = &self.rule;
        // `null` says nothing: for presence it is the same as missing.
        let value = value.filter(|v| !v.is_null());
        if rule.expect == Some(Expect::Word(Word::Absent)) {
            return match value {
                None => Ok(()),
                Some(v) => Err(format!("is present ({}) but must be absent", short(v))),
            };
        }
        let Some(value) = value else {
            return Err("is absent (missing or null)".into());
        };
        let mut problems = Vec::new();
        match rule.expect {
            Some(Expect::Word(Word::NonEmpty)) if is_empty(value) => {
                problems.push(format!("is {} but must not be empty", short(value)));
            }
            Some(Expect::Bool(b)) if value != &Value::Bool(b) => {
                problems.push(format!("is {} but must be {b}", short(value)));
            }
            _ => {}
        }
        if let Some(expected) = &rule.equals
            && expected != value
        {
            problems.push(format!(
                "is {} but must equal {}",
                short(value),
                short(expected)
            ));
        }
        if let Some(re) = &self.matches {
            match value.as_str() {
                None => problems.push(format!(
                    "is {} but must be a string matching `{}`",
                    short(value),
                    re.as_str()
                )),
                Some(text) if !re.is_match(text) => problems.push(format!(
                    "is {} which does not match `{}`",
                    short(value),
                    re.as_str()
                )),
                Some(_) => {}
            }
        }
        let bounds = [
            (rule.gte, ">="),
            (rule.lte, "<="),
            (rule.gt, ">"),
            (rule.lt, "<"),
        ];
        if bounds.iter().any(|(b, _)| b.is_some()) {
            match value.as_f64() {
                None => problems.push(format!("is {} but must be a number", short(value))),
                Some(n) => {
                    for (bound, op) in bounds {
                        let Some(b) = bound else { continue };
                        let ok = match op {
                            ">=" => n >= b,
                            "<=" => n <= b,
                            ">" => n > b,
                            _ => n < b,
                        };
                        if !ok {
                            problems.push(format!("is {n} but must be {op} {b}"));
                        }
                    }
                }
            }
        }
        if let Some(allowed) = &rule.one_of
            && !allowed.contains(value)
        {
            let list: Vec<String> = allowed.iter().map(short).collect();
            problems.push(format!(
                "is {} but must be one of {}",
                short(value),
                list.join(", ")
            ));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("; "))
        }
    }
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::String(s) => s.trim().is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

/// The outcome when there was nothing to judge (no file, no claim, no
/// call): recognised-nothing never passes unless the contract said that
/// empty is fine (`allow_empty: true`).
pub fn nothing(allow_empty: bool, what: &str) -> vcc_sdk::Outcome {
    if allow_empty {
        vcc_sdk::Outcome::pass(format!("{what} (allowed: allow_empty)"))
    } else {
        vcc_sdk::Outcome::skip(format!(
            "{what}; nothing was judged (set `allow_empty: true` if that is fine)"
        ))
    }
}

/// The parameter schema of `allow_empty`.
pub fn allow_empty_schema(what: &str) -> Value {
    json!({
        "type": "boolean", "default": false,
        "description": format!("pass when there is {what} (default: skip, so a MUST withholds)")
    })
}

/// `check_params` for one parsed params type: a params document that does
/// not deserialize is one finding (the schema should have caught it).
pub fn parse_params<T: vcc_sdk::serde::de::DeserializeOwned>(
    params: &str,
) -> Result<T, Vec<vcc_sdk::Finding>> {
    serde_json::from_str(params).map_err(|e| vec![vcc_sdk::Finding::new(e.to_string())])
}

/// A value in a message: JSON, cut to 80 characters.
pub fn short(value: &Value) -> String {
    let text = serde_json::to_string(value).unwrap_or_default();
    clip(&text, 80)
}

/// `text` in double quotes, escaped as JSON escapes it (`\n`, `\u001b`),
/// the one way validators show text they found.
pub fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| format!("\"{text}\""))
}

/// `text` cut to `max` characters, with `…` when cut.
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max).collect();
    let _ = write!(out, "…");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns() {
        let idx = LineIndex::new("ab\ncd\n\nef");
        assert_eq!(idx.line_col(0), (1, 1));
        assert_eq!(idx.line_col(4), (2, 2));
        assert_eq!(idx.line_col(7), (4, 1));
    }

    #[test]
    fn select_each_keeps_the_elements_that_lack_the_path() {
        let v = json!({"checks": [{"status": "pass"}, {"name": "x"}, 3], "empty": []});
        let got: Vec<(String, bool)> = select_each(&v, "checks[*].status")
            .unwrap()
            .into_iter()
            .map(|(p, v)| (p, v.is_some()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("/checks/0/status".to_string(), true),
                ("/checks/1/status".to_string(), false),
                ("/checks/2/status".to_string(), false)
            ]
        );
        let missing = select_each(&v, "nope[*].status").unwrap();
        assert_eq!(missing.len(), 1);
        assert_eq!(missing[0].0, "/nope/*/status");
        assert!(missing[0].1.is_none());
        assert!(select_each(&v, "empty[*].status").unwrap().is_empty());
        assert_eq!(
            select_each(&v, "/checks/0/status").unwrap()[0].1,
            Some(&json!("pass"))
        );
    }

    #[test]
    fn select_by_pointer_and_dotted_paths() {
        let v = json!({"checks": [{"status": "pass"}, {"status": "fail"}], "a/b": {"c": 1}});
        let got: Vec<String> = select(&v, "checks[*].status")
            .unwrap()
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        assert_eq!(got, vec!["/checks/0/status", "/checks/1/status"]);
        assert_eq!(select(&v, "/checks/1/status").unwrap()[0].1, &json!("fail"));
        assert_eq!(select(&v, "/a~1b/c").unwrap()[0].0, "/a~1b/c");
        assert!(select(&v, "missing.x").unwrap().is_empty());
        assert!(select(&v, "checks[0").is_err());
    }

    #[test]
    fn rules_check_values() {
        let rule = |v: Value| -> CompiledRule {
            vcc_sdk::serde_json::from_value::<Rule>(v)
                .unwrap()
                .compile()
                .unwrap()
        };
        assert!(
            rule(json!({"expect": true}))
                .check(Some(&json!(true)))
                .is_ok()
        );
        assert!(
            rule(json!({"expect": true}))
                .check(Some(&json!(false)))
                .is_err()
        );
        assert!(rule(json!({"expect": "absent"})).check(None).is_ok());
        assert!(
            rule(json!({"expect": "absent"}))
                .check(Some(&Value::Null))
                .is_ok()
        );
        assert!(rule(json!({"expect": "present"})).check(None).is_err());
        assert!(
            rule(json!({"expect": "present"}))
                .check(Some(&Value::Null))
                .is_err(),
            "null is not present"
        );
        assert!(
            rule(json!({"expect": "non_empty"}))
                .check(Some(&json!("  ")))
                .is_err()
        );
        assert!(
            rule(json!({"expect": "non_empty"}))
                .check(Some(&json!([1])))
                .is_ok()
        );
        assert!(
            rule(json!({"equals": "pass"}))
                .check(Some(&json!("fail")))
                .is_err()
        );
        assert!(rule(json!({"gte": 4})).check(Some(&json!(4.5))).is_ok());
        let err = rule(json!({"gte": 4, "lt": 5}))
            .check(Some(&json!(3)))
            .unwrap_err();
        assert_eq!(err, "is 3 but must be >= 4");
        assert!(
            rule(json!({"matches": "^v\\d+$"}))
                .check(Some(&json!("v12")))
                .is_ok()
        );
        assert!(
            rule(json!({"one_of": ["a", "b"]}))
                .check(Some(&json!("c")))
                .is_err()
        );
        assert!(
            rule(json!({"gte": 1}))
                .check(Some(&json!("x")))
                .unwrap_err()
                .contains("number")
        );
    }

    #[test]
    fn operators_are_a_closed_set() {
        let parse = |v: Value| vcc_sdk::serde_json::from_value::<Rule>(v);
        assert!(parse(json!({"expect": "missing"})).is_err());
        assert!(parse(json!({"expect": "pass"})).is_err());
        assert!(parse(json!({"expct": "present"})).is_err());
        let bad = parse(json!({"matches": "^https://("})).unwrap();
        assert!(bad.compile().is_err(), "a bad regex is a params error");
    }
}
