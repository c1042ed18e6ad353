//! Trust that survives operations (issue 36): signer groups through a key
//! rotation, `vcc bundle refresh`, revocation, re-signing and expiry,
//! through the real binary and a loopback registry.

use std::path::{Path, PathBuf};

use vcc_test_support::fixtures;

use crate::world::{Registry, World};

const TEAM: &str = "vcc: 1
id: team
deliverables:
  - { id: notes, path: NOTES.md }
validators:
  scan: { bundle: acme/security, validator: secrets-scan, version: \"^1.0\" }
criteria:
  - { id: no-secrets, severity: must, validator: scan, targets: [notes] }
";

fn s(path: &Path) -> String {
    path.display().to_string()
}

/// acme/security at `version`, built into `bundles/security-VERSION`.
fn build(world: &World, version: &str) -> PathBuf {
    world.bundle(
        &format!("security-{version}"),
        "acme/security",
        version,
        &[("secrets-scan", fixtures::ALWAYS_PASS)],
        &[],
    )
}

fn sign(world: &World, layout: &Path, key: &str, expires: Option<&str>) -> crate::Run {
    let key = format!("keys/{key}.key");
    let mut args = vec!["bundle", "sign", layout.to_str().unwrap(), "--key", &key];
    if let Some(e) = expires {
        args.extend(["--expires", e]);
    }
    world.vcc(&args)
}

fn push(world: &World, layout: &Path, reference: &str) {
    let run = world.vcc(&["bundle", "push", &s(layout), reference]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// The policy: `platform_keys` any-of, and security, always.
fn policy(world: &World, registry: &Registry, platform_keys: &str, more: &str) -> PathBuf {
    world.trust(
        &["platform", "platform2", "security"],
        &[&format!(
            "{{ name: \"acme/*\", all_of: [ {{ any_of: [{platform_keys}] }}, security ], source: \"{}\" }}",
            registry.host
        )],
        more,
    )
}

fn check_locked(world: &World, contract: &Path, trust: &Path) -> crate::Run {
    world.vcc(&[
        "check",
        &s(contract),
        "--locked",
        "--trust",
        &s(trust),
        "--format",
        "json",
    ])
}

/// The error problems of a JSON report, as `CODE: message`.
fn problems(run: &crate::Run) -> Vec<String> {
    run.json()["problems"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["level"] == "error")
        .map(|p| format!("{}: {}", p["code"].as_str().unwrap_or(""), p["message"]))
        .collect()
}

/// A team on acme/security 1.0.0, signed by platform and security and
/// pushed to a loopback registry, locked under the policy "any of
/// (platform), security".
struct Team {
    world: World,
    registry: Registry,
    live: PathBuf,
    reference: String,
    contract: PathBuf,
}

fn team_locked() -> Team {
    let world = World::new();
    let registry = Registry::start();
    for k in ["platform", "platform2", "security"] {
        world.key(k);
    }
    let reference = format!("{}/acme/security:1.0.0", registry.host);
    let live = build(&world, "1.0.0");
    assert_eq!(sign(&world, &live, "platform", None).code, 0);
    assert_eq!(sign(&world, &live, "security", None).code, 0);
    push(&world, &live, &reference);
    let trust = policy(&world, &registry, "platform", "");
    let contract = world
        .project("team", &[("contract.yaml", TEAM), ("NOTES.md", "notes\n")])
        .join("contract.yaml");
    let locked = world.vcc(&["lock", &s(&contract), "--trust", &s(&trust)]);
    assert_eq!(locked.code, 0, "{}", locked.stderr);
    Team {
        world,
        registry,
        live,
        reference,
        contract,
    }
}

/// The rotation runbook, with `security` required at every step: add
/// platform2, re-sign the live version, refresh, retire platform.
#[test]
fn a_platform_key_rotates_while_security_stays_required() {
    let Team {
        world,
        registry,
        live,
        reference,
        contract,
    } = team_locked();
    let trust = policy(&world, &registry, "platform", "");
    let lock_before = std::fs::read(contract.with_file_name("vcc.lock")).unwrap();
    assert_eq!(check_locked(&world, &contract, &trust).code, 0);

    // During the rotation both platform keys count, for one group only: a
    // weakened 1.0.1 signed by both platform keys is not trusted.
    let trust = policy(&world, &registry, "platform, platform2", "");
    let weak = build(&world, "1.0.1");
    assert_eq!(sign(&world, &weak, "platform", None).code, 0);
    assert_eq!(sign(&world, &weak, "platform2", None).code, 0);
    let refused = world.vcc(&["bundle", "verify", &s(&weak), "--trust", &s(&trust)]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("THRESHOLD_NOT_MET: acme/security 1.0.1 is signed by platform, platform2; the trust policy requires all of (any of (platform, platform2), security), and security is not met"),
        "{}",
        refused.stderr
    );

    // platform2 re-signs the live version and pushes its signature.
    assert_eq!(sign(&world, &live, "platform2", None).code, 0);
    push(&world, &live, &reference);
    // platform retires: the team's store has only its old signature.
    let trust = policy(&world, &registry, "platform2", "");
    let stale = check_locked(&world, &contract, &trust);
    assert_eq!(stale.code, 2, "{}", stale.stdout);
    assert!(
        problems(&stale)
            .iter()
            .any(|p| p.starts_with("THRESHOLD_NOT_MET")
                && p.contains("any of (platform2) is not met")
                && p.contains("`vcc bundle refresh` fetches them")),
        "{:?}",
        problems(&stale)
    );
    let refreshed = world.vcc(&["bundle", "refresh", &s(&contract), "--trust", &s(&trust)]);
    assert_eq!(refreshed.code, 0, "{}", refreshed.stderr);
    assert!(
        refreshed
            .stderr
            .contains("refreshed acme/security 1.0.0 (sha256:")
            && refreshed
                .stderr
                .contains("3 signature(s), 1 new; trusted, signed by platform2, security"),
        "{}",
        refreshed.stderr
    );
    assert_eq!(check_locked(&world, &contract, &trust).code, 0);
    assert_eq!(
        std::fs::read(contract.with_file_name("vcc.lock")).unwrap(),
        lock_before,
        "a refresh changes signatures, never the lock"
    );
}

/// A refresh never stores what does not verify: retiring the platform key
/// before platform2 signed leaves nothing that meets the policy; the
/// refresh says so (exit 2) and the check stays refused.
#[test]
fn hostile_a_refresh_before_the_new_key_signed_is_refused() {
    let Team {
        world,
        registry,
        contract,
        ..
    } = team_locked();
    let trust = policy(&world, &registry, "platform2", "");
    let refreshed = world.vcc(&["bundle", "refresh", "--trust", &s(&trust)]);
    assert_eq!(refreshed.code, 2, "{}", refreshed.stderr);
    assert!(
        refreshed.stderr.contains("refused: THRESHOLD_NOT_MET")
            && refreshed.stderr.contains("(the store keeps what it had)"),
        "{}",
        refreshed.stderr
    );
    assert_eq!(check_locked(&world, &contract, &trust).code, 2);
}

#[test]
fn hostile_a_revoked_version_is_refused_from_the_store_and_the_lock() {
    let Team {
        world,
        registry,
        live,
        contract,
        ..
    } = team_locked();
    let trust = policy(
        &world,
        &registry,
        "platform",
        "revoked:\n  - { bundle: \"acme/security@1.0.0\", reason: \"CVE-2026-0001: reads outside its targets\" }\n",
    );
    let run = check_locked(&world, &contract, &trust);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        problems(&run)
            .iter()
            .any(|p| p.starts_with("REVOKED")
                && p.contains("CVE-2026-0001: reads outside its targets")),
        "{:?}",
        problems(&run)
    );
    let relock = world.vcc(&["lock", &s(&contract), "--trust", &s(&trust)]);
    assert_eq!(relock.code, 2, "{}", relock.stderr);
    assert!(relock.stderr.contains("REVOKED"), "{}", relock.stderr);
    let verify = world.vcc(&["bundle", "verify", &s(&live), "--trust", &s(&trust)]);
    assert!(
        verify
            .stderr
            .contains("refused: REVOKED: acme/security 1.0.0"),
        "{}",
        verify.stderr
    );
}

#[test]
fn hostile_a_signature_born_expired_is_refused() {
    let world = World::new();
    world.key("platform");
    let layout = build(&world, "1.0.0");
    for (when, says) in [
        ("0d", "not in the future"),
        ("2020-01-01T00:00:00Z", "not in the future"),
        (
            "2020-01-01T02:00:00+02:00",
            "is 2020-01-01T00:00:00Z, not in the future",
        ),
        ("3000000d", "after 9999-12-31"),
    ] {
        let run = sign(&world, &layout, "platform", Some(when));
        assert_eq!(run.code, 2, "{when}: {}", run.stderr);
        assert!(run.stderr.contains(says), "{when}: {}", run.stderr);
    }
    let inspect = world.vcc(&["bundle", "inspect", &s(&layout), "--format", "json"]);
    assert_eq!(inspect.json()["signatures"], serde_json::json!([]));
}

/// Re-signing with the same key replaces its signature in the build folder
/// and in the registry's list, so teams never fetch a pile of lapsed ones.
#[test]
fn re_signing_replaces_the_keys_signature_in_the_registry() {
    let world = World::new();
    let registry = Registry::start();
    world.key("platform");
    let reference = format!("{}/acme/security:1.0.0", registry.host);
    let layout = build(&world, "1.0.0");
    assert_eq!(sign(&world, &layout, "platform", Some("1h")).code, 0);
    push(&world, &layout, &reference);
    assert_eq!(sign(&world, &layout, "platform", Some("90d")).code, 0);
    push(&world, &layout, &reference);
    let inspect = world.vcc(&["bundle", "inspect", &reference, "--format", "json"]);
    let signatures = inspect.json()["signatures"].as_array().unwrap().clone();
    assert_eq!(signatures.len(), 1, "{signatures:?}");
    let expires = signatures[0]["expires"].as_str().unwrap();
    let at = humantime::parse_rfc3339(expires).unwrap();
    assert!(
        at > std::time::SystemTime::now() + std::time::Duration::from_secs(80 * 86_400),
        "the 90-day signature is the one left: {expires}"
    );
}

/// Add a signature entry to a bundle's layout by hand: `envelope` as its
/// DSSE layer, `annotations` on its manifest (what someone who can write
/// to the registry, but holds no trusted key, can push beside a bundle).
fn add_raw_signature(layout: &Path, envelope: &[u8], annotations: &[(&str, &str)]) {
    use vcc_trust::layout::{Layout, Manifest, media};
    let l = Layout::open(layout).unwrap();
    let bundle = vcc_trust::bundle::Bundle::open(&l).unwrap();
    let layer = l.put(media::DSSE, envelope).unwrap();
    let mut subject = bundle.descriptor.clone();
    subject.annotations.clear();
    subject.artifact_type = None;
    let manifest = Manifest {
        schema_version: 2,
        media_type: media::MANIFEST.into(),
        artifact_type: Some(media::DSSE.into()),
        config: l.put(media::EMPTY, b"{}").unwrap(),
        layers: vec![layer],
        subject: Some(subject),
        annotations: annotations
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    };
    let mut entry = l
        .put(media::MANIFEST, &serde_json::to_vec(&manifest).unwrap())
        .unwrap();
    entry.artifact_type = Some(media::DSSE.into());
    let mut index = l.index().unwrap();
    index.manifests.push(entry);
    l.set_index(&index).unwrap();
}

/// A pusher without a trusted key adds a "signature" that is not a DSSE
/// envelope (once: every pull failed, MALFORMED_BUNDLE).
#[test]
fn hostile_a_junk_signature_beside_a_bundle_denies_nothing() {
    let world = World::new();
    let registry = Registry::start();
    world.key("platform");
    let reference = format!("{}/acme/security:1.0.0", registry.host);
    let layout = build(&world, "1.0.0");
    assert_eq!(sign(&world, &layout, "platform", None).code, 0);
    add_raw_signature(&layout, b"{}", &[]);
    push(&world, &layout, &reference);
    let trust = world.trust(
        &["platform"],
        &["{ name: \"acme/*\", signers: [platform] }"],
        "",
    );
    let pulled = world.vcc(&["bundle", "pull", &reference, "--trust", &s(&trust)]);
    assert_eq!(pulled.code, 0, "{}", pulled.stderr);
}

/// A pusher without the platform's key pushes its own signature dressed
/// as the platform's (key id and public key annotations): the platform's
/// signature stays in the registry's list (once: a push replaced it on
/// the strength of the key id annotation).
#[test]
fn hostile_a_signature_dressed_as_the_platforms_replaces_nothing() {
    let world = World::new();
    let registry = Registry::start();
    let platform_id = world.key("platform");
    world.key("mallory");
    let reference = format!("{}/acme/security:1.0.0", registry.host);
    let layout = build(&world, "1.0.0");
    assert_eq!(sign(&world, &layout, "platform", None).code, 0);
    push(&world, &layout, &reference);
    // Mallory signs a copy, then dresses the envelope as the platform's.
    let copy = world.path().join("mallory-copy");
    let cp = std::process::Command::new("cp")
        .args(["-r", &s(&layout), &s(&copy)])
        .status()
        .unwrap();
    assert!(cp.success());
    assert_eq!(sign(&world, &copy, "mallory", None).code, 0);
    let l = vcc_trust::layout::Layout::open(&copy).unwrap();
    let bundle = vcc_trust::bundle::Bundle::open(&l).unwrap();
    let mallory = vcc_trust::keys::PublicKey::read(&world.path().join("keys/mallory.pub")).unwrap();
    let (_, envelope) = bundle
        .signatures
        .iter()
        .find(|(_, e)| e.signed_by(&mallory))
        .unwrap();
    let mut dressed = envelope.clone();
    dressed.signatures[0].keyid = platform_id.clone();
    let platform_pem = std::fs::read_to_string(world.path().join("keys/platform.pub")).unwrap();
    add_raw_signature(
        &copy,
        &serde_json::to_vec(&dressed).unwrap(),
        &[
            ("dev.vcc.signature.keyid", &platform_id),
            ("dev.vcc.signature.publickey", &platform_pem),
        ],
    );
    push(&world, &copy, &reference);
    let trust = world.trust(
        &["platform"],
        &["{ name: \"acme/*\", signers: [platform] }"],
        "",
    );
    let verified = world.vcc(&["bundle", "verify", &reference, "--trust", &s(&trust)]);
    assert_eq!(verified.code, 0, "{}", verified.stderr);
}

/// A renewal replaces the key's older signature in a team's store too, so
/// a shorter expiry takes effect there (once: the store kept the old,
/// never-expiring signature and the check stayed ACCEPTED).
#[test]
fn a_refreshed_renewal_replaces_the_stored_signature() {
    let world = World::new();
    let registry = Registry::start();
    world.key("platform");
    let reference = format!("{}/acme/security:1.0.0", registry.host);
    let layout = build(&world, "1.0.0");
    assert_eq!(sign(&world, &layout, "platform", None).code, 0);
    push(&world, &layout, &reference);
    let trust = world.trust(
        &["platform"],
        &[&format!(
            "{{ name: \"acme/*\", signers: [platform], source: \"{}\" }}",
            registry.host
        )],
        "",
    );
    let contract = world
        .project("team", &[("contract.yaml", TEAM), ("NOTES.md", "notes\n")])
        .join("contract.yaml");
    assert_eq!(
        world
            .vcc(&["lock", &s(&contract), "--trust", &s(&trust)])
            .code,
        0
    );
    assert_eq!(sign(&world, &layout, "platform", Some("3s")).code, 0);
    push(&world, &layout, &reference);
    let refreshed = world.vcc(&["bundle", "refresh", &s(&contract), "--trust", &s(&trust)]);
    assert_eq!(refreshed.code, 0, "{}", refreshed.stderr);
    assert!(
        refreshed.stderr.contains("1 signature(s)"),
        "{}",
        refreshed.stderr
    );
    std::thread::sleep(std::time::Duration::from_secs(4));
    let run = check_locked(&world, &contract, &trust);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        problems(&run).iter().any(|p| p.starts_with("EXPIRED")
            && p.contains("the newest signature that lapsed is platform's")),
        "{:?}",
        problems(&run)
    );
}
