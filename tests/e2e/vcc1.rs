//! VCC v1 contracts as the specification intends: the three examples of
//! `contracts/examples/vcc-v1/` (ACCEPTED with a signed review, and one
//! broken variant per MUST), the published examples unedited
//! (`tests/published/`), signed approvals of gates, and what vcc refuses.

use std::path::{Path, PathBuf};

use serde_json::Value;
use vcc_test_support::Scratch;
use vcc_test_support::judge_server::{JudgeServer, Received, Reply};

use crate::{Run, copy_dir, repo, vcc};

/// A copy of an example, keys for a reviewer and a stranger, and a trust
/// policy (outside the root) that gives the reviewer the gate's role.
struct Example {
    root: Scratch,
    keys: Scratch,
    contract: PathBuf,
    /// A scripted AI judge on loopback (the examples' rubrics are
    /// AI-judged): it scores 2 when it is shown a DRAFT, else 5, 4, 5.
    judge: JudgeServer,
}

/// What the scripted judge says: a deliverable marked DRAFT falls short.
fn scripted_judge() -> JudgeServer {
    JudgeServer::start(|r: &Received, n| {
        let draft = r.prompt_text().contains("DRAFT");
        let score = if draft { 2.0 } else { [5.0, 4.0, 5.0][n % 3] };
        Reply::Score(score, format!("scripted: sample {n}"))
    })
}

impl Example {
    fn new(name: &str, role: &str) -> Example {
        Example::judged_by(name, role, scripted_judge())
    }

    /// The example, its AI judges answered by `judge`.
    fn judged_by(name: &str, role: &str, judge: JudgeServer) -> Example {
        let root = Scratch::new();
        copy_dir(
            &repo().join("contracts/examples/vcc-v1").join(name),
            root.path(),
        );
        let keys = Scratch::new();
        for k in ["reviewer", "stranger"] {
            let made = vcc(&["key", "generate", keys.path().join(k).to_str().unwrap()]);
            assert_eq!(made.code, 0, "{}", made.stderr);
        }
        keys.write(
            "trust.yaml",
            format!("trust: 1\nkeys:\n  - {{ id: reviewer, public_key: reviewer.pub }}\n  - {{ id: stranger, public_key: stranger.pub }}\nroles:\n  {role}: [reviewer]\n"),
        );
        let contract = root.path().join("contract.yml");
        keys.write(
            "judges.yaml",
            format!(
                "judges: 1\nendpoints:\n  - {{ id: scripted, provider: openai-compatible, url: '{}' }}\n",
                judge.url
            ),
        );
        Example {
            root,
            keys,
            contract,
            judge,
        }
    }

    fn judges(&self) -> String {
        self.keys.path().join("judges.yaml").display().to_string()
    }

    fn trust(&self) -> String {
        self.keys.path().join("trust.yaml").display().to_string()
    }

    fn approve(&self, key: &str, gate: &str, score: &str) -> Run {
        vcc(&[
            "approve",
            "--key",
            self.keys
                .path()
                .join(format!("{key}.key"))
                .to_str()
                .unwrap(),
            "--contract",
            self.contract.to_str().unwrap(),
            "--gate",
            gate,
            "--score",
            score,
            "--trust",
            &self.trust(),
        ])
    }

    fn check(&self, extra: &[&str]) -> Run {
        // No cache: each example's judge is asked (the std validators are
        // embedded; nothing compiles).
        let mut args = vec![
            "--no-cache",
            "check",
            self.contract.to_str().unwrap(),
            "--format",
            "json",
        ];
        let (trust, judges) = (self.trust(), self.judges());
        args.extend(["--trust", &trust, "--judges", &judges]);
        args.extend_from_slice(extra);
        vcc(&args)
    }

    fn file(&self, path: &str) -> PathBuf {
        self.root.path().join(path)
    }

    fn edit(&self, path: &str, from: &str, to: &str) {
        let file = self.file(path);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains(from), "{path} has no `{from}`");
        std::fs::write(&file, text.replacen(from, to, 1)).unwrap();
    }
}

/// An agent's session as Claude Code writes it: a prompt, and one action
/// (a tool call) — what `agentActions.logged` needs.
const TRANSCRIPT: &str = concat!(
    r#"{"parentUuid":null,"sessionId":"s1","type":"user","uuid":"u1","message":{"role":"user","content":"go"}}"#,
    "\n",
    r#"{"parentUuid":"u1","sessionId":"s1","type":"assistant","uuid":"u2","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"python3 -m unittest"}}]}}"#,
    "\n",
);

fn row<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["criteria"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no row {id} in {report:#}"))
}

fn statuses(report: &Value) -> Vec<(String, String)> {
    report["criteria"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_string(),
                c["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn messages(row: &Value) -> String {
    row["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["message"].as_str().unwrap_or_default().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn software_example_is_accepted_with_a_signed_review() {
    let ex = Example::new("software", "Reviewer");
    let approved = ex.approve("reviewer", "GATE-REVIEW", "5");
    assert_eq!(approved.code, 0, "{}", approved.stderr);
    let run = ex.check(&[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let report = run.json();
    assert_eq!(report["contract"]["format"], "sdlaf.vcc/v1");
    let expected = [
        ("AC-SW-1", "pass", "std/markdown-sections"),
        ("AC-SW-2", "pass", "std/consistency"),
        ("AC-SW-3", "pass", "std/exit-record"),
        ("AC-SW-SEC-1", "skip", "vcc"),
        ("deliverable:A4", "pass", "vcc"),
        ("deliverable:A5", "pass", "vcc"),
        ("P-SW-1", "pass", "std/package"),
        ("provenance:PROV-POLICY-v1", "pass", "vcc"),
        ("gate:GATE-REVIEW", "pass", "vcc"),
        ("gate:GATE-PROVENANCE", "pass", "vcc"),
    ];
    for (id, status, component) in expected {
        let r = row(&report, id);
        assert_eq!(
            (r["status"].as_str(), r["validator"]["component"].as_str()),
            (Some(status), Some(component)),
            "{id}: {r:#}"
        );
    }
    // The security SHOULD is a visible row that says why it was not run.
    let sec = row(&report, "AC-SW-SEC-1");
    assert_eq!(sec["reason"], "not_evaluated");
    assert!(
        sec["summary"].as_str().unwrap().contains("SARIF"),
        "{sec:#}"
    );
    // The trace matrix covered every requirement with code and tests.
    assert!(
        row(&report, "AC-SW-2")["summary"]
            .as_str()
            .unwrap()
            .contains("3 requirement(s) traced"),
        "{:#}",
        row(&report, "AC-SW-2")
    );
    // The approval folder beside the contract is not a deliverable.
    assert!(
        report["deliverables"]["excluded"]["rules"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r == "(vcc): /vcc-approvals/"),
        "{:#}",
        report["deliverables"]
    );
}

/// The approval is a DSSE envelope over an in-toto Statement: read back by
/// securesystemslib and the in-toto project's bindings, bound to the digests
/// vcc reports.
#[test]
fn an_approval_is_read_by_the_in_toto_bindings() {
    let ex = Example::new("software", "Reviewer");
    assert_eq!(ex.approve("reviewer", "GATE-REVIEW", "5").code, 0);
    let report = ex.check(&[]).json();
    let envelope = std::fs::read_dir(ex.file("vcc-approvals"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".dsse.json"))
        .unwrap();
    let keyid = vcc_trust::keys::PublicKey::read(&ex.keys.path().join("reviewer.pub"))
        .unwrap()
        .id()
        .to_string();
    let out = std::process::Command::new(crate::world::tools_dir().join("reports-py/bin/python"))
        .arg(repo().join("tests/readers/approval_read.py"))
        .arg(&envelope)
        .arg(ex.keys.path().join("reviewer.pub"))
        .arg(keyid)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let read: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(read["predicateType"], "urn:vcc:approval:v1");
    let hex = |d: &Value| {
        d.as_str()
            .unwrap()
            .trim_start_matches("blake3:")
            .to_string()
    };
    assert_eq!(
        read["subjects"]["contract"]["blake3"].as_str().unwrap(),
        hex(&report["contract"]["digest"])
    );
    assert_eq!(
        read["subjects"]["deliverables"]["blake3"].as_str().unwrap(),
        hex(&report["deliverables"]["root_digest"])
    );
    assert_eq!(
        (
            read["predicate"]["gate"].as_str(),
            read["predicate"]["role"].as_str(),
            read["predicate"]["score"].as_f64()
        ),
        (Some("GATE-REVIEW"), Some("Reviewer"), Some(5.0))
    );
}

#[test]
fn a_gate_without_a_valid_approval_is_withheld_for_the_reason() {
    let ex = Example::new("software", "Reviewer");
    // No approval at all.
    let run = ex.check(&[]);
    assert_eq!(run.code, 1);
    let gate = row(&run.json(), "gate:GATE-REVIEW").clone();
    assert_eq!(gate["status"], "fail");
    assert!(
        messages(&gate).contains("none was found"),
        "{}",
        messages(&gate)
    );
    // A signature the trust policy does not give the role.
    assert_eq!(ex.approve("stranger", "GATE-REVIEW", "5").code, 0);
    let gate = row(&ex.check(&[]).json(), "gate:GATE-REVIEW").clone();
    assert!(
        messages(&gate).contains("whom the trust policy does not list for role `Reviewer`"),
        "{}",
        messages(&gate)
    );
    // A trusted reviewer, below the pass threshold: `vcc approve` writes
    // no approval that could never count, and one signed by another tool
    // does not count.
    let refused = ex.approve("reviewer", "GATE-REVIEW", "3");
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("an approval scoring 3 would never count"),
        "{}",
        refused.stderr
    );
    let report = ex.check(&[]).json();
    let digest = |v: &Value| v.as_str().unwrap().to_string();
    let key = vcc_trust::keys::PrivateKey::read(&ex.keys.path().join("reviewer.key")).unwrap();
    let low = vcc_trust::approval::sign(
        &vcc_trust::approval::Approve {
            contract_digest: &digest(&report["contract"]["digest"]),
            root_digest: &digest(&report["deliverables"]["root_digest"]),
            predicate: vcc_trust::approval::ApprovalPredicate {
                contract_id: report["contract"]["id"].as_str().unwrap().into(),
                gate: "GATE-REVIEW".into(),
                role: "Reviewer".into(),
                score: Some(3.0),
                approved_at: "2026-11-24T10:00:00Z".into(),
                comment: None,
            },
        },
        &key,
    );
    let low_file = ex
        .contract
        .parent()
        .unwrap()
        .join("vcc-approvals/low.dsse.json");
    std::fs::create_dir_all(low_file.parent().unwrap()).unwrap();
    std::fs::write(&low_file, serde_json::to_string(&low).unwrap()).unwrap();
    let gate = row(&ex.check(&[]).json(), "gate:GATE-REVIEW").clone();
    assert!(
        messages(&gate).contains("scores 3, below the 4"),
        "{}",
        messages(&gate)
    );
    // Approved at 5, then a deliverable changed: the approval is stale.
    assert_eq!(ex.approve("reviewer", "GATE-REVIEW", "5").code, 0);
    assert_eq!(ex.check(&[]).code, 0);
    ex.edit(
        "sdlaf-exports/deliverables/release_notes.md",
        "None:",
        "None at all:",
    );
    let run = ex.check(&[]);
    assert_eq!(run.code, 1);
    let gate = row(&run.json(), "gate:GATE-REVIEW").clone();
    assert!(messages(&gate).contains("is stale"), "{}", messages(&gate));
    // Without a trust policy nothing can be verified.
    let no_trust = vcc(&["check", ex.contract.to_str().unwrap(), "--format", "json"]);
    assert_eq!(no_trust.code, 1);
    assert!(
        messages(row(&no_trust.json(), "gate:GATE-REVIEW")).contains("no trust policy"),
        "{}",
        no_trust.stdout
    );
}

#[test]
fn check_gate_judges_one_gate() {
    let ex = Example::new("software", "Reviewer");
    let run = ex.check(&["--gate", "GATE-PROVENANCE"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let report = run.json();
    assert_eq!(report["gate"], "GATE-PROVENANCE");
    assert_eq!(
        statuses(&report),
        vec![
            ("provenance:PROV-POLICY-v1".to_string(), "pass".to_string()),
            ("gate:GATE-PROVENANCE".to_string(), "pass".to_string())
        ]
    );
    let unknown = ex.check(&["--gate", "GATE-REVEIW"]);
    assert_eq!(unknown.code, 2);
    assert!(
        unknown.stdout.contains("did you mean `GATE-REVIEW`"),
        "{}",
        unknown.stdout
    );
}

/// One broken variant per MUST of the software example.
#[test]
fn software_musts_each_reject_their_breakage() {
    let cases: [(&str, &str, &str, &str, &str); 4] = [
        (
            "AC-SW-1",
            "sdlaf-exports/deliverables/requirements.md",
            "## Edge Cases",
            "## Corner cases",
            "Edge Cases",
        ),
        (
            "AC-SW-2",
            "repo/TRACE.md",
            "| REQ-3 | `src/export/pages.py` | `tests/test_pages.py::test_bad_cursor` |\n",
            "",
            "requirement REQ-3 has no row",
        ),
        (
            "AC-SW-3",
            "sdlaf-exports/evidence/test_results.txt",
            "OK",
            "FAILED (failures=1)",
            "test_results.txt",
        ),
        (
            "P-SW-1",
            "sdlaf-exports/deliverables/release_notes.md",
            "None:",
            "None at all:",
            "is not the bytes of `sdlaf-exports/deliverables/release_notes.md`",
        ),
    ];
    for (id, path, from, to, said) in cases {
        let ex = Example::new("software", "Reviewer");
        ex.edit(path, from, to);
        let run = ex.check(&["--only", id]);
        let report = run.json();
        let r = row(&report, id);
        assert_eq!(r["status"], "fail", "{id}: {r:#}");
        let text = format!("{} {}", r["summary"], messages(r));
        assert!(text.contains(said), "{id}: `{said}` not in {text}");
    }
}

#[test]
fn research_example_is_accepted_and_each_must_catches_its_breakage() {
    let ex = Example::new("research", "Editor");
    assert_eq!(ex.approve("reviewer", "GATE-REVIEW", "4").code, 0);
    let run = ex.check(&[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let report = run.json();
    for (id, status) in [
        ("AC-RES-1", "pass"),
        ("AC-RES-2", "pass"),
        ("AC-RES-3", "pass"),
        ("AC-RES-4", "pass"),
        ("deliverable:A3.pdf", "pass"),
        ("deliverable:A4", "pass"),
        ("P-RES-1", "pass"),
        ("gate:GATE-REVIEW", "pass"),
    ] {
        assert_eq!(row(&report, id)["status"], status, "{id}");
    }
    // The catalog's JSON and CSV forms are both judged by the schema.
    assert_eq!(
        row(&report, "AC-RES-2")["targets"],
        serde_json::json!([{"id": "A2.csv", "files": 1}, {"id": "A2.json", "files": 1}])
    );
    // The schema is the author's, beside the contract, pinned with it.
    assert_eq!(
        report["contract"]["files"][0]["path"],
        "schemas/landscape_catalog.schema.json"
    );
    // The rubric is judged by the judges the contract names, over the
    // report's Markdown (not its PDF), with the rubric's anchors.
    let rubric = row(&report, "AC-RES-4");
    assert_eq!(rubric["validator"]["component"], "std/rubric");
    assert_eq!(
        rubric["targets"],
        serde_json::json!([{"id": "A3.md", "files": 1}])
    );
    let calls = rubric["judge_calls"].as_array().unwrap();
    let judges: Vec<&str> = calls.iter().map(|c| c["judge"].as_str().unwrap()).collect();
    assert_eq!(judges, vec!["editor", "second", "editor"]);
    let asked = ex.judge.received();
    let prompt = asked[0].prompt_text();
    assert!(
        prompt.contains("Comprehensive, well-justified, replicable"),
        "{prompt}"
    );
    assert!(
        prompt.contains("A reader can verify every claim"),
        "{prompt}"
    );
    // The gate's AI approval is the same judgment.
    let gate = row(&report, "gate:GATE-REVIEW");
    assert!(
        messages(gate).contains("AI approval of role `Editor`"),
        "{}",
        messages(gate)
    );
    let cases = [
        (
            "AC-RES-1",
            "sdlaf-exports/deliverables/research_protocol.md",
            "## Limitations",
            "## Caveats",
        ),
        (
            "AC-RES-2",
            "sdlaf-exports/deliverables/landscape_catalog.json",
            "\"category\": \"evaluation\", ",
            "",
        ),
        (
            "AC-RES-2",
            "sdlaf-exports/deliverables/landscape_catalog.csv",
            ",evaluation,",
            ",benchmarks,",
        ),
        (
            "AC-RES-3",
            "sdlaf-exports/deliverables/landscape_report.md",
            "Promptfoo grades outputs with a model through its assertions [2].",
            "Promptfoo grades outputs with a model through its assertions.",
        ),
        (
            "AC-RES-4",
            "sdlaf-exports/deliverables/landscape_report.md",
            "# ",
            "# DRAFT ",
        ),
    ];
    for (id, path, from, to) in cases {
        let ex = Example::new("research", "Editor");
        ex.edit(path, from, to);
        let r = ex.check(&["--only", id]).json();
        assert_eq!(row(&r, id)["status"], "fail", "{id}: {:#}", row(&r, id));
    }
}

#[test]
fn hardware_example_is_accepted_and_each_must_catches_its_breakage() {
    let ex = Example::new("hardware", "SystemEngineer");
    assert_eq!(ex.approve("reviewer", "GATE-TECH-REVIEW", "4").code, 0);
    let run = ex.check(&[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let report = run.json();
    for id in [
        "AC-HW-1",
        "AC-HW-2",
        "AC-HW-3",
        "AC-HW-4",
        "gate:GATE-TECH-REVIEW",
    ] {
        assert_eq!(row(&report, id)["status"], "pass", "{id}");
    }
    let cases = [
        (
            "AC-HW-1",
            "sdlaf-exports/deliverables/bom.json",
            "\"qty\": 1, \"source\": \"distributor B\"",
            "\"qty\": 0, \"source\": \"distributor B\"",
            "qty",
        ),
        (
            "AC-HW-2",
            "sdlaf-exports/deliverables/test_plan.md",
            "## Re-test Policy",
            "## Retests",
            "Re-test Policy",
        ),
        (
            "AC-HW-4",
            "sdlaf-exports/deliverables/test_plan.md",
            "| test_plan.md#T-3 |",
            "| test_plan.md#T-4 |",
            "T-4",
        ),
        (
            "AC-HW-3",
            "sdlaf-exports/deliverables/assembly.md",
            "# ",
            "# DRAFT ",
            "2/5",
        ),
    ];
    for (id, path, from, to, said) in cases {
        let ex = Example::new("hardware", "SystemEngineer");
        ex.edit(path, from, to);
        let r = ex.check(&["--only", id]).json();
        let r = row(&r, id);
        assert_eq!(r["status"], "fail", "{id}: {r:#}");
        assert!(messages(r).contains(said), "{id}: {}", messages(r));
    }
}

fn published(name: &str) -> PathBuf {
    repo().join("tests/published").join(name)
}

#[test]
fn the_published_examples_are_the_published_bytes() {
    use sha2::Digest as _;
    for (name, sha) in [
        (
            "vcc_software.yml",
            "134cb165290864f7f120ab457d5e7db62946061dc6ae7f3afc0208eaaa00e6a1",
        ),
        (
            "vcc_research.yml",
            "5ac9ccc8542bf7fc49a20337b0d65af44787eaafc3c513389cf41c1c53ef4541",
        ),
        (
            "vcc_hardware.yml",
            "217204a58de291d70ca0a15eb510132f4dc886a986ad0059b010940fc0d978f5",
        ),
    ] {
        let bytes = std::fs::read(published(name)).unwrap();
        assert_eq!(format!("{:x}", sha2::Sha256::digest(&bytes)), sha, "{name}");
    }
}

/// The published software contract, unedited, on the software example's
/// folder: mapped from the command line, reviewed with a signed approval,
/// with the agent's transcript attached for `agentActions.logged`.
#[test]
fn the_published_software_example_is_accepted_unedited() {
    let ex = Example::new("software", "Reviewer");
    let keys = ex.keys.path();
    let transcript = keys.join("session.jsonl");
    std::fs::write(&transcript, TRANSCRIPT).unwrap();
    let contract = published("vcc_software.yml");
    let dir = ex.root.path().to_str().unwrap().to_string();
    let adapters = published("software-adapters.yaml");
    let approvals = keys.join("approvals");
    let mapping = [
        "--dir",
        dir.as_str(),
        "--artifact-root",
        "A2=repo",
        "--adapters",
        adapters.to_str().unwrap(),
        "--approvals",
        approvals.to_str().unwrap(),
        "--trust",
    ];
    let trust = ex.trust();
    let key = keys.join("reviewer.key");
    let mut approve = vec![
        "approve",
        "--key",
        key.to_str().unwrap(),
        "--contract",
        contract.to_str().unwrap(),
        "--gate",
        "GATE-REVIEW",
        "--score",
        "4",
    ];
    approve.extend(mapping);
    approve.push(&trust);
    let approved = vcc(&approve);
    assert_eq!(approved.code, 0, "{}", approved.stderr);

    let attach = format!(".vcc/transcript.jsonl={}", transcript.display());
    let mut check = vec!["check", contract.to_str().unwrap(), "--format", "json"];
    check.extend(mapping);
    check.push(&trust);
    let without = vcc(&check);
    assert_eq!(without.code, 1, "{}", without.stdout);
    let prov = row(&without.json(), "provenance:PROV-POLICY-v1").clone();
    assert!(
        messages(&prov).contains("agentActions.logged: no agent transcript"),
        "{}",
        messages(&prov)
    );
    check.extend(["--attach", attach.as_str()]);
    let run = vcc(&check);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let report = run.json();
    for (id, status) in [
        ("AC-SW-1", "pass"),
        ("AC-SW-2", "pass"),
        ("AC-SW-3", "pass"),
        ("AC-SW-SEC-1", "skip"),
        ("gate:GATE-REVIEW", "pass"),
        ("gate:GATE-PROVENANCE", "pass"),
    ] {
        assert_eq!(row(&report, id)["status"], status, "{id}");
    }
}

#[test]
fn the_published_software_example_says_what_it_needs_mapped() {
    let contract = published("vcc_software.yml");
    let dir = repo().join("contracts/examples/vcc-v1/software");
    let lint = vcc(&[
        "lint",
        contract.to_str().unwrap(),
        "--dir",
        dir.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(lint.code, 2);
    let problems = lint.json()["problems"].clone();
    let errors: Vec<(String, String, u64)> = problems
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["level"] == "error")
        .map(|p| {
            (
                p["code"].as_str().unwrap().to_string(),
                p["field"].as_str().unwrap_or("").to_string(),
                p["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        errors,
        vec![
            (
                "UNVERIFIABLE_MUST".to_string(),
                "artifacts[1].formats[0].uri".to_string(),
                39
            ),
            (
                "UNVERIFIABLE_MUST".to_string(),
                "acceptance[1].targetArtifacts[0]".to_string(),
                91
            ),
            (
                "EXPLICIT_VALIDATOR_MISSING".to_string(),
                "acceptance[2].rule.adapter".to_string(),
                104
            ),
        ],
        "{problems:#}"
    );
    let human = vcc(&["lint", contract.to_str().unwrap()]);
    assert!(
        human.stderr.contains("--artifact-root A2=DIR"),
        "{}",
        human.stderr
    );
    assert!(human.stderr.contains("x-vcc-adapters"), "{}", human.stderr);
}

/// Research and hardware have an AI-judged MUST: unverifiable until vcc
/// has an AI judge; `--only` still evaluates the others.
/// The published research and hardware examples, unedited, are ACCEPTED
/// once their AI judges are named (`--adapters`) and an endpoint allowed
/// (`--judges`); a CI re-run replays the recorded session, with no
/// endpoint, to the same verdict and the same rows.
#[test]
fn the_published_rubric_examples_are_accepted_and_replayed() {
    for (name, folder, rubric, gate) in [
        (
            "vcc_research.yml",
            "research",
            "AC-RES-4",
            "gate:GATE-REVIEW",
        ),
        (
            "vcc_hardware.yml",
            "hardware",
            "AC-HW-3",
            "gate:GATE-TECH-REVIEW",
        ),
    ] {
        let ex = Example::new(folder, "Editor");
        let keys = ex.keys.path();
        let transcript = keys.join("session.jsonl");
        std::fs::write(&transcript, TRANSCRIPT).unwrap();
        let attach = format!(".vcc/transcript.jsonl={}", transcript.display());
        let session = keys.join("judge-session.json").display().to_string();
        let contract = published(name);
        let adapters = published("judges-adapters.yaml");
        let dir = ex.root.path().display().to_string();
        let judges = ex.judges();
        let base = [
            "--no-cache",
            "check",
            contract.to_str().unwrap(),
            "--format",
            "json",
            "--dir",
            &dir,
            "--adapters",
            adapters.to_str().unwrap(),
            "--attach",
            &attach,
        ];
        let mut record = base.to_vec();
        record.extend(["--judges", &judges, "--judge-record", &session]);
        let live = vcc(&record);
        assert_eq!(live.code, 0, "{name}: {}", live.stdout);
        let report = live.json();
        assert_eq!(row(&report, rubric)["status"], "pass", "{name}");
        assert_eq!(row(&report, gate)["status"], "pass", "{name}");
        assert!(
            messages(row(&report, gate)).contains(&format!("judged by criterion `{rubric}`")),
            "{name}"
        );

        let mut replay = base.to_vec();
        replay.extend(["--judge-replay", &session]);
        let again = vcc(&replay);
        assert_eq!(again.code, 0, "{name}: {}", again.stdout);
        let rows = |r: &Value| {
            let mut c = row(r, rubric).clone();
            c.as_object_mut().unwrap().remove("duration_ms");
            for call in c["judge_calls"].as_array_mut().unwrap() {
                call["source"] = serde_json::json!("?");
            }
            c
        };
        assert_eq!(rows(&report), rows(&again.json()), "{name}");
        assert_eq!(again.json()["judging"]["usage"]["replayed"], 3, "{name}");
    }
}

#[test]
fn the_published_rubric_musts_are_unverifiable_and_only_runs_the_rest() {
    for (name, folder, rubric, field, others) in [
        (
            "vcc_research.yml",
            "research",
            "AC-RES-4",
            "acceptance[3].type",
            "AC-RES-1,AC-RES-2,AC-RES-3",
        ),
        (
            "vcc_hardware.yml",
            "hardware",
            "AC-HW-3",
            "acceptance[2].type",
            "AC-HW-1,AC-HW-2,AC-HW-4",
        ),
    ] {
        let contract = published(name);
        let dir = repo().join("contracts/examples/vcc-v1").join(folder);
        let run = vcc(&[
            "check",
            contract.to_str().unwrap(),
            "--dir",
            dir.to_str().unwrap(),
            "--format",
            "json",
        ]);
        assert_eq!(run.code, 2, "{name}: {}", run.stdout);
        let errors: Vec<String> = run.json()["problems"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["level"] == "error")
            .map(|p| {
                format!(
                    "{} {}",
                    p["code"].as_str().unwrap(),
                    p["field"].as_str().unwrap()
                )
            })
            .collect();
        assert_eq!(errors, vec![format!("UNVERIFIABLE_MUST {field}")], "{name}");
        let partial = vcc(&[
            "check",
            contract.to_str().unwrap(),
            "--dir",
            dir.to_str().unwrap(),
            "--only",
            others,
            "--format",
            "json",
        ]);
        let report = partial.json();
        assert_eq!(report["verdict"], "withheld", "{name}: {report:#}");
        for id in others.split(',') {
            assert_eq!(row(&report, id)["status"], "pass", "{name} {id}");
        }
        assert!(
            report["criteria"]
                .as_array()
                .unwrap()
                .iter()
                .all(|c| c["id"] != rubric)
        );
    }
}

#[test]
fn the_specifications_schema_is_enforced_with_lines() {
    let scratch = Scratch::new();
    let text = std::fs::read_to_string(published("vcc_hardware.yml"))
        .unwrap()
        .replace("type: \"schema\"", "type: \"schemas\"")
        .replace(
            "owners: [\"role:TestEngineer\"]",
            "owners: [\"TestEngineer\"]",
        );
    let path = scratch.write("vcc.yml", text);
    let lint = vcc(&["lint", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(lint.code, 2);
    let found: Vec<(String, String, u64)> = lint.json()["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["code"].as_str().unwrap().to_string(),
                p["field"].as_str().unwrap_or("").to_string(),
                p["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert!(
        found.contains(&("SCHEMA_VIOLATION".into(), "acceptance[0].type".into(), 101)),
        "{found:?}"
    );
    assert!(
        found.contains(&(
            "SCHEMA_VIOLATION".into(),
            "artifacts[4].owners[0]".into(),
            83
        )),
        "{found:?}"
    );
}

#[test]
fn a_rubric_whose_evidence_is_an_artifact_is_refused() {
    let scratch = Scratch::new();
    let text = std::fs::read_to_string(published("vcc_hardware.yml"))
        .unwrap()
        .replace(
            "producedArtifact: \"E-AC-HW-3\"",
            "producedArtifact: \"A6\"",
        );
    let path = scratch.write("vcc.yml", text);
    let lint = vcc(&["lint", path.to_str().unwrap()]);
    assert_eq!(lint.code, 2);
    assert!(
        lint.stderr
            .contains("a score file the producer writes is not a judgment"),
        "{}",
        lint.stderr
    );
    assert!(lint.stderr.contains("E-AC-HW-3"), "{}", lint.stderr);
}

/// `attestation.signed`: the provenance record must be signed by a key
/// the trust policy names for records; the host verifies, never the
/// validator.
#[test]
fn attestation_signed_needs_a_trusted_signature_on_the_record() {
    let ex = Example::new("software", "Reviewer");
    let keys = ex.keys.path();
    ex.keys.write(
        "trust.yaml",
        "trust: 1\nkeys:\n  - { id: reviewer, public_key: reviewer.pub }\nroles: { Reviewer: [reviewer] }\nrecords: { signers: [reviewer] }\n",
    );
    // A provenance criterion over a record that lists the requirements.
    ex.edit(
        "contract.yml",
        "  - acId: \"AC-SW-SEC-1\"",
        "  - acId: \"AC-SW-PROV\"\n    targetArtifacts: [\"A1\"]\n    type: \"provenance\"\n    severity: \"must\"\n    rule: { require: [\"inputs.enumerated\", \"attestation.signed\"], record: \"sdlaf-exports/evidence/provenance.json\" }\n    evidence: { required: true, evidenceType: \"auto\" }\n\n  - acId: \"AC-SW-SEC-1\"",
    );
    let record = ex.file("sdlaf-exports/evidence/provenance.json");
    let spec = "sdlaf-exports/deliverables/requirements.md";
    let digest = {
        use sha2::Digest as _;
        format!(
            "{:x}",
            sha2::Sha256::digest(std::fs::read(ex.file(spec)).unwrap())
        )
    };
    std::fs::write(
        &record,
        format!("{{\"inputs\": [\"{spec}\"], \"artifacts\": [{{\"path\": \"{spec}\", \"digest\": \"sha256:{digest}\"}}]}}\n"),
    )
    .unwrap();
    let unsigned = ex.check(&["--only", "AC-SW-PROV"]);
    let r = row(&unsigned.json(), "AC-SW-PROV").clone();
    assert_eq!(r["status"], "fail", "{r:#}");
    assert_eq!(r["findings"][0]["rule"], "unsigned", "{r:#}");
    // Signed (a DSSE envelope beside it) by the records signer: it counts.
    let envelope = sign_file(&record, &keys.join("reviewer.key"));
    std::fs::write(record.with_file_name("provenance.json.dsse.json"), envelope).unwrap();
    let signed = ex.check(&["--only", "AC-SW-PROV"]);
    assert_eq!(
        row(&signed.json(), "AC-SW-PROV")["status"],
        "pass",
        "{}",
        signed.stdout
    );
}

/// A DSSE envelope over a file's bytes, as `vcc record --key` writes one.
fn sign_file(file: &Path, key: &Path) -> String {
    let key = vcc_trust::keys::PrivateKey::read(key).unwrap();
    let bytes = std::fs::read(file).unwrap();
    let env = vcc_trust::dsse::Envelope::sign(vcc_record::PAYLOAD_TYPE, &bytes, &key);
    serde_json::to_string(&env).unwrap()
}

/// Execution evidence by media type: a TAP stream is judged by std/junit;
/// a plain log carries no exit status and is unverifiable.
#[test]
fn execution_reads_tap_and_refuses_a_plain_log() {
    let ex = Example::new("software", "Reviewer");
    let artifact = "  - artifactId: \"A6\"\n    kind: \"evidence\"\n    description: \"The end-to-end suite, as TAP.\"\n    formats: [{ mediaType: \"text/x-tap\", uri: \"sdlaf-exports/evidence/e2e.tap\" }]\n    required: true\n    dependsOn: []\n    owners: [\"role:CIEngineer\"]\n    qualityLevel: \"production\"\n\nacceptance:\n";
    ex.edit("contract.yml", "acceptance:\n", artifact);
    ex.edit(
        "contract.yml",
        "  - acId: \"AC-SW-SEC-1\"",
        "  - acId: \"AC-SW-E2E\"\n    targetArtifacts: [\"A6\"]\n    type: \"execution\"\n    severity: \"must\"\n    rule: { passFailFromExitCode: true }\n    evidence: { required: true, evidenceType: \"auto\" }\n\n  - acId: \"AC-SW-SEC-1\"",
    );
    let tap = ex.file("sdlaf-exports/evidence/e2e.tap");
    std::fs::write(
        &tap,
        "TAP version 13\n1..2\nok 1 - export pages\nok 2 - export cursor\n",
    )
    .unwrap();
    let run = ex.check(&["--only", "AC-SW-E2E"]);
    let r = row(&run.json(), "AC-SW-E2E").clone();
    assert_eq!(
        (r["status"].as_str(), r["validator"]["component"].as_str()),
        (Some("pass"), Some("std/junit")),
        "{r:#}"
    );
    std::fs::write(&tap, "TAP version 13\n1..2\nok 1 - export pages\n").unwrap();
    let r = row(&ex.check(&["--only", "AC-SW-E2E"]).json(), "AC-SW-E2E").clone();
    assert_eq!(r["status"], "fail", "{r:#}");
    assert!(messages(&r).contains("1..2"), "{}", messages(&r));
    // The same log as plain text: no exit status, so no verdict.
    ex.edit(
        "contract.yml",
        "{ mediaType: \"text/x-tap\", uri: \"sdlaf-exports/evidence/e2e.tap\" }",
        "{ mediaType: \"text/plain\", uri: \"sdlaf-exports/evidence/e2e.log\" }",
    );
    let lint = vcc(&["lint", ex.contract.to_str().unwrap()]);
    assert_eq!(lint.code, 2);
    assert!(
        lint.stderr.contains("carries no exit status"),
        "{}",
        lint.stderr
    );
}

/// An adapters file inside the deliverable root could be rewritten by
/// whoever writes the deliverables: refused, like a trust policy there.
#[test]
fn an_adapters_file_in_the_root_is_refused() {
    let ex = Example::new("software", "Reviewer");
    let adapters = ex.file("adapters.yaml");
    std::fs::copy(published("software-adapters.yaml"), &adapters).unwrap();
    let run = vcc(&[
        "check",
        published("vcc_software.yml").to_str().unwrap(),
        "--dir",
        ex.root.path().to_str().unwrap(),
        "--artifact-root",
        "A2=repo",
        "--adapters",
        adapters.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    let report = run.json();
    assert_eq!(report["problems"][0]["code"], "TRUST_IN_ROOT", "{report:#}");
    assert!(
        report["problems"][0]["message"]
            .as_str()
            .unwrap()
            .contains("adapters file"),
        "{report:#}"
    );
}

/// A small VCC v1 contract in `root`: a plan (`docs/plan.md`, with a
/// scope) judged by a structure criterion `AC-1` of `severity` whose
/// evidence is `evidence`, a provenance policy `PROV-1` that requires
/// `require`, and `extra` YAML at the end.
fn small(root: &Scratch, severity: &str, evidence: &str, require: &str, extra: &str) -> PathBuf {
    root.write(
        "docs/plan.md",
        "# Plan\n\n## Scope\n\nExport the results page by page.\n",
    );
    root.write(
        "contract.yml",
        format!(
            r#"vccVersion: "sdlaf.vcc/v1"
id: "small-plan"
title: "A plan with a scope"
summary: "A plan whose scope is written down."
intent:
  problemStatement: "Plan the export."
  successDefinition: "The plan has a scope."
  inScope: ["the plan"]
  outOfScope: []
artifacts:
  - artifactId: "PLAN"
    kind: "specification"
    description: "The plan."
    formats: [{{ mediaType: "text/markdown", uri: "docs/plan.md" }}]
    required: true
    dependsOn: []
    owners: ["role:Writer"]
    qualityLevel: "production"
acceptance:
  - acId: "AC-1"
    targetArtifacts: ["PLAN"]
    type: "structure"
    severity: "{severity}"
    rule: {{ requiredSections: ["Scope"] }}
    evidence: {{ required: true, evidenceType: "{evidence}", producedArtifact: "E-AC-1" }}
packaging:
  - {{ packageId: "P-1", inputs: ["PLAN"], method: "bundle", format: "zip", uri: "s3://bucket/plan.zip", manifestRequired: false }}
delivery:
  - {{ deliveryId: "D-1", channel: "s3", target: "remote", uri: "s3://bucket/plan.zip" }}
provenancePolicy: {{ policyId: "PROV-1", require: [{require}], strength: "L1-like" }}
resourceConstraints: {{ maxIterations: 3 }}
{extra}"#
        ),
    )
}

/// `vcc check CONTRACT --format json --attach GUEST=FILE`.
fn check_attached(contract: &Path, guest: &str, file: &Path) -> Run {
    let attach = format!("{guest}={}", file.display());
    vcc(&[
        "check",
        contract.to_str().unwrap(),
        "--format",
        "json",
        "--attach",
        &attach,
    ])
}

const ACTIONS: &str = r#""inputs.enumerated", "agentActions.logged""#;

/// The provenance row of a small contract whose policy requires
/// `agentActions.logged`, with `transcript` attached as the agent's.
fn actions_row(transcript: &str) -> (Run, Value) {
    let root = Scratch::new();
    let contract = small(&root, "must", "auto", ACTIONS, "");
    let outside = Scratch::new();
    let file = outside.write("session.jsonl", transcript);
    let run = check_attached(&contract, ".vcc/transcript.jsonl", &file);
    let prov = row(&run.json(), "provenance:PROV-1").clone();
    (run, prov)
}

/// `agentActions.logged` holds only for a transcript std/tool-calls reads
/// with at least one action in it: an empty file attached in its place
/// logs nothing (once: ACCEPTED).
#[test]
fn forgery_host_an_empty_file_attached_as_the_transcript() {
    let (run, prov) = actions_row("");
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(run.json()["verdict"], "rejected");
    assert_eq!(prov["status"], "fail", "{prov:#}");
    assert!(
        messages(&prov).contains("agentActions.logged: std/tool-calls found no action"),
        "{}",
        messages(&prov)
    );
}

/// A session with the user's prompt and no action of the agent's: it
/// logs no action (once: ACCEPTED).
#[test]
fn forgery_host_a_transcript_without_an_action() {
    let (run, prov) = actions_row(TRANSCRIPT.lines().next().unwrap());
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(prov["status"], "fail", "{prov:#}");
    assert!(
        messages(&prov).contains("found no action (no tool call)"),
        "{}",
        messages(&prov)
    );
}

/// A file in no format an agent writes: std/tool-calls reads no action in
/// it (once: ACCEPTED).
#[test]
fn forgery_host_a_file_that_is_no_transcript_attached_as_one() {
    let (run, prov) = actions_row("All 12 tests pass. I ran them myself.\n");
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(prov["status"], "fail", "{prov:#}");
    let said = messages(&prov);
    assert!(
        said.contains("std/tool-calls read no action in the file attached from"),
        "{said}"
    );
    assert!(
        said.contains("std/tool-calls reads Claude Code JSONL"),
        "{said}"
    );
}

/// A transcript with an action logs the agent's actions; one attached
/// anywhere but `.vcc/transcript.jsonl` is not the agent's transcript.
#[test]
fn agent_actions_are_logged_by_an_attached_transcript_with_an_action() {
    let (run, prov) = actions_row(TRANSCRIPT);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(prov["status"], "pass", "{prov:#}");
    let said = messages(&prov);
    assert!(
        said.contains("agentActions.logged: std/tool-calls (blake3:"),
        "{said}"
    );
    assert!(said.contains("1 call(s)"), "{said}");

    let root = Scratch::new();
    let contract = small(&root, "must", "auto", ACTIONS, "");
    let outside = Scratch::new();
    let file = outside.write("session.jsonl", TRANSCRIPT);
    let run = check_attached(&contract, "notes/session.jsonl", &file);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let prov = row(&run.json(), "provenance:PROV-1").clone();
    assert!(
        messages(&prov).contains("attached at `notes/session.jsonl` only"),
        "{}",
        messages(&prov)
    );
}

/// `evidenceType: human`: the criterion is a person's judgment. Judged
/// by its validator alone it was accepted without anyone; now a MUST of it
/// is refused, saying how to ask the person (a gate's signed approval).
#[test]
fn forgery_host_human_evidence_judged_by_a_validator() {
    let root = Scratch::new();
    let contract = small(&root, "must", "human", r#""inputs.enumerated""#, "");
    let run = vcc(&["check", contract.to_str().unwrap(), "--format", "json"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    let report = run.json();
    assert_eq!(report["verdict"], "invalid");
    let p = &report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["level"] == "error")
        .unwrap();
    assert_eq!(
        (p["code"].as_str(), p["field"].as_str(), p["line"].as_u64()),
        (
            Some("UNVERIFIABLE_MUST"),
            Some("acceptance[0].evidence.evidenceType"),
            Some(25)
        ),
        "{p:#}"
    );
    assert!(
        p["message"].as_str().unwrap().contains("vcc approve"),
        "{p:#}"
    );
    assert!(
        p["help"]
            .as_str()
            .unwrap()
            .contains("gate's `human` approval"),
        "{p:#}"
    );
}

/// `evidenceType: hybrid`: a check and a person's judgment; the validator
/// alone gives only the first (once: ACCEPTED).
#[test]
fn forgery_host_hybrid_evidence_judged_by_its_validator_alone() {
    let root = Scratch::new();
    let contract = small(&root, "must", "hybrid", r#""inputs.enumerated""#, "");
    let lint = vcc(&["lint", contract.to_str().unwrap()]);
    assert_eq!(lint.code, 2, "{}", lint.stderr);
    assert!(
        lint.stderr.contains(
            "error[UNVERIFIABLE_MUST] acceptance[0].evidence.evidenceType: MUST criterion `AC-1` cannot be verified by vcc: `evidence.evidenceType` is `hybrid`"
        ),
        "{}",
        lint.stderr
    );
    assert!(
        lint.stderr
            .contains("help: ask the person in a gate's `human` approval"),
        "{}",
        lint.stderr
    );
}

/// A SHOULD whose evidence is a person's is a visible `skip` row that says
/// why, never a pass.
#[test]
fn a_should_with_human_evidence_is_a_visible_skip() {
    let root = Scratch::new();
    let contract = small(&root, "should", "human", r#""inputs.enumerated""#, "");
    // And a MUST: the same structure, judged by its validator.
    let text = std::fs::read_to_string(&contract).unwrap().replacen(
        "packaging:",
        "  - acId: \"AC-2\"\n    targetArtifacts: [\"PLAN\"]\n    type: \"structure\"\n    severity: \"must\"\n    rule: { requiredSections: [\"Scope\"] }\n    evidence: { required: true, evidenceType: \"auto\" }\npackaging:",
        1,
    );
    std::fs::write(&contract, text).unwrap();
    let run = vcc(&["check", contract.to_str().unwrap(), "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let r = row(&run.json(), "AC-1").clone();
    assert_eq!(
        (r["status"].as_str(), r["reason"].as_str()),
        (Some("skip"), Some("not_evaluated")),
        "{r:#}"
    );
    assert!(
        r["summary"].as_str().unwrap().contains("is `human`"),
        "{r:#}"
    );
}

/// A gate's approval on a rubric the contract does not declare is refused,
/// as the specification's reference refuses it.
#[test]
fn a_gate_approval_on_an_undeclared_rubric_is_refused() {
    let root = Scratch::new();
    let contract = small(
        &root,
        "must",
        "auto",
        r#""inputs.enumerated""#,
        "gates:\n  - gateId: \"GATE-REVIEW\"\n    when: \"before_final\"\n    requiredApprovals:\n      - { type: \"ai\", role: \"role:Reviewer\", rubricId: \"RUBRIC-NOPE\", passThreshold: 4 }\n",
    );
    let lint = vcc(&["lint", contract.to_str().unwrap(), "--format", "json"]);
    assert_eq!(lint.code, 2, "{}", lint.stdout);
    let problems = lint.json()["problems"].clone();
    let p = problems
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["code"] == "GATE_RUBRIC_REF_MISSING")
        .unwrap_or_else(|| panic!("{problems:#}"));
    assert_eq!(
        (p["field"].as_str(), p["line"].as_u64(), p["level"].as_str()),
        (
            Some("gates[0].requiredApprovals[0].rubricId"),
            Some(36),
            Some("error")
        ),
        "{p:#}"
    );
    assert!(
        p["message"].as_str().unwrap().contains("`RUBRIC-NOPE`"),
        "{p:#}"
    );
}

/// Judges that disagree leave the rubric `skip`; the gate whose AI
/// approval is that judgment waits on it: undecided (withheld), not
/// closed (once: `fail`, and the run REJECTED).
#[test]
fn an_ai_approval_whose_judges_disagree_leaves_its_gate_undecided() {
    let judge = JudgeServer::start(|_: &Received, n| {
        Reply::Score([1.0, 5.0, 1.0][n % 3], format!("disagreeing: sample {n}"))
    });
    let ex = Example::judged_by("research", "Editor", judge);
    let run = ex.check(&[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let report = run.json();
    assert_eq!(row(&report, "AC-RES-4")["status"], "skip");
    let gate = row(&report, "gate:GATE-REVIEW");
    assert_eq!(gate["status"], "skip", "{gate:#}");
    assert!(
        messages(gate).contains("criterion `AC-RES-4` (the AI judgment) did not pass (skip)"),
        "{}",
        messages(gate)
    );
    assert_eq!(report["verdict"], "withheld", "{:?}", statuses(&report));
}

/// A judge that answers outside the schema leaves the rubric `error`, and
/// its gate `error` with it (once: `fail`, and the run REJECTED).
#[test]
fn an_ai_approval_whose_judge_errs_leaves_its_gate_undecided() {
    let judge = JudgeServer::start(|_: &Received, _| Reply::Text("five, I think".into()));
    let ex = Example::judged_by("research", "Editor", judge);
    let run = ex.check(&[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let report = run.json();
    assert_eq!(row(&report, "AC-RES-4")["status"], "error");
    assert_eq!(row(&report, "gate:GATE-REVIEW")["status"], "error");
    assert_eq!(report["verdict"], "withheld", "{:?}", statuses(&report));
}

/// `varianceMax` takes the specification's range (0–1): 0.5 is as
/// lenient as std/rubric's 0.25 (the most scores on 0..1 can vary). A
/// value std/rubric refuses is blamed on the field it came from.
#[test]
fn rubric_bounds_take_the_specifications_range_and_blame_their_field() {
    let ex = Example::new("research", "Editor");
    ex.edit("contract.yml", "varianceMax: 0.15", "varianceMax: 0.5");
    let run = ex.check(&["--only", "AC-RES-4"]);
    let r = row(&run.json(), "AC-RES-4").clone();
    assert_eq!(r["status"], "pass", "{r:#}");
    assert!(
        r["summary"].as_str().unwrap().contains("(max 0.250)"),
        "{r:#}"
    );
    ex.edit(
        "contract.yml",
        "confidenceThreshold: 0.95",
        "confidenceThreshold: 0",
    );
    let errors = |run: &Run| -> Vec<(String, String, u64)> {
        assert_eq!(run.code, 2, "{}", run.stdout);
        run.json()["problems"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["level"] == "error")
            .map(|p| {
                (
                    p["code"].as_str().unwrap().to_string(),
                    p["field"].as_str().unwrap().to_string(),
                    p["line"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let blamed = vec![(
        "INVALID_PARAMS".to_string(),
        "acceptance[3].confidenceThreshold".to_string(),
        114,
    )];
    let judges = ex.judges();
    let lint = vcc(&[
        "lint",
        ex.contract.to_str().unwrap(),
        "--judges",
        &judges,
        "--format",
        "json",
    ]);
    assert_eq!(errors(&lint), blamed);
    // A run of that criterion alone points at the same field (once:
    // `acceptance[0].rule`, the first criterion's, on another line).
    assert_eq!(errors(&ex.check(&["--only", "AC-RES-4"])), blamed);
}

/// `--artifact-root A2=repo`, `A2=repo/` and `A2=./repo` map one folder:
/// one contract digest, so an approval made with one counts with another.
#[test]
fn an_artifact_root_is_one_folder_however_it_is_written() {
    let dir = repo().join("contracts/examples/vcc-v1/software");
    let adapters = published("software-adapters.yaml");
    let digest = |mapping: &str| {
        let run = vcc(&[
            "check",
            published("vcc_software.yml").to_str().unwrap(),
            "--dir",
            dir.to_str().unwrap(),
            "--artifact-root",
            mapping,
            "--adapters",
            adapters.to_str().unwrap(),
            "--only",
            "AC-SW-2",
            "--format",
            "json",
        ]);
        let report = run.json();
        assert_eq!(row(&report, "AC-SW-2")["status"], "pass", "{mapping}");
        report["contract"]["digest"].as_str().unwrap().to_string()
    };
    let plain = digest("A2=repo");
    for other in ["A2=repo/", "A2=./repo", "A2=repo//", "A2=./repo/."] {
        assert_eq!(digest(other), plain, "{other}");
    }
}

/// A criterion's row names the evidence it produces
/// (`evidence.producedArtifact`).
#[test]
fn each_row_names_the_evidence_its_criterion_produces() {
    let ex = Example::new("software", "Reviewer");
    let report = ex.check(&["--only", "AC-SW-1,AC-SW-3,P-SW-1"]).json();
    assert_eq!(row(&report, "AC-SW-1")["produced_artifact"], "E-AC-SW-1");
    assert_eq!(row(&report, "AC-SW-3")["produced_artifact"], "A3");
    assert!(row(&report, "P-SW-1").get("produced_artifact").is_none());
}

/// The published software example converges: the first check finds no
/// action in the agent's (empty) session; the agent acts (its session
/// gains a tool call); the check after it reads the session again, and the
/// contract is ACCEPTED. (Once: `vcc converge` took no `--attach`.)
#[test]
fn the_published_software_example_converges_with_its_transcript_attached() {
    let ex = Example::new("software", "Reviewer");
    let keys = ex.keys.path();
    let session = keys.join("session.jsonl");
    std::fs::write(&session, "").unwrap();
    let contract = published("vcc_software.yml");
    let dir = ex.root.path().to_str().unwrap().to_string();
    let adapters = published("software-adapters.yaml");
    let approvals = keys.join("approvals");
    let trust = ex.trust();
    let mapping = [
        "--dir",
        dir.as_str(),
        "--artifact-root",
        "A2=repo",
        "--adapters",
        adapters.to_str().unwrap(),
        "--approvals",
        approvals.to_str().unwrap(),
        "--trust",
        trust.as_str(),
    ];
    let key = keys.join("reviewer.key");
    let mut approve = vec![
        "approve",
        "--key",
        key.to_str().unwrap(),
        "--contract",
        contract.to_str().unwrap(),
        "--gate",
        "GATE-REVIEW",
        "--score",
        "4",
    ];
    approve.extend(mapping);
    let approved = vcc(&approve);
    assert_eq!(approved.code, 0, "{}", approved.stderr);

    let attach = format!(".vcc/transcript.jsonl={}", session.display());
    let action = TRANSCRIPT.lines().nth(1).unwrap();
    let agent = format!("printf '%s\\n' '{action}' >> '{}'", session.display());
    let mut converge = vec!["converge", contract.to_str().unwrap(), "--format", "json"];
    converge.extend(mapping);
    converge.extend(["--attach", &attach, "--", "sh", "-c", &agent]);
    let run = vcc(&converge);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let report = run.json();
    assert_eq!(report["termination"]["reason"], "accepted", "{report:#}");
    assert_eq!(report["iterations"].as_array().unwrap().len(), 2);
    let last = &report["last_check"];
    assert_eq!(last["verdict"], "accepted");
    assert_eq!(
        row(last, "provenance:PROV-POLICY-v1")["status"],
        "pass",
        "{:#}",
        row(last, "provenance:PROV-POLICY-v1")
    );
    assert_eq!(
        last["deliverables"]["attached"][0]["source"],
        session.display().to_string()
    );
    // A FILE that cannot be read makes the check invalid: the loop ends.
    let missing = format!(".vcc/transcript.jsonl={}", keys.join("none").display());
    let mut broken = vec!["converge", contract.to_str().unwrap(), "--format", "json"];
    broken.extend(mapping);
    broken.extend(["--attach", &missing, "--", "true"]);
    let run = vcc(&broken);
    assert_eq!(run.code, 2, "{}", run.stdout);
    let report = run.json();
    assert_eq!(report["termination"]["reason"], "invalid");
    assert!(
        report["termination"]["detail"]
            .as_str()
            .unwrap()
            .contains("--attach .vcc/transcript.jsonl="),
        "{report:#}"
    );
}

/// The examples' README says what each example holds: every MUST
/// acceptance criterion, bundle package and gate of its contract, and which
/// rubrics an AI judges.
#[test]
fn the_examples_readme_names_what_each_example_holds() {
    let folder = repo().join("contracts/examples/vcc-v1");
    let readme = std::fs::read_to_string(folder.join("README.md")).unwrap();
    for name in ["software", "research", "hardware"] {
        let line = readme
            .lines()
            .find(|l| l.starts_with(&format!("| `{name}/` |")))
            .unwrap_or_else(|| panic!("no row for {name}/"));
        let text = std::fs::read_to_string(folder.join(name).join("contract.yml")).unwrap();
        let doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
        let ids = |list: &str, id: &str| -> Vec<(String, serde_yaml::Value)> {
            doc[list]
                .as_sequence()
                .into_iter()
                .flatten()
                .map(|x| (x[id].as_str().unwrap().to_string(), x.clone()))
                .collect()
        };
        for (id, ac) in ids("acceptance", "acId") {
            if ac["severity"] == "must" {
                assert!(line.contains(&format!("`{id}`")), "{name}: {id}");
            }
            if ac["type"] == "rubric" {
                assert!(
                    line.contains(&format!("AI-judged rubric `{id}`")),
                    "{name}: {id}"
                );
            }
        }
        for (id, _) in ids("packaging", "packageId")
            .into_iter()
            .chain(ids("gates", "gateId"))
        {
            assert!(line.contains(&format!("`{id}`")), "{name}: {id}");
        }
    }
    assert!(!readme.contains("vcc has no AI judge"), "stale: {readme}");
}

/// VCC v1 `evidence.producedArtifact` ids are on the row of the criterion
/// that produces them, in the JSON report and in every other format, so
/// an auditor looking for `E-AC-HW-1` finds AC-HW-1.
#[test]
fn produced_artifact_ids_are_on_their_rows_in_every_format() {
    let ex = Example::new("hardware", "SystemEngineer");
    ex.edit(
        "sdlaf-exports/deliverables/bom.json",
        "\"qty\": 1, \"source\": \"distributor B\"",
        "\"qty\": 0, \"source\": \"distributor B\"",
    );
    let out = Scratch::new();
    let file = |name: &str| out.path().join(name).display().to_string();
    let summary = out.write("summary.md", "");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_vcc"))
        .args(["--no-cache", "check", ex.contract.to_str().unwrap()])
        .args([
            "--only",
            "AC-HW-1",
            "--trust",
            &ex.trust(),
            "--judges",
            &ex.judges(),
        ])
        .args([
            "--report-json",
            &file("r.json"),
            "--report-junit",
            &file("r.xml"),
        ])
        .args([
            "--report-sarif",
            &file("r.sarif"),
            "--report-markdown",
            &file("r.md"),
        ])
        .args([
            "--report-gitlab",
            &file("r.gitlab.json"),
            "--report-html",
            &file("r.html"),
        ])
        .env("NO_COLOR", "1")
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    // The human summary and the GitHub annotation.
    assert!(stderr.contains("AC-HW-1 (evidence E-AC-HW-1)"), "{stderr}");
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("::error") && l.contains("AC-HW-1 (evidence E-AC-HW-1)")),
        "{stderr}"
    );
    let read = |name: &str| std::fs::read_to_string(out.path().join(name)).unwrap();
    let report: Value = serde_json::from_str(&read("r.json")).unwrap();
    assert_eq!(row(&report, "AC-HW-1")["produced_artifact"], "E-AC-HW-1");
    assert!(read("r.xml").contains("name=\"vcc.producedArtifact\" value=\"E-AC-HW-1\""));
    let sarif: Value = serde_json::from_str(&read("r.sarif")).unwrap();
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "AC-HW-1");
    assert_eq!(result["properties"]["vcc.producedArtifact"], "E-AC-HW-1");
    assert!(read("r.md").contains("`AC-HW-1` (evidence `E-AC-HW-1`)"));
    assert!(read("r.gitlab.json").contains("AC-HW-1 (evidence E-AC-HW-1)"));
    assert!(read("r.html").contains("evidence <code>E-AC-HW-1</code>"));
    assert!(read("summary.md").contains("E-AC-HW-1"));
}

/// `--attach` judges a file from outside the root, but the report keeps
/// one root digest: the root's (what approvals bind), in
/// `deliverables.root_digest` and in the provenance row alike, which says
/// what it covered and names the attached file apart.
#[test]
fn one_root_digest_per_report_with_an_attached_file() {
    let s = Scratch::new();
    s.write("notes.md", "# Notes\n");
    let contract = s.write(
        "contract.yaml",
        "vcc: 1\nid: prov\ndeliverables:\n  - { id: notes, path: notes.md }\nvalidators:\n  fe: { component: std/file-exists }\ncriteria:\n  - { id: AC-1, severity: must, validator: fe, targets: [notes] }\nprovenance: { id: P, require: [inputs.enumerated] }\n",
    );
    let outside = Scratch::new();
    let session = outside.write("session.jsonl", TRANSCRIPT);
    let attach = format!(".vcc/transcript.jsonl={}", session.display());
    let plain = vcc(&["check", contract.to_str().unwrap(), "--format", "json"]);
    assert_eq!(plain.code, 0, "{}", plain.stdout);
    let attached = vcc(&[
        "check",
        contract.to_str().unwrap(),
        "--format",
        "json",
        "--attach",
        &attach,
    ]);
    assert_eq!(attached.code, 0, "{}", attached.stdout);
    let (plain, report) = (plain.json(), attached.json());
    let root = report["deliverables"]["root_digest"].as_str().unwrap();
    assert_eq!(root, plain["deliverables"]["root_digest"].as_str().unwrap());
    // The root's files (the contract and the notes), not the attached one.
    assert_eq!(report["deliverables"]["files"], 2);
    assert_eq!(plain["deliverables"]["files"], 2);
    assert_eq!(
        report["deliverables"]["attached"][0]["path"],
        ".vcc/transcript.jsonl"
    );
    let said = messages(row(&report, "provenance:P"));
    assert!(said.contains(root), "{said}");
    assert!(said.contains("2 file(s) of the root"), "{said}");
    assert!(
        said.contains("1 file(s) attached from outside the root")
            && said.contains(".vcc/transcript.jsonl"),
        "{said}"
    );
    let digests: Vec<&str> = said.matches("blake3:").collect();
    assert_eq!(digests.len(), 1, "one root digest: {said}");
}

/// `vcc package manifest DIR` writes the manifest std/package reads; a
/// package made from the folder with it passes `manifest: true`. A link
/// in the folder is refused, named.
#[test]
fn package_manifest_writes_what_std_package_reads() {
    let s = Scratch::new();
    s.write("dist/a.txt", "alpha\n");
    s.write("dist/sub/b.txt", "beta\n");
    let dist = s.path().join("dist");
    let made = vcc(&["package", "manifest", dist.to_str().unwrap()]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    let manifest: Value = serde_json::from_str(&made.stdout).unwrap();
    assert_eq!(manifest["files"][0]["path"], "a.txt");
    assert_eq!(manifest["files"][1]["path"], "sub/b.txt");
    use sha2::Digest;
    assert_eq!(
        manifest["files"][0]["sha256"],
        format!("{:x}", sha2::Sha256::digest(b"alpha\n"))
    );
    s.write("dist/MANIFEST.json", &made.stdout);
    // Written again with the manifest in place: the same bytes.
    assert_eq!(
        vcc(&["package", "manifest", dist.to_str().unwrap()]).stdout,
        made.stdout
    );
    let tar = std::process::Command::new("tar")
        .args(["-C", dist.to_str().unwrap(), "-czf"])
        .arg(s.path().join("pkg.tar.gz"))
        // As the book packs it: the whole folder, `./` and all.
        .arg(".")
        .status()
        .unwrap();
    assert!(tar.success());
    let contract = s.write(
        "contract.yaml",
        "vcc: 1\nid: pkg\ndeliverables:\n  - { id: pkg, path: pkg.tar.gz }\n  - { id: a, path: dist/a.txt }\n  - { id: b, path: dist/sub/b.txt }\nvalidators:\n  package: { component: std/package }\ncriteria:\n  - { id: AC-1, severity: must, validator: package, targets: [pkg], params: { inputs: [a, b], manifest: true } }\n",
    );
    let run = vcc(&["check", contract.to_str().unwrap(), "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);

    std::os::unix::fs::symlink("a.txt", dist.join("link")).unwrap();
    let refused = vcc(&["package", "manifest", dist.to_str().unwrap()]);
    assert_eq!(refused.code, 2);
    assert_eq!(refused.stdout, "");
    assert!(
        refused.stderr.contains("link") && refused.stderr.contains("not a regular file"),
        "{}",
        refused.stderr
    );
}

/// `vcc lint --adapters FILE` checks an adapters file alone, each problem
/// at its line; a good one is clean.
#[test]
fn an_adapters_file_is_linted_alone_with_lines() {
    let s = Scratch::new();
    let good = s.write(
        "adapters.yaml",
        "software.tests.run:\n  component: std/exit-record\n  record: evidence/tests.vcc.json\n  params: { command_matches: pytest }\nx-vcc-judges:\n  reviewer: { provider: openai-compatible, model: qwen2.5-7b-instruct }\n",
    );
    let run = vcc(&["lint", "--adapters", good.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("0 error(s)"), "{}", run.stderr);
    let bad = s.write(
        "bad.yaml",
        "software.tests.run:\n  component: std/exit-record\n  recrod: evidence/tests.vcc.json\nbuild.run:\n  params: { x: 1 }\nx-vcc-judges:\n  reviewer: { provider: openai-compatible }\n",
    );
    let run = vcc(&["lint", "--adapters", bad.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let shown = bad.display().to_string();
    assert!(
        run.stderr.contains(&format!("{shown}:3:3")) && run.stderr.contains("recrod"),
        "an unknown field, at its binding: {}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!("{shown}:4:1")) && run.stderr.contains("exactly one"),
        "no component: {}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!("{shown}:7:3")) && run.stderr.contains("model"),
        "a judge without a model: {}",
        run.stderr
    );
    assert!(run.stderr.contains("3 error(s)"), "{}", run.stderr);
    let json = vcc(&[
        "lint",
        "--adapters",
        bad.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let doc: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(doc["errors"], 3);
    assert_eq!(doc["problems"][0]["line"], 3);
    // A device has no length to bound the read by: refused, at once.
    let zero = s.path().join("zero.yaml");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let run = vcc(&["lint", "--adapters", zero.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("not a regular file"), "{}", run.stderr);
    // Not YAML at all: the syntax error's line.
    let broken = s.write("broken.yaml", "a: [1,\n");
    let run = vcc(&["lint", "--adapters", broken.to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains(&format!("{}:", broken.display())),
        "{}",
        run.stderr
    );
}
