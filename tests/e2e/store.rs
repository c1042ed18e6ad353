//! The local bundle store operated (`vcc bundle list|rm|gc`), carried
//! across an air gap (`vcc bundle save DIR`, `vcc bundle pull DIR`), OCI
//! layouts written by skopeo (`DIR`, `DIR:TAG`, `DIR@sha256:…`), a
//! registry pull that precompiles, and a bundle re-exporting a built-in.

use std::path::{Path, PathBuf};
use std::process::Command;

use vcc_test_support::fixtures;

use crate::world::{Registry, World, refusal, which};

const BASELINE: &str = "vcc: 1
id: baseline
deliverables:
  - { id: notes, path: NOTES.md }
validators:
  scan: { bundle: acme/security, validator: secrets-scan }
criteria:
  - { id: no-secrets, severity: must, validator: scan, targets: [notes] }
";

const TEAM: &str = "vcc: 1
id: team
extends: { bundle: acme/security, contract: baseline, version: \"^1.2\" }
deliverables:
  - { id: changelog, path: CHANGELOG.md }
validators:
  exists: { component: std/file-exists }
criteria:
  - { id: changelog, severity: must, validator: exists, targets: [changelog] }
";

fn s(path: &Path) -> String {
    path.display().to_string()
}

/// A world with the platform's key and a policy trusting acme/* from
/// `floor` on.
fn platform(floor: &str) -> (World, PathBuf) {
    let world = World::new();
    world.key("platform");
    let rule = format!("{{ name: \"acme/*\", signers: [platform], min_version: {floor} }}");
    let trust = world.trust(&["platform"], &[&rule], "");
    (world, trust)
}

/// acme/security at `version`, signed by the platform; its layout.
fn signed(world: &World, version: &str) -> PathBuf {
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

fn ok(run: &crate::Run) -> String {
    assert_eq!(
        run.code, 0,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    run.stdout.trim().to_string()
}

fn refused(run: &crate::Run, code: &str) {
    assert_eq!(
        run.code, 2,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    assert_eq!(refusal(run), code, "{}", run.stderr);
}

fn pull(world: &World, source: &str, trust: &Path) -> crate::Run {
    world.vcc(&["bundle", "pull", source, "--trust", &s(trust)])
}

fn list(world: &World, trust: &Path) -> serde_json::Value {
    let run = world.vcc(&["bundle", "list", "--trust", &s(trust), "--format", "json"]);
    ok(&run);
    run.json()
}

/// (version, state, code) of each stored bundle.
fn states(listed: &serde_json::Value) -> Vec<(String, String, String)> {
    listed["bundles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            let st = |v: &serde_json::Value| v.as_str().unwrap_or("").to_string();
            (
                st(&b["version"]),
                st(&b["status"]["state"]),
                st(&b["status"]["code"]),
            )
        })
        .collect()
}

fn blob(store: &Path, digest: &str) -> PathBuf {
    store
        .join("blobs/sha256")
        .join(digest.trim_start_matches("sha256:"))
}

#[test]
fn the_store_is_listed_and_a_refused_version_removed_and_collected() {
    let (world, _) = platform("1.0.0");
    let lenient = world.path().join("trust.yaml");
    let old = ok(&pull(&world, &s(&signed(&world, "1.0.1")), &lenient));
    let new = ok(&pull(&world, &s(&signed(&world, "1.2.0")), &lenient));
    // The platform raises its floor: 1.0.1 stays in the store, refused.
    let rule = "{ name: \"acme/*\", signers: [platform], min_version: 1.2.0 }";
    let strict = world.trust(&["platform"], &[rule], "");
    let listed = list(&world, &strict);
    assert_eq!(
        states(&listed),
        [
            ("1.0.1".into(), "refused".into(), "BELOW_MIN_VERSION".into()),
            ("1.2.0".into(), "trusted".into(), String::new()),
        ]
    );
    let row = &listed["bundles"][0];
    assert_eq!(row["name"], "acme/security");
    assert_eq!(row["manifest"], old);
    assert_eq!(row["signers"][0]["policy_key"], "platform");
    let table = world.vcc(&["bundle", "list", "--trust", &s(&strict)]);
    let text = ok(&table);
    assert!(
        text.lines().any(|l| l.starts_with("acme/security")
            && l.contains("1.0.1")
            && l.contains(&old[..19])
            && l.contains("platform")
            && l.contains("refused BELOW_MIN_VERSION")),
        "{text}"
    );

    // A pull that died left its staging folder behind.
    let staging = world.store().join(".staging-999999999-0");
    std::fs::create_dir_all(staging.join("blobs/sha256")).unwrap();
    std::fs::write(staging.join("blobs/sha256/x"), "half a blob").unwrap();

    let removed = world.vcc(&["bundle", "rm", "acme/security@1.0.1"]);
    assert_eq!(ok(&removed), old);
    assert!(
        removed.stderr.contains("and 1 signature(s)"),
        "{}",
        removed.stderr
    );
    assert_eq!(
        states(&list(&world, &strict)),
        [("1.2.0".into(), "trusted".into(), String::new())]
    );
    assert!(blob(&world.store(), &old).exists(), "rm leaves blobs to gc");

    let gc = world.vcc(&["bundle", "gc"]);
    let freed = ok(&gc);
    assert!(freed.contains(&format!("freed blob {old}")), "{freed}");
    assert!(
        freed.contains("freed staging folder .staging-999999999-0"),
        "{freed}"
    );
    assert!(!blob(&world.store(), &old).exists());
    assert!(!staging.exists());
    assert!(!freed.contains(&new), "1.2.0 is kept: {freed}");
    // What stays still verifies, blob by blob.
    assert_eq!(
        states(&list(&world, &strict)),
        [("1.2.0".into(), "trusted".into(), String::new())]
    );
    let again = world.vcc(&["bundle", "gc"]);
    assert!(
        ok(&again).ends_with(&format!(
            "freed 0 blob(s) and 0 staging folder(s), 0 bytes, from {}",
            world.store().display()
        )),
        "{}",
        again.stdout
    );
    refused(
        &world.vcc(&["bundle", "rm", "acme/security@1.0.1"]),
        "NOT_IN_STORE",
    );
}

#[test]
fn air_gapped_save_then_pull_into_an_empty_store_then_lock_and_check() {
    let (world, trust) = platform("1.2.0");
    let digest = ok(&pull(&world, &s(&signed(&world, "1.2.0")), &trust));
    let carried = world.path().join("carried");
    let saved = world.vcc(&["bundle", "save", &s(&carried)]);
    assert_eq!(ok(&saved), digest);
    // Another OCI implementation reads the saved layout: skopeo finds the
    // bundle manifest under its version tag, byte for byte.
    let skopeo =
        which("skopeo").expect("skopeo is not installed: run `bash tests/install-tools.sh`");
    let raw = Command::new(skopeo)
        .args(["inspect", "--raw"])
        .arg(format!("oci:{}:1.2.0", carried.display()))
        .output()
        .expect("run skopeo");
    assert!(
        raw.status.success(),
        "{}",
        String::from_utf8_lossy(&raw.stderr)
    );
    assert_eq!(vcc_trust::layout::sha256(&raw.stdout), digest);
    // Another machine: its own empty store, no registry anywhere.
    let offline = World::new();
    let pulled = pull(&offline, &s(&carried), &trust);
    assert_eq!(ok(&pulled), digest);
    assert!(
        pulled.stderr.contains("signed by platform"),
        "{}",
        pulled.stderr
    );
    assert_eq!(
        states(&list(&offline, &trust)),
        [("1.2.0".into(), "trusted".into(), String::new())]
    );
    let project = offline.project(
        "team",
        &[
            ("contract.yaml", TEAM),
            ("NOTES.md", "notes\n"),
            ("CHANGELOG.md", "changes\n"),
        ],
    );
    let contract = s(&project.join("contract.yaml"));
    ok(&offline.vcc(&["lock", &contract, "--trust", &s(&trust)]));
    let checked = offline.vcc(&[
        "check",
        &contract,
        "--trust",
        &s(&trust),
        "--locked",
        "--format",
        "json",
    ]);
    assert_eq!(checked.code, 0, "{}\n{}", checked.stdout, checked.stderr);
    assert_eq!(checked.json()["verdict"], "accepted");
    assert_eq!(checked.criterion("no-secrets")["status"], "pass");
    // Saving into a layout again is refused, never merged in silence.
    refused(
        &world.vcc(&["bundle", "save", &s(&carried)]),
        "MALFORMED_BUNDLE",
    );
}

#[test]
fn hostile_an_untrusted_bundle_among_trusted_ones_in_a_saved_layout() {
    let (world, trust) = platform("1.0.0");
    ok(&pull(&world, &s(&signed(&world, "1.0.1")), &trust));
    ok(&pull(&world, &s(&signed(&world, "1.2.0")), &trust));
    let carried = world.path().join("carried");
    ok(&world.vcc(&["bundle", "save", &s(&carried)]));
    let offline = World::new();
    let rule = "{ name: \"acme/*\", signers: [platform], min_version: 1.2.0 }";
    let strict = offline.path().join("strict.yaml");
    std::fs::write(
        &strict,
        format!(
            "trust: 1\nkeys:\n  - {{ id: platform, public_key: {} }}\nbundles:\n  - {rule}\n",
            world.path().join("keys/platform.pub").display()
        ),
    )
    .unwrap();
    let all = pull(&offline, &s(&carried), &strict);
    refused(&all, "BELOW_MIN_VERSION");
    assert!(
        all.stderr.contains("nothing was imported"),
        "{}",
        all.stderr
    );
    let none = offline.vcc(&["bundle", "list", "--format", "json"]);
    ok(&none);
    assert_eq!(none.json()["bundles"], serde_json::json!([]));
    // The trusted one, named.
    let one = pull(&offline, &format!("{}:1.2.0", s(&carried)), &strict);
    ok(&one);
    assert_eq!(
        states(&list(&offline, &strict)),
        [("1.2.0".into(), "trusted".into(), String::new())]
    );
}

fn skopeo_copy(registry: &Registry, from: &str, to: &Path, tag: &str) {
    let skopeo =
        which("skopeo").expect("skopeo is not installed: run `bash tests/install-tools.sh`");
    let out = Command::new(skopeo)
        .args(["copy", "--all", "--src-tls-verify=false"])
        .arg(format!("docker://{}/{from}", registry.host))
        .arg(format!("oci:{}:{tag}", to.display()))
        .output()
        .expect("run skopeo");
    assert!(
        out.status.success(),
        "skopeo copy {from}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn skopeo_layouts_are_read_by_tag_by_digest_and_alone() {
    let registry = Registry::start();
    let (world, trust) = platform("1.2.0");
    let mirror = world.path().join("mirror");
    let mut digests = Vec::new();
    for v in ["1.2.0", "1.2.1", "1.2.2", "1.2.3", "1.2.4"] {
        let layout = signed(&world, v);
        let reference = format!("{}/acme/security:{v}", registry.host);
        let digest = ok(&world.vcc(&["bundle", "push", &s(&layout), &reference]));
        // The bundle, and its signatures as the referrers tag schema's
        // index (skopeo copies no referrers): two tags of one layout.
        skopeo_copy(&registry, &format!("acme/security:{v}"), &mirror, v);
        let sigs = digest.replace(':', "-");
        skopeo_copy(&registry, &format!("acme/security:{sigs}"), &mirror, &sigs);
        digests.push(digest.clone());
        if v == "1.2.0" {
            // One bundle with its signatures: the folder alone names it.
            let json = world.vcc(&[
                "bundle",
                "verify",
                &s(&mirror),
                "--trust",
                &s(&trust),
                "--format",
                "json",
            ]);
            ok(&json);
            assert_eq!(json.json()["manifest"], digest);
            assert_eq!(json.json()["signers"], serde_json::json!(["platform"]));
        }
    }
    // skopeo's index.json: no top-level mediaType (optional in OCI), no
    // artifactType and no vcc annotation on its entries.
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(mirror.join("index.json")).unwrap()).unwrap();
    assert!(index.get("mediaType").is_none(), "{index}");
    assert!(!index.to_string().contains("artifactType"), "{index}");
    assert!(!index.to_string().contains("dev.vcc"), "{index}");

    let by_tag = world.vcc(&[
        "bundle",
        "verify",
        &format!("{}:1.2.3", s(&mirror)),
        "--trust",
        &s(&trust),
        "--format",
        "json",
    ]);
    ok(&by_tag);
    assert_eq!(by_tag.json()["version"], "1.2.3");
    assert_eq!(by_tag.json()["manifest"], digests[3]);
    let by_digest = world.vcc(&[
        "bundle",
        "verify",
        &format!("{}@{}", s(&mirror), digests[1]),
        "--trust",
        &s(&trust),
        "--format",
        "json",
    ]);
    ok(&by_digest);
    assert_eq!(by_digest.json()["version"], "1.2.1");

    let alone = world.vcc(&["bundle", "verify", &s(&mirror), "--trust", &s(&trust)]);
    refused(&alone, "MALFORMED_BUNDLE");
    let m = s(&mirror);
    assert!(
        alone.stderr.contains(&format!(
            "{m} holds 5 bundles; name one: {m}:1.2.0, {m}:1.2.1, {m}:1.2.2, {m}:1.2.3, {m}:1.2.4 (or {m}@sha256:… by manifest digest)"
        )),
        "{}",
        alone.stderr
    );
    let missing = world.vcc(&[
        "bundle",
        "verify",
        &format!("{m}:2.0.0"),
        "--trust",
        &s(&trust),
    ]);
    refused(&missing, "NOT_IN_STORE");
    assert!(
        missing.stderr.contains("has no tag `2.0.0`"),
        "{}",
        missing.stderr
    );

    // Pulled from the skopeo layout into the store, by tag.
    let pulled = pull(&world, &format!("{m}:1.2.4"), &trust);
    assert_eq!(ok(&pulled), digests[4]);
    assert!(
        pulled.stderr.contains("signed by platform"),
        "{}",
        pulled.stderr
    );
}

#[test]
fn hostile_a_layout_digest_that_leaves_the_blobs_folder() {
    let (world, trust) = platform("1.2.0");
    let layout = signed(&world, "1.2.0");
    let run = world.vcc(&[
        "bundle",
        "verify",
        &format!("{}@sha256:../../../trust.yaml", s(&layout)),
        "--trust",
        &s(&trust),
    ]);
    refused(&run, "MALFORMED_BUNDLE");
    assert!(
        run.stderr.contains("is not a sha256 digest"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_registry_pull_precompiles_so_the_first_check_compiles_nothing() {
    let registry = Registry::start();
    let (world, trust) = platform("1.2.0");
    let cache = world.path().join("cache");
    let vcc = |args: &[&str]| {
        let out = world
            .command(world.path())
            .env("VCC_CACHE_DIR", &cache)
            .args(args)
            .output()
            .expect("run vcc");
        crate::Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    };
    let layout = signed(&world, "1.2.0");
    let reference = format!("{}/acme/security:1.2.0", registry.host);
    ok(&vcc(&["bundle", "push", &s(&layout), &reference]));
    let pulled = vcc(&["bundle", "pull", &reference, "--trust", &s(&trust)]);
    ok(&pulled);
    assert!(!pulled.stderr.contains("warning"), "{}", pulled.stderr);
    assert!(
        pulled.stderr.contains("precompiled secrets-scan"),
        "{}",
        pulled.stderr
    );
    let stats = vcc(&["cache", "stats", "--format", "json"]);
    ok(&stats);
    assert_eq!(stats.json()["entries"], 1, "{}", stats.stdout);

    let project = world.project(
        "team",
        &[
            ("contract.yaml", TEAM),
            ("NOTES.md", "notes\n"),
            ("CHANGELOG.md", "changes\n"),
        ],
    );
    let contract = s(&project.join("contract.yaml"));
    ok(&vcc(&["lock", &contract, "--trust", &s(&trust)]));
    let checked = vcc(&[
        "check",
        &contract,
        "--trust",
        &s(&trust),
        "--format",
        "json",
    ]);
    assert_eq!(checked.code, 0, "{}\n{}", checked.stdout, checked.stderr);
    let used = &checked.json()["runtime"]["cache"];
    assert_eq!(used["misses"], 0, "the first check compiled: {used}");
    assert_eq!(used["hits"], 1, "{used}");
}

#[test]
fn a_bundle_re_exports_a_built_in_validator_by_name() {
    let (world, trust) = platform("1.2.0");
    let src = world.path().join("src/x");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("vcc-bundle.yaml"),
        "name: acme/x\nversion: 1.2.0\nvalidators:\n  text-match: std/text-match\n",
    )
    .unwrap();
    let out = world.path().join("bundles/x");
    ok(&world.vcc(&[
        "bundle",
        "build",
        &s(&src.join("vcc-bundle.yaml")),
        "--out",
        &s(&out),
    ]));
    world.sign(&out, "platform");
    let inspected = world.vcc(&["bundle", "inspect", &s(&out), "--format", "json"]);
    ok(&inspected);
    assert_eq!(
        inspected.json()["validators"][0]["name"],
        "text-match",
        "{}",
        inspected.stdout
    );
    ok(&pull(&world, &s(&out), &trust));
    let contract = "vcc: 1
id: team
deliverables:
  - { id: notes, path: NOTES.md }
validators:
  match: { bundle: acme/x, validator: text-match }
criteria:
  - { id: no-todo, severity: must, validator: match, targets: [notes], params: { must_not_match: [TODO] } }
";
    let project = world.project(
        "team",
        &[("contract.yaml", contract), ("NOTES.md", "done\n")],
    );
    let path = s(&project.join("contract.yaml"));
    ok(&world.vcc(&["lock", &path, "--trust", &s(&trust)]));
    let check = |world: &World| {
        world.vcc(&[
            "check",
            &path,
            "--trust",
            &s(&trust),
            "--locked",
            "--format",
            "json",
        ])
    };
    let passed = check(&world);
    assert_eq!(passed.code, 0, "{}\n{}", passed.stdout, passed.stderr);
    assert_eq!(passed.criterion("no-todo")["status"], "pass");
    assert_eq!(
        passed.criterion("no-todo")["validator"]["bundle"]["name"],
        "acme/x"
    );
    std::fs::write(project.join("NOTES.md"), "done\nTODO: tests\n").unwrap();
    let failed = check(&world);
    assert_eq!(failed.code, 1, "{}\n{}", failed.stdout, failed.stderr);
    assert_eq!(failed.criterion("no-todo")["status"], "fail");

    // A built-in that does not exist is named, with the ones that do.
    std::fs::write(
        src.join("vcc-bundle.yaml"),
        "name: acme/x\nversion: 1.2.1\nvalidators:\n  m: std/no-such\n",
    )
    .unwrap();
    let bad = world.vcc(&[
        "bundle",
        "build",
        &s(&src.join("vcc-bundle.yaml")),
        "--out",
        &s(&world.path().join("bundles/bad")),
    ]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr
            .contains("validators: m: no built-in validator `std/no-such`")
            && bad.stderr.contains("std/text-match"),
        "{}",
        bad.stderr
    );
}

/// Rewrite a layout's index.json entries with `edit` (what whoever hands
/// a layout over can do).
fn edit_index(layout: &Path, edit: impl Fn(&mut serde_json::Value)) {
    let path = layout.join("index.json");
    let mut index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for entry in index["manifests"].as_array_mut().unwrap() {
        edit(entry);
    }
    std::fs::write(&path, serde_json::to_vec(&index).unwrap()).unwrap();
}

/// A handed-over layout whose entries say they are image indexes (red
/// team: `gc` then read the stored manifests as indexes, counted nothing
/// they name, and deleted the trusted bundle's blobs).
#[test]
fn hostile_entries_typed_as_indexes_do_not_make_gc_delete_a_bundle() {
    let (world, trust) = platform("1.0.0");
    let layout = signed(&world, "1.2.0");
    edit_index(&layout, |e| {
        e["mediaType"] = "application/vnd.oci.image.index.v1+json".into();
    });
    ok(&pull(&world, &s(&layout), &trust));
    let gc = world.vcc(&["bundle", "gc"]);
    ok(&gc);
    assert!(gc.stdout.contains("freed 0 blob(s)"), "{}", gc.stdout);
    let states = states(&list(&world, &trust));
    assert_eq!(
        states,
        vec![("1.2.0".to_string(), "trusted".to_string(), String::new())]
    );
}

/// A handed-over layout that says where its bundle came from (red team:
/// the store kept the annotation; `lock` recorded the attacker's registry
/// and `refresh` contacted it).
#[test]
fn hostile_a_layout_does_not_say_where_a_stored_bundle_came_from() {
    let (world, trust) = platform("1.0.0");
    let layout = signed(&world, "1.2.0");
    edit_index(&layout, |e| {
        e["annotations"]["dev.vcc.bundle.source"] = "127.0.0.1:1/evil/acme/security:1.2.0".into();
    });
    ok(&pull(&world, &s(&layout), &trust));
    let listed = list(&world, &trust);
    assert!(
        !listed.to_string().contains("evil"),
        "the layout's claim is not kept: {listed}"
    );
    let refreshed = world.vcc(&["bundle", "refresh", "--trust", &s(&trust)]);
    assert!(
        refreshed.stderr.contains("nothing to refresh"),
        "{}",
        refreshed.stderr
    );
}

/// Two stored manifests of one version (a rebuild): `rm NAME@VERSION`
/// names both instead of removing the first (red team: it removed the one
/// the lock pinned).
#[test]
fn hostile_rm_of_a_version_held_twice_names_both() {
    let (world, trust) = platform("1.0.0");
    let first = signed(&world, "1.2.0");
    ok(&pull(&world, &s(&first), &trust));
    // The same version rebuilt: another `created`, another digest.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let again = world.bundle(
        "security-1.2.0-again",
        "acme/security",
        "1.2.0",
        &[("secrets-scan", fixtures::ALWAYS_PASS)],
        &[("baseline", BASELINE)],
    );
    world.sign(&again, "platform");
    ok(&pull(&world, &s(&again), &trust));
    let rm = world.vcc(&["bundle", "rm", "acme/security@1.2.0"]);
    assert_eq!(rm.code, 2, "{}", rm.stderr);
    assert!(
        rm.stderr
            .contains("`acme/security@1.2.0` names 2 stored manifests; name one: sha256:"),
        "{}",
        rm.stderr
    );
    assert_eq!(states(&list(&world, &trust)).len(), 2, "nothing removed");
}

/// A layout whose index.json is a FIFO (red team: `pull DIR` blocked
/// forever).
#[test]
fn hostile_a_fifo_in_a_layout_is_refused_not_waited_on() {
    let (world, trust) = platform("1.0.0");
    let layout = signed(&world, "1.2.0");
    std::fs::remove_file(layout.join("index.json")).unwrap();
    let made = Command::new("mkfifo")
        .arg(layout.join("index.json"))
        .status()
        .unwrap();
    assert!(made.success());
    let run = pull(&world, &s(&layout), &trust);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("is not a regular file"),
        "{}",
        run.stderr
    );
}

/// A layout's version tag on another version's manifest (a rollback in
/// disguise, as a retagged registry release).
#[test]
fn hostile_a_layout_tag_naming_another_version_is_refused() {
    let (world, trust) = platform("1.0.0");
    let layout = signed(&world, "1.0.1");
    edit_index(&layout, |e| {
        if e["annotations"]["org.opencontainers.image.ref.name"] == "1.0.1" {
            e["annotations"]["org.opencontainers.image.ref.name"] = "1.2.0".into();
        }
    });
    let run = pull(&world, &format!("{}:1.2.0", s(&layout)), &trust);
    refused(&run, "TAG_VERSION_MISMATCH");
}
