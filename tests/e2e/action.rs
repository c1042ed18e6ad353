//! `action.yml`, run as a GitHub runner would: its `run:` steps in bash -e
//! with the `${{ … }}` expressions filled in, fake `GITHUB_*`/`RUNNER_*`
//! files, and `GITHUB_PATH` applied between steps. The release it
//! downloads is served on loopback (dist/serve.py) as the release workflow
//! lays it out: `vVERSION/vcc-VERSION-TARGET.tar.gz` and `SHA256SUMS`.
//! `uses:` steps (actions/cache, the SARIF upload) are GitHub's own and
//! are skipped.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use vcc_test_support::Scratch;

use crate::repo;

const CONTRACT: &str = "vcc: 1
id: action
deliverables:
  - { id: notes, path: notes.md }
validators:
  text: { component: std/text-match }
criteria:
  - { id: NO-TODO, severity: must, validator: text, targets: [notes], params: { must_not_match: ['TODO'] } }
";

/// A static file server on an ephemeral loopback port, stopped on drop.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn serve(dir: &Path) -> Server {
        let mut child = Command::new("python3")
            .arg(repo().join("dist/serve.py"))
            .arg(dir)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        Server {
            port: line.trim().parse().unwrap(),
            child,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn version() -> String {
    let cargo = std::fs::read_to_string(repo().join("Cargo.toml")).unwrap();
    cargo
        .lines()
        .find_map(|l| l.strip_prefix("version = \""))
        .unwrap()
        .trim_end_matches('"')
        .to_string()
}

fn target() -> (&'static str, &'static str) {
    match std::env::consts::ARCH {
        "aarch64" => ("ARM64", "aarch64-unknown-linux-musl"),
        _ => ("X64", "x86_64-unknown-linux-musl"),
    }
}

/// A release folder holding this build's vcc as the archive for the
/// runner's target, and its SHA256SUMS (`corrupt`: the archive changed
/// after the sums were taken).
fn release(root: &Path, corrupt: bool) {
    let version = version();
    let name = format!("vcc-{version}-{}", target().1);
    let dir = root.join(format!("v{version}"));
    let stage = root.join("stage").join(&name);
    std::fs::create_dir_all(&stage).unwrap();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_vcc"), stage.join("vcc")).unwrap();
    let archive = dir.join(format!("{name}.tar.gz"));
    let tar = Command::new("tar")
        .arg("-czf")
        .arg(&archive)
        .arg("-C")
        .arg(root.join("stage"))
        .arg(&name)
        .status()
        .unwrap();
    assert!(tar.success());
    let sums = Command::new("sha256sum")
        .arg(format!("{name}.tar.gz"))
        .current_dir(&dir)
        .output()
        .unwrap();
    std::fs::write(dir.join("SHA256SUMS"), sums.stdout).unwrap();
    if corrupt {
        let mut bytes = std::fs::read(&archive).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&archive, bytes).unwrap();
    }
}

struct Runner {
    work: Scratch,
    runner: Scratch,
    contract: PathBuf,
}

impl Runner {
    fn new(accepted: bool) -> Runner {
        let work = Scratch::new();
        let contract = work.write("contract.yaml", CONTRACT);
        work.write(
            "notes.md",
            if accepted {
                "# Notes\n\nDone.\n"
            } else {
                "# Notes\n\nTODO\n"
            },
        );
        let runner = Scratch::new();
        for f in ["output", "summary", "path"] {
            runner.write(f, "");
        }
        std::fs::create_dir_all(runner.path().join("tool-cache")).unwrap();
        std::fs::create_dir_all(runner.path().join("temp")).unwrap();
        Runner {
            work,
            runner,
            contract,
        }
    }

    fn file(&self, name: &str) -> PathBuf {
        self.runner.path().join(name)
    }

    /// Runs the steps of action.yml with these inputs; the output of the
    /// last step run (the first that fails, as on GitHub) and its name.
    fn run(&self, inputs: &[(&str, String)], base_path: &str) -> (String, Output) {
        let action: serde_yaml::Value =
            serde_yaml::from_str(&std::fs::read_to_string(repo().join("action.yml")).unwrap())
                .unwrap();
        let defaults = action["inputs"].as_mapping().unwrap().clone();
        let input = |k: &str| -> String {
            inputs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| {
                    defaults[k]["default"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string()
                })
        };
        let fill = |text: &str| -> String {
            let outputs = std::fs::read_to_string(self.file("output")).unwrap();
            let mut t = text.to_string();
            while let Some(start) = t.find("${{") {
                let end = start + t[start..].find("}}").unwrap() + 2;
                let expr = t[start + 3..end - 2].trim();
                let value = if let Some(k) = expr.strip_prefix("inputs.") {
                    input(k)
                } else if let Some(rest) = expr.strip_prefix("steps.") {
                    let key = rest.rsplit('.').next().unwrap();
                    outputs
                        .lines()
                        .filter_map(|l| l.strip_prefix(&format!("{key}=")))
                        .next_back()
                        .unwrap_or_default()
                        .to_string()
                } else {
                    match expr {
                        "github.action_repository" => "OWNER/vcc".to_string(),
                        "runner.os" => "Linux".to_string(),
                        "runner.arch" => target().0.to_string(),
                        other => panic!("action.yml uses ${{{{ {other} }}}}: teach this test"),
                    }
                };
                t.replace_range(start..end, &value);
            }
            t
        };
        let steps = action["runs"]["steps"].as_sequence().unwrap().clone();
        let mut last = None;
        for step in &steps {
            let Some(script) = step["run"].as_str() else {
                continue;
            };
            let added = std::fs::read_to_string(self.file("path")).unwrap();
            let mut path: Vec<String> = added.lines().rev().map(str::to_string).collect();
            path.push(base_path.to_string());
            let mut cmd = Command::new("bash");
            cmd.args([
                "--noprofile",
                "--norc",
                "-eo",
                "pipefail",
                "-c",
                &fill(script),
            ])
            .current_dir(self.work.path())
            .env("PATH", path.join(":"))
            .env("VCC_CACHE_DIR", crate::shared_cache())
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_OUTPUT", self.file("output"))
            .env("GITHUB_STEP_SUMMARY", self.file("summary"))
            .env("GITHUB_PATH", self.file("path"))
            .env("GITHUB_ACTION_PATH", repo())
            .env("RUNNER_OS", "Linux")
            .env("RUNNER_ARCH", target().0)
            .env("RUNNER_TEMP", self.file("temp"))
            .env("RUNNER_TOOL_CACHE", self.file("tool-cache"));
            if let Some(env) = step["env"].as_mapping() {
                for (k, v) in env {
                    cmd.env(k.as_str().unwrap(), fill(v.as_str().unwrap_or("")));
                }
            }
            let out = cmd.output().unwrap();
            let name = step["name"].as_str().unwrap_or("").to_string();
            let failed = !out.status.success();
            last = Some((name, out));
            if failed {
                break;
            }
        }
        last.unwrap()
    }
}

/// The PATH of the test process without this build's vcc on it, so the
/// action must install one.
fn system_path() -> String {
    std::env::var("PATH").unwrap_or_default()
}

/// The action downloads the release for the runner's target, verifies it
/// against SHA256SUMS, puts it on PATH, checks the contract with the SARIF
/// log in RUNNER_TEMP (not the workspace), and fails unless accepted.
#[test]
fn the_github_action_installs_the_release_binary_and_gates_on_the_verdict() {
    let served = Scratch::new();
    release(served.path(), false);
    let server = Server::serve(served.path());
    for (accepted, expected) in [(false, 1), (true, 0)] {
        let runner = Runner::new(accepted);
        let (step, out) = runner.run(
            &[
                ("contract", runner.contract.display().to_string()),
                ("release-url", format!("http://127.0.0.1:{}", server.port)),
            ],
            &system_path(),
        );
        assert_eq!(step, "Fail unless accepted");
        assert_eq!(
            out.status.code(),
            Some(expected),
            "accepted {accepted}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let outputs = std::fs::read_to_string(runner.file("output")).unwrap();
        assert!(outputs.contains("installed=release"), "{outputs}");
        assert!(outputs.contains(&format!("exit-code={expected}")));
        let sarif = runner.file("temp").join("vcc.sarif");
        assert!(outputs.contains(&format!("sarif={}", sarif.display())));
        let log: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&sarif).unwrap()).unwrap();
        assert_eq!(log["version"], "2.1.0");
        assert!(
            !runner.work.path().join("vcc.sarif").exists(),
            "the report must not land among the deliverables"
        );
        assert!(
            std::fs::read_to_string(runner.file("summary"))
                .unwrap()
                .starts_with("## vcc: action")
        );
        assert!(runner.file("temp").join("vcc-bin/vcc").exists());
        // What the cache keeps is the archive, checked again on every run.
        let cached = runner.file("tool-cache").join(format!(
            "vcc/{v}/{t}/vcc-{v}-{t}.tar.gz",
            v = version(),
            t = target().1
        ));
        assert!(cached.exists(), "{} missing", cached.display());
    }
}

/// hostile: a step of the job that saved the cache replaced the cached
/// archive with one whose vcc accepts everything. The action checks the
/// cached archive against the release's SHA256SUMS on every run, says it
/// does not match, downloads the release again, and rejects.
#[test]
fn hostile_the_github_action_never_trusts_a_cached_archive_unchecked() {
    let served = Scratch::new();
    release(served.path(), false);
    let server = Server::serve(served.path());
    let runner = Runner::new(false);
    let name = format!("vcc-{}-{}", version(), target().1);
    let cached = runner
        .file("tool-cache")
        .join(format!("vcc/{}/{}", version(), target().1));
    let fake = cached.join("stage").join(&name);
    std::fs::create_dir_all(&fake).unwrap();
    std::fs::write(fake.join("vcc"), "#!/bin/sh\necho accepted\nexit 0\n").unwrap();
    let tar = Command::new("tar")
        .arg("-czf")
        .arg(cached.join(format!("{name}.tar.gz")))
        .arg("-C")
        .arg(cached.join("stage"))
        .arg(&name)
        .status()
        .unwrap();
    assert!(tar.success());
    let (step, out) = runner.run(
        &[
            ("contract", runner.contract.display().to_string()),
            ("release-url", format!("http://127.0.0.1:{}", server.port)),
        ],
        &system_path(),
    );
    assert_eq!(step, "Fail unless accepted");
    assert_eq!(out.status.code(), Some(1));
    let outputs = std::fs::read_to_string(runner.file("output")).unwrap();
    assert!(outputs.contains("installed=release"), "{outputs}");
    assert!(outputs.contains("exit-code=1"), "{outputs}");
}

/// hostile: the release archive does not match its SHA256SUMS (a broken
/// mirror, a tampered download). The install step fails, says so, and
/// nothing is installed or checked.
#[test]
fn hostile_the_github_action_refuses_an_archive_that_does_not_match_sha256sums() {
    let served = Scratch::new();
    release(served.path(), true);
    let server = Server::serve(served.path());
    let runner = Runner::new(true);
    let (step, out) = runner.run(
        &[
            ("contract", runner.contract.display().to_string()),
            ("release-url", format!("http://127.0.0.1:{}", server.port)),
        ],
        &system_path(),
    );
    assert_eq!(step, "Install vcc");
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("::error::vcc ")
            && stdout.contains("does not match the release's SHA256SUMS"),
        "{stdout}"
    );
    assert!(!runner.file("temp").join("vcc-bin/vcc").exists());
    assert!(
        std::fs::read_to_string(runner.file("path"))
            .unwrap()
            .is_empty()
    );
}

/// No release at the URL (SHA256SUMS answers 404): the action builds from
/// source (here a `cargo` that records its arguments and writes this
/// build's vcc), from its own folder, and says why.
#[test]
fn the_github_action_builds_from_source_when_there_is_no_release_and_says_so() {
    let served = Scratch::new();
    let server = Server::serve(served.path());
    let fake = Scratch::new();
    let log = fake.path().join("cargo.log");
    let cargo = fake.write(
        "bin/cargo",
        format!(
            "#!/bin/sh\necho \"$@\" > {log}\nwhile [ $# -gt 0 ]; do [ \"$1\" = --root ] && root=$2; shift; done\nmkdir -p \"$root/bin\" && cp {vcc} \"$root/bin/vcc\"\n",
            log = log.display(),
            vcc = env!("CARGO_BIN_EXE_vcc"),
        ),
    );
    Command::new("chmod")
        .arg("+x")
        .arg(&cargo)
        .status()
        .unwrap();
    let runner = Runner::new(true);
    let (step, out) = runner.run(
        &[
            ("contract", runner.contract.display().to_string()),
            ("release-url", format!("http://127.0.0.1:{}", server.port)),
        ],
        &format!("{}:{}", fake.path().join("bin").display(), system_path()),
    );
    assert_eq!(step, "Fail unless accepted");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let outputs = std::fs::read_to_string(runner.file("output")).unwrap();
    assert!(outputs.contains("installed=source"), "{outputs}");
    let args = std::fs::read_to_string(&log).unwrap();
    assert!(args.starts_with("install --locked --root"), "{args}");
    assert!(args.ends_with("--path host/cli\n"), "{args}");
}
