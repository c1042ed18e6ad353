//! `vcc init --task`: contracts drafted from a task before the work is
//! delegated, used for real — linted, explained, and their recipes run.

use std::path::Path;

use vcc_test_support::Scratch;

use crate::{Run, vcc_in};

/// Rules whose one activity the machine can run: the standard library's
/// unittest.
const RULES: &str = "rules: 1
advisory: [investigat, research]
docs: ['**/*.md']
activities:
  unit-test: { kind: unit-test, command: [python3, -m, unittest, discover, -s, tests], description: The unit tests pass }
match:
  - { files: ['**/*.py'], activities: [unit-test] }
";

fn init(dir: &Path, args: &[&str]) -> Run {
    let mut all = vec!["init"];
    all.extend_from_slice(args);
    vcc_in(dir, &all)
}

fn contract(dir: &Path) -> serde_yaml::Value {
    serde_yaml::from_str(&std::fs::read_to_string(dir.join("vcc.yaml")).unwrap()).unwrap()
}

fn criteria_ids(c: &serde_yaml::Value) -> Vec<String> {
    c["criteria"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_verifiable_draft_lints_clean_and_its_recipe_makes_it_pass() {
    let root = Scratch::new();
    root.write("rules.yaml", RULES);
    root.write("src/calc.py", "def add(a, b):\n    return a + b\n");
    root.write(
        "tests/test_calc.py",
        "import os, sys, unittest\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'src'))\nfrom calc import add\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n",
    );
    let run = init(
        root.path(),
        &[
            "--task",
            "Add an add() helper to calc",
            "--files",
            "src/*.py",
            "tests/*.py",
            "--rules",
            "rules.yaml",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("drafted ./vcc.yaml for the task: verifiable (checks: unit-test)"),
        "{}",
        run.stderr
    );
    let c = contract(root.path());
    let from = &c["generated_from"];
    assert_eq!(from["task"], "Add an add() helper to calc");
    assert_eq!(from["class"], "verifiable");
    assert_eq!(from["rules"], "rules.yaml");
    assert!(from["at"].as_str().unwrap().starts_with("20"), "{from:?}");
    // CHANGED: the digests of the files as drafted, so the draft fails
    // until the work changes one of them.
    assert_eq!(criteria_ids(&c), ["FILES", "CHANGED", "UNIT-TEST"]);
    let drafted = &c["criteria"][1]["params"]["changed_since"];
    assert!(
        drafted["src/calc.py"]
            .as_str()
            .unwrap()
            .starts_with("blake3:"),
        "{drafted:?}"
    );
    assert!(drafted["tests/test_calc.py"].is_string(), "{drafted:?}");

    let lint = vcc_in(root.path(), &["lint", "vcc.yaml"]);
    assert_eq!(lint.code, 0, "{}{}", lint.stdout, lint.stderr);
    let brief = vcc_in(root.path(), &["explain", "vcc.yaml", "--format", "prompt"]);
    assert!(
        brief
            .stdout
            .contains("The task: Add an add() helper to calc"),
        "{}",
        brief.stdout
    );

    // Not done yet: no record.
    let check = vcc_in(root.path(), &["check", "vcc.yaml"]);
    assert_eq!(check.code, 1, "{}{}", check.stdout, check.stderr);

    // The work: a change to the code. Then the recipe the criterion hands
    // over, run word for word, makes it pass.
    root.write(
        "src/calc.py",
        "def add(a, b):\n    \"\"\"The sum.\"\"\"\n    return a + b\n",
    );
    let prompt = c["criteria"][2]["on_fail"]["prompt"].as_str().unwrap();
    let recipe = prompt.split('`').nth(1).unwrap();
    assert_eq!(
        recipe,
        "vcc record --inputs src tests --exclude .vcc/records/ --out .vcc/records/unit-test.json -- python3 -m unittest discover -s tests"
    );
    let words: Vec<&str> = recipe.split_whitespace().skip(1).collect();
    let recorded = vcc_in(root.path(), &words);
    assert_eq!(recorded.code, 0, "{}", recorded.stderr);
    let check = vcc_in(root.path(), &["check", "vcc.yaml"]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);

    // A change after the tests ran: the record no longer covers the code.
    root.write("src/calc.py", "def add(a, b):\n    return a - b\n");
    let check = vcc_in(root.path(), &["check", "vcc.yaml"]);
    assert_eq!(check.code, 1, "{}{}", check.stdout, check.stderr);
}

#[test]
fn an_advisory_task_is_never_accepted_even_when_its_findings_are_complete() {
    let root = Scratch::new();
    let run = init(root.path(), &["--task", "Investigate why checkout is slow"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let c = contract(root.path());
    assert_eq!(c["advisory"], true);
    assert_eq!(c["generated_from"]["class"], "advisory");
    let guessed = c["generated_from"]["guessed"][0].as_str().unwrap();
    assert!(guessed.contains("the task says `investigate`"), "{guessed}");
    let lint = vcc_in(root.path(), &["lint", "vcc.yaml"]);
    assert_eq!(lint.code, 0, "{}{}", lint.stdout, lint.stderr);
    root.write(
        "FINDINGS.md",
        "# Checkout\n\n## Question\n\nWhy slow?\n\n## Findings\n\nAn N+1 query.\n\n## Recommendations\n\nBatch it.\n",
    );
    let check = vcc_in(root.path(), &["check", "vcc.yaml", "--format", "json"]);
    assert_eq!(check.code, 1, "{}", check.stderr);
    let report: serde_json::Value = serde_json::from_str(&check.stdout).unwrap();
    assert_eq!(report["verdict"], "advisory");
    for c in report["criteria"].as_array().unwrap() {
        assert_eq!(c["status"], "pass", "{c}");
    }
}

#[test]
fn a_docs_only_task_gets_text_checks_only_and_the_class_can_be_overridden() {
    let root = Scratch::new();
    let run = init(
        root.path(),
        &[
            "--task",
            "Fix the wording of the guide",
            "--files",
            "docs/guide.md",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let c = contract(root.path());
    assert_eq!(c["generated_from"]["class"], "skip");
    assert_eq!(criteria_ids(&c), ["FILES", "NO-PLACEHOLDERS"]);
    assert_eq!(vcc_in(root.path(), &["lint", "vcc.yaml"]).code, 0);

    // The same words about a source file: verifiable, the built-in Go checks.
    let run = init(
        root.path(),
        &[
            "--task",
            "Investigate and fix the parser",
            "--files",
            "parser/*.go",
            "--class",
            "verifiable",
            "--out",
            "go.yaml",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let go: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(root.path().join("go.yaml")).unwrap())
            .unwrap();
    assert_eq!(go["generated_from"]["class"], "verifiable");
    assert_eq!(criteria_ids(&go), ["FILES", "GO-VET", "GO-TEST"]);
    assert_eq!(vcc_in(root.path(), &["lint", "go.yaml"]).code, 0);
}

#[test]
fn the_builtin_rules_draft_clean_contracts_for_each_language() {
    for (files, checks) in [
        (
            &["src/lib.rs"][..],
            &["RUST-LINT", "RUST-FORMAT", "RUST-TEST"][..],
        ),
        (
            &["app/page.tsx"],
            &["TS-TYPECHECK", "JS-LINT", "JS-TEST", "E2E"],
        ),
        (
            &["pkg/api.py", "README.md"],
            &["PYTHON-TYPECHECK", "PYTHON-LINT", "PYTHON-TEST"],
        ),
    ] {
        let root = Scratch::new();
        let mut args = vec!["--task", "Add the feature", "--files"];
        args.extend_from_slice(files);
        let run = init(root.path(), &args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let c = contract(root.path());
        let ids = criteria_ids(&c);
        let mut expected = vec!["FILES".to_string()];
        if files.contains(&"README.md") {
            expected.push("NO-PLACEHOLDERS".into());
        }
        expected.extend(checks.iter().map(|s| s.to_string()));
        assert_eq!(ids, expected, "{files:?}");
        let lint = vcc_in(root.path(), &["lint", "vcc.yaml"]);
        assert_eq!(lint.code, 0, "{files:?}: {}{}", lint.stdout, lint.stderr);
    }
    // No --files: the project files found in the folder decide.
    let root = Scratch::new();
    root.write("Cargo.toml", "[package]\nname = \"x\"\n");
    let run = init(root.path(), &["--task", "Speed up the build"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("no --files: the checks of the project found here (Cargo.toml)"),
        "{}",
        run.stderr
    );
    assert_eq!(
        criteria_ids(&contract(root.path())),
        ["RUST-LINT", "RUST-FORMAT", "RUST-TEST"]
    );
    assert_eq!(vcc_in(root.path(), &["lint", "vcc.yaml"]).code, 0);
}

#[test]
fn a_critic_in_the_rules_becomes_a_should_judged_by_the_named_model() {
    let root = Scratch::new();
    root.write(
        "rules.yaml",
        "rules: 1\nactivities:\n  critic: { kind: critic, judge: { provider: openai-compatible, model: qwen2.5-7b-instruct }, question: Is the change easy to review?, criteria: [Small functions, Clear names] }\nmatch:\n  - { files: ['**/*.py'], activities: [critic] }\n",
    );
    let run = init(
        root.path(),
        &[
            "--task",
            "Tidy the module",
            "--files",
            "mod.py",
            "--rules",
            "rules.yaml",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let c = contract(root.path());
    assert_eq!(c["judges"]["critic"]["model"], "qwen2.5-7b-instruct");
    assert_eq!(c["criteria"][1]["severity"], "should");
    assert_eq!(c["criteria"][1]["validator"], "rubric");
    let lint = vcc_in(root.path(), &["lint", "vcc.yaml"]);
    assert_eq!(lint.code, 0, "{}{}", lint.stdout, lint.stderr);
}

#[test]
fn bad_rules_and_tasks_with_nothing_to_check_are_refused_with_the_fix() {
    let root = Scratch::new();
    root.write(
        "rules.yaml",
        "rules: 1\nmatch: [{ files: ['*.c'], activities: [make] }]\n",
    );
    let run = init(
        root.path(),
        &[
            "--task",
            "Port it",
            "--files",
            "a.c",
            "--rules",
            "rules.yaml",
        ],
    );
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr.trim(),
        "vcc init: rules.yaml: match[0].activities: `make` is not an activity; define it under `activities:` or fix the name"
    );
    let run = init(root.path(), &["--task", "Make it faster"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("nothing to check; give --files GLOB"),
        "{}",
        run.stderr
    );
    assert!(!root.path().join("vcc.yaml").exists());
}

/// "Fix a typo in the README" with `--files README.md`: the draft fails
/// until README.md changed (its digest at drafting is in CHANGED), so a
/// loop cannot be accepted before the agent ran; once changed, it passes.
#[test]
fn a_draft_fails_until_the_files_the_task_names_changed() {
    let root = Scratch::new();
    root.write("README.md", "# Tool\n\nTeh tool does things.\n");
    let run = init(
        root.path(),
        &["--task", "Fix a typo in the README", "--files", "README.md"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let c = contract(root.path());
    assert!(criteria_ids(&c).contains(&"CHANGED".to_string()), "{c:?}");
    let check = vcc_in(root.path(), &["check", "vcc.yaml", "--format", "json"]);
    assert_eq!(check.code, 1, "{}", check.stdout);
    let report: serde_json::Value = serde_json::from_str(&check.stdout).unwrap();
    let changed = report["criteria"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "CHANGED")
        .unwrap();
    assert_eq!(changed["status"], "fail", "{changed}");
    assert!(
        changed["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("none of the files the work is about changed"),
        "{changed}"
    );
    // `./README.md` is the same file.
    let dotted = Scratch::new();
    dotted.write("README.md", "# Tool\n\nTeh tool does things.\n");
    let run = init(
        dotted.path(),
        &[
            "--task",
            "Fix a typo in the README",
            "--files",
            "./README.md",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(criteria_ids(&contract(dotted.path())).contains(&"CHANGED".to_string()));
    // The same task named only in words: README is the file it implies.
    let other = Scratch::new();
    other.write("README.md", "# Tool\n\nTeh tool does things.\n");
    let run = init(other.path(), &["--task", "Fix a typo in the README"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("the task implies README.md"),
        "{}",
        run.stderr
    );
    assert!(criteria_ids(&contract(other.path())).contains(&"CHANGED".to_string()));

    root.write("README.md", "# Tool\n\nThe tool does things.\n");
    let check = vcc_in(root.path(), &["check", "vcc.yaml"]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
}

/// "Document the pagination parameters", no --files: the draft targets the
/// docs that mention pagination, asks them to name its subject and the
/// new parameters the task writes as code, and fails until they changed.
#[test]
fn a_docs_task_targets_the_docs_that_mention_its_subject() {
    let root = Scratch::new();
    root.write(
        "docs/api.md",
        "# API\n\n## Listing users\n\nResults come in pages (pagination).\n",
    );
    root.write("docs/install.md", "# Install\n\nRun the installer.\n");
    root.write(
        "src/users.py",
        "def list_users(page=1, per_page=50):\n    pass\n",
    );
    let run = init(
        root.path(),
        &[
            "--task",
            "Document the pagination parameters `page` and `per_page`",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let c = contract(root.path());
    assert_eq!(c["generated_from"]["class"], "skip");
    assert_eq!(c["deliverables"][0]["path"], "docs/api.md", "{c:?}");
    assert_eq!(c["deliverables"].as_sequence().unwrap().len(), 1, "{c:?}");
    let ids = criteria_ids(&c);
    assert!(
        ids.contains(&"SUBJECT".to_string()) && ids.contains(&"CHANGED".to_string()),
        "{ids:?}"
    );
    assert_eq!(vcc_in(root.path(), &["lint", "vcc.yaml"]).code, 0);
    // Undone: rejected (the parameters are not named, nothing changed).
    assert_eq!(vcc_in(root.path(), &["check", "vcc.yaml"]).code, 1);
    // Names inside other words, or in another case, are not the names.
    root.write(
        "docs/api.md",
        "# API\n\nSee the homepage. SUPER_PER_PAGES is unrelated. PAGE.\n",
    );
    assert_eq!(vcc_in(root.path(), &["check", "vcc.yaml"]).code, 1);
    root.write(
        "docs/api.md",
        "# API\n\n## Listing users\n\nResults come in pages (pagination): `page` (from 1) and `per_page` (at most 100).\n",
    );
    let done = vcc_in(root.path(), &["check", "vcc.yaml"]);
    assert_eq!(done.code, 0, "{}{}", done.stdout, done.stderr);
}

/// A draft that would already pass checks nothing the task changes: it
/// is refused (exit 1, not kept) unless --allow-passing.
#[test]
fn a_draft_that_already_passes_is_refused_unless_allowed() {
    let root = Scratch::new();
    // More files than a draft lists digests for: no CHANGED can be drawn.
    for i in 0..201 {
        root.write(&format!("notes/n{i:03}.md"), "# Note\n\nText.\n");
    }
    let args = ["--task", "Reword the notes", "--files", "notes/*.md"];
    let run = init(root.path(), &args);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("this draft already passes: it checks nothing the task changes"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("no CHANGED criterion: 201 files match"),
        "said, not dropped: {}",
        run.stderr
    );
    assert!(!root.path().join("vcc.yaml").exists(), "not kept");
    let mut allowed = args.to_vec();
    allowed.push("--allow-passing");
    let run = init(root.path(), &allowed);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("note: this draft already passes"),
        "{}",
        run.stderr
    );
    assert!(root.path().join("vcc.yaml").exists());
}

/// A glob of the task's files that also matches the contract the draft
/// writes would take that new file for the work: refused, not kept.
#[test]
fn a_glob_that_matches_the_draft_itself_is_refused() {
    let root = Scratch::new();
    root.write("src/loader.py", "x = 1\n");
    root.write("config.yaml", "a: 1\n");
    root.write("rules.yaml", RULES);
    let run = init(
        root.path(),
        &[
            "--task",
            "Make the config loader accept lists",
            "--files",
            "src/*.py",
            "*.yaml",
            "--rules",
            "rules.yaml",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("CHANGED criterion already passes before any work"),
        "{}",
        run.stderr
    );
    assert!(!root.path().join("vcc.yaml").exists());
}

/// A task that writes a path means that file, not every file named like
/// one of its words.
#[test]
fn a_path_in_the_task_is_the_file_it_means() {
    let root = Scratch::new();
    root.write("src/main.rs", "fn main() {}\n");
    for decoy in ["the", "fix.md", "parser.rs", "bug.txt", "vendor/main.rs"] {
        root.write(decoy, "x\n");
    }
    let run = init(
        root.path(),
        &["--task", "Fix the parser bug in src/main.rs"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("the task implies src/main.rs\n"),
        "{}",
        run.stderr
    );
    let c = contract(root.path());
    let drafted = &c["criteria"][1]["params"]["changed_since"];
    assert_eq!(
        drafted.as_mapping().unwrap().len(),
        1,
        "only src/main.rs: {drafted:?}"
    );
}
