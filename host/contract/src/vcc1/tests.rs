use std::path::Path;

use super::*;
use crate::problem::{Code, Level};
use crate::{lint, parse};

#[test]
fn uris_that_are_paths() {
    assert!(is_path("out/report.md"));
    assert!(!is_path("worktree://run/branch"));
    assert!(!is_path("https://example.org/x"));
    assert!(!is_path("/abs/path"));
    assert!(!is_path("C:/x"));
    assert_eq!(extension("out/catalog.json"), "json");
    assert_eq!(extension("out/.hidden"), "");
}

#[test]
fn origin_maps_native_fields_back() {
    let root = FieldPath::root();
    let origin = Origin {
        criteria: vec![root.key("acceptance").index(2)],
        blame: vec![Some((
            root.key("acceptance").index(2).key("rule").key("adapter"),
            Code::ExplicitValidatorMissing,
        ))],
        deliverables: vec![(
            root.key("artifacts").index(1),
            root.key("artifacts")
                .index(1)
                .key("formats")
                .index(0)
                .key("uri"),
        )],
        validators: [(
            "markdown-sections".to_string(),
            root.key("acceptance").index(2).key("type"),
        )]
        .into(),
        params: [(
            (0, "max_variance".to_string()),
            root.key("acceptance").index(2).key("varianceMax"),
        )]
        .into(),
    };
    let shown = |f: FieldPath| origin.map(&f).render();
    assert_eq!(
        shown(root.key("criteria").index(0).key("targets").index(1)),
        "acceptance[2].targetArtifacts"
    );
    assert_eq!(
        shown(root.key("criteria").index(0).key("not_evaluated")),
        "acceptance[2].rule.adapter"
    );
    assert_eq!(
        shown(root.key("deliverables").index(0).key("path")),
        "artifacts[1].formats[0].uri"
    );
    assert_eq!(
        shown(root.key("deliverables").index(0).key("id")),
        "artifacts[1].artifactId"
    );
    assert_eq!(
        shown(root.key("validators").key("markdown-sections")),
        "acceptance[2].type"
    );
    // A param made from its own field is blamed on it; the others on `rule`.
    assert_eq!(
        shown(
            root.key("criteria")
                .index(0)
                .key("params")
                .key("max_variance")
        ),
        "acceptance[2].varianceMax"
    );
    assert_eq!(
        shown(root.key("criteria").index(0).key("params").key("required")),
        "acceptance[2].rule"
    );
    assert_eq!(origin.blame_code(0), Some(Code::ExplicitValidatorMissing));
}

#[test]
fn an_artifact_root_is_normalised() {
    let roots = |given: &str| {
        Mapping::from_args(&[format!("A2={given}")], None).map(|m| m.artifact_roots["A2"].clone())
    };
    for given in ["repo", "repo/", "./repo", "repo//", "./repo/."] {
        assert_eq!(roots(given).as_deref(), Ok("repo"), "{given}");
    }
    assert_eq!(roots("a/./b/").as_deref(), Ok("a/b"));
    assert!(roots("../elsewhere").unwrap_err().contains("`..`"));
    assert!(roots("/abs").is_err());
    assert!(roots("worktree://x").is_err());
}

/// Every field the VCC v1 schema requires, and one criterion per kind of
/// mapping.
const V1: &str = r#"vccVersion: "sdlaf.vcc/v1"
id: "outspec-test-001"
title: "Test"
summary: "A test contract for the translator."
intent:
  problemStatement: "x"
  successDefinition: "y"
  inScope: ["z"]
  outOfScope: []
artifacts:
  - artifactId: "A1"
    kind: "specification"
    description: "d"
    formats:
      - mediaType: "text/markdown"
        uri: "docs/spec.md"
    required: true
    dependsOn: []
    owners: ["role:Lead"]
    qualityLevel: "production"
  - artifactId: "A2"
    kind: "dataset"
    description: "d"
    formats:
      - { mediaType: "text/csv", uri: "data/catalog.csv" }
      - { mediaType: "application/json", uri: "data/catalog.json" }
    required: true
    dependsOn: ["A1"]
    owners: ["role:Analyst"]
    qualityLevel: "production"
  - artifactId: "A3"
    kind: "implementation"
    description: "d"
    formats:
      - { mediaType: "application/vnd.git", uri: "worktree://run/branch" }
    required: false
    dependsOn: []
    owners: ["role:Developer"]
    qualityLevel: "production"
acceptance:
  - acId: "AC-1"
    targetArtifacts: ["A1"]
    type: "structure"
    severity: "must"
    rule: { requiredSections: ["Scope"] }
    evidence: { required: true, evidenceType: "auto" }
  - acId: "AC-2"
    targetArtifacts: ["A2"]
    type: "schema"
    severity: "must"
    rule: { jsonSchema: "schemas/catalog.schema.json" }
    evidence: { required: true, evidenceType: "auto" }
  - acId: "AC-3"
    targetArtifacts: ["A3"]
    type: "consistency"
    severity: "should"
    rule: { description: "x" }
    evidence: { required: true, evidenceType: "auto" }
gates: []
packaging:
  - { packageId: "P-1", inputs: ["A1"], method: "bundle", format: "zip", uri: "out/p.zip", manifestRequired: true }
delivery:
  - { deliveryId: "D-1", channel: "filesystem", target: "local", uri: "out/p.zip" }
  - { deliveryId: "D-2", channel: "s3", target: "bucket", uri: "s3://bucket/p.zip" }
provenancePolicy: { policyId: "PP-1", require: ["inputs.enumerated"], strength: "L1" }
resourceConstraints: { maxIterations: 5, stagnationWindow: 2, maxTimeMs: 60000, maxCostUsd: 3 }
"#;

fn load(text: &str) -> crate::Document {
    parse(Path::new("c.yml"), text.as_bytes()).unwrap()
}

#[test]
fn artifacts_and_acceptance_become_deliverables_and_criteria() {
    let doc = load(V1);
    assert_eq!(doc.format, "sdlaf.vcc/v1");
    let c = &doc.contract;
    let ids: Vec<(&str, &str)> = c
        .deliverables
        .iter()
        .map(|d| (d.id.as_str(), d.path.as_str()))
        .collect();
    assert_eq!(
        ids,
        vec![
            ("A1", "docs/spec.md"),
            ("A2.csv", "data/catalog.csv"),
            ("A2.json", "data/catalog.json"),
            ("P-1", "out/p.zip"),
        ]
    );
    assert_eq!(c.deliverables[2].depends_on, vec!["A1"]);
    let crits: Vec<(&str, &str, Vec<String>, Option<&str>)> = c
        .criteria
        .iter()
        .map(|c| {
            (
                c.id.as_str(),
                c.validator.as_str(),
                c.targets.clone(),
                c.not_evaluated.as_deref().map(|w| &w[..12]),
            )
        })
        .collect();
    assert_eq!(
        crits,
        vec![
            ("AC-1", "markdown-sections", vec!["A1".to_string()], None),
            (
                "AC-2",
                "json-schema",
                vec!["A2.csv".to_string(), "A2.json".to_string()],
                None
            ),
            ("AC-3", "", vec![], Some("artifact `A3")),
            ("P-1", "package", vec!["P-1".to_string()], None),
            ("D-2", "", vec![], Some("delivery `D-")),
        ]
    );
    assert_eq!(c.validators["json-schema"].component, "std/json-schema");
    assert_eq!(
        c.criteria[3].params.as_ref().unwrap(),
        &serde_json::json!({"inputs": ["A1"], "manifest": true})
    );
    assert_eq!(
        c.criteria[1].params.as_ref().unwrap()["schema_file"],
        "schemas/catalog.schema.json"
    );
    let budget = c.budget.as_ref().unwrap();
    assert_eq!((budget.iterations, budget.stagnation), (Some(5), Some(2)));
    assert!(
        c.extensions.contains_key("x-vcc1-intent"),
        "unevaluated sections are kept"
    );
}

#[test]
fn what_is_not_evaluated_is_said_with_its_line() {
    let doc = load(V1);
    let problems = lint(&doc, None, None);
    assert!(
        problems.iter().all(|p| p.level != Level::Error),
        "{problems:#?}"
    );
    let noted: Vec<&str> = problems
        .iter()
        .filter(|p| p.code == Code::NotEvaluated)
        .map(|p| p.field.as_deref().unwrap())
        .collect();
    for field in [
        "intent",
        "acceptance[2].targetArtifacts[0]",
        "delivery[1].uri",
    ] {
        assert!(noted.contains(&field), "{field} not noted in {noted:?}");
    }
    let skip = problems
        .iter()
        .find(|p| p.field.as_deref() == Some("acceptance[2].targetArtifacts[0]"))
        .unwrap();
    assert_eq!(skip.line, Some(54));
    assert!(
        skip.message.contains("reported as `skip`"),
        "{}",
        skip.message
    );
    // Every format of the catalog is judged by the schema: none is left
    // to a presence check alone.
    assert!(
        !problems
            .iter()
            .any(|p| p.code == Code::UncheckedDeliverable),
        "{problems:#?}"
    );
}

#[test]
fn a_must_no_validator_can_check_is_unverifiable_and_says_how_to_map_it() {
    let text = V1.replace(
        "type: \"consistency\"\n    severity: \"should\"",
        "type: \"consistency\"\n    severity: \"must\"",
    );
    let problems = lint(&load(&text), None, None);
    let p = problems
        .iter()
        .find(|p| p.code == Code::UnverifiableMust)
        .unwrap();
    assert_eq!(p.field.as_deref(), Some("acceptance[2].targetArtifacts[0]"));
    assert!(
        p.message.contains("--artifact-root A3=DIR"),
        "{}",
        p.message
    );
    assert!(p.is_error());
    // Mapped, the MUST is judged by std/consistency.
    let mapped = text.replace(
        "uri: \"worktree://run/branch\" }",
        "uri: \"worktree://run/branch\" }\n    x-vcc-path: \"src\"",
    );
    let doc = load(&mapped);
    let problems = lint(&doc, None, None);
    assert!(
        !problems.iter().any(|p| p.code == Code::UnverifiableMust),
        "{problems:#?}"
    );
    let c = &doc.contract.criteria[2];
    assert_eq!(
        (c.validator.as_str(), c.targets.clone()),
        ("consistency", vec!["A3".to_string()])
    );
    assert_eq!(doc.contract.deliverables[3].path, "src");
}

#[test]
fn the_schema_is_enforced_with_lines() {
    let text = V1
        .replace("type: \"structure\"", "type: \"structural\"")
        .replace("owners: [\"role:Lead\"]", "owners: [\"Lead\"]");
    let err = crate::parse_all(Path::new("c.yml"), text.as_bytes()).unwrap_err();
    let fields: Vec<(&str, Option<usize>)> = err
        .iter()
        .map(|p| (p.field.as_deref().unwrap_or(""), p.line))
        .collect();
    assert!(
        fields.contains(&("acceptance[0].type", Some(43))),
        "{fields:?}"
    );
    assert!(
        fields.contains(&("artifacts[0].owners[0]", Some(19))),
        "{fields:?}"
    );
    let missing = crate::parse_all(
        Path::new("c.yml"),
        V1.replace("summary: \"A test contract for the translator.\"\n", "")
            .as_bytes(),
    )
    .unwrap_err();
    assert_eq!(missing[0].code, Code::MissingField);
    assert_eq!(missing[0].field.as_deref(), Some("summary"));
}

#[test]
fn explicit_validators_bundles_and_bad_references() {
    let text = V1.replace(
        "    rule: { description: \"x\" }\n",
        "    rule: { description: \"x\" }\n    x-vcc-validator: { bundle: acme/checks, validator: consistency, version: \"^1\" }\n",
    )
    .replace("targetArtifacts: [\"A3\"]", "targetArtifacts: [\"A1\"]")
    .replace("dependsOn: [\"A1\"]", "dependsOn: [\"A9\"]");
    let doc = load(&text);
    let c = &doc.contract.criteria[2];
    assert_eq!(c.validator, "AC-3-validator");
    assert_eq!(
        doc.contract.validators["AC-3-validator"].from_bundle(),
        Some(("acme/checks", "consistency"))
    );
    let problems = lint(&doc, None, None);
    let dep = problems
        .iter()
        .find(|p| p.code == Code::UnknownDependency)
        .unwrap();
    assert_eq!(dep.field.as_deref(), Some("artifacts[1].dependsOn[0]"));
    let bad = crate::parse_all(
        Path::new("c.yml"),
        V1.replace("sdlaf.vcc/v1", "other/v9").as_bytes(),
    )
    .unwrap_err();
    assert_eq!(bad[0].code, Code::UnsupportedVersion);
    assert_eq!(bad[0].line, Some(1));
}

/// Every row visible: a format or a package vcc cannot see is a `skip`
/// row of its own (a SHOULD), never only a note.
#[test]
fn remote_formats_and_packages_are_skip_rows() {
    let text = V1
        .replace(
            "        uri: \"docs/spec.md\"\n",
            "        uri: \"docs/spec.md\"\n      - mediaType: \"text/html\"\n        uri: \"https://example.org/spec\"\n",
        )
        .replace("uri: \"out/p.zip\", manifestRequired", "uri: \"s3://bucket/p.zip\", manifestRequired");
    let doc = load(&text);
    let rows: Vec<(&str, &str, bool)> = doc
        .contract
        .criteria
        .iter()
        .filter(|c| c.not_evaluated.is_some())
        .map(|c| (c.id.as_str(), c.severity.as_str(), c.validator.is_empty()))
        .collect();
    assert!(rows.contains(&("A1.format-1", "should", true)), "{rows:?}");
    assert!(rows.contains(&("P-1", "should", true)), "{rows:?}");
    let problems = lint(&doc, None, None);
    let fields: Vec<&str> = problems
        .iter()
        .filter(|p| p.code == Code::NotEvaluated)
        .filter_map(|p| p.field.as_deref())
        .collect();
    assert!(
        fields.contains(&"artifacts[0].formats[1].uri"),
        "{fields:?}"
    );
    assert!(fields.contains(&"packaging[0].uri"), "{fields:?}");
}
