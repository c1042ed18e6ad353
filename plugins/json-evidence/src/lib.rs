//! `std/json-evidence`: fields of a JSON result payload meet rules.
//!
//! Each rule names a path (JSON pointer `/a/0/b` or dotted `a[0].b`; `[*]`
//! means every element) and conditions: `expect` (`present`, `absent`,
//! `non_empty`, `true`, `false`), `equals` (any value), `matches` (regex),
//! `gte`, `lte`, `gt`, `lt`, `one_of`. `null` counts as absent. A rule's
//! `message` is what a failure says. Every target file is one payload;
//! findings point at the field's line. Paths and regexes are checked by
//! `check_params`, so a contract bug is a lint error, never a `fail`.

use vcc_plugin_common::bounded::{self, Findings};
use vcc_plugin_common::{
    CompiledRule, Expect, Rule, allow_empty_schema, json, nothing, select, select_each,
};
use vcc_sdk::serde::Deserialize;
use vcc_sdk::serde_json::{Value, json as j};
use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator, invalid_params, relative};

struct JsonEvidence;

#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde", deny_unknown_fields)]
struct Params {
    rules: Vec<FieldRule>,
    #[serde(default)]
    allow_empty: bool,
}

/// A rule on one path. The conditions are spelled out (not a flattened
/// `Rule`): serde's `flatten` would silently accept a misspelt condition.
#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde", deny_unknown_fields)]
struct FieldRule {
    path: String,
    message: Option<String>,
    expect: Option<Expect>,
    equals: Option<Value>,
    matches: Option<String>,
    gte: Option<f64>,
    lte: Option<f64>,
    gt: Option<f64>,
    lt: Option<f64>,
    one_of: Option<Vec<Value>>,
}

impl FieldRule {
    fn rule(&self) -> Rule {
        Rule {
            expect: self.expect,
            equals: self.equals.clone(),
            matches: self.matches.clone(),
            gte: self.gte,
            lte: self.lte,
            gt: self.gt,
            lt: self.lt,
            one_of: self.one_of.clone(),
        }
    }
}

/// Every rule, compiled; or each rule's params problem with its pointer.
fn compile(params: &Params) -> Result<Vec<CompiledRule>, Vec<Finding>> {
    let mut compiled = Vec::new();
    let mut problems = Vec::new();
    for (i, r) in params.rules.iter().enumerate() {
        if let Err(e) = select(&Value::Null, &r.path) {
            problems.push(Finding::new(e).param(&format!("/rules/{i}/path")));
        }
        match r.rule().compile() {
            Ok(rule) => compiled.push(rule),
            Err(e) => problems.push(Finding::new(e).param(&format!("/rules/{i}/matches"))),
        }
    }
    if problems.is_empty() {
        Ok(compiled)
    } else {
        Err(problems)
    }
}

impl Validator for JsonEvidence {
    fn describe() -> Description {
        let mut rule = Rule::schema_properties();
        rule["path"] = j!({ "type": "string", "minLength": 1, "description": "JSON pointer (/a/0) or dotted path (a[0].b, a[*].b)" });
        rule["message"] =
            j!({ "type": "string", "description": "what a failure of this rule says" });
        Description::new(
            "std/json-evidence",
            env!("CARGO_PKG_VERSION"),
            "fields of a JSON result payload meet rules (expect, equals, regex, numeric bounds)",
        )
        .params_schema(j!({
            "type": "object",
            "additionalProperties": false,
            "required": ["rules"],
            "properties": {
                "rules": {
                    "type": "array", "minItems": 1,
                    "items": { "type": "object", "additionalProperties": false, "required": ["path"], "properties": rule }
                },
                "allow_empty": allow_empty_schema("no payload file")
            }
        }))
    }

    fn check_params(params: &str) -> Result<(), Vec<Finding>> {
        let params: Params = vcc_plugin_common::parse_params(params)?;
        compile(&params).map(|_| ())
    }

    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params: Params = criterion.params()?;
        let rules = compile(&params).map_err(|problems| {
            invalid_params(
                problems
                    .iter()
                    .map(|f| f.message.clone())
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        })?;
        let paths: Vec<&str> = criterion.paths().collect();
        if paths.is_empty() {
            return Ok(nothing(params.allow_empty, "no payload file"));
        }
        let mut findings = Findings::default();
        let mut results = Vec::new();
        for path in &paths {
            let text = vcc_sdk::read_to_string(path)?;
            let doc = match json::parse(&text) {
                Ok(doc) => doc,
                Err(e) => {
                    findings.push(
                        Finding::new(format!("not JSON: {}", e.message))
                            .path(path)
                            .line(e.line)
                            .column(e.column)
                            .rule("parse"),
                    );
                    results.push(j!({"file": relative(path), "parsed": false}));
                    continue;
                }
            };
            for (index, (r, rule)) in params.rules.iter().zip(&rules).enumerate() {
                let failures = check(&doc.value, &r.path, rule)
                    .map_err(|e| invalid_params(format!("rules[{index}]: {e}")))?;
                results
                    .push(j!({"file": relative(path), "rule": r.path, "ok": failures.is_empty()}));
                for (pointer, detail) in failures {
                    let what = r.message.clone().unwrap_or_else(|| format!("`{}`", r.path));
                    let mut f = Finding::new(format!("{what}: {pointer} {detail}"))
                        .path(path)
                        .rule(&format!("rules[{index}]"));
                    if let Some((line, column)) = position(&doc, &pointer) {
                        f = f.line(line).column(column);
                    }
                    findings.push(f);
                }
            }
        }
        let evidence = bounded::evidence(j!({}), &results);
        let outcome = if findings.is_empty() {
            Outcome::pass(format!(
                "{} rule(s) hold in {} file(s)",
                params.rules.len(),
                paths.len()
            ))
        } else {
            Outcome::fail(format!(
                "{} rule failure(s) in {} file(s)",
                findings.len(),
                paths.len()
            ))
            .findings(findings.into_vec())
        };
        Ok(outcome.evidence("rule-results.json", "application/json", evidence))
    }
}

/// (JSON pointer, what is wrong) for every value that breaks the rule.
///
/// Every element a wildcard reaches is judged, including the ones that lack
/// the rest of the path: `checks[*].status equals pass` over a check with
/// no `status` is that check's failure (absent, like `null`), never a pass
/// on the others alone. A path that selects nothing at all (an empty array
/// under the wildcard) is judged as one absent value.
fn check(root: &Value, path: &str, rule: &CompiledRule) -> Result<Vec<(String, String)>, String> {
    let mut found = select_each(root, path)?;
    // Without a wildcard, a missing value is the path's own absence, said
    // as the rule wrote it (`model` is absent).
    if !path.contains('*') {
        found.retain(|(_, v)| v.is_some());
    }
    if found.is_empty() {
        let pointer = if path.starts_with('/') {
            path.to_string()
        } else {
            format!("`{path}`")
        };
        return Ok(rule
            .check(None)
            .err()
            .map(|e| (pointer, e))
            .into_iter()
            .collect());
    }
    Ok(found
        .into_iter()
        .filter_map(|(pointer, value)| rule.check(value).err().map(|e| (pointer, e)))
        .collect())
}

/// The line and column of `pointer`, or of its nearest ancestor that is in
/// the document (a missing field is shown where its parent is).
fn position(doc: &json::Located, pointer: &str) -> Option<(u32, u32)> {
    let mut at = pointer;
    loop {
        if let Some(found) = doc.position(at) {
            return Some(found);
        }
        at = at.rsplit_once('/')?.0;
    }
}

vcc_sdk::export_validator!(JsonEvidence);

#[cfg(test)]
mod tests {
    use super::*;
    use vcc_sdk::serde_json;

    fn rule(v: Value) -> (String, CompiledRule) {
        let r: FieldRule = serde_json::from_value(v).unwrap();
        (r.path.clone(), r.rule().compile().unwrap())
    }

    fn run(doc: &Value, v: Value) -> Vec<(String, String)> {
        let (path, r) = rule(v);
        check(doc, &path, &r).unwrap()
    }

    #[test]
    fn rules_over_paths_and_wildcards() {
        let doc = j!({"score": 3.5, "checks": [{"status": "pass"}, {"status": "fail"}], "ok": true, "note": null});
        assert!(run(&doc, j!({"path": "ok", "expect": true})).is_empty());
        let f = run(&doc, j!({"path": "score", "gte": 4}));
        assert_eq!(
            f,
            vec![("/score".to_string(), "is 3.5 but must be >= 4".to_string())]
        );
        let f = run(&doc, j!({"path": "checks[*].status", "equals": "pass"}));
        assert_eq!(f[0].0, "/checks/1/status");
        let f = run(&doc, j!({"path": "missing", "expect": "present"}));
        assert!(f[0].1.starts_with("is absent"), "{f:?}");
        assert!(run(&doc, j!({"path": "missing", "expect": "absent"})).is_empty());
        // null says nothing: not present, and absent.
        assert_eq!(
            run(&doc, j!({"path": "note", "expect": "present"})).len(),
            1
        );
        assert!(run(&doc, j!({"path": "note", "expect": "absent"})).is_empty());
    }

    #[test]
    fn a_wildcard_over_elements_without_the_path_fails_on_each() {
        let doc = j!({"checks": [{"status": "pass"}, {"name": "lint"}, {"status": null}, 7]});
        let f = run(&doc, j!({"path": "checks[*].status", "equals": "pass"}));
        let pointers: Vec<&str> = f.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            pointers,
            ["/checks/1/status", "/checks/2/status", "/checks/3/status"]
        );
        assert!(f[0].1.starts_with("is absent"), "{f:?}");
        // Absent is what `expect: absent` asks for, element by element.
        let f = run(&doc, j!({"path": "checks[*].status", "expect": "absent"}));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].0, "/checks/0/status");
        // The same through a pointer wildcard.
        let f = run(&doc, j!({"path": "/checks/*/status", "expect": "present"}));
        assert_eq!(f.len(), 3);
        // An empty list under the wildcard is one absent value.
        let f = run(
            &j!({"checks": []}),
            j!({"path": "checks[*].status", "equals": "pass"}),
        );
        assert_eq!(f.len(), 1);
    }

    #[test]
    fn unknown_fields_and_operators_are_refused() {
        assert!(serde_json::from_value::<FieldRule>(j!({"path": "a", "expct": true})).is_err());
        assert!(
            serde_json::from_value::<FieldRule>(j!({"path": "a", "expect": "missing"})).is_err()
        );
    }

    #[test]
    fn params_problems_name_the_field() {
        let params = r#"{"rules": [{"path": "a", "equals": 1}, {"path": "b", "matches": "^https://("}, {"path": "c[0", "expect": "present"}]}"#;
        let problems = JsonEvidence::check_params(params).unwrap_err();
        let pointers: Vec<&str> = problems.iter().filter_map(|f| f.path.as_deref()).collect();
        assert_eq!(pointers, vec!["/rules/1/matches", "/rules/2/path"]);
        assert!(
            JsonEvidence::check_params(r#"{"rules": [{"path": "a", "expect": "present"}]}"#)
                .is_ok()
        );
    }
}
