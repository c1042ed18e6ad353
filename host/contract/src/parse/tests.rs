use super::*;
use crate::sources::load;

fn yaml(text: &str) -> Result<Document, Box<Problem>> {
    parse(Path::new("c.yaml"), text.as_bytes())
}

const MINIMAL: &str = "vcc: 1\nid: t\ndeliverables:\n  - id: a\n    path: a.txt\nvalidators:\n  fx: { component: std/file-exists }\ncriteria:\n  - id: AC-1\n    severity: must\n    validator: fx\n    targets: [a]\n";

#[test]
fn a_minimal_contract_parses_and_is_hashed() {
    let doc = yaml(MINIMAL).unwrap();
    assert_eq!(doc.contract.criteria.len(), 1);
    assert!(
        doc.contract.deliverables[0].required,
        "required defaults to true"
    );
    assert_eq!(
        doc.digest,
        format!("blake3:{}", blake3::hash(MINIMAL.as_bytes()).to_hex())
    );
}

#[test]
fn a_byte_order_mark_is_accepted_and_hashed() {
    for (name, text) in [
        ("c.yaml", MINIMAL.to_string()),
        (
            "c.json",
            r#"{"vcc": 1, "id": "t", "advisory": true}"#.to_string(),
        ),
    ] {
        let bytes = [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat();
        let doc = parse(Path::new(name), &bytes).unwrap();
        assert_eq!(doc.contract.id, "t");
        assert_eq!(
            doc.digest,
            format!("blake3:{}", blake3::hash(&bytes).to_hex())
        );
    }
    // Lines still count from the first line.
    let bytes = [
        b"\xEF\xBB\xBF".as_slice(),
        MINIMAL
            .replace("    severity: must", "    sevrity: must")
            .as_bytes(),
    ]
    .concat();
    assert_eq!(
        parse(Path::new("c.yaml"), &bytes).unwrap_err().line,
        Some(10)
    );
}

#[test]
fn unknown_fields_name_the_field_and_line() {
    let text = MINIMAL.replace("    severity: must", "    sevrity: must");
    let p = yaml(&text).unwrap_err();
    assert_eq!(p.code, Code::UnknownField);
    assert!(p.message.contains("sevrity"), "{}", p.message);
    assert_eq!(p.field.as_deref(), Some("criteria[0].sevrity"));
    assert_eq!(p.line, Some(10));
}

#[test]
fn misspelt_severity_is_an_invalid_value() {
    let p = yaml(&MINIMAL.replace("severity: must", "severity: mustt")).unwrap_err();
    assert_eq!(p.code, Code::InvalidValue);
    assert_eq!(p.field.as_deref(), Some("criteria[0].severity"));
    assert!(p.message.contains("mustt"), "{}", p.message);
    assert_eq!(p.help.as_deref(), Some("did you mean `must`?"));
    let p = yaml(&MINIMAL.replace("severity: must", "severity: MUST")).unwrap_err();
    assert_eq!(p.help.as_deref(), Some("did you mean `must`?"));
}

#[test]
fn a_misspelt_field_gets_the_name_it_was_meant_to_be() {
    let p = yaml(&MINIMAL.replace("    severity: must", "    sevrity: must")).unwrap_err();
    let help = p.help.unwrap();
    assert!(help.starts_with("did you mean `severity`? "), "{help}");
    let p = yaml(&MINIMAL.replace("    severity: must", "    severity: must\n    colour: red"))
        .unwrap_err();
    assert!(!p.help.unwrap().contains("did you mean"), "nothing close");
    assert_eq!(crate::problem::edit_distance("requried", "required"), 2);
}

#[test]
fn every_misspelling_is_reported_with_its_line() {
    let text = MINIMAL
        .replace("    severity: must", "    sevrity: must")
        .replace("id: t\n", "id: t\ntitel: x\n");
    let problems = parse_all(Path::new("c.yaml"), text.as_bytes()).unwrap_err();
    let found: Vec<(Code, Option<&str>)> = problems
        .iter()
        .map(|p| (p.code, p.field.as_deref()))
        .collect();
    assert_eq!(
        found,
        vec![
            (Code::UnknownField, Some("titel")),
            (Code::UnknownField, Some("criteria[0].sevrity")),
        ],
        "{problems:?}"
    );
    assert!(problems.iter().all(|p| p.line.is_some()));
}

#[test]
fn duplicate_keys_are_refused_at_any_depth() {
    let p = yaml("vcc: 1\nid: a\nid: b\n").unwrap_err();
    assert_eq!(p.code, Code::DuplicateKey);
    let text = MINIMAL.replace(
        "targets: [a]",
        "targets: [a]\n    params: { x: { k: 1, k: 2 } }",
    );
    let p = yaml(&text).unwrap_err();
    assert_eq!(p.code, Code::DuplicateKey, "{}", p.message);
    assert!(p.line.is_some());
    let p = parse(Path::new("c.json"), br#"{"vcc": 1, "id": "a", "id": "b"}"#).unwrap_err();
    assert_eq!(p.code, Code::DuplicateKey);
    assert_eq!(p.line, Some(1));
}

#[test]
fn several_documents_tags_and_nan_are_refused() {
    let p = yaml("vcc: 1\n---\nvcc: 1\n").unwrap_err();
    assert_eq!((p.code, p.line), (Code::MultipleDocuments, Some(2)));
    for tagged in [
        "vcc: !evil 1\nid: a\n",
        "vcc: 1\nid: !!python/object a\n",
        "vcc: 1\nid: !!str a\n",
        "vcc: 1\nx: !!set { a }\n",
        "vcc: 1\nx: !<tag:example.com,2000:x> [1]\n",
    ] {
        assert_eq!(yaml(tagged).unwrap_err().code, Code::YamlTag, "{tagged}");
    }
    let p = yaml(&format!("{MINIMAL}x-n: .nan\n")).unwrap_err();
    assert!(p.message.contains("not finite"), "{}", p.message);
}

#[test]
fn alias_bombs_and_deep_nesting_are_refused_not_expanded() {
    let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 0..12 {
        let prev = if i == 0 {
            "a".to_string()
        } else {
            format!("b{}", i - 1)
        };
        bomb.push_str(&format!(
                "b{i}: &b{i} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
            ));
    }
    let p = yaml(&bomb).unwrap_err();
    assert_eq!(p.code, Code::SyntaxError);
    assert!(p.message.contains("aliases expand"), "{}", p.message);
    let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    assert_eq!(yaml(&deep).unwrap_err().code, Code::SyntaxError);
    // Inside a mapping libyaml took 27 s to refuse this; the screen
    // stops at level 129.
    let deep = format!(
        "vcc: 1\nx-deep: {}1{}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let p = yaml(&deep).unwrap_err();
    assert_eq!((p.code, p.line), (Code::SyntaxError, Some(2)));
    // Told by the scanner's own flow limit, or by the screen's.
    assert!(
        p.message.contains("recursion limit") || p.message.contains("deeper than 128"),
        "{}",
        p.message
    );
    let deep = format!("vcc: 1\nx-deep:\n  {}1\n", "- ".repeat(200));
    let p = yaml(&deep).unwrap_err();
    assert_eq!(p.message, "the contract nests deeper than 128 levels");
    // Four megabytes of values nested just under the limit: refused by
    // count before serde_yaml holds them all in memory.
    let unit = format!("{}1{}", "[".repeat(100), "]".repeat(100));
    let wide = format!("vcc: 1\nx-many: [{}]\n", vec![unit; 15_000].join(", "));
    let p = yaml(&wide).unwrap_err();
    assert_eq!(p.code, Code::ContractTooLarge, "{}", p.message);
    let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    assert_eq!(
        parse(Path::new("c.json"), deep.as_bytes())
            .unwrap_err()
            .code,
        Code::SyntaxError
    );
}

#[test]
fn extensions_are_kept_and_params_are_untouched() {
    let text = MINIMAL.replace(
        "targets: [a]",
        "targets: [a]\n    x-owner: docs-team\n    params: { x-keep: 1 }",
    );
    let doc = yaml(&format!("{text}x-top: true\n")).unwrap();
    assert_eq!(doc.contract.extensions["x-top"], Value::Bool(true));
    let c = &doc.contract.criteria[0];
    assert_eq!(c.extensions["x-owner"], Value::from("docs-team"));
    assert_eq!(c.params.as_ref().unwrap()["x-keep"], Value::from(1));
}

#[test]
fn wrong_version_and_empty_file() {
    let p = yaml(&MINIMAL.replace("vcc: 1", "vcc: 2")).unwrap_err();
    assert_eq!(p.code, Code::UnsupportedVersion);
    assert!(p.help.is_some());
    assert_eq!(yaml("").unwrap_err().code, Code::SyntaxError);
    assert_eq!(yaml("id: x\n").unwrap_err().code, Code::MissingField);
}

#[test]
fn oversized_and_missing_files_are_refused_unparsed() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.yaml");
    let mut text = String::from("vcc: 1\nid: big\nx-padding: \"");
    text.push_str(&"a".repeat(MAX_CONTRACT_BYTES as usize));
    text.push_str("\"\n");
    std::fs::write(&big, text).unwrap();
    assert_eq!(load(&big).unwrap_err().code, Code::ContractTooLarge);
    assert_eq!(
        load(&dir.path().join("none.yaml")).unwrap_err().code,
        Code::ContractUnreadable
    );
    assert_eq!(load(dir.path()).unwrap_err().code, Code::ContractUnreadable);
}

#[test]
fn non_utf8_is_refused() {
    let p = parse(Path::new("c.yaml"), b"vcc: 1\nid: \xff\n").unwrap_err();
    assert_eq!(p.code, Code::NotUtf8);
}
