//! The scale-out examples as written: the GitHub workflow's key step and
//! the Kubernetes Job's pod spec are read from the example files and run
//! here, so a key file of exactly the mode each produces (600, 0400)
//! signs every shard, and the merge accepts them. A key the umask left
//! 644 is refused, saying how to fix it.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::scale_out::Fleet;
use crate::{Run, repo, shared_cache, vcc};

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn output(cmd: &mut Command) -> Run {
    let out = cmd
        .env("VCC_CACHE_DIR", shared_cache())
        .env("NO_COLOR", "1")
        .env_remove("VCC_LEDGER")
        .env_remove("VCC_LEDGER_KEY")
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// examples/scale-out/shard.sh CONTRACT OUT as matrix job INDEX of TOTAL,
/// signing with KEY under TRUST.
fn shard_sh(f: &Fleet, out: &Path, index: u32, total: u32, key: &Path, trust: &Path) -> Run {
    output(
        Command::new("bash")
            .arg(repo().join("examples/scale-out/shard.sh"))
            .arg(f.contract())
            .arg(out)
            .env("VCC", env!("CARGO_BIN_EXE_vcc"))
            .env("VCC_SHARDS", total.to_string())
            .env_remove("JOB_COMPLETION_INDEX")
            .env("VCC_SHARD_INDEX", index.to_string())
            .env("VCC_SHARD_KEY", key)
            .env("VCC_TRUST", trust)
            .env("XDG_CONFIG_HOME", f.dir.path().join("no-config")),
    )
}

/// The trust policy the examples keep outside the checkout: `ci` signs
/// shards (its public key by absolute path, as a repository variable or a
/// ConfigMap would hold it).
fn policy(f: &Fleet) -> String {
    format!(
        "trust: 1\nkeys:\n  - {{ id: ci, public_key: {} }}\nattestations: {{ signers: [ci] }}\n",
        f.path("keys/ci.pub")
    )
}

#[test]
fn the_github_example_writes_its_key_600_and_its_shards_merge() {
    let f = Fleet::new();
    let gha: serde_yaml::Value = serde_yaml::from_str(
        &std::fs::read_to_string(repo().join("examples/scale-out/github-actions.yml")).unwrap(),
    )
    .unwrap();
    let script = gha["jobs"]["shard"]["steps"]
        .as_sequence()
        .unwrap()
        .iter()
        .find_map(|s| s["run"].as_str().filter(|r| r.contains("shard.key")))
        .expect("the step that writes the key");
    // The step as the runner runs it (bash -e), under the usual umask.
    let temp = f.dir.path().join("runner-temp");
    std::fs::create_dir_all(&temp).unwrap();
    let step = output(
        Command::new("bash")
            .args(["-e", "-c", &format!("umask 022\n{script}")])
            .env("RUNNER_TEMP", &temp)
            .env(
                "VCC_KEY",
                std::fs::read_to_string(f.dir.path().join("keys/ci.key")).unwrap(),
            )
            .env("POLICY", policy(&f)),
    );
    assert_eq!(step.code, 0, "{}", step.stderr);
    let key = temp.join("shard.key");
    assert_eq!(mode(&key), 0o600, "the example's key file");
    let trust = temp.join("trust.yaml");
    let shards = temp.join("shards");
    for index in 0..3 {
        let run = shard_sh(&f, &shards, index, 3, &key, &trust);
        assert_eq!(run.code, 0, "shard {index}: {}", run.stderr);
    }
    let merged = output(
        Command::new("bash")
            .arg(repo().join("examples/scale-out/merge.sh"))
            .arg(&shards)
            .arg("--contract")
            .arg(f.contract())
            .arg("--trust")
            .arg(&trust)
            .args(["--format", "json"])
            .env("VCC", env!("CARGO_BIN_EXE_vcc"))
            .env_remove("VCC_TRUST")
            .env("XDG_CONFIG_HOME", f.dir.path().join("no-config")),
    );
    assert_eq!(merged.code, 1, "{}", merged.stderr);
    let m = merged.json();
    assert_eq!(m["verdict"], "rejected", "{m}");
    assert_eq!(
        m["merged"]["shards"][2]["signed_by"],
        serde_json::json!(["ci"])
    );
}

#[test]
fn a_key_others_can_read_fails_the_shard_saying_how_to_fix_it() {
    let f = Fleet::new();
    let key = f.dir.path().join("loose.key");
    std::fs::copy(f.dir.path().join("keys/ci.key"), &key).unwrap();
    std::fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    let trust = f.dir.write("trust-abs.yaml", policy(&f));
    let run = shard_sh(&f, &f.dir.path().join("shards"), 0, 2, &key, &trust);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let expected = format!(
        "vcc check: --key: {}: the private key is readable by others (mode 644); run `chmod 600 {}`",
        key.display(),
        key.display()
    );
    assert!(run.stderr.contains(&expected), "{}", run.stderr);
    // What --report holds is the "did not finish" report written before
    // anything else: no shard a merge would count.
    let left: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(f.dir.path().join("shards/shard-1.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(left["verdict"], "invalid", "{left}");
}

/// `$(NAME)` in a pod's args, as the kubelet expands it from the
/// container's environment.
fn expand(arg: &str, env: &[(String, String)]) -> String {
    let mut arg = arg.to_string();
    for (name, value) in env {
        arg = arg.replace(&format!("$({name})"), value);
    }
    arg
}

#[test]
fn the_kubernetes_job_runs_the_image_entrypoint_with_a_0400_key_and_its_shards_merge() {
    let f = Fleet::new();
    let text =
        std::fs::read_to_string(repo().join("examples/scale-out/kubernetes-job.yaml")).unwrap();
    let job: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    let pod = &job["spec"]["template"]["spec"];
    let container = &pod["containers"][0];
    // The release image (dist/container/build.py): FROM scratch, vcc the
    // entrypoint, no shell: the args are vcc's.
    let image = container["image"].as_str().unwrap();
    assert_eq!(image, "ghcr.io/OWNER/vcc:VERSION");
    assert!(container.get("command").is_none(), "the image's entrypoint");
    let build = std::fs::read_to_string(repo().join("dist/container/build.py")).unwrap();
    assert!(build.contains(r#""Entrypoint": ["/usr/local/bin/vcc"]"#));
    // The key Secret's mode, as written (YAML 1.1 octal, as the API server
    // reads it).
    let secret = pod["volumes"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|v| v.get("secret").is_some())
        .unwrap();
    assert_eq!(secret["name"], "keys");
    let written = text
        .split("defaultMode:")
        .nth(1)
        .and_then(|t| t.split([' ', '}', '\n']).find(|w| !w.is_empty()))
        .unwrap();
    assert_eq!(written, "0400");
    let key_mode = u32::from_str_radix(written, 8).unwrap();

    // The pod's volumes, here: the checkout at /work, /shards, /keys,
    // /trust.
    let here = |p: &str| -> String {
        for (mount, dir) in [
            ("/work/", f.root()),
            ("/shards/", f.dir.path().join("k8s/shards")),
            ("/keys/", f.dir.path().join("k8s/keys")),
            ("/trust/", f.dir.path().join("k8s/trust")),
        ] {
            if let Some(rest) = p.strip_prefix(mount) {
                return dir.join(rest).display().to_string();
            }
        }
        p.to_string()
    };
    for d in ["k8s/shards", "k8s/keys", "k8s/trust"] {
        std::fs::create_dir_all(f.dir.path().join(d)).unwrap();
    }
    let key: PathBuf = f.dir.path().join("k8s/keys/shard.key");
    std::fs::copy(f.dir.path().join("keys/ci.key"), &key).unwrap();
    std::fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(key_mode)).unwrap();
    assert_eq!(mode(&key), 0o400);
    f.dir.write("k8s/trust/trust.yaml", policy(&f));
    // The Job's contract is vcc.yaml in the checkout.
    std::fs::rename(f.contract(), f.root().join("vcc.yaml")).unwrap();
    assert_eq!(container["workingDir"], "/work");

    let env: Vec<(String, String)> = container["env"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                here(e["value"].as_str().unwrap()),
            )
        })
        .collect();
    let total: u32 = job["spec"]["completions"].as_u64().unwrap() as u32;
    for index in 0..total {
        let mut env = env.clone();
        env.push(("JOB_COMPLETION_INDEX".into(), index.to_string()));
        let args: Vec<String> = container["args"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|a| here(&expand(a.as_str().unwrap(), &env)))
            .collect();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_vcc"));
        cmd.args(&args)
            .current_dir(f.root())
            .env("XDG_CONFIG_HOME", f.dir.path().join("no-config"));
        for (k, v) in &env {
            cmd.env(k, v);
        }
        let run = output(&mut cmd);
        // A shard's verdict is the merge's to give: the pod succeeds.
        assert_eq!(run.code, 0, "pod {index}: {args:?}\n{}", run.stderr);
    }
    // The follow-up merge the Job's comment gives, with its files listed.
    let mut files: Vec<String> = (0..total)
        .map(|i| f.path(&format!("k8s/shards/shard-{i}.json")))
        .collect();
    files.sort();
    let mut args = vec!["merge".to_string()];
    args.extend(files);
    for a in [
        "--contract",
        "vcc.yaml",
        "--trust",
        &f.path("k8s/trust/trust.yaml"),
        "--format",
        "json",
    ] {
        args.push(a.to_string());
    }
    let merged = output(
        Command::new(env!("CARGO_BIN_EXE_vcc"))
            .args(&args)
            .current_dir(f.root())
            .env_remove("VCC_TRUST")
            .env("XDG_CONFIG_HOME", f.dir.path().join("no-config")),
    );
    assert_eq!(merged.code, 1, "{}", merged.stderr);
    let m = merged.json();
    let whole = vcc(&[
        "check",
        f.root().join("vcc.yaml").to_str().unwrap(),
        "--format",
        "json",
    ])
    .json();
    assert_eq!(m["verdict"], whole["verdict"], "{m}");
    assert_eq!(m["reason"], whole["reason"]);
    assert_eq!(m["merged"]["shards"].as_array().unwrap().len(), 16);
    assert_eq!(
        m["merged"]["shards"][0]["signed_by"],
        serde_json::json!(["ci"])
    );
}
