use super::*;
use crate::parse::parse;
use std::path::Path;

fn lint_yaml(text: &str) -> Vec<Problem> {
    let doc = parse(Path::new("c.yaml"), text.as_bytes()).unwrap();
    lint(&doc, None, None)
}

fn codes(problems: &[Problem]) -> Vec<Code> {
    problems.iter().map(|p| p.code).collect()
}

const GOOD: &str = "vcc: 1\nid: t\ndeliverables:\n  - { id: a, path: a.txt }\n  - { id: b, path: b.txt, depends_on: [a] }\nvalidators:\n  fx: { component: std/file-exists }\ncriteria:\n  - { id: AC-1, severity: must, validator: fx, targets: [a, b] }\n";

#[test]
fn a_good_contract_has_no_problems() {
    assert_eq!(lint_yaml(GOOD), vec![]);
}

#[test]
fn references_must_resolve() {
    let text = GOOD
        .replace("targets: [a, b]", "targets: [a, nope]")
        .replace("depends_on: [a]", "depends_on: [ghost]")
        .replace("validator: fx", "validator: fz");
    let problems = lint_yaml(&text);
    let c = codes(&problems);
    assert!(c.contains(&Code::UnknownTarget), "{c:?}");
    assert!(c.contains(&Code::UnknownDependency), "{c:?}");
    assert!(c.contains(&Code::UnknownValidator), "{c:?}");
    let target = problems
        .iter()
        .find(|p| p.code == Code::UnknownTarget)
        .unwrap();
    assert_eq!(target.field.as_deref(), Some("criteria[0].targets[1]"));
    assert_eq!(target.line, Some(9));
}

#[test]
fn cycles_are_found_and_named() {
    let text = GOOD.replace(
        "{ id: a, path: a.txt }",
        "{ id: a, path: a.txt, depends_on: [b] }",
    );
    let problems = lint_yaml(&text);
    let cycle = problems
        .iter()
        .find(|p| p.code == Code::DependencyCycle)
        .unwrap();
    assert!(cycle.message.contains("a → b → a"), "{}", cycle.message);
    let text = GOOD.replace("depends_on: [a]", "depends_on: [b]");
    assert!(codes(&lint_yaml(&text)).contains(&Code::DependencyCycle));
}

#[test]
fn a_long_dependency_chain_does_not_overflow() {
    let mut text = String::from("vcc: 1\nid: t\nadvisory: true\ndeliverables:\n");
    for i in 0..20_000 {
        text.push_str(&format!(
            "  - {{ id: d{i}, path: f{i}, depends_on: [d{}] }}\n",
            i + 1
        ));
    }
    text.push_str("  - { id: d20000, path: last, depends_on: [d0] }\n");
    let problems = lint_yaml(&text);
    assert!(codes(&problems).contains(&Code::DependencyCycle));
}

#[test]
fn ids_paths_and_digests_are_checked() {
    let text = GOOD
        .replace("{ id: b, path: b.txt", "{ id: a, path: ../b.txt")
        .replace(
            "std/file-exists }",
            "std/file-exists, digest: \"sha256:00\" }",
        )
        .replace("id: AC-1", "id: \"AC 1\\u001b[31m\"");
    let c = codes(&lint_yaml(&text));
    for code in [
        Code::DuplicateId,
        Code::PathEscapesRoot,
        Code::InvalidDigest,
        Code::InvalidId,
    ] {
        assert!(c.contains(&code), "{code:?} missing from {c:?}");
    }
}

#[test]
fn zero_must_is_refused_unless_advisory() {
    let text = GOOD.replace("severity: must", "severity: should");
    assert!(codes(&lint_yaml(&text)).contains(&Code::NoMust));
    let text = text.replace("id: t\n", "id: t\nadvisory: true\n");
    assert!(!codes(&lint_yaml(&text)).contains(&Code::NoMust));
}

#[test]
fn warn_never_waives_a_must() {
    let warned = "targets: [a, b], on_fail: { action: warn } }";
    let text = GOOD.replace("targets: [a, b] }", warned);
    let problems = lint_yaml(&text);
    assert_eq!(codes(&problems), vec![Code::WaivesMust]);
    assert_eq!(
        problems[0].field.as_deref(),
        Some("criteria[0].on_fail.action")
    );
    assert!(
        problems[0].message.contains("never waived"),
        "{}",
        problems[0].message
    );
    let text = text.replace("severity: must", "severity: should")
        + "  - { id: AC-2, severity: must, validator: fx, targets: [a] }\n";
    assert_eq!(lint_yaml(&text), vec![]);
}

#[test]
fn a_budget_of_nothing_is_refused() {
    let text = format!("{GOOD}budget: {{ iterations: 0, stagnation: 0, cost: -1 }}\n");
    let fields: Vec<_> = lint_yaml(&text)
        .into_iter()
        .map(|p| (p.code, p.field.unwrap_or_default()))
        .collect();
    let want = ["budget.iterations", "budget.stagnation", "budget.cost"];
    assert_eq!(
        fields,
        want.map(|f| (Code::LimitOutOfRange, f.to_string()))
            .to_vec()
    );
    // The names of the first release still read.
    let old =
        format!("{GOOD}budget: {{ max_iterations: 3, stagnation_window: 2, max_duration: 1m }}\n");
    assert_eq!(lint_yaml(&old), vec![]);
}

#[test]
fn limits_out_of_range_are_refused() {
    let text = format!("{GOOD}limits: {{ timeout: 2h, memory: 8GiB }}\n");
    let problems = lint_yaml(&text);
    assert_eq!(
        codes(&problems),
        vec![Code::LimitOutOfRange, Code::LimitOutOfRange]
    );
    let text = format!("{GOOD}limits: {{ timeout: 0s }}\n");
    assert_eq!(codes(&lint_yaml(&text)), vec![Code::LimitOutOfRange]);
}

#[test]
fn unused_validators_and_unchecked_deliverables_are_warnings() {
    let text = GOOD.replace("targets: [a, b]", "targets: [a]").replace(
        "validators:\n",
        "validators:\n  spare: { component: std/json-schema }\n",
    );
    let problems = lint_yaml(&text);
    assert_eq!(
        codes(&problems),
        vec![Code::UnusedValidator, Code::UncheckedDeliverable]
    );
    assert!(problems.iter().all(|p| !p.is_error()));
}

struct FakeCatalog(Result<ValidatorInfo, String>);
impl Catalog for FakeCatalog {
    fn describe(&mut self, _: &str, _: &ValidatorRef) -> Result<ValidatorInfo, String> {
        self.0.clone()
    }
}

/// A validator whose own params check refuses `pattern: "("`.
struct Picky;
impl Catalog for Picky {
    fn describe(&mut self, _: &str, _: &ValidatorRef) -> Result<ValidatorInfo, String> {
        Ok(ValidatorInfo {
            judge: false,
            params_schema: serde_json::json!({"type": "object"}),
            digest: "blake3:01".into(),
        })
    }
    fn check_params(&mut self, _: &str, params: &Value) -> Result<Vec<(String, String)>, String> {
        Ok(match params["rules"][1]["pattern"].as_str() {
            Some("(") => vec![("/rules/1/pattern".into(), "unclosed group".into())],
            _ => Vec::new(),
        })
    }
}

#[test]
fn the_validators_own_params_check_names_the_field() {
    let text = GOOD.replace(
        "targets: [a, b] }",
        "targets: [a, b], params: { rules: [{ pattern: ok }, { pattern: \"(\" }] } }",
    );
    let doc = parse(Path::new("c.yaml"), text.as_bytes()).unwrap();
    let problems = lint(&doc, Some(&mut Picky), None);
    assert_eq!(codes(&problems), vec![Code::InvalidParams]);
    assert_eq!(
        problems[0].field.as_deref(),
        Some("criteria[0].params.rules[1].pattern")
    );
    assert!(problems[0].message.contains("unclosed group"));
    let fine = GOOD.replace(
        "targets: [a, b] }",
        "targets: [a, b], params: { rules: [] } }",
    );
    let doc = parse(Path::new("c.yaml"), fine.as_bytes()).unwrap();
    assert_eq!(lint(&doc, Some(&mut Picky), None), vec![]);
}

#[test]
fn a_component_under_the_root_must_be_pinned() {
    let dir = tempfile::tempdir().unwrap();
    let text = GOOD.replace("std/file-exists }", "./v.wasm }");
    let doc = parse(&dir.path().join("c.yaml"), text.as_bytes()).unwrap();
    let problems = lint(&doc, Some(&mut Picky), None);
    assert_eq!(codes(&problems), vec![Code::UnpinnedValidator]);
    assert!(problems[0].is_error());
    assert!(problems[0].help.as_deref().unwrap().contains("blake3:01"));
    // Checked against another root, it is only a warning.
    let elsewhere = dir.path().join("out");
    let problems = lint(&doc, Some(&mut Picky), Some(&elsewhere));
    assert_eq!(codes(&problems), vec![Code::UnpinnedValidator]);
    assert!(!problems[0].is_error());
    // `..` back into the root is still the root.
    let sneaky = GOOD.replace("std/file-exists }", "../out/v.wasm }");
    let doc = parse(&dir.path().join("ci/c.yaml"), sneaky.as_bytes()).unwrap();
    let problems = lint(&doc, Some(&mut Picky), Some(&elsewhere));
    assert!(problems[0].is_error(), "{problems:?}");
    // Pinned, nothing to say.
    let pinned = GOOD.replace(
        "std/file-exists }",
        &format!("./v.wasm, digest: \"blake3:{}\" }}", "0".repeat(64)),
    );
    let doc = parse(&dir.path().join("c.yaml"), pinned.as_bytes()).unwrap();
    assert_eq!(lint(&doc, Some(&mut Picky), None), vec![]);
}

#[test]
fn a_must_on_an_unloadable_validator_is_unverifiable() {
    let doc = parse(Path::new("c.yaml"), GOOD.as_bytes()).unwrap();
    let mut catalog = FakeCatalog(Err(
        "exports vcc:validator@0.2.0; this host supports 0.1.x".into()
    ));
    let problems = lint(&doc, Some(&mut catalog), None);
    assert_eq!(codes(&problems), vec![Code::UnverifiableMust]);
    assert!(problems[0].message.contains("0.2.0"));
    let should = GOOD
        .replace("severity: must", "severity: should")
        .replace("id: t\n", "id: t\nadvisory: true\n");
    let doc = parse(Path::new("c.yaml"), should.as_bytes()).unwrap();
    let problems = lint(&doc, Some(&mut catalog), None);
    assert_eq!(codes(&problems), vec![Code::UnverifiableCriterion]);
    assert!(!problems[0].is_error());
}

#[test]
fn params_are_checked_against_the_validator_schema() {
    let text = GOOD.replace(
        "targets: [a, b] }",
        "targets: [a, b], params: { min: -1, colour: red } }",
    );
    let doc = parse(Path::new("c.yaml"), text.as_bytes()).unwrap();
    let schema = serde_json::json!({
        "type": "object", "additionalProperties": false,
        "properties": { "min": { "type": "integer", "minimum": 0 } }
    });
    let mut catalog = FakeCatalog(Ok(ValidatorInfo {
        judge: false,
        params_schema: schema,
        digest: "blake3:00".into(),
    }));
    let problems = lint(&doc, Some(&mut catalog), None);
    assert_eq!(
        codes(&problems),
        vec![Code::InvalidParams, Code::InvalidParams]
    );
    let fields: Vec<_> = problems.iter().map(|p| p.field.clone().unwrap()).collect();
    assert!(
        fields.contains(&"criteria[0].params.min".to_string()),
        "{fields:?}"
    );
}

/// A validator like std/json-schema: `schema_file` names a file of the
/// root, and `digest` pins it.
struct SchemaFile;
impl Catalog for SchemaFile {
    fn describe(&mut self, _: &str, _: &ValidatorRef) -> Result<ValidatorInfo, String> {
        Ok(ValidatorInfo {
            judge: false,
            params_schema: serde_json::json!({"type": "object", "properties": {
                "schema_file": {"type": "string", "x-vcc-root-file": true, "x-vcc-pinned-by": "digest"},
                "digest": {"type": "string"}
            }}),
            digest: "blake3:02".into(),
        })
    }
}

#[test]
fn a_schema_file_in_the_root_is_a_warning_until_pinned() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.json"), b"{}").unwrap();
    let text = GOOD.replace(
        "targets: [a, b] }",
        "targets: [a, b], params: { schema_file: s.json } }",
    );
    let doc = parse(&dir.path().join("c.yaml"), text.as_bytes()).unwrap();
    let problems = lint(&doc, Some(&mut SchemaFile), None);
    assert_eq!(codes(&problems), vec![Code::ContractFileInRoot]);
    assert!(!problems[0].is_error());
    assert_eq!(
        problems[0].field.as_deref(),
        Some("criteria[0].params.schema_file")
    );
    let help = problems[0].help.as_deref().unwrap();
    let now = format!("blake3:{}", blake3::hash(b"{}").to_hex());
    assert!(help.contains(&now), "{help}");
    let pinned = GOOD.replace(
        "targets: [a, b] }",
        &format!("targets: [a, b], params: {{ schema_file: s.json, digest: \"{now}\" }} }}"),
    );
    let doc = parse(&dir.path().join("c.yaml"), pinned.as_bytes()).unwrap();
    assert_eq!(lint(&doc, Some(&mut SchemaFile), None), vec![]);
}
