//! Which rule a result is an instance of (SARIF 2.1.0 §3.27.5–3.27.7,
//! §3.52): CodeQL and other multi-component tools put rules in
//! `run.tool.extensions` and point at them with `rule.toolComponent`
//! ({index | guid | name}) and `rule.index`/`ruleIndex`/`rule.id`. A result
//! whose rule cannot be found there is `Unresolved`: the validator counts
//! it at the strictest level (issue 34), never at the `warning` default,
//! because the worker writes the log and could point a result anywhere.

use vcc_sdk::serde_json::Value;

/// What a result's rule reference leads to.
#[derive(Debug)]
pub enum Rule<'a> {
    /// The reporting descriptor.
    Found(&'a Value),
    /// The result names no rule at all (no `ruleId`, `ruleIndex`, `rule`).
    Unnamed,
    /// It names one that is not there (or names it inconsistently): why.
    Unresolved(String),
}

/// An index property: absent, `-1` (SARIF's "not given"), or an index.
fn index(v: Option<&Value>) -> Result<Option<usize>, String> {
    match v {
        None => Ok(None),
        Some(v) if v.as_i64() == Some(-1) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(|i| Some(i as usize))
            .ok_or_else(|| format!("the index {v} is not an index")),
    }
}

/// The tool component a `toolComponentReference` names (§3.54): by index
/// into `run.tool.extensions`, else by guid, else by name (driver or
/// extension). No reference: the driver.
fn component<'a>(run: &'a Value, reference: Option<&'a Value>) -> Result<&'a Value, String> {
    let driver = run.pointer("/tool/driver");
    let extensions: Vec<&Value> = run
        .pointer("/tool/extensions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .collect();
    let Some(reference) = reference else {
        return driver.ok_or_else(|| "the run has no tool.driver".to_string());
    };
    if let Some(i) = index(reference.get("index"))? {
        return extensions
            .get(i)
            .copied()
            .ok_or_else(|| format!("tool.extensions has no component {i}"));
    }
    let all = || driver.into_iter().chain(extensions.iter().copied());
    for key in ["guid", "name"] {
        if let Some(want) = reference.get(key) {
            return all()
                .find(|c| c.get(key) == Some(want))
                .ok_or_else(|| format!("no tool component has {key} {want}"));
        }
    }
    Err("rule.toolComponent names no component (no index, guid or name)".into())
}

/// Whether a descriptor id matches a result's rule id: equal, or the
/// result's id is a hierarchical child of it (`CA2101/sub`, §3.27.5).
fn id_matches(descriptor: &Value, id: &str) -> bool {
    descriptor
        .get("id")
        .and_then(Value::as_str)
        .is_some_and(|d| id == d || id.strip_prefix(d).is_some_and(|r| r.starts_with('/')))
}

/// The rule of `result` within `run`.
pub fn resolve<'a>(run: &'a Value, result: &'a Value) -> Rule<'a> {
    match find(run, result) {
        Ok(Some(rule)) => Rule::Found(rule),
        Ok(None) => Rule::Unnamed,
        Err(why) => Rule::Unresolved(why),
    }
}

fn find<'a>(run: &'a Value, result: &'a Value) -> Result<Option<&'a Value>, String> {
    let reference = result.get("rule");
    let by_index = {
        let a = index(result.get("ruleIndex"))?;
        let b = index(reference.and_then(|r| r.get("index")))?;
        match (a, b) {
            (Some(a), Some(b)) if a != b => {
                return Err(format!("ruleIndex {a} and rule.index {b} differ"));
            }
            (a, b) => a.or(b),
        }
    };
    let by_id = {
        let a = result.get("ruleId").and_then(Value::as_str);
        let b = reference.and_then(|r| r.get("id")).and_then(Value::as_str);
        match (a, b) {
            (Some(a), Some(b)) if a != b => {
                return Err(format!("ruleId `{a}` and rule.id `{b}` differ"));
            }
            (a, b) => a.or(b),
        }
    };
    let guid = reference.and_then(|r| r.get("guid"));
    let tool_component = reference.and_then(|r| r.get("toolComponent"));
    if by_index.is_none() && by_id.is_none() && guid.is_none() && tool_component.is_none() {
        return Ok(None);
    }
    let component = component(run, tool_component)?;
    let rules: Vec<&Value> = component
        .get("rules")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .collect();
    let name = component
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("the tool");
    let rule = if let Some(i) = by_index {
        let rule = rules
            .get(i)
            .copied()
            .ok_or_else(|| format!("`{name}` has no rule {i}"))?;
        if let Some(id) = by_id
            && !id_matches(rule, id)
        {
            return Err(format!("rule {i} of `{name}` is not `{id}`"));
        }
        rule
    } else if let Some(guid) = guid {
        let rule = rules
            .iter()
            .copied()
            .find(|r| r.get("guid") == Some(guid))
            .ok_or_else(|| format!("`{name}` has no rule with guid {guid}"))?;
        if let Some(id) = by_id
            && !id_matches(rule, id)
        {
            return Err(format!("the rule with guid {guid} is not `{id}`"));
        }
        rule
    } else if let Some(id) = by_id {
        rules
            .iter()
            .copied()
            .find(|r| r.get("id").and_then(Value::as_str) == Some(id))
            .or_else(|| rules.iter().copied().find(|r| id_matches(r, id)))
            .ok_or_else(|| format!("`{name}` has no rule `{id}`"))?
    } else {
        return Err(format!(
            "the result names `{name}` but no rule in it (no index, id or guid)"
        ));
    };
    Ok(Some(rule))
}

/// The level sarif-tools (3.0.5, `read_result_severity`) gives a result
/// without its own level: it looks for the rule in `tool.driver.rules`
/// only, whatever `rule.toolComponent` says: `rules[ruleIndex]` (else
/// `rule.index`) when that is in range, else the first rule whose `id` is
/// `ruleId` (else `rule.id`); then an override naming that id or index,
/// else the rule's default, else `warning`. A result that points into
/// `tool.extensions` can so read as another rule (red team 34: the
/// driver's rule 0 at `error` where the extension's rule 0 is a `note`);
/// the validator counts the higher of this and SARIF's reading. Where
/// sarif-tools would stop on the log's shape (a `rule` or a rule that is
/// not an object, an index that is not an integer) the result is `error`,
/// as an unresolved rule is.
pub fn driver_reading(run: &Value, result: &Value) -> crate::Level {
    driver_rule(run, result).unwrap_or(crate::Level::Error)
}

/// Python's truthiness of a JSON value (`if ruleId:`).
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// `driver_reading`; `None` where sarif-tools would raise.
fn driver_rule(run: &Value, result: &Value) -> Option<crate::Level> {
    fn present(v: Option<&Value>) -> Option<&Value> {
        v.filter(|v| !v.is_null())
    }
    let mut at = present(result.get("ruleIndex"));
    let mut id = present(result.get("ruleId"));
    if let Some(reference) = result.get("rule").filter(|r| truthy(r)) {
        let reference = reference.as_object()?;
        at = at.or(present(reference.get("index")));
        id = id.or(present(reference.get("id")));
    }
    let empty = Vec::new();
    let rules = match run.get("tool") {
        None => &empty,
        Some(tool) => match tool.as_object()?.get("driver") {
            None => &empty,
            Some(driver) => match driver.as_object()?.get("rules") {
                None => &empty,
                Some(rules) => rules.as_array()?,
            },
        },
    };
    // Python compares the index as an integer (a bool is one).
    let at = match at {
        None => None,
        Some(Value::Bool(b)) => Some(i64::from(*b)),
        Some(v) => Some(v.as_i64()?),
    };
    let mut found = at
        .and_then(|i| usize::try_from(i).ok())
        .and_then(|i| Some((rules.get(i)?, i)));
    if found.is_none()
        && let Some(id) = id.filter(|id| truthy(id))
    {
        for (i, rule) in rules.iter().enumerate() {
            if rule.as_object()?.get("id") == Some(id) {
                found = Some((rule, i));
                break;
            }
        }
    }
    let Some((rule, i)) = found else {
        return Some(crate::Level::Warning);
    };
    let rule = rule.as_object()?;
    let parse = |v: &Value| {
        v.as_str()
            .and_then(crate::Level::parse)
            .unwrap_or(crate::Level::Error)
    };
    let configuration = match rule.get("defaultConfiguration").filter(|c| truthy(c)) {
        Some(c) => Some(c.as_object()?),
        None => None,
    };
    let default = configuration
        .and_then(|c| c.get("level"))
        .filter(|l| truthy(l))
        .map_or(crate::Level::Warning, parse);
    // Any invocation's override of that id or index (sarif-tools reads the
    // one the result's provenance names; the highest of all is stricter).
    let over = run
        .get("invocations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|inv| inv.get("ruleConfigurationOverrides")?.as_array())
        .flatten()
        .filter(|o| {
            let d = o.get("descriptor");
            d.and_then(|d| d.get("id"))
                .is_some_and(|d| Some(d) == rule.get("id"))
                || d.and_then(|d| d.get("index")).and_then(Value::as_u64) == Some(i as u64)
        })
        .filter_map(|o| o.pointer("/configuration/level").filter(|l| truthy(l)))
        .map(parse)
        .max();
    Some(default.max(over.unwrap_or(crate::Level::None)))
}

/// The highest level any invocation's `ruleConfigurationOverrides` gives
/// `rule` (matched by its id or its index in its component), if any.
pub fn overridden(run: &Value, rule: &Value) -> Option<crate::Level> {
    let id = rule.get("id")?;
    run.get("invocations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|i| {
            i.get("ruleConfigurationOverrides")
                .and_then(Value::as_array)
        })
        .flatten()
        .filter(|o| o.pointer("/descriptor/id") == Some(id) || descriptor_is(run, o, rule))
        .filter_map(|o| o.pointer("/configuration/level"))
        .map(|l| {
            l.as_str()
                .and_then(crate::Level::parse)
                .unwrap_or(crate::Level::Error)
        })
        .max()
}

/// Whether an override's descriptor reference (by index, in the driver or
/// the component it names) is `rule`.
fn descriptor_is(run: &Value, over: &Value, rule: &Value) -> bool {
    let Some(descriptor) = over.get("descriptor") else {
        return false;
    };
    let Ok(Some(i)) = index(descriptor.get("index")) else {
        return false;
    };
    component(run, descriptor.get("toolComponent"))
        .ok()
        .and_then(|c| c.get("rules")?.as_array()?.get(i))
        .is_some_and(|r| std::ptr::eq(r, rule))
}

#[cfg(test)]
mod tests {
    use super::*;
    use vcc_sdk::serde_json::json;

    fn run() -> Value {
        json!({"tool": {
            "driver": {"name": "CodeQL", "guid": "d-1", "rules": [{"id": "D1"}]},
            "extensions": [
                {"name": "codeql/js-queries", "guid": "e-1", "rules": [
                    {"id": "js/xss", "guid": "r-1", "defaultConfiguration": {"level": "error"}},
                    {"id": "js/unused"}
                ]}
            ]
        }})
    }

    fn found(result: Value) -> Option<String> {
        let run = run();
        match resolve(&run, &result) {
            Rule::Found(r) => Some(r["id"].as_str().unwrap().to_string()),
            Rule::Unnamed => None,
            Rule::Unresolved(why) => Some(format!("unresolved: {why}")),
        }
    }

    #[test]
    fn rules_in_extensions_resolve_by_index_guid_and_name() {
        let codeql = json!({"ruleId": "js/xss", "rule": {"id": "js/xss", "index": 0, "toolComponent": {"index": 0}}});
        assert_eq!(found(codeql).as_deref(), Some("js/xss"));
        let by_guid = json!({"rule": {"index": 1, "toolComponent": {"guid": "e-1"}}});
        assert_eq!(found(by_guid).as_deref(), Some("js/unused"));
        let by_name =
            json!({"ruleId": "js/xss", "rule": {"toolComponent": {"name": "codeql/js-queries"}}});
        assert_eq!(found(by_name).as_deref(), Some("js/xss"));
        let rule_guid = json!({"rule": {"guid": "r-1", "toolComponent": {"index": 0}}});
        assert_eq!(found(rule_guid).as_deref(), Some("js/xss"));
    }

    #[test]
    fn the_driver_is_the_default_component() {
        assert_eq!(found(json!({"ruleIndex": 0})).as_deref(), Some("D1"));
        assert_eq!(found(json!({"ruleId": "D1/sub"})).as_deref(), Some("D1"));
        assert_eq!(found(json!({"ruleIndex": -1})), None);
        assert_eq!(found(json!({"message": {"text": "x"}})), None);
    }

    #[test]
    fn overrides_raise_a_rule_level() {
        let mut run = run();
        run["invocations"] = json!([{"executionSuccessful": true, "ruleConfigurationOverrides": [
            {"descriptor": {"index": 1, "toolComponent": {"index": 0}}, "configuration": {"level": "error"}},
            {"descriptor": {"id": "D1"}, "configuration": {"level": "note"}}
        ]}]);
        let ext = &run["tool"]["extensions"][0]["rules"];
        assert_eq!(overridden(&run, &ext[1]), Some(crate::Level::Error));
        assert_eq!(overridden(&run, &ext[0]), None);
        assert_eq!(
            overridden(&run, &run["tool"]["driver"]["rules"][0]),
            Some(crate::Level::Note)
        );
    }

    #[test]
    fn sarif_tools_reads_rules_in_the_driver_only() {
        use crate::Level::*;
        let mut run = json!({"tool": {
            "driver": {"rules": [
                {"id": "A", "defaultConfiguration": {"level": "error"}},
                {"id": "B", "defaultConfiguration": {"level": "note"}},
                {"id": "C", "defaultConfiguration": "odd"}
            ]},
            "extensions": [{"name": "x", "rules": [{"id": "X"}]}]
        }});
        for (result, level) in [
            // The extension's rule 0 is read as the driver's rule 0.
            (
                json!({"ruleId": "X", "rule": {"index": 0, "toolComponent": {"index": 0}}}),
                Error,
            ),
            (json!({"ruleId": "B"}), Note),
            (json!({"ruleId": "X"}), Warning),
            (json!({"rule": {"id": "B", "index": 7}}), Note),
            (
                json!({"ruleIndex": -1, "rule": {"index": 0}, "ruleId": "B"}),
                Note,
            ),
            (json!({"ruleIndex": true}), Note),
            (json!({"message": {"text": "no rule"}}), Warning),
            // Where sarif-tools would stop: error.
            (json!({"ruleIndex": "0"}), Error),
            (json!({"ruleIndex": 0.5}), Error),
            (json!({"rule": "A"}), Error),
            (json!({"ruleId": "C"}), Error),
        ] {
            assert_eq!(driver_reading(&run, &result), level, "{result}");
        }
        run["invocations"] = json!([{"ruleConfigurationOverrides": [
            {"descriptor": {"index": 1}, "configuration": {"level": "error"}}
        ]}]);
        assert_eq!(driver_reading(&run, &json!({"ruleId": "B"})), Error);
        assert_eq!(driver_reading(&json!({"tool": null}), &json!({})), Error);
    }

    #[test]
    fn what_does_not_resolve_says_why() {
        for (result, why) in [
            (json!({"ruleId": "js/xss"}), "no rule `js/xss`"),
            (
                json!({"rule": {"index": 0, "toolComponent": {"index": 3}}}),
                "no component 3",
            ),
            (
                json!({"rule": {"index": 9, "toolComponent": {"index": 0}}}),
                "no rule 9",
            ),
            (json!({"ruleIndex": 0, "rule": {"index": 1}}), "differ"),
            (json!({"ruleId": "A", "rule": {"id": "B"}}), "differ"),
            (json!({"ruleId": "X", "ruleIndex": 0}), "is not `X`"),
            (
                json!({"ruleId": "X", "rule": {"guid": "r-1", "toolComponent": {"index": 0}}}),
                "is not `X`",
            ),
            (
                json!({"rule": {"toolComponent": {"name": "nope"}}}),
                "no tool component",
            ),
            (
                json!({"rule": {"toolComponent": {"index": 0}}}),
                "no rule in it",
            ),
            (json!({"ruleIndex": "0"}), "not an index"),
        ] {
            let got = found(result.clone()).unwrap_or_default();
            assert!(
                got.starts_with("unresolved") && got.contains(why),
                "{result}: {got}"
            );
        }
    }
}
