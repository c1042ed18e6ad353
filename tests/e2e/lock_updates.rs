//! Moving a lock over time without a silent downgrade: a retagged release
//! is refused (`TAG_VERSION_MISMATCH`), `vcc lock` never goes below the
//! version vcc.lock holds without `--allow-downgrade` (`DOWNGRADE`) and
//! names every version it passed over, `--update` asks the registry; and
//! what goes around it: a folder that is not there is never a registry,
//! a trust policy in the repository is refused by `lock` and `pull`, a
//! lock mismatch names the digest that differs, and a port with nothing
//! listening reads as such.

use std::path::{Path, PathBuf};

use vcc_test_support::fixtures;

use crate::bundles::{
    BASELINE, TEAM, assert_refused, check, locked_team, s, signed_bundle, team_project,
};
use crate::world::{Registry, World};

/// The team's contract on any 1.x of the base.
fn team_on_1x() -> String {
    TEAM.replace("^1.2", "^1")
}

/// A world with the platform key and a policy trusting acme/* signed by
/// it, fetched from `registry` when given; the policy.
fn platform(registry: Option<&Registry>) -> (World, PathBuf) {
    let world = World::new();
    world.key("platform");
    let source = registry.map_or(String::new(), |r| format!(", source: \"{}\"", r.host));
    let trust = world.trust(
        &["platform"],
        &[&format!(
            "{{ name: \"acme/*\", signers: [platform]{source} }}"
        )],
        "",
    );
    (world, trust)
}

fn push(world: &World, layout: &Path, reference: &str) {
    let run = world.vcc(&["bundle", "push", &s(layout), reference]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

fn vcc_lock(world: &World, contract: &Path, trust: &Path, extra: &[&str]) -> crate::Run {
    let mut args = vec![
        "lock",
        contract.to_str().unwrap(),
        "--trust",
        trust.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    world.vcc(&args)
}

/// The version vcc.lock beside `contract` pins (one bundle).
fn locked_version(contract: &Path) -> String {
    let lock = std::fs::read_to_string(contract.with_file_name("vcc.lock")).unwrap();
    lock.lines()
        .find_map(|l| l.trim().strip_prefix("version: "))
        .unwrap_or_else(|| panic!("no version in {lock}"))
        .to_string()
}

fn digest_of(layout: &Path) -> String {
    vcc_trust::bundle::Bundle::open(&vcc_trust::layout::Layout::open(layout).unwrap())
        .unwrap()
        .descriptor
        .digest
}

/// The registry moves tag 1.1.0 onto the 1.0.0 manifest (both signed by
/// the platform): `vcc bundle pull` of the tag and `vcc lock` on a fresh
/// machine refuse it, naming the tag's version, the bundle's and the
/// digest; lock says it skipped the tag, and will not take 1.0.0 below
/// the 1.1.0 the lock holds. Once, lock wrote `version: 1.0.0` without a
/// word.
#[test]
fn hostile_a_retagged_release_is_refused_by_lock_and_pull() {
    let registry = Registry::start();
    let (world, trust) = platform(Some(&registry));
    let repo = format!("{}/acme/security", registry.host);
    let old = signed_bundle(&world, "1.0.0");
    let new = signed_bundle(&world, "1.1.0");
    push(&world, &old, &format!("{repo}:1.0.0"));
    push(&world, &new, &format!("{repo}:1.1.0"));
    let contract = team_project(&world, &team_on_1x());
    let locked = vcc_lock(&world, &contract, &trust, &[]);
    assert_eq!(locked.code, 0, "{}", locked.stderr);
    assert_eq!(locked_version(&contract), "1.1.0");
    let lock_before = std::fs::read_to_string(contract.with_file_name("vcc.lock")).unwrap();

    // The retag, and a fresh machine.
    push(&world, &old, &format!("{repo}:1.1.0"));
    push(&world, &old, &format!("{repo}:latest"));
    std::fs::remove_dir_all(world.store()).unwrap();

    let pulled = world.vcc(&[
        "bundle",
        "pull",
        &format!("{repo}:1.1.0"),
        "--trust",
        &s(&trust),
    ]);
    assert_refused(&pulled, "TAG_VERSION_MISMATCH");
    let digest = digest_of(&old);
    for needle in ["names version 1.1.0", "acme/security 1.0.0", &digest] {
        assert!(
            pulled.stderr.contains(needle),
            "{needle}: {}",
            pulled.stderr
        );
    }
    // A tag that is no version cannot mismatch.
    let latest = world.vcc(&[
        "bundle",
        "pull",
        &format!("{repo}:latest"),
        "--trust",
        &s(&trust),
    ]);
    assert_eq!(latest.code, 0, "{}", latest.stderr);
    std::fs::remove_dir_all(world.store()).unwrap();

    // check: the tag the lock records names another manifest now; the
    // help leads to the publisher, not into a silent downgrade.
    let checked = check(&world, &contract, &trust, &["--locked"]);
    assert_refused(&checked, "LOCK_MISMATCH");
    assert!(
        checked.stdout.contains("retagged") && checked.stdout.contains("--allow-downgrade"),
        "{}",
        checked.stdout
    );

    let relocked = vcc_lock(&world, &contract, &trust, &[]);
    assert_refused(&relocked, "DOWNGRADE");
    assert!(
        relocked.stderr.contains(&format!(
            "skipped acme/security 1.1.0 ({repo}:1.1.0): TAG_VERSION_MISMATCH"
        )),
        "{}",
        relocked.stderr
    );
    assert!(
        relocked.stderr.contains("holds acme/security 1.1.0")
            && relocked.stderr.contains("is 1.0.0")
            && relocked.stderr.contains("--allow-downgrade"),
        "{}",
        relocked.stderr
    );
    assert_eq!(
        std::fs::read_to_string(contract.with_file_name("vcc.lock")).unwrap(),
        lock_before,
        "the lock is left as it was"
    );
}

/// The key that signed 1.1.0 is retired from the policy; the store still
/// holds 1.1.0 (now untrusted) and 1.0.0 (signed by the platform). `vcc
/// lock` names 1.1.0 as skipped and why, refuses to move the lock down
/// to 1.0.0, and moves only with `--allow-downgrade`, saying so.
#[test]
fn lock_moves_below_the_lock_only_with_allow_downgrade() {
    let world = World::new();
    world.key("platform");
    world.key("retired");
    let before = world.trust(
        &["platform", "retired"],
        &["{ name: \"acme/*\", signers: [platform, retired] }"],
        "",
    );
    let before = {
        let moved = world.path().join("trust-before.yaml");
        std::fs::rename(&before, &moved).unwrap();
        moved
    };
    let trust = world.trust(
        &["platform"],
        &["{ name: \"acme/*\", signers: [platform] }"],
        "",
    );
    let old = signed_bundle(&world, "1.0.0");
    let new = world.bundle(
        "security-1.1.0",
        "acme/security",
        "1.1.0",
        &[("secrets-scan", fixtures::ALWAYS_PASS)],
        &[("baseline", BASELINE)],
    );
    world.sign(&new, "retired");
    for layout in [&old, &new] {
        let run = world.vcc(&["bundle", "pull", &s(layout), "--trust", &s(&before)]);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    let contract = team_project(&world, &team_on_1x());
    let locked = vcc_lock(&world, &contract, &before, &[]);
    assert_eq!(locked.code, 0, "{}", locked.stderr);
    assert_eq!(locked_version(&contract), "1.1.0");

    let refused = vcc_lock(&world, &contract, &trust, &[]);
    assert_refused(&refused, "DOWNGRADE");
    assert!(
        refused
            .stderr
            .contains("skipped acme/security 1.1.0 (store): UNKNOWN_KEY"),
        "{}",
        refused.stderr
    );
    assert_eq!(locked_version(&contract), "1.1.0", "not moved");

    let moved = vcc_lock(&world, &contract, &trust, &["--allow-downgrade"]);
    assert_eq!(moved.code, 0, "{}", moved.stderr);
    assert!(
        moved
            .stderr
            .contains("moved acme/security down from 1.1.0 to 1.0.0 (--allow-downgrade)"),
        "{}",
        moved.stderr
    );
    assert_eq!(locked_version(&contract), "1.0.0");
}

/// The store holds 1.1.0; the registry has 1.1.0 and 1.2.0. `vcc lock`
/// takes the store's; `vcc lock --update` asks the registry and takes
/// 1.2.0 from it (once, the registry was never asked while the store had
/// a match).
#[test]
fn lock_update_takes_a_newer_version_from_the_registry() {
    let registry = Registry::start();
    let (world, trust) = platform(Some(&registry));
    let repo = format!("{}/acme/security", registry.host);
    let older = signed_bundle(&world, "1.1.0");
    let newer = signed_bundle(&world, "1.2.0");
    push(&world, &older, &format!("{repo}:1.1.0"));
    push(&world, &newer, &format!("{repo}:v1.2.0"));
    let pulled = world.vcc(&["bundle", "pull", &s(&older), "--trust", &s(&trust)]);
    assert_eq!(pulled.code, 0, "{}", pulled.stderr);
    let contract = team_project(&world, &team_on_1x());

    let locked = vcc_lock(&world, &contract, &trust, &[]);
    assert_eq!(locked.code, 0, "{}", locked.stderr);
    assert_eq!(locked_version(&contract), "1.1.0", "store first");

    let updated = vcc_lock(&world, &contract, &trust, &["--update"]);
    assert_eq!(updated.code, 0, "{}", updated.stderr);
    assert_eq!(locked_version(&contract), "1.2.0");
    assert!(
        updated.stderr.contains(&format!(
            "locked acme/security 1.2.0 ({}",
            digest_of(&newer)
        )) && updated.stderr.contains(&format!("from {repo}:v1.2.0")),
        "{}",
        updated.stderr
    );
}

/// `mirror/oci` (a mistyped folder) names no registry: the error is about
/// the folder, and nothing is asked of Docker Hub (a proxy that answers
/// nothing would show in the message).
#[test]
fn a_reference_naming_no_registry_is_a_missing_folder() {
    let (world, trust) = platform(None);
    for target in ["mirror/oci", "./x", "../x"] {
        let mut command = world.command(world.path());
        let output = command
            .args(["bundle", "pull", target, "--trust", &s(&trust)])
            .env("HTTPS_PROXY", "http://127.0.0.1:9")
            .env("HTTP_PROXY", "http://127.0.0.1:9")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!("no OCI layout folder `{target}`")),
            "{stderr}"
        );
        for network in ["docker.io", "log in", "connect", "proxy"] {
            assert!(!stderr.contains(network), "{network}: {stderr}");
        }
    }
    let layout = signed_bundle(&world, "1.2.0");
    let pushed = world.vcc(&["bundle", "push", &s(&layout), "mirror/oci:1.2.0"]);
    assert_eq!(pushed.code, 2, "{}", pushed.stderr);
    assert!(
        pushed.stderr.contains("names no registry"),
        "{}",
        pushed.stderr
    );
}

/// A policy inside the team's repository (a `.git` at its top; git is
/// never run) is refused by `vcc lock` and by `vcc bundle pull` run in
/// the repository, as `check` refuses one in the deliverable root.
#[test]
fn hostile_a_trust_policy_in_the_repository_for_lock_and_pull() {
    let (world, trust) = platform(None);
    let layout = signed_bundle(&world, "1.2.0");
    let repo = world.project(
        "repo",
        &[
            ("app/contract.yaml", TEAM),
            ("app/NOTES.md", "notes\n"),
            ("app/CHANGELOG.md", "changes\n"),
        ],
    );
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let inside = repo.join("ci/trust.yaml");
    std::fs::create_dir_all(inside.parent().unwrap()).unwrap();
    let text = std::fs::read_to_string(&trust)
        .unwrap()
        .replace("keys/", "../../keys/");
    std::fs::write(&inside, text).unwrap();
    // The same policy from outside works.
    let pulled = world.vcc(&["bundle", "pull", &s(&layout), "--trust", &s(&trust)]);
    assert_eq!(pulled.code, 0, "{}", pulled.stderr);

    let locked = vcc_lock(&world, &repo.join("app/contract.yaml"), &inside, &[]);
    assert_refused(&locked, "TRUST_IN_ROOT");
    assert!(
        locked.stderr.contains("the contract's repository"),
        "{}",
        locked.stderr
    );
    assert!(!repo.join("app/vcc.lock").exists());

    let pulled = world.vcc_in(
        &repo.join("app"),
        &["bundle", "pull", &s(&layout), "--trust", &s(&inside)],
    );
    assert_refused(&pulled, "TRUST_IN_ROOT");
    assert!(
        pulled.stderr.contains("the repository"),
        "{}",
        pulled.stderr
    );
    // A `.git` the worker plants in the project folder does not make the
    // repository smaller (red team: lock, pull and check then took the
    // policy beside it).
    std::fs::write(repo.join("app/.git"), "gitdir: /nonexistent\n").unwrap();
    let locked = vcc_lock(&world, &repo.join("app/contract.yaml"), &inside, &[]);
    assert_refused(&locked, "TRUST_IN_ROOT");
    let pulled = world.vcc_in(
        &repo.join("app"),
        &["bundle", "pull", &s(&layout), "--trust", &s(&inside)],
    );
    assert_refused(&pulled, "TRUST_IN_ROOT");
    // `vcc check` applies the same rule (red team: it only looked at the
    // deliverable root).
    let checked = world.vcc(&[
        "check",
        &s(&repo.join("app/contract.yaml")),
        "--trust",
        &s(&inside),
    ]);
    assert_eq!(checked.code, 2, "{}{}", checked.stdout, checked.stderr);
    assert!(
        format!("{}{}", checked.stdout, checked.stderr).contains("TRUST_IN_ROOT"),
        "{}{}",
        checked.stdout,
        checked.stderr
    );
    std::fs::remove_file(repo.join("app/.git")).unwrap();

    // In the contract's folder, with no repository at all.
    std::fs::remove_dir_all(repo.join(".git")).unwrap();
    let beside = repo.join("app/trust.yaml");
    std::fs::copy(&inside, &beside).unwrap();
    let locked = vcc_lock(&world, &repo.join("app/contract.yaml"), &beside, &[]);
    assert_refused(&locked, "TRUST_IN_ROOT");
}

/// vcc.lock edited so only a validator's blake3 differs: the mismatch
/// names blake3 and both values (once it printed the same sha256 twice).
#[test]
fn hostile_a_lock_with_another_blake3_names_blake3() {
    let world = World::new();
    let (trust, contract) = locked_team(&world, TEAM);
    let path = contract.with_file_name("vcc.lock");
    let lock = std::fs::read_to_string(&path).unwrap();
    let real = lock
        .lines()
        .find_map(|l| l.trim().strip_prefix("blake3: "))
        .unwrap()
        .to_string();
    let forged = format!("blake3:{}", "0".repeat(64));
    std::fs::write(&path, lock.replacen(&real, &forged, 1)).unwrap();
    let run = check(&world, &contract, &trust, &["--locked"]);
    assert_refused(&run, "LOCK_MISMATCH");
    assert!(
        run.stdout.contains(&format!(
            "with blake3 {forged}, and the bundle holds blake3 {real}"
        )),
        "{}",
        run.stdout
    );
}

/// Nothing listens on the port: the message says it cannot connect, with
/// the system's reason, not that it cannot log in.
/// A folder in the current directory named like the registry reference
/// (`HOST:PORT/REPO`) never stands in for the registry (red team: a
/// committed folder served `--policy HOST:PORT/REPO:latest#C` an older
/// signed release).
#[test]
fn hostile_a_folder_named_like_a_registry_reference_is_not_read() {
    let (world, trust) = platform(None);
    let layout = signed_bundle(&world, "1.2.0");
    // Nothing listens on this port.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let reference = format!("127.0.0.1:{port}/acme/security");
    let decoy = world.path().join(&reference);
    std::fs::create_dir_all(decoy.parent().unwrap()).unwrap();
    let copied = std::process::Command::new("cp")
        .args(["-r", &s(&layout), &s(&decoy)])
        .status()
        .unwrap();
    assert!(copied.success());
    let pulled = world.vcc(&[
        "bundle",
        "pull",
        &format!("{reference}:latest"),
        "--trust",
        &s(&trust),
    ]);
    assert_eq!(pulled.code, 2, "{}", pulled.stderr);
    assert!(
        pulled.stderr.contains("cannot connect"),
        "{}",
        pulled.stderr
    );
    // Named as a folder, it is one.
    let pulled = world.vcc(&[
        "bundle",
        "pull",
        &format!("./{reference}"),
        "--trust",
        &s(&trust),
    ]);
    assert_eq!(pulled.code, 0, "{}", pulled.stderr);
}

#[test]
fn a_refused_connection_says_it_cannot_connect() {
    let (world, trust) = platform(None);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let host = format!("127.0.0.1:{port}");
    let run = world.vcc(&[
        "bundle",
        "pull",
        &format!("{host}/acme/security:1.2.0"),
        "--trust",
        &s(&trust),
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!("cannot connect to {host}"))
            && run.stderr.contains("Connection refused"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("log in"), "{}", run.stderr);
}
