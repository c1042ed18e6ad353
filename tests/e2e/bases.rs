//! What a contract built on a base may not move (issue 33, item 6): the
//! root, the files its criteria see, their limits, its provenance policy,
//! and where problems about the base's parts point. The bases here are
//! `--policy` files outside the workspace (the CI's); `bundles.rs` has
//! the same composition through `extends` and signed bundles.

use std::path::PathBuf;

use serde_json::Value;
use vcc_test_support::fixtures;

use crate::Run;
use crate::world::World;

/// The platform's base: NOTES.md holds no TODO.
const BASE: &str = "vcc: 1
id: baseline
deliverables:
  - { id: notes, path: NOTES.md }
validators:
  text: { component: std/text-match }
criteria:
  - { id: no-todo-left, severity: must, validator: text, targets: [notes], params: { must_not_match: [TODO] } }
";

/// The team's contract: a changelog exists.
const TEAM: &str = "vcc: 1
id: team
deliverables:
  - { id: changelog, path: CHANGELOG.md }
validators:
  exists: { component: std/file-exists }
criteria:
  - { id: changelog, severity: must, validator: exists, targets: [changelog] }
";

/// A base in `ci/policy.yaml` and a team project in `team/`.
struct Project {
    world: World,
    policy: PathBuf,
    team: PathBuf,
}

impl Project {
    /// The base, the team's contract, and the team's files (a clean
    /// NOTES.md and a CHANGELOG.md unless `files` says otherwise).
    fn new(base: &str, contract: &str, files: &[(&str, &str)]) -> Project {
        let world = World::new();
        let policy = world
            .project("ci", &[("policy.yaml", base)])
            .join("policy.yaml");
        let mut all = vec![
            ("contract.yaml", contract),
            ("NOTES.md", "notes\n"),
            ("CHANGELOG.md", "changes\n"),
        ];
        all.extend_from_slice(files);
        let team = world.project("team", &all);
        Project {
            world,
            policy,
            team,
        }
    }

    fn path(&self, relative: &str) -> String {
        self.team.join(relative).display().to_string()
    }

    /// `vcc check team/contract.yaml --policy ci/policy.yaml --format json`.
    fn check(&self, extra: &[&str]) -> Run {
        let (contract, policy) = (
            self.path("contract.yaml"),
            self.policy.display().to_string(),
        );
        let mut args = vec!["check", &contract, "--policy", &policy, "--format", "json"];
        args.extend_from_slice(extra);
        self.world.vcc(&args)
    }
}

/// Invalid before any validator ran, with a `WEAKENS_BASE` problem: that problem.
fn weakens(run: &Run) -> Value {
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    let report = run.json();
    assert_eq!(report["verdict"], "invalid");
    assert!(
        report["criteria"].as_array().is_none_or(|c| c.is_empty()),
        "nothing may run: {}",
        run.stdout
    );
    report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["code"] == "WEAKENS_BASE")
        .cloned()
        .unwrap_or_else(|| panic!("no WEAKENS_BASE in {}", run.stdout))
}

/// A base that says where the deliverables are (`root: site`, relative to
/// the team's contract) decides it for the contract built on it: the
/// team's contract can leave it out, repeat it, never move it; the
/// command line (`--dir`) still may.
#[test]
fn a_policy_base_says_where_the_deliverables_are() {
    let project = Project::new(
        &BASE.replace("id: baseline\n", "id: baseline\nroot: site\n"),
        TEAM,
        &[
            ("site/NOTES.md", "TODO: the site is not done\n"),
            ("site/CHANGELOG.md", "changes\n"),
        ],
    );
    let run = project.check(&[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(
        run.json()["deliverables"]["root_absolute"],
        project.path("site")
    );
    assert_eq!(run.criterion("no-todo-left")["status"], "fail");

    std::fs::write(
        project.team.join("contract.yaml"),
        TEAM.replace("id: team\n", "id: team\nroot: ./site/\n"),
    )
    .unwrap();
    assert_eq!(
        project.check(&[]).code,
        1,
        "the same root, written otherwise"
    );

    std::fs::write(
        project.team.join("contract.yaml"),
        TEAM.replace("id: team\n", "id: team\nroot: .\n"),
    )
    .unwrap();
    let problem = weakens(&project.check(&[]));
    assert_eq!(problem["field"], "root", "{problem}");
    assert!(
        problem["message"]
            .as_str()
            .unwrap()
            .contains("the deliverable root is `site` in policy "),
        "{problem}"
    );
    assert!(
        problem["help"]
            .as_str()
            .unwrap()
            .contains("write `root: site`"),
        "{problem}"
    );

    std::fs::write(project.team.join("contract.yaml"), TEAM).unwrap();
    let by_flag = project.check(&["--dir", &project.path(".")]);
    assert_eq!(by_flag.code, 0, "{}", by_flag.stdout);
}

/// The approvals folder (`vcc-approvals/` beside the contract) is left
/// out of what criteria see once a gate reads it. A base with no gate
/// never agreed to that: a gate the team adds would hide whatever the
/// worker writes there from the base's criteria. Once ACCEPTED.
#[test]
fn forgery_host_a_team_gate_hides_the_approvals_folder_from_the_base() {
    let base = BASE.replace("path: NOTES.md", "path: \"**/*.md\"");
    let gated = format!("{TEAM}gates:\n  - {{ id: ship, criteria: [changelog] }}\n");
    let project = Project::new(
        &base,
        &gated,
        &[("vcc-approvals/plan.md", "TODO: ship it unfinished\n")],
    );
    let problem = weakens(&project.check(&[]));
    assert_eq!(problem["field"], "gates[0]", "{problem}");
    assert!(
        problem["message"]
            .as_str()
            .unwrap()
            .contains("gate `ship` reads its approvals from")
            && problem["message"].as_str().unwrap().contains("has no gate"),
        "{problem}"
    );
    // Approvals kept outside the root hide nothing: the base sees the file.
    let outside = project.world.path().join("approvals");
    let run = project.check(&["--approvals", &outside.display().to_string()]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let finding = &run.criterion("no-todo-left")["findings"][0];
    assert_eq!(finding["path"], "vcc-approvals/plan.md", "{}", run.stdout);
}

/// Limits decide whether a criterion's validator finishes: a base
/// criterion redeclared with other limits is no longer the base's.
#[test]
fn weakening_gives_a_base_criterion_other_limits() {
    let project = Project::new(
        BASE,
        &format!(
            "{TEAM}  - {{ id: no-todo-left, severity: must, validator: text, targets: [notes], params: {{ must_not_match: [TODO] }}, limits: {{ timeout: 30s }} }}\n"
        ),
        &[],
    );
    let problem = weakens(&project.check(&[]));
    assert_eq!(problem["field"], "criteria[1].limits", "{problem}");
    assert!(
        problem["message"]
            .as_str()
            .unwrap()
            .contains("criterion `no-todo-left` of policy ")
            && problem["message"]
                .as_str()
                .unwrap()
                .contains("runs with other limits"),
        "{problem}"
    );
}

/// The base's limits (timeouts, memory, what the verifier's judges may
/// spend) bind the contract built on it: each at the lower of the two.
/// Once the team's `limits:` replaced the base's altogether.
#[test]
fn a_base_limits_bind_the_contract_built_on_it() {
    let base = "vcc: 1
id: baseline
deliverables:
  - { id: notes, path: NOTES.md }
validators:
  spin: { component: spin.wasm }
criteria:
  - { id: spins, severity: should, validator: spin, targets: [notes] }
limits: { timeout: 300ms }
";
    let project = Project::new(
        base,
        &TEAM.replace("id: team\n", "id: team\nlimits: { timeout: 5s }\n"),
        &[],
    );
    std::fs::copy(
        fixtures::INFINITE_LOOP,
        project.policy.with_file_name("spin.wasm"),
    )
    .unwrap();
    let run = project.check(&[]);
    let spins = run.criterion("spins");
    assert_eq!(spins["status"], "error", "{}", run.stdout);
    assert!(
        spins["summary"]
            .as_str()
            .unwrap()
            .contains("its budget is 300ms"),
        "{spins}"
    );
}

/// A base's provenance policy is a MUST row named by its id
/// (`provenance:ID`), which the base's gates and readers of the report
/// refer to: the team's contract keeps its id and every requirement.
#[test]
fn weakening_renames_the_base_provenance_policy() {
    let project = Project::new(
        &format!("{BASE}provenance: {{ id: base-record, require: [inputs.enumerated] }}\n"),
        &format!(
            "{TEAM}provenance: {{ id: mine, require: [inputs.enumerated, tooling.recorded] }}\n"
        ),
        &[],
    );
    let problem = weakens(&project.check(&[]));
    assert_eq!(problem["field"], "provenance", "{problem}");
    assert!(
        problem["message"]
            .as_str()
            .unwrap()
            .contains("the provenance policy `base-record` of policy "),
        "{problem}"
    );
}

/// A problem about a part the contract took from its base names the
/// base's file and line, not the team's (once: the team file, at a line
/// that held something else).
#[test]
fn a_problem_in_the_base_names_the_base() {
    let project = Project::new(
        &BASE.replace("must_not_match: [TODO]", "must_not_match: TODO"),
        TEAM,
        &[],
    );
    let run = project.check(&[]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    let report = run.json();
    let problem = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["code"] == "INVALID_PARAMS")
        .unwrap_or_else(|| panic!("no INVALID_PARAMS in {}", run.stdout));
    assert_eq!(problem["file"], project.policy.display().to_string());
    assert_eq!(problem["line"], 8, "{problem}");
    assert!(
        problem["field"]
            .as_str()
            .unwrap()
            .starts_with("criteria[0].params"),
        "{problem}"
    );
}
