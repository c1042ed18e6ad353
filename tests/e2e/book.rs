//! The book (`docs/`) and the README cannot drift from the code: every
//! shell block fenced `sh test` runs, page by page, in one shell, against
//! the vcc this build made; a command annotated `# exit N` must exit N; a
//! block fenced `text output` right after one is what that block prints;
//! and the `--help` reference is what `vcc` prints. A `sh` block that
//! claims an exit code without being run is an error.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::world::{Registry, World};
use crate::{repo, vcc};

/// A page's blocks: (info string, body), in order.
fn blocks(page: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = page;
    while let Some(i) = rest.find("\n```") {
        let after = &rest[i + 4..];
        let Some(eol) = after.find('\n') else { break };
        let info = after[..eol].trim().to_string();
        let body = &after[eol + 1..];
        let close = body.find("\n```").map(|c| c + 1).unwrap_or_else(|| {
            if body.starts_with("```") {
                0
            } else {
                body.len()
            }
        });
        out.push((info, body[..close].trim_end_matches('\n').to_string()));
        rest = &body[(close + 3).min(body.len())..];
    }
    out
}

/// The book's pages and the README, by path relative to the repository.
fn pages() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    out.insert(
        "README.md".to_string(),
        std::fs::read_to_string(repo().join("README.md")).unwrap(),
    );
    fn walk(dir: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                let rel = path.strip_prefix(repo()).unwrap().display().to_string();
                out.insert(rel, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    walk(&repo().join("docs/src"), &mut out);
    out
}

/// A line's `# exit N`, and the command before it.
fn claimed_exit(line: &str) -> Option<(&str, &str)> {
    let (command, comment) = line.rsplit_once("# exit ")?;
    let code = comment.split(|c: char| !c.is_ascii_digit()).next()?;
    (!code.is_empty() && !command.trim().is_empty()).then(|| (command.trim_end(), code))
}

/// The page's `sh test` blocks as one bash script; what each block
/// prints (stdout and stderr, as a terminal shows them) goes to
/// `$BOOK_OUT/N` (N: the block's index among all blocks).
fn script(blocks: &[(String, String)]) -> String {
    // `cargo run --release -p vcc -- ARGS` in the README and the quick
    // start is the vcc this build made (found on PATH).
    let mut s = String::from(
        "set -euo pipefail\nexec 3>&2\ncargo() { local all=\"$*\"; if [ \"${all#run --release -p vcc -- }\" != \"$all\" ]; then shift 5; vcc \"$@\"; else command cargo \"$@\"; fi; }\n",
    );
    for (n, (info, body)) in blocks.iter().enumerate() {
        if info != "sh test" {
            continue;
        }
        s.push_str("{\n");
        for line in body.lines() {
            match claimed_exit(line) {
                Some((command, code)) => s.push_str(&format!(
                    "if {command}; then __c=0; else __c=$?; fi\nif [ \"$__c\" != {code} ]; then echo \"book: \\`{}\\` exited $__c; the book says {code}\" >&3; exit 99; fi\n",
                    command.replace(['`', '"'], "'")
                )),
                None => {
                    s.push_str(line);
                    s.push('\n');
                }
            }
        }
        s.push_str(&format!("}} > \"$BOOK_OUT/{n}\" 2>&1\n"));
    }
    s
}

/// What may differ between runs: durations (`58 ms` reads `N ms`).
fn normalized(text: &str) -> String {
    let mut out = String::new();
    for line in text.trim_end().lines() {
        let words: Vec<&str> = line.split(' ').collect();
        for (i, word) in words.iter().enumerate() {
            let duration = !word.is_empty()
                && word.chars().all(|c| c.is_ascii_digit())
                && words.get(i + 1).is_some_and(|next| next.starts_with("ms"));
            if i > 0 {
                out.push(' ');
            }
            out.push_str(if duration { "N" } else { word });
        }
        out.push('\n');
    }
    out
}

/// Run `script` in `dir` with vcc on PATH, isolated like `World::vcc`.
fn run_script(world: &World, dir: &Path, script: &str, out: &Path, env: &[(&str, &str)]) -> Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_vcc")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut shell = Command::new("bash");
    shell.arg("-c").arg(script);
    for (k, v) in world.command(dir).get_envs() {
        match v {
            Some(v) => shell.env(k, v),
            None => shell.env_remove(k),
        };
    }
    shell
        .current_dir(dir)
        .env("PATH", path)
        .env("BOOK_OUT", out)
        // A Rust validator build must not share the outer cargo's target.
        .env_remove("CARGO_TARGET_DIR");
    for (k, v) in env {
        shell.env(k, v);
    }
    shell.output().expect("run bash")
}

/// Run one page's `sh test` blocks, and compare what they print with the
/// page's `text output` blocks.
fn run_page(name: &str, page: &str) {
    let blocks = blocks(page);
    let world = World::new();
    // The examples name the repository's example contracts by relative
    // path: the page runs in a copy of them, never in the repository.
    let dir = world.path().join("work");
    copy_dir(&repo().join("contracts"), &dir.join("contracts"));
    let out = world.path().join("book-out");
    std::fs::create_dir_all(&out).unwrap();
    let registry = page.contains("$REGISTRY").then(Registry::start);
    let host = registry
        .as_ref()
        .map(|r| r.host.clone())
        .unwrap_or_default();
    let output = run_script(&world, &dir, &script(&blocks), &out, &[("REGISTRY", &host)]);
    assert!(
        output.status.success(),
        "{name}: its examples failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    for (n, pair) in blocks.windows(2).enumerate() {
        if pair[0].0 == "sh test" && pair[1].0 == "text output" {
            let printed = std::fs::read_to_string(out.join(n.to_string())).unwrap();
            assert_eq!(
                normalized(&printed),
                normalized(&pair[1].1),
                "{name}: block {n} prints something else than the book shows"
            );
        }
    }
    if name.ends_with("platform-owners.md") {
        let printed: String = (0..blocks.len())
            .filter_map(|n| std::fs::read_to_string(out.join(n.to_string())).ok())
            .collect();
        platform_owners_checks(&world, &host, &printed);
    }
}

/// What the platform owners' walk-through must have done, beyond its exits.
fn platform_owners_checks(world: &World, registry: &str, printed: &str) {
    assert!(
        printed.contains("pushed acme/security 1.0.0 with 1 signature(s)"),
        "{printed}"
    );
    assert!(printed.contains("locked acme/security 1.0.0"), "{printed}");
    assert!(printed.contains("verdict: ACCEPTED"), "{printed}");
    assert!(printed.contains("rejected: exit 1"), "{printed}");
    // The rotation runbook: refused until the refresh, trusted after.
    for step in [
        "error[UNKNOWN_KEY] signed by sha256:",
        "not by a key the trust policy lists for `acme/security` (platform2, security)",
        "refreshed acme/security 1.0.0 (sha256:",
        "3 signature(s), 2 new; trusted, signed by platform2, security",
        // The revocation runbook.
        "error[REVOKED] acme/security 1.0.0 (sha256:",
        "CVE-2026-0001: no-todo misses a TODO in a table",
        "locked acme/security 1.0.1",
        // The store and air-gap runbook.
        "removed acme/security 1.0.0 (sha256:",
        "saved acme/security 1.0.1 (sha256:",
        "pulled acme/security 1.0.1 (sha256:",
        "offline-store",
        // The update runbook.
        "locked acme/security 1.1.0",
    ] {
        assert!(printed.contains(step), "{step}\n{printed}");
    }
    let lock = std::fs::read_to_string(world.path().join("work/service/vcc.lock")).unwrap();
    assert!(
        lock.contains(&format!("source: {registry}/acme/security:1.1.0")),
        "{lock}"
    );
    assert!(lock.contains("- platform2\n  - security"), "{lock}");
    assert!(
        printed.contains("freed ") && !printed.contains("freed 0 blob(s)"),
        "gc freed the removed version's blobs:\n{printed}"
    );
    assert!(
        world.path().join("work/offline-store/index.json").exists(),
        "the other site's store"
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Every page with `sh test` blocks runs them (one test per page).
macro_rules! page_test {
    ($name:ident, $path:expr) => {
        #[test]
        fn $name() {
            let page = std::fs::read_to_string(repo().join($path)).unwrap();
            assert!(
                page.contains("```sh test"),
                "{} has no tested example",
                $path
            );
            run_page($path, &page);
        }
    };
}

page_test!(readme_examples_run, "README.md");
page_test!(quick_start_examples_run, "docs/src/guide/quick-start.md");
page_test!(contracts_examples_run, "docs/src/guide/contracts.md");
page_test!(agents_examples_run, "docs/src/guide/agents.md");
page_test!(validators_examples_run, "docs/src/guide/validators.md");
page_test!(records_examples_run, "docs/src/guide/records.md");
page_test!(
    other_languages_examples_run,
    "docs/src/guide/other-languages.md"
);
page_test!(
    platform_owners_walkthrough_runs_verbatim,
    "docs/src/guide/platform-owners.md"
);

/// Pages with tested examples are exactly the ones above: a new page with
/// a `sh test` block needs its test.
const TESTED: [&str; 8] = [
    "README.md",
    "docs/src/guide/quick-start.md",
    "docs/src/guide/contracts.md",
    "docs/src/guide/agents.md",
    "docs/src/guide/validators.md",
    "docs/src/guide/records.md",
    "docs/src/guide/platform-owners.md",
    "docs/src/guide/other-languages.md",
];

#[test]
fn every_example_that_claims_an_outcome_is_run() {
    let mut untested = Vec::new();
    for (name, page) in pages() {
        let has_tests = blocks(&page).iter().any(|(info, _)| info == "sh test");
        assert_eq!(
            has_tests,
            TESTED.contains(&name.as_str()),
            "{name}: its `sh test` blocks need a test in tests/e2e/book.rs (or the list is stale)"
        );
        for (info, body) in blocks(&page) {
            if info != "sh test" && body.lines().any(|l| claimed_exit(l).is_some()) {
                untested.push(format!("{name}: ```{info}\n{body}"));
            }
        }
    }
    assert!(
        untested.is_empty(),
        "claims an exit code but is not run (fence it `sh test`):\n{}",
        untested.join("\n\n")
    );
}

/// `vcc [COMMAND…] --help` for every command, as the reference shows it.
fn cli_reference() -> String {
    let mut out = String::from(
        "# Every command and flag\n\nWhat `vcc COMMAND --help` prints, for every command (`vcc man` is made\nfrom the same definitions). A test (`tests/e2e/book.rs`) compares this\npage with the binary; after changing a flag, regenerate it with\n`VCC_BLESS=1 cargo test --release -p vcc --test e2e -- book::the_cli_reference`.\n",
    );
    let mut queue: Vec<Vec<String>> = vec![Vec::new()];
    while let Some(path) = queue.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let run = vcc(&args);
        assert_eq!(run.code, 0, "vcc {args:?}: {}", run.stderr);
        let title = if path.is_empty() {
            "vcc".to_string()
        } else {
            format!("vcc {}", path.join(" "))
        };
        out.push_str(&format!(
            "\n## `{title}`\n\n```text\n{}\n```\n",
            run.stdout.trim_end()
        ));
        let mut subs = Vec::new();
        let mut in_commands = false;
        for line in run.stdout.lines() {
            if line == "Commands:" {
                in_commands = true;
            } else if in_commands {
                match line
                    .strip_prefix("  ")
                    .and_then(|l| l.split_whitespace().next())
                {
                    Some(name) if !line.starts_with("   ") && name != "help" => {
                        subs.push(name.to_string())
                    }
                    Some(_) => {}
                    None => in_commands = false,
                }
            }
        }
        // Depth first, in the order --help lists them.
        for sub in subs.into_iter().rev() {
            let mut p = path.clone();
            p.push(sub);
            queue.push(p);
        }
    }
    out
}

#[test]
fn the_cli_reference_is_what_help_prints() {
    let path: PathBuf = repo().join("docs/src/reference/cli.md");
    let generated = cli_reference();
    if std::env::var_os("VCC_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/src/reference/cli.md differs from `vcc --help`; regenerate it with VCC_BLESS=1 cargo test --release -p vcc --test e2e -- book::the_cli_reference"
    );
}

#[test]
fn vcc_man_names_every_command() {
    let man = vcc(&["man"]);
    assert_eq!(man.code, 0);
    let reference = std::fs::read_to_string(repo().join("docs/src/reference/cli.md")).unwrap();
    for line in reference.lines().filter_map(|l| l.strip_prefix("## `vcc ")) {
        let top = line.trim_end_matches('`').split(' ').next().unwrap();
        assert!(
            man.stdout.contains(top),
            "`vcc man` does not name `vcc {top}`"
        );
    }
}

#[test]
fn relative_links_name_files_that_exist() {
    let mut broken = Vec::new();
    for (name, page) in pages() {
        let dir = repo().join(&name).parent().unwrap().to_path_buf();
        let mut rest = page.as_str();
        while let Some(i) = rest.find("](") {
            rest = &rest[i + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = rest[..end].split('#').next().unwrap_or_default();
            if !target.is_empty()
                && !target.contains("://")
                && !target.contains(' ')
                && !dir.join(target).exists()
            {
                broken.push(format!("{name}: {target}"));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links to nothing:\n{}",
        broken.join("\n")
    );
}

/// The trust policies the book shows: its YAML blocks with top-level
/// `keys:`, and the `cat > trust.yaml <<YAML` of its shell examples, by
/// page.
fn trust_policies() -> Vec<(String, String)> {
    let mut found = Vec::new();
    for (name, page) in pages() {
        for (info, body) in blocks(&page) {
            if info.starts_with("yaml") && body.lines().any(|l| l.starts_with("keys:")) {
                found.push((name.clone(), body));
            } else if let Some((_, rest)) = body.split_once("cat > trust.yaml <<YAML\n") {
                let policy = rest.split("\nYAML").next().unwrap_or_default();
                found.push((name.clone(), format!("{policy}\n")));
            }
        }
    }
    found
}

/// Each is a complete policy (`trust: 1` and all) that `vcc check
/// --trust` reads, given the key files it names (generated here), and a
/// real key and digest where the page abbreviates one.
#[test]
fn every_trust_policy_in_the_book_is_one_vcc_reads() {
    let policies = trust_policies();
    let pages: std::collections::BTreeSet<&str> =
        policies.iter().map(|(p, _)| p.as_str()).collect();
    for page in [
        "docs/src/guide/bundles.md",
        "docs/src/guide/platform-owners.md",
        "docs/src/guide/record.md",
        "docs/src/guide/vcc-v1.md",
    ] {
        assert!(pages.contains(page), "no trust policy found in {page}");
    }
    for (i, (page, policy)) in policies.iter().enumerate() {
        let dir = vcc_test_support::Scratch::new();
        dir.write("root/a.txt", "a\n");
        let contract = dir.write(
            "root/vcc.yaml",
            "vcc: 1\nid: t\ndeliverables:\n  - { id: a, path: a.txt }\nvalidators:\n  exists: { component: std/file-exists }\ncriteria:\n  - { id: A, severity: must, validator: exists, targets: [a] }\n",
        );
        let mut text = policy.replace("$REGISTRY", "127.0.0.1:5000/acme");
        for word in policy.split([' ', ',', '}', '\n']) {
            if let Some(stem) = word.strip_suffix(".pub") {
                std::fs::create_dir_all(dir.path().join(stem).parent().unwrap()).unwrap();
                let made = vcc(&["key", "generate", dir.path().join(stem).to_str().unwrap()]);
                assert_eq!(made.code, 0, "{}", made.stderr);
            }
        }
        // An inline key the page abbreviates (`MCowBQYDK2VwAyEA…`): a real one.
        if text.contains('…') {
            let made = vcc(&[
                "key",
                "generate",
                dir.path().join("inline").to_str().unwrap(),
            ]);
            assert_eq!(made.code, 0);
            let pem = std::fs::read_to_string(dir.path().join("inline.pub")).unwrap();
            let real = pem.lines().nth(1).unwrap();
            text = text
                .lines()
                .map(|l| match l.find("MCowBQYDK2VwAyEA…") {
                    Some(at) => format!("{}{real}", &l[..at]),
                    None => l.to_string(),
                })
                .collect::<Vec<_>>()
                .join("\n");
        }
        // A pinned digest the page abbreviates (`blake3:…`): one of the
        // right shape.
        let text = text
            .replace("blake3:…", &format!("blake3:{}", "0".repeat(64)))
            .replace("sha256:…", &format!("sha256:{}", "0".repeat(64)));
        let trust = dir.write("trust.yaml", &text);
        let run = vcc(&[
            "check",
            contract.to_str().unwrap(),
            "--trust",
            trust.to_str().unwrap(),
        ]);
        assert_eq!(
            run.code, 0,
            "{page}, policy {i}:\n{text}\n{}{}",
            run.stdout, run.stderr
        );
    }
}
