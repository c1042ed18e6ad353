//! The README's "Platform owners" walk-through, run verbatim: every `sh`
//! block of that section, in order, in one shell, against a real registry.

use std::process::Command;

use crate::world::{Registry, World};

/// The `sh` blocks of the README section titled `title`.
fn blocks(readme: &str, title: &str) -> Vec<String> {
    let start = readme
        .find(&format!("\n## {title}\n"))
        .unwrap_or_else(|| panic!("README has no section `{title}`"));
    let section = &readme[start + 1..];
    let end = section[3..].find("\n## ").map_or(section.len(), |i| i + 3);
    let mut out = Vec::new();
    let mut rest = &section[..end];
    while let Some(i) = rest.find("```sh\n") {
        let body = &rest[i + 6..];
        let close = body.find("\n```").expect("a closed code block");
        out.push(body[..close].to_string());
        rest = &body[close + 4..];
    }
    out
}

#[test]
fn the_platform_owners_walkthrough_runs_verbatim() {
    let readme = std::fs::read_to_string(crate::repo().join("README.md")).unwrap();
    let blocks = blocks(&readme, "Platform owners: a walk-through");
    assert!(blocks.len() >= 4, "the walk-through lost its steps");
    let registry = Registry::start();
    let world = World::new();
    let script = format!("set -euo pipefail\n{}\n", blocks.join("\n"));
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_vcc"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut shell = Command::new("bash");
    shell.arg("-c").arg(&script);
    let base = world.command(world.path());
    // The same isolated config, store and cache as `world.vcc`, for the
    // `vcc` the script finds on PATH; a Rust validator build must not share
    // the outer cargo's target folder.
    for (k, v) in base.get_envs() {
        match v {
            Some(v) => shell.env(k, v),
            None => shell.env_remove(k),
        };
    }
    let out = shell
        .current_dir(world.path())
        .env("PATH", path)
        .env("REGISTRY", &registry.host)
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .expect("run bash");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success(),
        "the walk-through failed:\n{stdout}\n{stderr}"
    );
    assert!(
        stderr.contains("pushed acme/security 1.0.0 with 1 signature(s)"),
        "{stderr}"
    );
    assert!(stderr.contains("locked acme/security 1.0.0"), "{stderr}");
    assert!(stderr.contains("verdict: ACCEPTED"), "{stderr}");
    assert!(stdout.contains("rejected: exit 1"), "{stdout}\n{stderr}");
    let lock = std::fs::read_to_string(world.path().join("service/vcc.lock")).unwrap();
    assert!(
        lock.contains(&format!("source: {}/acme/security:1.0.0", registry.host)),
        "{lock}"
    );
    assert!(lock.contains("- platform"), "{lock}");
}
