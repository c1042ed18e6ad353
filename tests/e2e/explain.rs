//! `vcc explain`: the contract as the worker's brief, in three forms, the
//! same bytes every time; and where it is used (converge's first feedback
//! and `$VCC_BRIEF`).

use serde_json::Value;
use vcc_test_support::Scratch;

use crate::{repo, vcc};

/// The prompt form of the release-notes example, byte for byte
/// (`tests/e2e/golden/explain-release-notes.txt`; `VCC_UPDATE_GOLDEN=1`
/// writes it again).
#[test]
fn the_prompt_brief_of_an_example_is_pinned() {
    let contract = repo().join("contracts/examples/release-notes/contract.yaml");
    let run = vcc(&["explain", contract.to_str().unwrap(), "--format", "prompt"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Paths in the brief are as given; make them repo-relative.
    let text = run.stdout.replace(&format!("{}/", repo().display()), "");
    let golden = repo().join("tests/e2e/golden/explain-release-notes.txt");
    if std::env::var_os("VCC_UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &text).unwrap();
    }
    assert_eq!(text, std::fs::read_to_string(&golden).unwrap());
    // Words, never JSON.
    assert!(!text.contains("{\""), "{text}");
    let again = vcc(&["explain", contract.to_str().unwrap(), "--format", "prompt"]);
    assert_eq!(again.stdout, run.stdout, "the brief must be deterministic");
}

#[test]
fn markdown_and_json_carry_every_criterion_in_order() {
    let contract = repo().join("contracts/examples/release-notes/contract.yaml");
    let md = vcc(&["explain", contract.to_str().unwrap()]);
    assert_eq!(md.code, 0, "{}", md.stderr);
    assert!(
        md.stdout.starts_with(
            "# Contract `release-notes`: Release notes and API description are complete\n"
        ),
        "{}",
        md.stdout
    );
    let (a, b, c) = (
        md.stdout.find("### 1. AC-1 (MUST)").unwrap(),
        md.stdout.find("### 2. AC-2 (MUST)").unwrap(),
        md.stdout.find("### 3. AC-3 (SHOULD)").unwrap(),
    );
    assert!(a < b && b < c);
    assert!(md.stdout.contains(
        "If it fails: Make api/openapi.json validate against schemas/openapi-min.schema.json."
    ));
    let json = vcc(&["explain", contract.to_str().unwrap(), "--format", "json"]);
    let doc: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(doc["brief"], 1);
    assert_eq!(doc["criteria"].as_array().unwrap().len(), 3);
    assert_eq!(doc["criteria"][1]["checked_by"], "std/json-schema");
    assert_eq!(doc["criteria"][1]["targets"][0], "api (api/openapi.json)");
}

#[test]
fn what_only_evidence_from_elsewhere_can_satisfy_is_said() {
    let s = Scratch::new();
    s.write(
        "c.yaml",
        "vcc: 1\nid: t\ndeliverables:\n  - { id: rec, path: build.record.json }\n  - { id: log, path: .vcc/transcript.jsonl, required: false }\nvalidators:\n  rec: { component: std/exit-record }\n  calls: { component: std/tool-calls }\ncriteria:\n  - { id: BUILT, severity: must, validator: rec, targets: [rec], params: { require_signed: true } }\n  - { id: TESTED, severity: must, validator: calls, targets: [log], params: { required: [{ name: Bash }] } }\n",
    );
    let run = vcc(&[
        "explain",
        s.path().join("c.yaml").to_str().unwrap(),
        "--format",
        "prompt",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("Needs: a command record written by `vcc record -- CMD`"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("you cannot sign it yourself"));
    assert!(run.stdout.contains("Needs: the agent's transcript"));
}

#[test]
fn a_contract_that_cannot_be_read_is_exit_2_and_says_so() {
    let s = Scratch::new();
    s.write(
        "c.yaml",
        "vcc: 1\nid: t\ncriteria: [{ id: A, severity: mustt }]\n",
    );
    let run = vcc(&["explain", s.path().join("c.yaml").to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr.contains("fails lint, so it has no brief"),
        "{}",
        run.stderr
    );
}

/// `vcc init --agents`: the vcc section of AGENTS.md and a SKILL.md, from
/// the contract; run again, the section is replaced, the rest kept.
#[test]
fn init_agents_writes_the_section_and_the_skill_from_the_contract() {
    let s = Scratch::new();
    let dir = s.path().to_str().unwrap().to_string();
    let made = vcc(&["init", "--template", "agent", "--dir", &dir]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    s.write("AGENTS.md", "# AGENTS.md\n\nUse tabs.\n");
    let run = vcc(&["init", "--agents", "--dir", &dir]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let agents = std::fs::read_to_string(s.path().join("AGENTS.md")).unwrap();
    assert!(agents.starts_with("# AGENTS.md\n\nUse tabs.\n"), "{agents}");
    assert!(
        agents.contains("## Checking your work with vcc"),
        "{agents}"
    );
    assert!(agents.contains("Run `vcc check vcc.yaml`"), "{agents}");
    assert!(agents.contains("1. [MUST] "), "{agents}");
    assert!(!agents.contains(&dir), "commands are relative: {agents}");
    let skill =
        std::fs::read_to_string(s.path().join(".agents/skills/vcc-check/SKILL.md")).unwrap();
    let front = skill
        .strip_prefix("---\n")
        .and_then(|r| r.split_once("\n---\n"))
        .map(|(f, _)| f)
        .expect("YAML front matter");
    let front: Value = serde_yaml::from_str(front).unwrap();
    assert_eq!(front["name"], "vcc-check");
    let description = front["description"].as_str().unwrap();
    assert!(!description.is_empty() && description.len() <= 1024);
    // Again: the same bytes, one section.
    assert_eq!(vcc(&["init", "--agents", "--dir", &dir]).code, 0);
    let again = std::fs::read_to_string(s.path().join("AGENTS.md")).unwrap();
    assert_eq!(again, agents);
    assert_eq!(again.matches("<!-- vcc:begin").count(), 1);
    // No contract: said, exit 2.
    let empty = Scratch::new();
    let none = vcc(&["init", "--agents", "--dir", empty.path().to_str().unwrap()]);
    assert_eq!(none.code, 2);
    assert!(none.stderr.contains("does not exist"), "{}", none.stderr);
}

/// A contract `vcc check` would refuse (here: params its validator's
/// schema rejects) gets no brief and no AGENTS.md section: exit 2 and the
/// lint errors, never a usable-looking brief.
#[test]
fn a_contract_that_fails_lint_gets_no_brief() {
    let s = Scratch::new();
    s.write("notes.md", "# Notes\n");
    s.write(
        "vcc.yaml",
        "vcc: 1\nid: t\ndeliverables:\n  - { id: notes, path: notes.md }\nvalidators:\n  fx: { component: std/file-exists }\ncriteria:\n  - { id: AC-1, severity: must, validator: fx, targets: [notes], params: { min: many } }\n",
    );
    let contract = s.path().join("vcc.yaml");
    let lint = vcc(&["lint", contract.to_str().unwrap()]);
    assert_eq!(lint.code, 2, "the fixture must fail lint: {}", lint.stderr);
    for format in ["markdown", "prompt", "json"] {
        let run = vcc(&["explain", contract.to_str().unwrap(), "--format", format]);
        assert_eq!(run.code, 2, "{format}: {}", run.stdout);
        assert_eq!(run.stdout, "", "{format}: no brief");
        assert!(run.stderr.contains("min"), "{format}: {}", run.stderr);
        assert!(
            run.stderr.contains("fails lint"),
            "{format}: {}",
            run.stderr
        );
    }
    let dir = s.path().to_str().unwrap();
    let agents = vcc(&["init", "--agents", "--dir", dir]);
    assert_eq!(agents.code, 2, "{}", agents.stderr);
    assert!(agents.stderr.contains("min"), "{}", agents.stderr);
    assert!(!s.path().join("AGENTS.md").exists());
    assert!(!s.path().join(".agents").exists());
}
