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
        assert_eq!(v["wit_version"], "0.1.4");
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
        run.stderr.contains("\\u001b[31mred\\u0007.md"),
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

#[test]
fn completions_load_in_bash_and_name_every_command() {
    let run = vcc(&["completions", "bash"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for command in ["check", "converge", "hook", "mcp", "bundle", "completions"] {
        assert!(run.stdout.contains(command), "{command} missing");
    }
    // bash itself loads the script and registers the completion.
    let scratch = Scratch::new();
    let script = scratch.write("vcc.bash", &run.stdout);
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!("source {} && complete -p vcc", script.display()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("vcc"));
    for shell in ["zsh", "fish", "powershell", "elvish"] {
        let run = vcc(&["completions", shell]);
        assert_eq!(run.code, 0, "{shell}: {}", run.stderr);
        assert!(run.stdout.contains("converge"), "{shell}");
    }
    assert_eq!(
        vcc(&["completions", "tcsh"]).code,
        2,
        "an unknown shell is a usage error"
    );
}

#[test]
fn the_man_page_renders_with_groff() {
    let run = vcc(&["man"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains(".TH vcc 1"), "not roff: {}", run.stdout);
    let scratch = Scratch::new();
    let page = scratch.write("vcc.1", &run.stdout);
    let out = std::process::Command::new("groff")
        .args(["-man", "-Tutf8"])
        .arg(&page)
        .output();
    // groff is the independent reader where it is installed.
    if let Ok(out) = out {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("converge"), "{text}");
    }
}

#[test]
fn a_command_without_the_separator_gets_a_hint() {
    let scratch = Scratch::new();
    let run = crate::vcc_in(
        scratch.path(),
        &["record", "--out", "run.json", "echo", "hi"],
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("hint: the command goes after `--`"),
        "{}",
        run.stderr
    );
    assert!(!scratch.path().join("run.json").exists());
}

#[test]
fn id_and_digest_help_say_what_is_allowed() {
    let (_s, path) = contract(&GOOD.replace("id: t\n", "id: a:b\n"));
    let run = vcc(&["lint", &path, "--format", "json"]);
    let p = &run.json()["problems"][0];
    assert_eq!(p["code"], "INVALID_ID");
    let help = p["help"].as_str().unwrap();
    assert!(
        help.contains("`.`, `_` and `-`") && !help.contains("`:`"),
        "{help}"
    );
    let (_s, path) = contract(&GOOD.replace(
        "{ component: std/file-exists }",
        "{ component: std/file-exists, digest: 'blake3:12' }",
    ));
    let run = vcc(&["lint", &path, "--format", "json"]);
    let p = run.json()["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["code"] == "INVALID_DIGEST")
        .cloned()
        .unwrap();
    assert!(
        p["help"]
            .as_str()
            .unwrap()
            .contains("vcc validator inspect"),
        "{p}"
    );
    assert_eq!(
        codes(&run.json()),
        vec!["INVALID_DIGEST"],
        "one problem, not two"
    );
}

#[test]
fn a_contract_in_a_subfolder_names_its_root_and_a_wrong_folder_gets_a_hint() {
    let scratch = Scratch::new();
    scratch.write("a.txt", "present");
    let ci = scratch.write("ci/contract.yaml", GOOD);
    // The contract's own folder holds nothing it asks for: say where vcc looked.
    let run = check_json(&ci, &[]);
    assert_eq!(run.code, 1);
    let reason = run.json()["reason"].as_str().unwrap().to_string();
    let looked = fs::canonicalize(scratch.path().join("ci")).unwrap();
    assert!(
        reason.contains(&format!(
            "no deliverable a MUST needs was found under {}",
            looked.display()
        )) && reason.contains("--dir ROOT")
            && reason.contains("`root:`"),
        "{reason}"
    );
    // `root: ..` makes the repository the root.
    scratch.write(
        "ci/contract.yaml",
        GOOD.replace("id: t\n", "id: t\nroot: ..\n"),
    );
    let run = check_json(&ci, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let report = run.json();
    assert_eq!(
        report["deliverables"]["root_absolute"],
        fs::canonicalize(scratch.path())
            .unwrap()
            .display()
            .to_string()
    );
    let absolute = report["contract"]["absolute_path"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(std::path::Path::new(&absolute).is_absolute());
    assert_eq!(
        report["contract"]["path"],
        ci.display().to_string(),
        "as typed"
    );
    // --dir overrides it.
    let empty = Scratch::new();
    let run = check_json(&ci, &["--dir", empty.path().to_str().unwrap()]);
    assert_eq!(run.code, 1);
    // An absolute root would tie the contract to one machine.
    scratch.write(
        "ci/contract.yaml",
        GOOD.replace("id: t\n", "id: t\nroot: /srv/x\n"),
    );
    let run = vcc(&["lint", ci.to_str().unwrap(), "--format", "json"]);
    assert_eq!(run.code, 2);
    assert_eq!(codes(&run.json()), vec!["PATH_ABSOLUTE"]);
}

#[test]
fn human_output_shows_what_a_failing_criterion_asks_and_how_to_fix_it() {
    let scratch = Scratch::new();
    let path = scratch.write(
        "contract.yaml",
        GOOD.replace(
            "targets: [a] }",
            "targets: [a], description: The notes exist., on_fail: { prompt: Write a.txt. } }",
        ),
    );
    let run = vcc(&["check", path.to_str().unwrap()]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("criterion: The notes exist."),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("to fix: Write a.txt."),
        "{}",
        run.stderr
    );
}

#[test]
fn parameters_are_shown_as_a_table_and_a_readable_schema() {
    let run = vcc(&["validator", "inspect", "std/tool-calls"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let forbidden = run
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("forbidden "))
        .unwrap_or_else(|| panic!("no forbidden row:\n{}", run.stdout));
    assert!(
        forbidden.contains("array of string")
            && forbidden.contains("tools that must not be called"),
        "{forbidden}"
    );
    assert!(
        run.stdout.contains("params schema\n  {\n"),
        "{}",
        run.stdout
    );
    let run = vcc(&["validator", "list", "--params"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let tables = run
        .stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("NAME "))
        .count();
    let validators = vcc(&["validator", "list"]).stdout.lines().count();
    assert_eq!(
        tables, validators,
        "one table per validator:\n{}",
        run.stdout
    );
}

#[test]
fn several_contracts_are_checked_and_the_worst_exit_code_wins() {
    let (scratch, good) = contract(GOOD);
    let bad = scratch.write("bad.yaml", GOOD.replace("path: a.txt", "path: missing.txt"));
    let bad = bad.to_str().unwrap();
    let run = vcc(&["check", &good, bad, "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let reports = run.json();
    let verdicts: Vec<&str> = reports
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts, ["accepted", "rejected"]);
    assert_eq!(vcc(&["check", &good, &good]).code, 0);
    let report = scratch.path().join("r.json");
    let run = vcc(&["check", &good, bad, "--report", report.to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("--report keeps the report of one contract"),
        "{}",
        run.stderr
    );
}

#[test]
fn only_runs_the_named_criteria_and_is_never_accepted() {
    let two = format!("{GOOD}  - {{ id: AC-2, severity: must, validator: fx, targets: [b] }}\n")
        .replace(
            "  - { id: a, path: a.txt }\n",
            "  - { id: a, path: a.txt }\n  - { id: b, path: missing.txt }\n",
        );
    let (_s, path) = contract(&two);
    let run = check_json(std::path::Path::new(&path), &["--only", "AC-1"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let r = run.json();
    assert_eq!(r["verdict"], "withheld");
    assert_eq!(r["partial"], serde_json::json!(["AC-1"]));
    assert_eq!(r["criteria"].as_array().unwrap().len(), 1);
    assert!(
        r["reason"]
            .as_str()
            .unwrap()
            .contains("a partial run is never accepted")
    );
    let run = check_json(std::path::Path::new(&path), &["--only", "AC-2"]);
    assert_eq!(run.json()["verdict"], "rejected");
    assert!(
        run.json()["reason"]
            .as_str()
            .unwrap()
            .starts_with("a partial run (--only AC-2)")
    );
    let run = check_json(std::path::Path::new(&path), &["--only", "AC-1,NOPE"]);
    assert_eq!(run.code, 2);
    let message = run.json()["problems"][0]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.contains("--only NOPE: no such criterion (the contract has: AC-1, AC-2)"),
        "{message}"
    );
}

/// A problem about a criterion `--only` keeps points at that criterion in
/// the file, not at the one its place in the run's list has there (once:
/// `criteria[0]`, line 9).
#[test]
fn only_keeps_problems_pointing_at_the_criterions_own_text() {
    let two = format!(
        "{GOOD}  - {{ id: AC-2, severity: must, validator: md, targets: [a], params: {{ required: 5 }} }}\n"
    )
    .replace(
        "validators:\n",
        "validators:\n  md: { component: std/markdown-sections }\n",
    );
    let (_s, path) = contract(&two);
    let run = check_json(std::path::Path::new(&path), &["--only", "AC-2"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    let report = run.json();
    let p = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["level"] == "error")
        .unwrap();
    assert_eq!(
        (p["code"].as_str(), p["field"].as_str(), p["line"].as_u64()),
        (
            Some("INVALID_PARAMS"),
            Some("criteria[1].params.required"),
            Some(10)
        ),
        "{p:#}"
    );
}

#[test]
fn init_writes_a_starter_contract_that_lints_and_judges_the_folder() {
    let scratch = Scratch::new();
    scratch.write("README.md", "# Tool\n\n## Usage\n\nRun it.\n");
    scratch.write("CHANGELOG.md", "# Changes\n\n- first release\n");
    scratch.write("tests/a.rs", "#[test] fn a() {}\n");
    scratch.write("data.json", "{\"a\": 1}\n");
    let dir = scratch.path().to_str().unwrap();
    let run = vcc(&["init", "--dir", dir]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let contract = scratch.path().join("vcc.yaml");
    let text = fs::read_to_string(&contract).unwrap();
    assert!(text.starts_with("# yaml-language-server: $schema=.vcc/vcc-contract.schema.json\n"));
    for id in ["README", "CHANGELOG-DONE", "TESTS", "JSON-PARSES"] {
        assert!(text.contains(&format!("id: {id}")), "{id}:\n{text}");
    }
    let schema: Value = serde_json::from_slice(
        &fs::read(scratch.path().join(".vcc/vcc-contract.schema.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(schema, vcc(&["schema"]).json());
    let run = vcc(&["lint", contract.to_str().unwrap(), "--format", "json"]);
    assert_eq!(run.json()["errors"], 0, "{}", run.stdout);
    let run = check_json(&contract, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    // An existing contract is kept unless asked.
    assert_eq!(vcc(&["init", "--dir", dir]).code, 2);
    // Every template lints without errors, in an empty folder too.
    for template in ["software", "research", "agent"] {
        let empty = Scratch::new();
        let d = empty.path().to_str().unwrap();
        assert_eq!(vcc(&["init", "--dir", d, "--template", template]).code, 0);
        let c = empty.path().join("vcc.yaml");
        let run = vcc(&["lint", c.to_str().unwrap(), "--format", "json"]);
        assert_eq!(run.json()["errors"], 0, "{template}: {}", run.stdout);
    }
}

#[test]
fn record_help_lists_only_what_record_uses() {
    let run = vcc(&["record", "--help"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("--inputs"), "{}", run.stdout);
    for unrelated in ["--cache-dir", "--no-cache", "--color"] {
        assert!(!run.stdout.contains(unrelated), "{}", run.stdout);
    }
    // The global flags still work on the commands that use them.
    let run = vcc(&["check", "--help"]);
    assert!(run.stdout.contains("--cache-dir"), "{}", run.stdout);
}

#[test]
fn lint_reports_every_misspelling_with_its_line() {
    let scratch = vcc_test_support::Scratch::new();
    let mut text = String::from(
        "vcc: 1\nid: typos\ntitel: x\ndeliverables:\n  - { id: a, path: a.md, requried: true }\nvalidators:\n  exists: { component: std/file-exists, digset: x }\ncriteria:\n",
    );
    for i in 0..7 {
        text.push_str(&format!(
            "  - {{ id: c{i}, severity: MUST, validator: exists, targets: [a] }}\n"
        ));
    }
    let contract = scratch.write("c.yaml", text);
    let run = vcc(&["lint", contract.to_str().unwrap(), "--format", "json"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let problems = run.json()["problems"].as_array().unwrap().clone();
    let found: Vec<(String, String, u64)> = problems
        .iter()
        .map(|p| {
            (
                p["code"].as_str().unwrap().to_string(),
                p["field"].as_str().unwrap_or("").to_string(),
                p["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let mut expected = vec![
        ("UNKNOWN_FIELD".to_string(), "titel".to_string(), 3),
        ("UNKNOWN_FIELD".into(), "deliverables[0].requried".into(), 5),
        ("UNKNOWN_FIELD".into(), "validators.exists.digset".into(), 7),
    ];
    for i in 0..7 {
        expected.push((
            "INVALID_VALUE".into(),
            format!("criteria[{i}].severity"),
            9 + i as u64,
        ));
    }
    assert_eq!(found, expected, "{problems:?}");
    assert_eq!(
        problems[1]["help"].as_str().unwrap().split('?').next(),
        Some("did you mean `required`")
    );
    assert_eq!(problems[3]["help"], "did you mean `must`?");
}

#[test]
fn params_errors_say_what_to_write() {
    let scratch = vcc_test_support::Scratch::new();
    let contract = scratch.write(
        "c.yaml",
        "vcc: 1\nid: params\ndeliverables:\n  - { id: a, path: a.md }\n  - { id: t, path: t.jsonl }\nvalidators:\n  text: { component: std/text-match }\n  calls: { component: std/tool-calls }\ncriteria:\n  - { id: c1, severity: must, validator: text, targets: [a], params: { must_match: [x], case_insensitve: true } }\n  - { id: c2, severity: must, validator: calls, targets: [t], params: { tool: web_search } }\n  - { id: c3, severity: must, validator: calls, targets: [t], params: { required: [{ tool: web_search }] } }\n",
    );
    let run = vcc(&["lint", contract.to_str().unwrap(), "--format", "json"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let messages: Vec<String> = run.json()["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let m = p["message"].as_str().unwrap();
            m.split("refuses its params: ")
                .nth(1)
                .unwrap_or(m)
                .to_string()
        })
        .collect();
    assert_eq!(
        messages,
        vec![
            "unknown parameter `case_insensitve`; did you mean `case_insensitive`? allowed: `allow_empty`, `case_insensitive`, `confusables`, `files`, `must_match`, `must_not_match`, `normalize`",
            "unknown parameter `tool`; allowed: `allow_empty`, `forbidden`, `order`, `required`",
            "needs one of `required`, `forbidden`, `order`",
            "unknown parameter `tool`; allowed: `args`, `max`, `min`, `name`; missing parameter `name`",
        ]
    );
    for m in &messages {
        assert!(!m.contains("is not valid under any of the schemas"), "{m}");
    }
}

/// `vcc ARGS` with a pseudo-terminal as stdout and stderr (util-linux
/// `script`), with a fresh cache: what a person at a terminal sees. What
/// the terminal has shown so far is in `seen` while it runs.
fn at_a_terminal(
    cache: &std::path::Path,
    env: &[(&str, &str)],
    args: &[&str],
    seen: &std::sync::Arc<std::sync::Mutex<String>>,
) -> String {
    use std::io::Read as _;
    let command = std::iter::once(env!("CARGO_BIN_EXE_vcc"))
        .chain(args.iter().copied())
        .map(|a| format!("'{a}'"))
        .collect::<Vec<_>>()
        .join(" ");
    seen.lock().unwrap().clear();
    let mut child = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("VCC_CACHE_DIR", cache)
        .env("NO_COLOR", "1")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("util-linux `script` runs");
    let mut stdout = child.stdout.take().unwrap();
    let mut buf = [0u8; 4096];
    while let Ok(n) = stdout.read(&mut buf) {
        if n == 0 {
            break;
        }
        seen.lock()
            .unwrap()
            .push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    child.wait().unwrap();
    seen.lock().unwrap().clone()
}

#[test]
fn progress_is_shown_on_a_terminal_and_nowhere_else() {
    use vcc_test_support::judge_server::{JudgeServer, Reply};
    let scratch = vcc_test_support::Scratch::new();
    scratch.write("out/flag.txt", "BAD\n");
    // The criterion `slow-one` is still running when the progress line is
    // drawn, by construction: its judge (on loopback) answers only once
    // the terminal has shown `judging slow-one`. It never answers sooner,
    // however fast the machine; the wait only bounds a failure.
    let seen = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let shown = seen.clone();
    let server = JudgeServer::start(move |_, n| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while n == 0
            && !shown.lock().unwrap().contains("judging slow-one")
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        Reply::Score(5.0, "clear".into())
    });
    scratch.write(
        "judges.yaml",
        format!(
            "judges: 1\nendpoints:\n  - {{ id: loop, provider: openai-compatible, url: '{}', key_env: VCC_TEST_JUDGE_KEY }}\n",
            server.url
        ),
    );
    let contract = scratch.write(
        "c.yaml",
        "vcc: 1\nid: progress\nroot: out\ndeliverables:\n  - { id: flag, path: flag.txt }\njudges:\n  editor: { provider: openai-compatible, model: test-model, params: { temperature: 0, seed: 7 } }\nvalidators:\n  exists: { component: std/file-exists }\n  rubric: { component: std/rubric }\ncriteria:\n  - { id: present, severity: must, validator: exists, targets: [flag] }\n  - { id: slow-one, severity: should, validator: rubric, targets: [flag], judges: [editor], params: { rubric: { id: R1, question: Is it clear?, anchors: { '1': no, '5': yes } }, threshold: 4 } }\n",
    );
    let contract = contract.to_str().unwrap();
    let judges = scratch.path().join("judges.yaml");
    let judges = judges.to_str().unwrap();
    let env = [("VCC_TEST_JUDGE_KEY", "sk-test")];
    let cache = tempfile::tempdir().unwrap();
    let human = at_a_terminal(
        cache.path(),
        &env,
        &["check", contract, "--judges", judges],
        &seen,
    );
    assert!(human.contains("judging slow-one"), "{human:?}");
    assert!(human.contains("verdict: ACCEPTED"), "{human:?}");
    let asked = server.received().len();
    // The same run for a machine, and into a pipe: no progress line. (The
    // judge's answer is cached now, so these runs wait for nothing.)
    let json = at_a_terminal(
        cache.path(),
        &env,
        &["check", contract, "--judges", judges, "--format", "json"],
        &seen,
    );
    assert!(!json.contains("judging slow-one"), "{json:?}");
    assert!(json.contains("\"verdict\": \"accepted\""), "{json:?}");
    let piped = std::process::Command::new(env!("CARGO_BIN_EXE_vcc"))
        .args(["check", contract, "--judges", judges])
        .env("VCC_CACHE_DIR", cache.path())
        .envs(env)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&piped.stderr);
    assert_eq!(piped.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("judging slow-one"), "{stderr}");
    assert!(!stderr.contains('\r'), "{stderr:?}");
    assert_eq!(
        server.received().len(),
        asked,
        "the later runs' answers were cached"
    );
}

/// `vcc check --watch --format json` with `args`, and what it prints so
/// far (read on a thread of its own).
fn watching(
    args: &[&str],
) -> (
    std::process::Child,
    std::sync::Arc<std::sync::Mutex<String>>,
) {
    use std::io::Read as _;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_vcc"))
        .args(["check", "--watch", "--format", "json"])
        .args(args)
        .env("VCC_CACHE_DIR", crate::shared_cache())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let out = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let mut stdout = child.stdout.take().unwrap();
    let sink = out.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
    (child, out)
}

/// Reports `vcc check --watch --format json` has printed so far.
fn verdicts(out: &std::sync::Mutex<String>) -> Vec<String> {
    out.lock()
        .unwrap()
        .lines()
        .filter_map(|l| l.trim().strip_prefix("\"verdict\": \""))
        .map(|v| v.trim_end_matches("\",").to_string())
        .collect()
}

fn wait_for_reports(out: &std::sync::Mutex<String>, n: usize) -> Vec<String> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while verdicts(out).len() < n && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    verdicts(out)
}

#[test]
fn watch_checks_again_when_deliverables_or_the_contract_change() {
    let scratch = vcc_test_support::Scratch::new();
    std::fs::create_dir_all(scratch.path().join("out")).unwrap();
    let text = "vcc: 1\nid: watch\nroot: out\nexclude: [\"*.log\"]\ndeliverables: [{ id: notes, path: NOTES.md }]\nvalidators: { exists: { component: std/file-exists } }\ncriteria: [{ id: notes, severity: must, validator: exists, targets: [notes] }]\n";
    let contract = scratch.write("c.yaml", text);
    let (mut child, out) = watching(&[contract.to_str().unwrap()]);
    // Each change arrives whole (written elsewhere, renamed into place):
    // a write the watcher could see half done, on a loaded machine, would
    // be a run of its own.
    let elsewhere = tempfile::tempdir_in(scratch.path().parent().unwrap()).unwrap();
    let put = |rel: &str, text: &str| {
        let tmp = elsewhere.path().join("next");
        std::fs::write(&tmp, text).unwrap();
        std::fs::rename(&tmp, scratch.path().join(rel)).unwrap();
    };
    assert_eq!(wait_for_reports(&out, 1), ["rejected"]);
    // An excluded file is not a change (a second report within a second
    // would show it was); the deliverable is.
    put("out/build.log", "compiling\n");
    std::thread::sleep(std::time::Duration::from_secs(1));
    put("out/NOTES.md", "# Notes\n");
    assert_eq!(wait_for_reports(&out, 2), ["rejected", "accepted"]);
    // So is the contract.
    put("c.yaml", &text.replace("NOTES.md", "CHANGES.md"));
    let seen = wait_for_reports(&out, 3);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(seen, ["rejected", "accepted", "rejected"]);
}

/// The run's own report files, written inside the watched root, are no
/// change: each is written through a temporary file beside it, and
/// watching those made every run start the next (about three a second).
#[test]
fn watch_is_not_woken_by_its_own_report_files() {
    let scratch = vcc_test_support::Scratch::new();
    let text = "vcc: 1\nid: watch\ndeliverables: [{ id: notes, path: NOTES.md }]\nvalidators: { exists: { component: std/file-exists } }\ncriteria: [{ id: notes, severity: must, validator: exists, targets: [notes] }]\n";
    let contract = scratch.write("c.yaml", text);
    let junit = scratch.path().join("ci/junit.xml");
    let (mut child, out) = watching(&[
        contract.to_str().unwrap(),
        "--report-junit",
        junit.to_str().unwrap(),
    ]);
    assert_eq!(wait_for_reports(&out, 1), ["rejected"]);
    // A run's writes would have started the next well within this.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let seen = verdicts(&out);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(seen, ["rejected"]);
    assert!(junit.exists());
}
