//! The command line: lint, schema, validator list, exit codes, output.

use std::fs;

use serde_json::Value;
use vcc_test_support::{Scratch, fixtures};

use crate::{check_json, repo, vcc};

fn codes(report: &Value) -> Vec<String> {
    report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["code"].as_str().unwrap().to_string())
        .collect()
}

const GOOD: &str = "vcc: 1\nid: t\ndeliverables:\n  - { id: a, path: a.txt }\nvalidators:\n  fx: { component: std/file-exists }\ncriteria:\n  - { id: AC-1, severity: must, validator: fx, targets: [a] }\n";

fn contract(text: &str) -> (Scratch, String) {
    let scratch = Scratch::new();
    scratch.write("a.txt", "present");
    let path = scratch.write("contract.yaml", text);
    (scratch, path.display().to_string())
}

#[test]
fn schema_prints_the_committed_schema() {
    let run = vcc(&["schema"]);
    assert_eq!(run.code, 0);
    let committed = fs::read_to_string(repo().join("contracts/vcc-contract.schema.json")).unwrap();
    assert_eq!(
        run.stdout, committed,
        "contracts/vcc-contract.schema.json is stale: run `cargo run -p vcc -- schema > contracts/vcc-contract.schema.json`"
    );
}

#[test]
fn example_contracts_conform_to_the_schema() {
    let schema: Value = serde_json::from_str(&vcc(&["schema"]).stdout).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for entry in fs::read_dir(repo().join("contracts/examples"))
        .unwrap()
        .flatten()
    {
        let path = entry.path().join("contract.yaml");
        if path.exists() {
            let doc: Value = serde_yaml::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
            let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{}: {errors:?}", path.display());
        }
    }
    // And the schema refuses what lint refuses at the field level.
    let bad: Value =
        serde_yaml::from_str(&GOOD.replace("severity: must", "severity: mustt")).unwrap();
    assert!(!validator.is_valid(&bad));
}

#[test]
fn lint_clean_contract_exits_zero() {
    let (_s, path) = contract(GOOD);
    let run = vcc(&["lint", &path]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("0 error(s), 0 warning(s)"),
        "{}",
        run.stderr
    );
}

#[test]
fn lint_reports_every_structural_problem_with_codes_and_lines() {
    let text = "vcc: 1\nid: t\ndeliverables:\n  - { id: a, path: a.txt, depends_on: [b] }\n  - { id: b, path: ../b.txt, depends_on: [a] }\n  - { id: a, path: /etc/passwd }\nvalidators:\n  fx: { component: std/file-exists }\ncriteria:\n  - { id: AC-1, severity: must, validator: nope, targets: [a, ghost] }\n  - { id: AC-1, severity: should, validator: fx, targets: [b] }\n";
    let (_s, path) = contract(text);
    let run = vcc(&["lint", &path, "--format", "json"]);
    assert_eq!(run.code, 2);
    let report = run.json();
    let codes = codes(&report);
    for code in [
        "DUPLICATE_ID",
        "PATH_ESCAPES_ROOT",
        "PATH_ABSOLUTE",
        "DEPENDENCY_CYCLE",
        "UNKNOWN_VALIDATOR",
        "UNKNOWN_TARGET",
    ] {
        assert!(
            codes.contains(&code.to_string()),
            "{code} missing from {codes:?}"
        );
    }
    let target = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["code"] == "UNKNOWN_TARGET")
        .unwrap();
    assert_eq!(target["field"], "criteria[0].targets[1]");
    assert_eq!(target["line"], 10);
    assert_eq!(target["file"], path);
    // Human output points at file:line:column.
    let human = vcc(&["lint", &path]);
    assert!(
        human.stderr.contains(&format!("{path}:10:")),
        "{}",
        human.stderr
    );
    assert!(
        human.stderr.contains("error[UNKNOWN_TARGET]"),
        "{}",
        human.stderr
    );
}

#[test]
fn lint_refuses_unparseable_contracts() {
    for (text, code) in [
        ("vcc: 1\nid: a\nid: b\n", "DUPLICATE_KEY"),
        ("vcc: 1\n---\nvcc: 1\n", "MULTIPLE_DOCUMENTS"),
        ("vcc: 1\nid: [unclosed\n", "SYNTAX_ERROR"),
        (
            &GOOD.replace("severity: must", "sevrity: must"),
            "UNKNOWN_FIELD",
        ),
        (&GOOD.replace("vcc: 1", "vcc: 7"), "UNSUPPORTED_VERSION"),
    ] {
        let (_s, path) = contract(text);
        let run = vcc(&["lint", &path, "--format", "json"]);
        assert_eq!(run.code, 2, "{text}");
        assert_eq!(codes(&run.json()), vec![code.to_string()], "{text}");
        assert!(
            run.json()["problems"][0]["line"].is_u64(),
            "{text}: no line"
        );
    }
}

#[test]
fn check_of_an_invalid_contract_runs_nothing() {
    let (_s, path) = contract(&GOOD.replace("targets: [a]", "targets: [ghost]"));
    let run = vcc(&["check", &path, "--format", "json"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.json()["verdict"], "invalid");
    assert_eq!(run.json()["criteria"], serde_json::json!([]));
    let (_s, path) = contract("vcc: 1\nid: a\nid: b\n");
    let run = vcc(&["check", &path, "--format", "json"]);
    assert_eq!(run.code, 2);
    assert_eq!(codes(&run.json()), vec!["DUPLICATE_KEY"]);
    let run = vcc(&["check", "/nonexistent/contract.yaml", "--format", "json"]);
    assert_eq!(run.code, 2);
    assert_eq!(codes(&run.json()), vec!["CONTRACT_UNREADABLE"]);
}

#[test]
fn an_unreadable_root_is_invalid() {
    let (_s, path) = contract(GOOD);
    let run = vcc(&[
        "check",
        &path,
        "--dir",
        "/nonexistent/root",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 2);
    assert_eq!(run.json()["verdict"], "invalid");
    assert!(
        run.json()["reason"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/root")
    );
}

#[test]
fn params_are_checked_against_the_validator_schema() {
    let (_s, path) = contract(&GOOD.replace(
        "targets: [a] }",
        "targets: [a], params: { min: -1, colour: red } }",
    ));
    let run = vcc(&["lint", &path, "--format", "json"]);
    assert_eq!(run.code, 2);
    let report = run.json();
    assert_eq!(codes(&report), vec!["INVALID_PARAMS", "INVALID_PARAMS"]);
    let fields: Vec<&str> = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["field"].as_str().unwrap())
        .collect();
    assert!(fields.contains(&"criteria[0].params.min"), "{fields:?}");
    assert!(fields.contains(&"criteria[0].params"), "{fields:?}");
}

#[test]
fn a_pinned_digest_must_match() {
    let wrong = format!("blake3:{}", "0".repeat(64));
    let (_s, path) = contract(&GOOD.replace(
        "std/file-exists }",
        &format!("std/file-exists, digest: \"{wrong}\" }}"),
    ));
    let run = vcc(&["lint", &path, "--format", "json"]);
    assert_eq!(run.code, 2);
    let problem = &run.json()["problems"][0];
    assert_eq!(problem["code"], "UNVERIFIABLE_MUST");
    assert!(problem["message"].as_str().unwrap().contains(&wrong));
    // The right pin is accepted.
    let list = vcc(&["validator", "list", "--format", "json"]).json();
    let right = list
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "std/file-exists")
        .unwrap()["digest"]
        .clone();
    let (_s, path) = contract(&GOOD.replace(
        "std/file-exists }",
        &format!("std/file-exists, digest: {right} }}"),
    ));
    assert_eq!(vcc(&["lint", &path]).code, 0);
}

#[test]
fn zero_must_is_refused_and_advisory_is_never_accepted() {
    let should = GOOD.replace("severity: must", "severity: should");
    let (_s, path) = contract(&should);
    let run = vcc(&["check", &path, "--format", "json"]);
    assert_eq!(run.code, 2);
    assert_eq!(codes(&run.json()), vec!["NO_MUST"]);

    let (_s, path) = contract(&should.replace("id: t\n", "id: t\nadvisory: true\n"));
    let run = vcc(&["check", &path, "--format", "json"]);
    assert_eq!(run.code, 1, "advisory contracts never exit 0 by default");
    assert_eq!(run.json()["verdict"], "advisory");
    assert_eq!(run.criterion("AC-1")["status"], "pass");
    let run = vcc(&["check", &path, "--allow-advisory"]);
    assert_eq!(run.code, 0);
}

#[test]
fn should_and_may_do_not_change_the_verdict() {
    let text = format!(
        "{GOOD}  - {{ id: AC-2, severity: should, validator: bad, targets: [a] }}\n  - {{ id: AC-3, severity: may, validator: missing, targets: [a] }}\n"
    )
    .replace(
        "validators:\n",
        &format!(
            "validators:\n  bad: {{ component: {:?} }}\n  missing: {{ component: /nonexistent-vcc-folder/not-there.wasm }}\n",
            fixtures::ALWAYS_FAIL
        ),
    );
    let (_s, path) = contract(&text);
    let run = check_json(path.as_ref(), &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json()["verdict"], "accepted");
    assert_eq!(run.criterion("AC-2")["status"], "fail");
    let missing = run.criterion("AC-3");
    assert_eq!(missing["status"], "error");
    assert_eq!(missing["reason"], "validator_unavailable");
    assert!(
        missing["summary"]
            .as_str()
            .unwrap()
            .contains("not-there.wasm")
    );
    // The unusable MAY validator is a lint warning, not an error.
    assert!(codes(&run.json()).contains(&"UNVERIFIABLE_CRITERION".to_string()));
}

#[test]
fn validator_list_shows_the_embedded_validators() {
    let run = vcc(&["validator", "list"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("std/file-exists") && l.contains("0.1.0")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("std/json-schema") && l.contains("JSON Schema")),
        "{lines:?}"
    );
    let json = vcc(&["validator", "list", "--format", "json"]).json();
    for v in json.as_array().unwrap() {
        assert_eq!(v["wit_version"], "0.1.2");
        assert_eq!(v["params_schema"]["type"], "object");
    }
}

#[test]
fn terminal_escapes_from_validators_and_file_names_are_neutralised() {
    let scratch = Scratch::new();
    scratch.write("out/\x1b[31mred\x07.md", "x");
    let path = scratch.write(
        "contract.yaml",
        format!(
            "vcc: 1\nid: t\ndeliverables:\n  - {{ id: a, path: \"*.md\" }}\nvalidators:\n  v: {{ component: {:?} }}\ncriteria:\n  - {{ id: AC-1, severity: must, validator: v, targets: [a] }}\n",
            fixtures::ALWAYS_FAIL
        ),
    );
    let out = scratch.path().join("out");
    let run = vcc(&[
        "check",
        path.to_str().unwrap(),
        "--dir",
        out.to_str().unwrap(),
        "--color",
        "never",
    ]);
    assert_eq!(run.code, 1);
    assert!(
        !run.stderr.contains('\x1b') && !run.stderr.contains('\x07'),
        "{:?}",
        run.stderr
    );
    assert!(
        run.stderr.contains("\\u{1b}[31mred\\u{7}.md"),
        "{}",
        run.stderr
    );
    // JSON keeps the exact name, escaped by JSON rules.
    let json = check_json(&path, &["--dir", out.to_str().unwrap()]);
    assert_eq!(
        json.criterion("AC-1")["findings"][0]["path"],
        "\x1b[31mred\x07.md"
    );
    assert!(!json.stdout.contains('\x1b'));
}

#[test]
fn colour_is_only_used_when_asked() {
    let (_s, path) = contract(GOOD);
    let plain = vcc(&["check", &path, "--color", "never"]);
    assert!(!plain.stderr.contains('\x1b'));
    let coloured = vcc(&["check", &path, "--color", "always"]);
    assert!(
        coloured.stderr.contains("\x1b[32mPASS"),
        "{}",
        coloured.stderr
    );
}

#[test]
fn usage_errors_exit_two() {
    assert_eq!(vcc(&["check"]).code, 2);
    assert_eq!(vcc(&["frobnicate"]).code, 2);
    assert_eq!(vcc(&["--version"]).code, 0);
}

#[test]
fn json_contracts_are_read_too() {
    let scratch = Scratch::new();
    scratch.write("a.txt", "present");
    let path = scratch.write(
        "contract.json",
        r#"{"vcc": 1, "id": "t", "deliverables": [{"id": "a", "path": "a.txt"}],
           "validators": {"fx": {"component": "std/file-exists"}},
           "criteria": [{"id": "AC-1", "severity": "must", "validator": "fx", "targets": ["a"]}]}"#,
    );
    let run = check_json(&path, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json()["verdict"], "accepted");
}

#[test]
fn an_empty_required_deliverable_fails_file_exists() {
    let (s, path) = contract(GOOD);
    s.write("a.txt", "");
    let run = check_json(path.as_ref(), &[]);
    assert_eq!(run.code, 1);
    let c = run.criterion("AC-1");
    assert_eq!(c["status"], "fail");
    assert_eq!(c["findings"][0]["rule"], "empty");
    fs::remove_file(s.path().join("a.txt")).unwrap();
    let run = check_json(path.as_ref(), &[]);
    assert_eq!(run.criterion("AC-1")["reason"], "missing_deliverable");
}

/// A contract over `out/` with one MUST criterion using a std validator.
fn std_contract(validator: &str, path: &str, params: &str) -> (Scratch, String) {
    let scratch = Scratch::new();
    let text = format!(
        "vcc: 1\nid: t\ndeliverables:\n  - {{ id: a, path: {path:?} }}\n  - {{ id: schema, path: schema.yaml, required: false }}\nvalidators:\n  v: {{ component: {validator} }}\ncriteria:\n  - {{ id: AC-1, severity: must, validator: v, targets: [a], params: {params} }}\n  - {{ id: AC-2, severity: may, validator: v, targets: [schema], params: {params} }}\n"
    );
    let path = scratch.write("contract.yaml", text);
    (scratch, path.display().to_string())
}

#[test]
fn file_exists_params_glob_min_max_allow_empty() {
    let (s, path) = std_contract(
        "std/file-exists",
        "docs",
        "{ glob: \"docs/*.md\", min: 2, max: 3 }",
    );
    s.write("docs/a.md", "a");
    s.write("docs/notes.txt", "not counted");
    let run = check_json(path.as_ref(), &[]);
    assert_eq!(run.code, 1);
    let f = &run.criterion("AC-1")["findings"][0];
    assert_eq!(f["rule"], "min-count");
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("1 files matching `docs/*.md`"),
        "{f}"
    );
    s.write("docs/sub/deep.md", "`*` does not cross `/`");
    assert_eq!(check_json(path.as_ref(), &[]).code, 1);
    s.write("docs/b.md", "b");
    assert_eq!(check_json(path.as_ref(), &[]).code, 0);
    s.write("docs/c.md", "c");
    s.write("docs/d.md", "d");
    let run = check_json(path.as_ref(), &[]);
    assert_eq!(run.criterion("AC-1")["findings"][0]["rule"], "max-count");
    // Empty files fail unless allowed.
    let (s, path) = std_contract("std/file-exists", "e.txt", "{}");
    s.write("e.txt", "");
    assert_eq!(check_json(path.as_ref(), &[]).code, 1);
    let (s, path) = std_contract("std/file-exists", "e.txt", "{ allow_empty: true }");
    s.write("e.txt", "");
    assert_eq!(check_json(path.as_ref(), &[]).code, 0);
    // Contradictory params are a contract bug, found before any run.
    let (s, path) = std_contract("std/file-exists", "e.txt", "{ min: 3, max: 1 }");
    s.write("e.txt", "x");
    let run = check_json(path.as_ref(), &[]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    let problem = &run.json()["problems"][0];
    assert_eq!(problem["code"], "INVALID_PARAMS");
    assert_eq!(problem["field"], "criteria[0].params.max");
}

#[test]
fn json_schema_reads_yaml_and_schema_deliverables() {
    let params = "{ schema_deliverable: schema }";
    let (s, path) = std_contract("std/json-schema", "conf/*.yaml", params);
    s.write(
        "schema.yaml",
        "type: object\nrequired: [name]\nproperties: { name: { type: string } }\n",
    );
    s.write("conf/good.yaml", "name: vcc\n");
    let run = check_json(path.as_ref(), &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        run.criterion("AC-1")["summary"],
        "1 file(s) valid against the schema"
    );
    s.write("conf/bad.yaml", "name: [1, 2]\n");
    s.write("conf/broken.yaml", "name: ok\n  indented: wrong\n");
    let run = check_json(path.as_ref(), &[]);
    assert_eq!(run.code, 1);
    let findings = run.criterion("AC-1")["findings"]
        .as_array()
        .unwrap()
        .clone();
    let bad = findings
        .iter()
        .find(|f| f["path"] == "conf/bad.yaml")
        .unwrap();
    assert_eq!(bad["rule"], "type");
    let broken = findings
        .iter()
        .find(|f| f["path"] == "conf/broken.yaml")
        .unwrap();
    assert_eq!(broken["rule"], "parse");
    assert_eq!(broken["line"], 2);
    // Two schema sources at once are refused by lint, naming the field.
    let (_s, path) = std_contract(
        "std/json-schema",
        "x.json",
        "{ schema: {}, schema_file: s.json }",
    );
    let run = vcc(&["lint", &path, "--format", "json"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.json()["problems"][0]["code"], "INVALID_PARAMS");
}
