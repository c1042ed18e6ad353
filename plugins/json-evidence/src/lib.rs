//! `std/json-evidence`: fields of a JSON result payload meet rules.
//!
//! Each rule names a path (JSON pointer `/a/0/b` or dotted `a[0].b`; `[*]`
//! means every element) and conditions: `expect` (`true`, `false`,
//! `"present"`, `"absent"` or a value to equal), `matches` (regex), `gte`,
//! `lte`, `gt`, `lt`, `one_of`. A rule's `message` is what a failure says.
//! Every target file is one payload; findings point at the field's line.

use vcc_plugin_common::{Rule, json, select};
use vcc_sdk::serde::Deserialize;
use vcc_sdk::serde_json::{self, Value, json as j};
use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator, relative};

struct JsonEvidence;

#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde", deny_unknown_fields)]
struct Params {
    rules: Vec<FieldRule>,
}

/// A rule on one path. The conditions are spelled out (not a flattened
/// `Rule`): serde's `flatten` would silently accept a misspelt condition.
#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde", deny_unknown_fields)]
struct FieldRule {
    path: String,
    message: Option<String>,
    expect: Option<Value>,
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
            expect: self.expect.clone(),
            matches: self.matches.clone(),
            gte: self.gte,
            lte: self.lte,
            gt: self.gt,
            lt: self.lt,
            one_of: self.one_of.clone(),
        }
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
            "fields of a JSON result payload meet rules (expect, regex, numeric bounds)",
        )
        .params_schema(j!({
            "type": "object",
            "additionalProperties": false,
            "required": ["rules"],
            "properties": {
                "rules": {
                    "type": "array", "minItems": 1,
                    "items": { "type": "object", "additionalProperties": false, "required": ["path"], "properties": rule }
                }
            }
        }))
    }

    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params: Params = criterion.params()?;
        let paths: Vec<&str> = criterion.paths().collect();
        if paths.is_empty() {
            return Ok(Outcome::skip("no payload files to check"));
        }
        let mut findings = Vec::new();
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
                    continue;
                }
            };
            for (index, r) in params.rules.iter().enumerate() {
                let failures =
                    check(&doc.value, r).map_err(|e| format!("params.rules[{index}]: {e}"))?;
                results
                    .push(j!({"file": relative(path), "rule": r.path, "ok": failures.is_empty()}));
                for (pointer, detail) in failures {
                    let what = r.message.clone().unwrap_or_else(|| format!("`{}`", r.path));
                    let mut f = Finding::new(format!("{what}: {pointer} {detail}"))
                        .path(path)
                        .rule(&format!("rules[{index}]"));
                    if let Some((line, column)) = doc.position(&pointer) {
                        f = f.line(line).column(column);
                    }
                    findings.push(f);
                }
            }
        }
        let evidence = serde_json::to_vec_pretty(&results).map_err(|e| e.to_string())?;
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
            .findings(findings)
        };
        Ok(outcome.evidence("rule-results.json", "application/json", evidence))
    }
}

/// (JSON pointer, what is wrong) for every value that breaks the rule.
fn check(root: &Value, r: &FieldRule) -> Result<Vec<(String, String)>, String> {
    let rule = r.rule();
    let found = select(root, &r.path)?;
    if found.is_empty() {
        let pointer = if r.path.starts_with('/') {
            r.path.clone()
        } else {
            format!("`{}`", r.path)
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
        .filter_map(|(pointer, value)| rule.check(Some(value)).err().map(|e| (pointer, e)))
        .collect())
}

vcc_sdk::export_validator!(JsonEvidence);

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(v: Value) -> FieldRule {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn rules_over_paths_and_wildcards() {
        let doc =
            j!({"score": 3.5, "checks": [{"status": "pass"}, {"status": "fail"}], "ok": true});
        assert!(
            check(&doc, &rule(j!({"path": "ok", "expect": true})))
                .unwrap()
                .is_empty()
        );
        let f = check(&doc, &rule(j!({"path": "score", "gte": 4}))).unwrap();
        assert_eq!(
            f,
            vec![("/score".to_string(), "is 3.5 but must be >= 4".to_string())]
        );
        let f = check(
            &doc,
            &rule(j!({"path": "checks[*].status", "expect": "pass"})),
        )
        .unwrap();
        assert_eq!(f[0].0, "/checks/1/status");
        let f = check(&doc, &rule(j!({"path": "missing", "expect": "present"}))).unwrap();
        assert_eq!(f[0].1, "is absent");
        assert!(
            check(&doc, &rule(j!({"path": "missing", "expect": "absent"})))
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn unknown_rule_fields_are_refused() {
        let bad: Result<FieldRule, _> = serde_json::from_value(j!({"path": "a", "expct": true}));
        assert!(bad.is_err());
    }
}
