//! Validator bundles end to end: keys, build, sign, verify, push and pull
//! through a real registry, vcc.lock, base contracts, `--policy`, and
//! every hostile case refused with its code (exit 2, nothing run).

use std::path::{Path, PathBuf};

use vcc_test_support::fixtures;

use crate::world::{Registry, World, http_get, refusal, tools_dir, which};

pub(crate) const BASELINE: &str = "vcc: 1
id: baseline
deliverables:
  - { id: notes, path: NOTES.md }
validators:
  scan: { bundle: acme/security, validator: secrets-scan }
  exists: { component: std/file-exists }
criteria:
  - { id: notes-exist, severity: must, validator: exists, targets: [notes], params: { min: 1 } }
  - { id: no-secrets, severity: must, validator: scan, targets: [notes] }
  - { id: style, severity: should, validator: exists, targets: [notes] }
";

pub(crate) const TEAM: &str = "vcc: 1
id: team
extends: { bundle: acme/security, contract: baseline, version: \"^1.2\" }
deliverables:
  - { id: changelog, path: CHANGELOG.md }
validators:
  exists: { component: std/file-exists }
criteria:
  - { id: changelog, severity: must, validator: exists, targets: [changelog] }
";

const RULE: &str = "{ name: \"acme/*\", signers: [platform], min_version: 1.2.0 }";

/// The platform's signed acme/security bundle at `version`, its layout.
pub(crate) fn signed_bundle(world: &World, version: &str) -> PathBuf {
    let layout = world.bundle(
        &format!("security-{version}"),
        "acme/security",
        version,
        &[("secrets-scan", fixtures::ALWAYS_PASS)],
        &[("baseline", BASELINE)],
    );
    world.sign(&layout, "platform");
    layout
}

/// A platform key, its trust policy, acme/security 1.2.0 signed and
/// pulled into the store, and a team project extending its baseline,
/// locked. Returns the trust policy and the project's contract.
pub(crate) fn locked_team(world: &World, contract: &str) -> (PathBuf, PathBuf) {
    world.key("platform");
    let trust = world.trust(&["platform"], &[RULE], "");
    let layout = signed_bundle(world, "1.2.0");
    let pulled = world.vcc(&["bundle", "pull", &s(&layout), "--trust", &s(&trust)]);
    assert_eq!(pulled.code, 0, "{}", pulled.stderr);
    let contract = team_project(world, contract);
    lock(world, &contract, &trust);
    (trust, contract)
}

/// A world with the platform's key and a trust policy for acme/*.
fn platform() -> (World, PathBuf) {
    let world = World::new();
    world.key("platform");
    let trust = world.trust(&["platform"], &[RULE], "");
    (world, trust)
}

/// An unsigned acme/security 1.2.0.
fn unsigned(world: &World) -> PathBuf {
    world.bundle(
        "b",
        "acme/security",
        "1.2.0",
        &[("secrets-scan", fixtures::ALWAYS_PASS)],
        &[],
    )
}

fn verify(world: &World, layout: &Path, trust: &Path) -> crate::Run {
    world.vcc(&["bundle", "verify", &s(layout), "--trust", &s(trust)])
}

/// The team's project: `contract`, NOTES.md and CHANGELOG.md; the
/// contract's path.
pub(crate) fn team_project(world: &World, contract: &str) -> PathBuf {
    let files = [
        ("contract.yaml", contract),
        ("NOTES.md", "notes\n"),
        ("CHANGELOG.md", "changes\n"),
    ];
    world.project("team", &files).join("contract.yaml")
}

/// `vcc lock`, which must succeed.
fn lock(world: &World, contract: &Path, trust: &Path) {
    let locked = world.vcc(&["lock", &s(contract), "--trust", &s(trust)]);
    assert_eq!(locked.code, 0, "{}", locked.stderr);
}

pub(crate) fn s(path: &Path) -> String {
    path.display().to_string()
}

pub(crate) fn check(world: &World, contract: &Path, trust: &Path, extra: &[&str]) -> crate::Run {
    let mut args = vec![
        "check".to_string(),
        s(contract),
        "--trust".into(),
        s(trust),
        "--format".into(),
        "json".into(),
    ];
    args.extend(extra.iter().map(|a| a.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    world.vcc(&args)
}

/// The problem codes of a JSON report.
fn codes(run: &crate::Run) -> Vec<String> {
    run.json()["problems"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["level"] == "error")
        .map(|p| p["code"].as_str().unwrap_or("").to_string())
        .collect()
}

/// Refused before anything ran: exit 2, the code, no criterion evaluated.
pub(crate) fn assert_refused(run: &crate::Run, code: &str) {
    assert_eq!(
        run.code, 2,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    if run.stdout.trim_start().starts_with('{') {
        let report = run.json();
        assert!(
            codes(run).contains(&code.to_string()),
            "{code} not in {:?}\n{}",
            codes(run),
            run.stdout
        );
        assert_eq!(report["verdict"], "invalid");
        assert!(
            report["criteria"]
                .as_array()
                .is_none_or(|c| c.iter().all(|c| c["status"] != "pass")),
            "nothing may pass: {}",
            run.stdout
        );
    } else {
        assert_eq!(refusal(run), code, "{}", run.stderr);
    }
}

#[test]
fn keys_are_written_private_0600_and_public_spki() {
    use std::os::unix::fs::PermissionsExt;
    let world = World::new();
    let id = world.key("platform");
    assert!(id.starts_with("sha256:") && id.len() == 71, "{id}");
    let private = world.path().join("keys/platform.key");
    let public = std::fs::read_to_string(world.path().join("keys/platform.pub")).unwrap();
    assert_eq!(
        std::fs::metadata(&private).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert!(
        std::fs::read_to_string(&private)
            .unwrap()
            .starts_with("-----BEGIN PRIVATE KEY-----")
    );
    assert!(public.starts_with("-----BEGIN PUBLIC KEY-----"));
    let again = world.vcc(&["key", "generate", "keys/platform"]);
    assert_eq!(again.code, 2, "an existing key is never overwritten");
}

#[test]
fn a_signed_bundle_is_trusted_and_inspected() {
    let (world, trust) = platform();
    let layout = signed_bundle(&world, "1.2.0");
    let verified = world.vcc(&[
        "bundle",
        "verify",
        &s(&layout),
        "--trust",
        &s(&trust),
        "--format",
        "json",
    ]);
    assert_eq!(verified.code, 0, "{}", verified.stderr);
    let v = verified.json();
    assert_eq!(v["trusted"], true);
    assert_eq!(v["name"], "acme/security");
    assert_eq!(v["signers"], serde_json::json!(["platform"]));
    let inspected = world.vcc(&[
        "bundle",
        "inspect",
        &s(&layout),
        "--trust",
        &s(&trust),
        "--format",
        "json",
    ]);
    assert_eq!(inspected.code, 0, "{}", inspected.stderr);
    let i = inspected.json();
    assert_eq!(i["version"], "1.2.0");
    assert_eq!(i["validators"][0]["name"], "secrets-scan");
    assert_eq!(i["validators"][0]["wit_version"], "0.1.4");
    let wasm = std::fs::read(fixtures::ALWAYS_PASS).unwrap();
    assert_eq!(
        i["validators"][0]["blake3"],
        format!("blake3:{}", blake3::hash(&wasm).to_hex())
    );
    assert_eq!(i["contracts"][0]["name"], "baseline");
    assert_eq!(
        i["signatures"][0]["policy_keys"],
        serde_json::json!(["platform"])
    );
    let human = world.vcc(&["bundle", "inspect", &s(&layout), "--trust", &s(&trust)]);
    assert!(
        human.stdout.contains("trust: trusted, signed by platform"),
        "{}",
        human.stdout
    );
}

#[test]
fn securesystemslib_verifies_a_vcc_signature() {
    let python = tools_dir().join("trust-py/bin/python");
    assert!(
        python.exists(),
        "securesystemslib is not installed: run `bash tests/install-tools.sh`"
    );
    let world = World::new();
    let keyid = world.key("platform");
    let layout = signed_bundle(&world, "1.2.0");
    let script = crate::repo().join("tests/trust/verify_dsse.py");
    let run = |layout: &Path| {
        std::process::Command::new(&python)
            .arg(&script)
            .arg(layout)
            .arg(world.path().join("keys/platform.pub"))
            .arg(&keyid)
            .output()
            .expect("run python")
    };
    let out = run(&layout);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("\"predicateType\": \"urn:vcc:bundle-signature:v1\""),
        "{stdout}"
    );
    assert!(stdout.contains("\"name\": \"acme/security\""), "{stdout}");
    // The same check refuses a signature by another key: it can fail.
    world.key("stranger");
    let other = world.bundle(
        "other",
        "acme/security",
        "1.2.0",
        &[("secrets-scan", fixtures::ALWAYS_PASS)],
        &[],
    );
    world.sign(&other, "stranger");
    assert!(
        !run(&other).status.success(),
        "a stranger's signature must not verify as the platform's"
    );
}

#[test]
fn push_and_pull_through_a_real_registry_and_a_skopeo_copy() {
    let skopeo =
        which("skopeo").expect("skopeo is not installed: run `bash tests/install-tools.sh`");
    let registry = Registry::start();
    let (world, trust) = platform();
    let layout = signed_bundle(&world, "1.2.0");
    let reference = format!("{}/acme/security:1.2.0", registry.host);
    let pushed = world.vcc(&["bundle", "push", &s(&layout), &reference]);
    assert_eq!(pushed.code, 0, "{}", pushed.stderr);
    let digest = pushed.stdout.trim().to_string();
    // The registry holds the manifest under the tag, byte for byte.
    let answer = http_get(&registry.host, "/v2/acme/security/manifests/1.2.0").unwrap();
    assert!(
        answer.contains(&format!("Docker-Content-Digest: {digest}")),
        "{answer}"
    );

    // Copied by an independent OCI client: the bundle, and its signatures
    // through the referrers tag schema (this registry has no referrers API).
    let tag = digest.replace(':', "-");
    for (from, to, all) in [
        ("acme/security:1.2.0", "mirror/security:1.2.0", false),
        (
            &format!("acme/security:{tag}") as &str,
            &format!("mirror/security:{tag}") as &str,
            true,
        ),
    ] {
        let mut cmd = std::process::Command::new(&skopeo);
        cmd.args(["copy", "--src-tls-verify=false", "--dest-tls-verify=false"]);
        if all {
            cmd.arg("--all");
        } else {
            cmd.arg("--preserve-digests");
        }
        let out = cmd
            .arg(format!("docker://{}/{from}", registry.host))
            .arg(format!("docker://{}/{to}", registry.host))
            .output()
            .expect("run skopeo");
        assert!(
            out.status.success(),
            "skopeo copy {from}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let copy = format!("{}/mirror/security:1.2.0", registry.host);
    let pulled = world.vcc(&["bundle", "pull", &copy, "--trust", &s(&trust)]);
    assert_eq!(pulled.code, 0, "{}", pulled.stderr);
    assert_eq!(pulled.stdout.trim(), digest, "the copy is the same bundle");
    assert!(
        pulled.stderr.contains("signed by platform"),
        "{}",
        pulled.stderr
    );
    // And by digest.
    let by_digest = world.vcc(&[
        "bundle",
        "verify",
        &format!("{}/acme/security@{digest}", registry.host),
        "--trust",
        &s(&trust),
    ]);
    assert_eq!(by_digest.code, 0, "{}", by_digest.stderr);
}

#[test]
fn a_team_locks_and_checks_and_the_report_names_the_bundle() {
    let world = World::new();
    let (trust, contract) = locked_team(&world, TEAM);
    let lock = std::fs::read_to_string(contract.with_file_name("vcc.lock")).unwrap();
    assert!(
        lock.contains("name: acme/security") && lock.contains("version: 1.2.0"),
        "{lock}"
    );
    let run = check(&world, &contract, &trust, &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let report = run.json();
    assert_eq!(report["verdict"], "accepted");
    let scan = run.criterion("no-secrets");
    assert_eq!(scan["origin"], "acme/security#baseline@1.2.0");
    let bundle = &scan["validator"]["bundle"];
    assert_eq!(bundle["name"], "acme/security");
    assert_eq!(bundle["version"], "1.2.0");
    assert_eq!(bundle["signers"], serde_json::json!(["platform"]));
    assert!(bundle["manifest"].as_str().unwrap().starts_with("sha256:"));
    assert_eq!(
        report["contract"]["bases"][0]["source"],
        "acme/security#baseline@1.2.0"
    );
    assert!(run.criterion("changelog")["origin"].is_null());
    // The base's criteria bind: an empty NOTES.md fails its MUST.
    std::fs::write(contract.with_file_name("NOTES.md"), "").unwrap();
    let rejected = check(&world, &contract, &trust, &[]);
    assert_eq!(rejected.code, 1, "{}", rejected.stdout);
    assert_eq!(rejected.criterion("notes-exist")["status"], "fail");
}

#[test]
fn adding_criteria_and_raising_severity_is_allowed() {
    let world = World::new();
    let raised = format!(
        "{TEAM}  - {{ id: style, severity: must, validator: exists, targets: [notes] }}\n  - {{ id: more, severity: may, validator: exists, targets: [notes] }}\n"
    );
    let (trust, contract) = locked_team(&world, &raised);
    let run = check(&world, &contract, &trust, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.criterion("style")["severity"], "must");
    assert!(
        run.criterion("style")["origin"].is_null(),
        "overridden here"
    );
}

/// A weakening move, caught by lint and check alike; the problem.
fn assert_weakens(
    contract_text: &str,
    edit: impl Fn(&str) -> String,
    needle: &str,
) -> serde_json::Value {
    let world = World::new();
    let (trust, contract) = locked_team(&world, contract_text);
    std::fs::write(&contract, edit(contract_text)).unwrap();
    let run = check(&world, &contract, &trust, &[]);
    assert_refused(&run, "WEAKENS_BASE");
    let problem = weakens_base(&run);
    assert!(
        problem["message"].as_str().unwrap().contains(needle),
        "{problem}"
    );
    let lint = world.vcc(&["lint", &s(&contract), "--trust", &s(&trust)]);
    assert_eq!(lint.code, 2);
    assert!(lint.stderr.contains("WEAKENS_BASE"), "{}", lint.stderr);
    problem
}

/// The `WEAKENS_BASE` problem of a JSON report.
fn weakens_base(run: &crate::Run) -> serde_json::Value {
    run.json()["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["code"] == "WEAKENS_BASE")
        .cloned()
        .unwrap_or_else(|| panic!("no WEAKENS_BASE in {}", run.stdout))
}

#[test]
fn weakening_removes_a_base_criterion_by_dropping_extends() {
    let problem = assert_weakens(
        TEAM,
        |t| {
            t.replace(
                "extends: { bundle: acme/security, contract: baseline, version: \"^1.2\" }\n",
                "",
            )
        },
        "removes every criterion",
    );
    // The field to restore, named (it was once empty).
    assert_eq!(problem["field"], "extends", "{problem}");
}

/// The worker adds `root: decoy` to the team's contract: the base's
/// criteria would judge `decoy/` (a NOTES.md written to pass) while the
/// real NOTES.md, which fails the base, is never read. Once ACCEPTED under
/// `--locked`; the root belongs to the base like its excludes.
#[test]
fn forgery_host_a_team_root_moves_the_base_onto_a_decoy() {
    let world = World::new();
    let (trust, contract) = locked_team(&world, TEAM);
    let team = contract.parent().unwrap();
    std::fs::write(team.join("NOTES.md"), "").unwrap();
    std::fs::create_dir_all(team.join("decoy")).unwrap();
    std::fs::write(team.join("decoy/NOTES.md"), "all done\n").unwrap();
    std::fs::write(team.join("decoy/CHANGELOG.md"), "changes\n").unwrap();
    let honest = check(&world, &contract, &trust, &["--locked"]);
    assert_eq!(honest.code, 1, "{}", honest.stdout);
    assert_eq!(honest.criterion("notes-exist")["status"], "fail");

    std::fs::write(
        &contract,
        TEAM.replace("id: team\n", "id: team\nroot: decoy\n"),
    )
    .unwrap();
    let run = check(&world, &contract, &trust, &["--locked"]);
    assert_refused(&run, "WEAKENS_BASE");
    let problem = weakens_base(&run);
    assert_eq!(problem["field"], "root", "{problem}");
    assert_eq!(problem["line"], 3, "{problem}");
    assert!(
        problem["message"].as_str().unwrap().contains(
            "the deliverable root is `.` in acme/security#baseline@1.2.0; it cannot be moved to `decoy`"
        ),
        "{problem}"
    );
    // Nor can such a contract be locked.
    let locked = world.vcc(&["lock", &s(&contract), "--trust", &s(&trust)]);
    assert_eq!(locked.code, 2, "{}", locked.stderr);
    assert!(
        locked.stderr.contains("WEAKENS_BASE") && locked.stderr.contains("root (line 3)"),
        "{}",
        locked.stderr
    );
    // The command line may still say where the deliverables are.
    let by_flag = check(
        &world,
        &contract,
        &trust,
        &["--locked", "--dir", &s(&team.join("decoy"))],
    );
    assert_refused(&by_flag, "WEAKENS_BASE");
}

#[test]
fn weakening_lowers_a_base_severity() {
    assert_weakens(
        TEAM,
        |t| {
            format!(
                "{t}  - {{ id: no-secrets, severity: may, validator: scan, targets: [notes] }}\n"
            )
        },
        "cannot be lowered to MAY",
    );
}

#[test]
fn weakening_changes_a_base_validator() {
    assert_weakens(
        TEAM,
        |t| {
            format!(
                "{t}  - {{ id: no-secrets, severity: must, validator: exists, targets: [notes] }}\n"
            )
        },
        "is judged by `acme/security:secrets-scan`",
    );
}

#[test]
fn weakening_changes_base_params() {
    assert_weakens(
        TEAM,
        |t| {
            format!(
                "{t}  - {{ id: notes-exist, severity: must, validator: exists, targets: [notes], params: {{ min: 0 }} }}\n"
            )
        },
        "other params",
    );
}

#[test]
fn weakening_makes_a_required_deliverable_optional() {
    assert_weakens(
        TEAM,
        |t| {
            t.replace("  - { id: changelog, path: CHANGELOG.md }\n", "  - { id: changelog, path: CHANGELOG.md }\n  - { id: notes, path: NOTES.md, required: false }\n")
        },
        "cannot be made optional",
    );
}

#[test]
fn weakening_moves_a_base_deliverable() {
    assert_weakens(
        TEAM,
        |t| {
            t.replace(
                "  - { id: changelog, path: CHANGELOG.md }\n",
                "  - { id: changelog, path: CHANGELOG.md }\n  - { id: notes, path: decoy/NOTES.md }\n",
            )
        },
        "deliverable `notes` is `NOTES.md` in acme/security#baseline@1.2.0; it cannot be moved to `decoy/NOTES.md`",
    );
}

#[test]
fn weakening_retargets_a_base_criterion() {
    assert_weakens(
        TEAM,
        |t| {
            format!(
                "{t}  - {{ id: notes-exist, severity: must, validator: exists, targets: [changelog], params: {{ min: 1 }} }}\n"
            )
        },
        "its targets cannot be changed",
    );
}

#[test]
fn weakening_excludes_files_from_the_base() {
    assert_weakens(
        TEAM,
        |t| t.replace("id: team\n", "id: team\nexclude: [\"*.md\"]\n"),
        "would hide files from the criteria of acme/security",
    );
}

#[test]
fn weakening_honours_the_producers_ignore_files() {
    assert_weakens(
        TEAM,
        |t| t.replace("id: team\n", "id: team\ngitignore: true\n"),
        "`gitignore: true` would let ignore files",
    );
}

#[test]
fn a_contract_on_a_base_takes_no_exclude_flag() {
    let world = World::new();
    let (trust, contract) = locked_team(&world, TEAM);
    let run = check(&world, &contract, &trust, &["--exclude", "NOTES.md"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert_eq!(run.json()["verdict"], "invalid");
    assert!(
        run.json()["reason"]
            .as_str()
            .unwrap()
            .contains("--exclude cannot be used with a contract built on a base"),
        "{}",
        run.stdout
    );
}

#[test]
fn weakening_declares_the_contract_advisory() {
    assert_weakens(
        TEAM,
        |t| t.replace("id: team\n", "id: team\nadvisory: true\n"),
        "declared advisory",
    );
}

#[test]
fn policy_from_outside_is_required_together_with_the_project() {
    let world = World::new();
    // A project that does not extend anything, and names no bundle.
    let plain = "vcc: 1\nid: plain\ndeliverables:\n  - { id: changelog, path: CHANGELOG.md }\nvalidators:\n  exists: { component: std/file-exists }\ncriteria:\n  - { id: changelog, severity: must, validator: exists, targets: [changelog] }\n";
    let (trust, contract) = locked_team(&world, plain);
    let run = check(
        &world,
        &contract,
        &trust,
        &["--locked", "--policy", "acme/security#baseline"],
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(
        run.criterion("no-secrets")["origin"],
        "policy acme/security#baseline@1.2.0"
    );
    assert_eq!(run.json()["criteria"].as_array().unwrap().len(), 4);
    // The policy's MUST decides too: the project alone would pass.
    std::fs::remove_file(contract.with_file_name("NOTES.md")).unwrap();
    let alone = check(&world, &contract, &trust, &["--locked"]);
    assert_eq!(alone.code, 0, "{}", alone.stdout);
    let both = check(
        &world,
        &contract,
        &trust,
        &["--locked", "--policy", "acme/security#baseline"],
    );
    assert_eq!(both.code, 1, "{}", both.stdout);
    // A policy file works the same, and may not lie in the root.
    let file = world.project("ci", &[("policy.yaml", "vcc: 1\nid: ci\ndeliverables:\n  - { id: notes, path: NOTES.md }\nvalidators:\n  exists: { component: std/file-exists }\ncriteria:\n  - { id: ci-notes, severity: must, validator: exists, targets: [notes] }\n")]).join("policy.yaml");
    let by_file = check(&world, &contract, &trust, &["--policy", &s(&file)]);
    assert_eq!(by_file.code, 1, "{}", by_file.stdout);
    assert_eq!(by_file.criterion("ci-notes")["status"], "fail");
    let inside = contract.with_file_name("policy.yaml");
    std::fs::copy(&file, &inside).unwrap();
    assert_refused(
        &check(&world, &contract, &trust, &["--policy", &s(&inside)]),
        "TRUST_IN_ROOT",
    );
}

/// CI's recipe, `--locked --policy BUNDLE#CONTRACT`, on a project that
/// does not extend the base and moves its root to a decoy folder: the
/// policy's criteria would judge the decoy. Once ACCEPTED.
#[test]
fn forgery_host_a_root_moves_a_policy_base_onto_a_decoy() {
    let world = World::new();
    let plain = "vcc: 1\nid: plain\nroot: decoy\ndeliverables:\n  - { id: changelog, path: CHANGELOG.md }\nvalidators:\n  exists: { component: std/file-exists }\ncriteria:\n  - { id: changelog, severity: must, validator: exists, targets: [changelog] }\n";
    let (trust, contract) = locked_team(&world, plain);
    let team = contract.parent().unwrap();
    std::fs::remove_file(team.join("NOTES.md")).unwrap();
    std::fs::create_dir_all(team.join("decoy")).unwrap();
    std::fs::write(team.join("decoy/NOTES.md"), "all done\n").unwrap();
    std::fs::write(team.join("decoy/CHANGELOG.md"), "changes\n").unwrap();
    let policy = ["--locked", "--policy", "acme/security#baseline"];
    let run = check(&world, &contract, &trust, &policy);
    assert_refused(&run, "WEAKENS_BASE");
    let problem = weakens_base(&run);
    assert_eq!(problem["field"], "root", "{problem}");
    assert!(
        problem["message"].as_str().unwrap().contains(
            "the deliverable root is `.` in policy acme/security#baseline@1.2.0; it cannot be moved to `decoy`"
        ),
        "{problem}"
    );
    // Without `root:`, the policy judges the project's folder: rejected.
    std::fs::write(&contract, plain.replace("root: decoy\n", "")).unwrap();
    lock(&world, &contract, &trust);
    let honest = check(&world, &contract, &trust, &policy);
    assert_eq!(honest.code, 1, "{}", honest.stdout);
    assert_eq!(honest.criterion("notes-exist")["status"], "fail");
}

#[test]
fn locked_check_refuses_a_missing_lock() {
    let world = World::new();
    let (trust, contract) = locked_team(&world, TEAM);
    std::fs::remove_file(contract.with_file_name("vcc.lock")).unwrap();
    assert_refused(&check(&world, &contract, &trust, &[]), "LOCK_MISSING");
    let plain = world.project("plain", &[("contract.yaml", "vcc: 1\nid: p\ndeliverables:\n  - { id: a, path: a.txt }\nvalidators:\n  e: { component: std/file-exists }\ncriteria:\n  - { id: a, severity: must, validator: e, targets: [a] }\n"), ("a.txt", "a")]);
    let without_bundles = plain.join("contract.yaml");
    assert_eq!(check(&world, &without_bundles, &trust, &[]).code, 0);
    assert_refused(
        &check(&world, &without_bundles, &trust, &["--locked"]),
        "LOCK_MISSING",
    );
}

/// `vcc lock` refuses to pin a contract that weakens its base; `vcc lint`
/// says WEAKENS_BASE before any lock exists; a misnamed base contract says
/// what the bundle has.
#[test]
fn a_weakened_contract_is_never_locked_and_lint_says_why_without_a_lock() {
    let world = World::new();
    world.key("platform");
    let trust = world.trust(&["platform"], &[RULE], "");
    let layout = signed_bundle(&world, "1.2.0");
    let pulled = world.vcc(&["bundle", "pull", &s(&layout), "--trust", &s(&trust)]);
    assert_eq!(pulled.code, 0, "{}", pulled.stderr);
    let weakened = format!(
        "{TEAM}  - {{ id: no-secrets, severity: may, validator: scan, targets: [notes] }}\n"
    );
    let contract = team_project(&world, &weakened);
    let locked = world.vcc(&["lock", &s(&contract), "--trust", &s(&trust)]);
    assert_eq!(locked.code, 2, "{}", locked.stderr);
    assert!(locked.stderr.contains("WEAKENS_BASE"), "{}", locked.stderr);
    assert!(
        locked.stderr.contains("cannot be lowered to MAY"),
        "{}",
        locked.stderr
    );
    assert!(
        !contract.with_file_name("vcc.lock").exists(),
        "no lock written"
    );

    let lint = world.vcc(&[
        "lint",
        &s(&contract),
        "--trust",
        &s(&trust),
        "--format",
        "json",
    ]);
    assert_eq!(lint.code, 2);
    let codes: Vec<String> = lint.json()["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["code"].as_str().unwrap().to_string())
        .collect();
    assert!(codes.contains(&"LOCK_MISSING".to_string()), "{codes:?}");
    assert!(codes.contains(&"WEAKENS_BASE".to_string()), "{codes:?}");

    let misnamed = team_project(
        &world,
        &TEAM.replace("contract: baseline", "contract: baseilne"),
    );
    let locked = world.vcc(&["lock", &s(&misnamed), "--trust", &s(&trust)]);
    assert_eq!(locked.code, 2);
    assert!(locked.stderr.contains("UNKNOWN_BASE"), "{}", locked.stderr);
    assert!(
        locked.stderr.contains("did you mean `baseline`?"),
        "{}",
        locked.stderr
    );
    assert!(
        locked.stderr.contains("it has: `baseline`"),
        "{}",
        locked.stderr
    );
}

#[test]
fn a_stale_lock_is_refused() {
    let world = World::new();
    let (trust, contract) = locked_team(&world, TEAM);
    std::fs::write(&contract, TEAM.replace("^1.2", "^2")).unwrap();
    assert_refused(
        &check(&world, &contract, &trust, &["--locked"]),
        "LOCK_STALE",
    );
}

#[test]
fn require_signed_makes_a_file_validator_an_error() {
    let world = World::new();
    world.key("platform");
    let trust = world.trust(&["platform"], &[RULE], "require_signed: true\n");
    let wasm = std::fs::read(fixtures::ALWAYS_PASS).unwrap();
    let digest = format!("blake3:{}", blake3::hash(&wasm).to_hex());
    let team = world.project("team", &[("a.txt", "a")]);
    std::fs::write(world.path().join("pass.wasm"), &wasm).unwrap();
    std::fs::write(
        team.join("contract.yaml"),
        format!("vcc: 1\nid: t\ndeliverables:\n  - {{ id: a, path: a.txt }}\nvalidators:\n  p: {{ component: ../pass.wasm, digest: \"{digest}\" }}\ncriteria:\n  - {{ id: a, severity: must, validator: p, targets: [a] }}\n"),
    )
    .unwrap();
    let run = check(&world, &team.join("contract.yaml"), &trust, &[]);
    assert_refused(&run, "UNSIGNED_VALIDATOR");
}

#[test]
fn a_trust_policy_in_the_root_is_refused() {
    let world = World::new();
    let (trust, contract) = locked_team(&world, TEAM);
    let inside = contract.with_file_name("trust.yaml");
    let text = std::fs::read_to_string(&trust)
        .unwrap()
        .replace("keys/", "../keys/");
    std::fs::write(&inside, text).unwrap();
    assert_refused(&check(&world, &contract, &inside, &[]), "TRUST_IN_ROOT");
}

#[test]
fn a_pinned_contract_that_changed_is_refused() {
    let world = World::new();
    let (_, contract) = locked_team(&world, TEAM);
    let digest = format!("blake3:{}", blake3::hash(TEAM.as_bytes()).to_hex());
    let trust = world.trust(
        &["platform"],
        &[RULE],
        &format!("contracts:\n  - {{ path: \"**/contract.yaml\", digest: \"{digest}\" }}\n"),
    );
    assert_eq!(check(&world, &contract, &trust, &[]).code, 0);
    std::fs::write(&contract, format!("{TEAM}# edited\n")).unwrap();
    assert_refused(
        &check(&world, &contract, &trust, &[]),
        "CONTRACT_NOT_PINNED",
    );
}

// ---- Hostile cases: one test each, the exact code, exit 2, nothing run.

/// A copy of the store's blob of the secrets-scan component.
fn stored_component(world: &World) -> PathBuf {
    let wasm = std::fs::read(fixtures::ALWAYS_PASS).unwrap();
    let hex = {
        use sha2::Digest;
        format!("{:x}", sha2::Sha256::digest(&wasm))
    };
    world.store().join("blobs/sha256").join(hex)
}

#[test]
fn hostile_a_tampered_byte_in_a_stored_component() {
    let world = World::new();
    let (trust, contract) = locked_team(&world, TEAM);
    let blob = stored_component(&world);
    let mut bytes = std::fs::read(&blob).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&blob, bytes).unwrap();
    assert_refused(&check(&world, &contract, &trust, &[]), "DIGEST_MISMATCH");
}

#[test]
fn hostile_a_layer_swapped_between_two_bundles() {
    let (world, trust) = platform();
    let a = signed_bundle(&world, "1.2.0");
    let b = world.bundle(
        "evil",
        "acme/evil",
        "1.0.0",
        &[("secrets-scan", fixtures::ALWAYS_FAIL)],
        &[],
    );
    // a's manifest now names b's component as its secrets-scan layer.
    swap_layer(&a, &b);
    assert_refused(&verify(&world, &a, &trust), "DIGEST_MISMATCH");
}

/// Point `a`'s first layer at `b`'s, rewriting a's manifest and index.
fn swap_layer(a: &Path, b: &Path) {
    use vcc_trust::bundle::Bundle;
    use vcc_trust::layout::{Layout, media};
    let la = Layout::open(a).unwrap();
    let lb = Layout::open(b).unwrap();
    let ba = Bundle::open(&la).unwrap();
    let bb = Bundle::open(&lb).unwrap();
    let theirs = bb.manifest.layers[0].clone();
    la.put(&theirs.media_type, &lb.get(&theirs, 1 << 30).unwrap())
        .unwrap();
    let mut manifest = ba.manifest.clone();
    manifest.layers[0].digest = theirs.digest.clone();
    manifest.layers[0].size = theirs.size;
    let bytes = serde_json::to_vec(&manifest).unwrap();
    let mut entry = la.put(media::MANIFEST, &bytes).unwrap();
    entry.artifact_type = Some(media::BUNDLE.into());
    let mut index = la.index().unwrap();
    index.manifests.retain(|m| m.digest != ba.descriptor.digest);
    index.manifests.push(entry);
    la.set_index(&index).unwrap();
}

#[test]
fn hostile_a_signature_by_an_untrusted_key() {
    let world = World::new();
    world.key("platform");
    world.key("stranger");
    let trust = world.trust(&["platform"], &[RULE], "");
    let layout = unsigned(&world);
    world.sign(&layout, "stranger");
    assert_refused(&verify(&world, &layout, &trust), "UNKNOWN_KEY");
    // And a pull refuses it before the store holds anything.
    assert_refused(
        &world.vcc(&["bundle", "pull", &s(&layout), "--trust", &s(&trust)]),
        "UNKNOWN_KEY",
    );
    let index = std::fs::read_to_string(world.store().join("index.json")).unwrap_or_default();
    assert!(!index.contains("acme/security"), "nothing stored: {index}");
}

#[test]
fn hostile_an_unsigned_bundle() {
    let (world, trust) = platform();
    let layout = unsigned(&world);
    assert_refused(&verify(&world, &layout, &trust), "UNSIGNED");
}

/// Add a signature manifest with `envelope` as its DSSE layer, whose
/// subject is the bundle in `layout`.
fn add_signature(layout: &Path, envelope: &vcc_trust::dsse::Envelope) {
    use vcc_trust::bundle::Bundle;
    use vcc_trust::layout::{Descriptor, Layout, Manifest, media};
    let l = Layout::open(layout).unwrap();
    let bundle = Bundle::open(&l).unwrap();
    let layer = l
        .put(media::DSSE, &serde_json::to_vec(envelope).unwrap())
        .unwrap();
    let manifest = Manifest {
        schema_version: 2,
        media_type: media::MANIFEST.into(),
        artifact_type: Some(media::DSSE.into()),
        config: l.put(media::EMPTY, b"{}").unwrap(),
        layers: vec![layer],
        subject: Some(Descriptor {
            media_type: media::MANIFEST.into(),
            digest: bundle.descriptor.digest.clone(),
            size: bundle.descriptor.size,
            artifact_type: None,
            annotations: Default::default(),
        }),
        annotations: Default::default(),
    };
    let mut entry = l
        .put(media::MANIFEST, &serde_json::to_vec(&manifest).unwrap())
        .unwrap();
    entry.artifact_type = Some(media::DSSE.into());
    let mut index = l.index().unwrap();
    index.manifests.push(entry);
    l.set_index(&index).unwrap();
}

/// The platform's signature over a statement about `layout`, edited by `f`.
fn signed_statement(
    world: &World,
    layout: &Path,
    payload_type: &str,
    f: impl Fn(&mut vcc_trust::dsse::Statement),
) -> vcc_trust::dsse::Envelope {
    use vcc_trust::bundle::Bundle;
    use vcc_trust::layout::Layout;
    let bundle = Bundle::open(&Layout::open(layout).unwrap()).unwrap();
    let mut statement = bundle.statement(None);
    f(&mut statement);
    let key = vcc_trust::keys::PrivateKey::read(&world.path().join("keys/platform.key")).unwrap();
    vcc_trust::dsse::Envelope::sign(payload_type, &serde_json::to_vec(&statement).unwrap(), &key)
}

#[test]
fn hostile_a_valid_signature_over_another_bundle() {
    let (world, trust) = platform();
    let signed = signed_bundle(&world, "1.2.0");
    let other = world.bundle(
        "other",
        "acme/security",
        "1.2.1",
        &[("secrets-scan", fixtures::ALWAYS_FAIL)],
        &[],
    );
    // The platform's real envelope for `signed`, attached to `other`.
    let envelope =
        vcc_trust::bundle::Bundle::open(&vcc_trust::layout::Layout::open(&signed).unwrap())
            .unwrap()
            .signatures[0]
            .1
            .clone();
    add_signature(&other, &envelope);
    assert_refused(&verify(&world, &other, &trust), "DIGEST_MISMATCH");
}

#[test]
fn hostile_a_bad_signature_from_a_trusted_key_id() {
    let (world, trust) = platform();
    let layout = unsigned(&world);
    let mut envelope = signed_statement(&world, &layout, vcc_trust::dsse::PAYLOAD_TYPE, |_| {});
    // The signature of another message, under the platform's key id.
    let key = vcc_trust::keys::PrivateKey::read(&world.path().join("keys/platform.key")).unwrap();
    use base64::Engine;
    envelope.signatures[0].sig =
        base64::engine::general_purpose::STANDARD.encode(key.sign(b"something else"));
    add_signature(&layout, &envelope);
    assert_refused(&verify(&world, &layout, &trust), "BAD_SIGNATURE");
}

/// The platform's signature over an edited statement about an unsigned
/// bundle, with `payload_type`: refused with `code`.
fn assert_statement_refused(
    payload_type: &str,
    edit: impl Fn(&mut vcc_trust::dsse::Statement),
    code: &str,
) {
    let (world, trust) = platform();
    let layout = unsigned(&world);
    add_signature(
        &layout,
        &signed_statement(&world, &layout, payload_type, edit),
    );
    assert_refused(&verify(&world, &layout, &trust), code);
}

#[test]
fn hostile_a_signature_for_another_name() {
    let in_toto = vcc_trust::dsse::PAYLOAD_TYPE;
    assert_statement_refused(
        in_toto,
        |s| s.predicate.name = "acme/other".into(),
        "NAME_MISMATCH",
    );
}

#[test]
fn hostile_a_signature_for_another_version() {
    let in_toto = vcc_trust::dsse::PAYLOAD_TYPE;
    assert_statement_refused(
        in_toto,
        |s| s.predicate.version = "9.9.9".into(),
        "VERSION_MISMATCH",
    );
}

#[test]
fn hostile_a_dsse_payload_type_mismatch() {
    assert_statement_refused("text/plain", |_| {}, "PAYLOAD_TYPE_MISMATCH");
}

#[test]
fn hostile_an_expired_signature() {
    let (world, trust) = platform();
    let layout = unsigned(&world);
    // `vcc bundle sign` refuses a past expiry; an older signer (or one
    // whose signature has since lapsed) made this one.
    let key = vcc_trust::keys::PrivateKey::read(&world.path().join("keys/platform.key")).unwrap();
    let l = vcc_trust::layout::Layout::open(&layout).unwrap();
    let mut bundle = vcc_trust::bundle::Bundle::open(&l).unwrap();
    let past = humantime::parse_rfc3339("2024-01-01T00:00:00Z").unwrap();
    bundle.sign(&key, Some(past)).unwrap();
    let run = verify(&world, &layout, &trust);
    assert_refused(&run, "EXPIRED");
    assert!(
        run.stderr
            .contains("the newest signature that lapsed is platform's, at 2024-01-01T00:00:00Z"),
        "{}",
        run.stderr
    );
}

#[test]
fn hostile_a_version_below_the_floor() {
    let (world, trust) = platform();
    let layout = signed_bundle(&world, "1.1.9");
    assert_refused(&verify(&world, &layout, &trust), "BELOW_MIN_VERSION");
}

#[test]
fn hostile_threshold_two_with_one_signature() {
    let world = World::new();
    world.key("platform");
    world.key("security");
    let trust = world.trust(
        &["platform", "security"],
        &["{ name: \"acme/*\", signers: [platform, security], threshold: 2 }"],
        "",
    );
    let layout = signed_bundle(&world, "1.2.0");
    assert_refused(&verify(&world, &layout, &trust), "THRESHOLD_NOT_MET");
    world.sign(&layout, "security");
    assert_eq!(
        world
            .vcc(&["bundle", "verify", &s(&layout), "--trust", &s(&trust)])
            .code,
        0
    );
}

#[test]
fn hostile_the_registry_serves_another_manifest_for_the_locked_tag() {
    let registry = Registry::start();
    let world = World::new();
    world.key("platform");
    let trust = world.trust(
        &["platform"],
        &[&format!(
            "{{ name: \"acme/*\", signers: [platform], source: \"{}\" }}",
            registry.host
        )],
        "",
    );
    let first = signed_bundle(&world, "1.2.0");
    assert_eq!(
        world
            .vcc(&[
                "bundle",
                "push",
                &s(&first),
                &format!("{}/acme/security:1.2.0", registry.host)
            ])
            .code,
        0
    );
    // Locked from the registry (the store is empty).
    let contract = team_project(&world, TEAM);
    lock(&world, &contract, &trust);
    assert!(
        std::fs::read_to_string(contract.with_file_name("vcc.lock"))
            .unwrap()
            .contains(&format!("source: {}/acme/security:1.2.0", registry.host))
    );
    // The tag is moved to another (also signed) bundle, and a fresh machine checks.
    let second = world.bundle(
        "moved",
        "acme/security",
        "1.2.0",
        &[("secrets-scan", fixtures::ALWAYS_FAIL)],
        &[("baseline", BASELINE)],
    );
    world.sign(&second, "platform");
    assert_eq!(
        world
            .vcc(&[
                "bundle",
                "push",
                &s(&second),
                &format!("{}/acme/security:1.2.0", registry.host)
            ])
            .code,
        0
    );
    std::fs::remove_dir_all(world.store()).unwrap();
    assert_refused(
        &check(&world, &contract, &trust, &["--locked"]),
        "LOCK_MISMATCH",
    );
}

#[test]
fn hostile_an_oversized_manifest() {
    let registry = Registry::start();
    let (world, trust) = platform();
    let layout = signed_bundle(&world, "1.2.0");
    // Re-written with 2 MiB of annotations, and pushed by hand.
    use vcc_trust::layout::{Layout, media};
    let l = Layout::open(&layout).unwrap();
    let bundle = vcc_trust::bundle::Bundle::open(&l).unwrap();
    let mut manifest = bundle.manifest.clone();
    manifest
        .annotations
        .insert("padding".into(), "x".repeat(2 << 20));
    let bytes = serde_json::to_vec(&manifest).unwrap();
    push_blobs(&registry, &l, &bundle);
    put_manifest(&registry, "acme/security", "big", media::MANIFEST, &bytes);
    let run = world.vcc(&[
        "bundle",
        "pull",
        &format!("{}/acme/security:big", registry.host),
        "--trust",
        &s(&trust),
    ]);
    assert_refused(&run, "TOO_LARGE");
    assert!(run.stderr.contains("not downloaded"), "{}", run.stderr);
}

#[test]
fn hostile_an_oversized_blob() {
    let registry = Registry::start();
    let (world, trust) = platform();
    let layout = signed_bundle(&world, "1.2.0");
    use vcc_trust::layout::{Layout, media};
    let l = Layout::open(&layout).unwrap();
    let bundle = vcc_trust::bundle::Bundle::open(&l).unwrap();
    push_blobs(&registry, &l, &bundle);
    // A config blob of 5 MiB (the cap is 4 MiB), pushed by hand.
    let big = format!("{{\"padding\": \"{}\"}}", "x".repeat(5 << 20)).into_bytes();
    let config = l.put(media::CONFIG, &big).unwrap();
    push_blob(&registry, "acme/security", &big, &config.digest);
    let mut manifest = bundle.manifest.clone();
    manifest.config = config;
    put_manifest(
        &registry,
        "acme/security",
        "big",
        media::MANIFEST,
        &serde_json::to_vec(&manifest).unwrap(),
    );
    let run = world.vcc(&[
        "bundle",
        "pull",
        &format!("{}/acme/security:big", registry.host),
        "--trust",
        &s(&trust),
    ]);
    assert_refused(&run, "TOO_LARGE");
}

/// Upload a blob monolithically (POST then PUT), as the distribution API says.
fn push_blob(registry: &Registry, repo: &str, bytes: &[u8], digest: &str) {
    use std::io::{Read, Write};
    let post = {
        let mut stream = std::net::TcpStream::connect(&registry.host).unwrap();
        write!(stream, "POST /v2/{repo}/blobs/uploads/ HTTP/1.1\r\nHost: {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", registry.host).unwrap();
        let mut text = String::new();
        stream.read_to_string(&mut text).unwrap();
        text
    };
    let location = post
        .lines()
        .find_map(|l| l.strip_prefix("Location: "))
        .unwrap_or_else(|| panic!("no upload location: {post}"))
        .trim()
        .to_string();
    let path = location
        .split_once(&registry.host as &str)
        .map_or(location.as_str(), |(_, p)| p)
        .to_string();
    let sep = if path.contains('?') { '&' } else { '?' };
    let mut stream = std::net::TcpStream::connect(&registry.host).unwrap();
    write!(stream, "PUT {path}{sep}digest={digest} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", registry.host, bytes.len()).unwrap();
    stream.write_all(bytes).unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    assert!(text.starts_with("HTTP/1.1 201"), "blob upload: {text}");
}

fn push_blobs(
    registry: &Registry,
    l: &vcc_trust::layout::Layout,
    bundle: &vcc_trust::bundle::Bundle,
) {
    for d in std::iter::once(&bundle.manifest.config).chain(&bundle.manifest.layers) {
        push_blob(
            registry,
            "acme/security",
            &l.get(d, 1 << 30).unwrap(),
            &d.digest,
        );
    }
}

fn put_manifest(registry: &Registry, repo: &str, tag: &str, media_type: &str, bytes: &[u8]) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(&registry.host).unwrap();
    write!(stream, "PUT /v2/{repo}/manifests/{tag} HTTP/1.1\r\nHost: {}\r\nContent-Type: {media_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", registry.host, bytes.len()).unwrap();
    stream.write_all(bytes).unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    assert!(
        text.starts_with("HTTP/1.1 201"),
        "manifest upload: {}",
        &text[..text.len().min(500)]
    );
}

#[test]
fn hostile_a_layer_title_with_dot_dot() {
    let (world, trust) = platform();
    let layout = signed_bundle(&world, "1.2.0");
    use vcc_trust::layout::{Layout, annotation, media};
    let l = Layout::open(&layout).unwrap();
    let bundle = vcc_trust::bundle::Bundle::open(&l).unwrap();
    let mut manifest = bundle.manifest.clone();
    manifest.layers[0]
        .annotations
        .insert(annotation::TITLE.into(), "../../evil.wasm".into());
    let mut entry = l
        .put(media::MANIFEST, &serde_json::to_vec(&manifest).unwrap())
        .unwrap();
    entry.artifact_type = Some(media::BUNDLE.into());
    let mut index = l.index().unwrap();
    index
        .manifests
        .retain(|m| m.digest != bundle.descriptor.digest);
    index.manifests.push(entry);
    l.set_index(&index).unwrap();
    assert_refused(&verify(&world, &layout, &trust), "UNSAFE_PATH");
}

#[test]
fn hostile_a_malformed_pem() {
    let world = World::new();
    world.key("platform");
    std::fs::write(
        world.path().join("keys/platform.pub"),
        "-----BEGIN PUBLIC KEY-----\nnot base64 at all\n-----END PUBLIC KEY-----\n",
    )
    .unwrap();
    let trust = world.trust(&["platform"], &[RULE], "");
    let layout = unsigned(&world);
    assert_refused(&verify(&world, &layout, &trust), "MALFORMED_KEY");
}

#[test]
fn hostile_a_public_key_given_as_private() {
    let world = World::new();
    world.key("platform");
    let layout = unsigned(&world);
    let run = world.vcc(&["bundle", "sign", &s(&layout), "--key", "keys/platform.pub"]);
    assert_refused(&run, "MALFORMED_KEY");
    assert!(
        run.stderr.contains("this is a public key"),
        "{}",
        run.stderr
    );
}

#[test]
fn hostile_a_private_key_given_as_public() {
    let world = World::new();
    world.key("platform");
    std::fs::copy(
        world.path().join("keys/platform.key"),
        world.path().join("keys/platform.pub"),
    )
    .unwrap();
    let trust = world.trust(&["platform"], &[RULE], "");
    let layout = unsigned(&world);
    assert_refused(&verify(&world, &layout, &trust), "PRIVATE_KEY_GIVEN");
}

#[test]
fn hostile_vcc_lock_edited_to_another_digest() {
    let world = World::new();
    let (trust, contract) = locked_team(&world, TEAM);
    // Another trusted version in the store, and the lock pointed at it.
    let newer = signed_bundle(&world, "1.3.0");
    assert_eq!(
        world
            .vcc(&["bundle", "pull", &s(&newer), "--trust", &s(&trust)])
            .code,
        0
    );
    let newer_digest =
        vcc_trust::bundle::Bundle::open(&vcc_trust::layout::Layout::open(&newer).unwrap())
            .unwrap()
            .descriptor
            .digest;
    let lock_path = contract.with_file_name("vcc.lock");
    let lock = std::fs::read_to_string(&lock_path).unwrap();
    let old = lock
        .lines()
        .find_map(|l| l.trim().strip_prefix("manifest: "))
        .unwrap()
        .to_string();
    std::fs::write(&lock_path, lock.replace(&old, &newer_digest)).unwrap();
    assert_refused(
        &check(&world, &contract, &trust, &["--locked"]),
        "LOCK_MISMATCH",
    );
}
