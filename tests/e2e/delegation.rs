//! Delegation with conserved budgets: an orchestrating agent
//! (tests/agents/orchestrator.py) run by `vcc converge` starts child loops
//! (nested `vcc converge`) that take their budgets from the parent's pool.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;
use vcc_test_support::Scratch;

use crate::{Run, repo, shared_cache, wait_within};

/// The parent's contract: a.txt, b.txt and c.txt in the root.
const PARENT: &str = "vcc: 1
id: parent
deliverables:
  - { id: a, path: a.txt }
  - { id: b, path: b.txt }
  - { id: c, path: c.txt }
validators:
  exists: { component: std/file-exists }
criteria:
  - { id: A, severity: must, validator: exists, targets: [a] }
  - { id: B, severity: must, validator: exists, targets: [b] }
  - { id: C, severity: must, validator: exists, targets: [c] }
";

/// A child's contract: its one file. The children share the parent's
/// root and run at once, so each leaves the others' files out of its root:
/// otherwise another child's worker writing its file during this child's
/// check is a change of the root, that check is not accepted, and the
/// child runs its worker again (and spends twice) — as happened once on a
/// loaded machine.
fn child_contract(name: &str) -> String {
    let others: Vec<String> = ["a", "b", "c", "d"]
        .iter()
        .filter(|o| **o != name)
        .map(|o| format!("{o}.txt"))
        .collect();
    let others = others.join(", ");
    format!(
        "vcc: 1
id: child-{name}
exclude: [{others}]
deliverables:
  - {{ id: f, path: {name}.txt }}
validators:
  exists: {{ component: std/file-exists }}
criteria:
  - {{ id: F, severity: must, validator: exists, targets: [f] }}
"
    )
}

struct Delegating {
    root: Scratch,
    children: Scratch,
    out: Scratch,
}

impl Delegating {
    fn new() -> Delegating {
        let root = Scratch::new();
        root.write("contract.yaml", PARENT);
        let children = Scratch::new();
        for name in ["a", "b", "c", "d"] {
            children.write(&format!("child-{name}.yaml"), child_contract(name));
        }
        Delegating {
            root,
            children,
            out: Scratch::new(),
        }
    }

    /// `vcc converge contract.yaml FLAGS -- orchestrator.py MODE …`
    fn converge(&self, flags: &[&str], mode: &str) -> Run {
        let vcc = env!("CARGO_BIN_EXE_vcc");
        let mut child = Command::new(vcc)
            .arg("converge")
            .arg(self.root.path().join("contract.yaml"))
            .args(["--format", "json"])
            .args(flags)
            .arg("--")
            .arg("python3")
            .arg(repo().join("tests/agents/orchestrator.py"))
            .arg(mode)
            .arg(vcc)
            .arg(self.children.path())
            .arg(self.out.path())
            .env("VCC_CACHE_DIR", shared_cache())
            .env_remove("VCC_BUDGET_FILE")
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run vcc converge");
        wait_within(&mut child, Duration::from_secs(180))
    }

    fn out(&self, name: &str) -> Value {
        read_json(&self.out.path().join(name))
    }

    fn code(&self, name: &str) -> String {
        std::fs::read_to_string(self.out.path().join(format!("child-{name}.code"))).unwrap()
    }
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display()))
}

fn tokens(v: &Value) -> u64 {
    v["tokens"]
        .as_u64()
        .unwrap_or_else(|| panic!("no tokens in {v}"))
}

#[test]
fn three_children_in_parallel_never_overdraw_the_parent_and_the_tree_adds_up() {
    let d = Delegating::new();
    let html = d.out.path().join("loop.html");
    let html_flag = html.to_str().unwrap();
    let run = d.converge(
        &[
            "--max-tokens",
            // Its own 500, three grants of 3,000 and the 10% reserve fit
            // whichever order the children join in and the parent learns
            // of its own spending.
            "11000",
            "--max-iterations",
            "1",
            "--report-html",
            html_flag,
        ],
        "parallel",
    );
    let r = run.json();
    assert_eq!(run.code, 0, "{}\n{}", r["termination"], run.stderr);
    assert_eq!(r["lifecycle"], "FULFILLED");

    // The envelope the orchestrator read: 10% of 11,000 is kept back.
    let start = d.out("pool-start.json");
    assert_eq!(start["format"], "vcc.budget-pool/1");
    assert_eq!(tokens(&start["reserve"]), 1100);
    assert_eq!(start["iterations_left"], 1);
    assert!(
        tokens(&start["grantable"]) <= 9900,
        "{}",
        start["grantable"]
    );

    // With a, b and c holding 3,000 each, d's 5,000 cannot be granted.
    let joined = d.out("pool-joined.json");
    assert!(tokens(&joined["grantable"]) < 5000, "{joined}");
    assert_eq!(d.code("d"), "2");
    let refused = d.out("child-d.json");
    assert_eq!(refused["termination"]["reason"], "budget_exceeds_parent");
    let detail = refused["termination"]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("BUDGET_EXCEEDS_PARENT: this loop asks for 5000 tokens"),
        "{detail}"
    );
    assert!(
        refused["iterations"].as_array().unwrap().is_empty(),
        "d never checked: {refused}"
    );

    // The tree: a, b, c, each granted 3,000; the overspender stopped at
    // its grant; the unspent part of each grant returned.
    let tree = r["delegations"].as_array().unwrap();
    let by_contract = |name: &str| -> &Value {
        tree.iter()
            .find(|c| {
                c["contract"]
                    .as_str()
                    .unwrap()
                    .ends_with(&format!("child-{name}.yaml"))
            })
            .unwrap_or_else(|| panic!("no child {name} in {tree:?}"))
    };
    // Four children: a, b and c ran; d was refused, and is in the tree
    // too, granted nothing, ended at once.
    assert_eq!(tree.len(), 4, "{tree:?}");
    let d_row = by_contract("d");
    assert_eq!(d_row["termination"], "budget_exceeds_parent", "{d_row}");
    assert_eq!(d_row["state"], "ended", "{d_row}");
    assert_eq!(d_row["outcome"], "TERMINATED", "{d_row}");
    assert_eq!(tokens(&d_row["granted"]), 0, "{d_row}");
    assert_eq!(tokens(&d_row["spent"]), 0, "{d_row}");
    let mut spent = 0;
    for (name, outcome, used) in [
        ("a", "FULFILLED", 1000),
        ("b", "FULFILLED", 1000),
        ("c", "VIOLATED", 3000),
    ] {
        let c = by_contract(name);
        assert_eq!(tokens(&c["granted"]), 3000, "{c}");
        assert_eq!(
            tokens(&c["spent"]),
            used,
            "{name}: no child spends past its grant: {c}"
        );
        assert_eq!(tokens(&c["returned"]), 3000 - used, "{c}");
        assert_eq!(c["state"], "ended", "{c}");
        assert_eq!(c["outcome"], outcome, "{c}");
        assert_eq!(c["iteration"], 1);
        // The child's own report says what it was granted.
        let own = d.out(&format!("child-{name}.json"));
        assert_eq!(tokens(&own["granted"]), 3000);
        assert_eq!(tokens(&own["usage"]), used);
        assert_eq!(d.code(name), if name == "c" { "1" } else { "0" });
        spent += used;
    }
    assert_eq!(by_contract("c")["termination"], "budget_tokens");
    // The parent's usage is its own 500 and what its children spent.
    let command = &r["iterations"][1]["command"];
    assert_eq!(tokens(&command["delegated"]), spent);
    assert_eq!(tokens(&command["usage"]), 500 + spent);
    assert_eq!(tokens(&r["usage"]), 500 + spent);
    assert!(tokens(&r["usage"]) <= 11_000);
    // The page shows the tree too.
    let page = std::fs::read_to_string(&html).unwrap();
    assert_eq!(page.matches("<tr class=\"child\"").count(), 4, "{page}");
    // The pool after the children ended: everything not spent is back.
    let end = d.out("pool-end.json");
    assert_eq!(tokens(&end["left"]), 11_000 - 500 - spent, "{end}");
}

#[test]
fn the_parent_stops_on_exhaustion_while_a_child_runs() {
    let d = Delegating::new();
    let run = d.converge(&["--max-tokens", "4000", "--reserve", "0"], "exhaust");
    let r = run.json();
    assert_eq!(run.code, 1, "{}\n{}", r["termination"], run.stderr);
    assert_eq!(
        r["termination"]["reason"], "budget_tokens",
        "{}",
        r["termination"]
    );
    assert_eq!(r["lifecycle"], "VIOLATED");
    let tree = r["delegations"].as_array().unwrap();
    assert_eq!(tree.len(), 1, "{tree:?}");
    let child = &tree[0];
    // It asked for nothing: it was granted all that was left (4,000 minus
    // the orchestrator's 500), and was stopped with its parent, holding.
    assert_eq!(tokens(&child["granted"]), 3500, "{child}");
    assert_eq!(tokens(&child["spent"]), 1000, "{child}");
    assert_eq!(
        child["state"], "ended",
        "the child said how it ended: {child}"
    );
    assert_eq!(child["outcome"], "TERMINATED", "{child}");
    let command = &r["iterations"][1]["command"];
    assert_eq!(tokens(&command["delegated"]), 1000);
    assert!(tokens(&r["usage"]) >= 4000, "{}", r["usage"]);
    let stopped = command["stopped"].as_str().unwrap();
    assert!(stopped.contains("tokens are spent"), "{stopped}");
}

/// The command can open the pool's lock file (its children must), so it
/// can also keep the lock. A loop that waited for it would never look at
/// the usage or the clock again and would run its command forever; it
/// gives up on the lock instead and stops the command: never a pass.
#[test]
fn a_command_holding_the_pool_lock_is_stopped_not_waited_for() {
    let d = Delegating::new();
    let started = std::time::Instant::now();
    let run = d.converge(&["--max-tokens", "4000"], "hold-lock");
    let r = run.json();
    assert_eq!(
        std::fs::read_to_string(d.out.path().join("locked")).unwrap(),
        "held\n",
        "the command took the lock"
    );
    assert_eq!(run.code, 1, "{}\n{}", r["termination"], run.stderr);
    assert_eq!(
        r["termination"]["reason"], "usage_invalid",
        "{}",
        r["termination"]
    );
    let detail = r["termination"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("budget.json.lock: held by another process for over 2 s"),
        "{detail}"
    );
    assert_ne!(r["lifecycle"], "FULFILLED");
    let command = &r["iterations"][1]["command"];
    assert_eq!(
        command["stopped"], "stopped: the budget pool cannot be read",
        "{command}"
    );
    // The command slept for ten minutes; the loop stopped it.
    assert!(started.elapsed() < Duration::from_secs(120));
}

/// The pool file is in the command's reach (its children must write it).
/// A command that writes a child into it — one that never asked the
/// parent, granted 100,000 tokens on a budget of 4,000 and having spent
/// 50,000 — made the parent record that grant and end FULFILLED, accepted,
/// five times over its budget. A grant is now what the parent's own
/// accounting allows: the loop ends `usage_invalid`, not accepted.
#[test]
fn forgery_host_a_grant_written_into_the_pool() {
    let d = Delegating::new();
    let run = d.converge(&["--max-tokens", "4000"], "forge-grant");
    let r = run.json();
    assert_eq!(
        std::fs::read_to_string(d.out.path().join("forged")).unwrap(),
        "written\n",
        "the command wrote its child into the pool"
    );
    assert_eq!(run.code, 1, "{}\n{}", r["termination"], run.stderr);
    assert_eq!(r["accepted"], false);
    assert_ne!(r["lifecycle"], "FULFILLED");
    assert_eq!(
        r["termination"]["reason"], "usage_invalid",
        "{}",
        r["termination"]
    );
    let detail = r["termination"]["detail"].as_str().unwrap();
    assert!(
        detail.contains(
            "child 1 (forged.yaml) holds a grant its parent never made: 100000 tokens (it could grant"
        ),
        "{detail}"
    );
    assert!(
        r["delegations"].as_array().is_none_or(|d| d.is_empty()),
        "a grant the parent never made is not in its tree: {}",
        r["delegations"]
    );
}

/// Loops inside loops write to one terminal: a child's progress lines say
/// whose they are (`vcc converge [child 1 CONTRACT]: …`).
#[test]
fn a_nested_loops_progress_says_whose_it_is() {
    let s = Scratch::new();
    let contract = |id: &str, file: &str| {
        format!(
            "vcc: 1\nid: {id}\ndeliverables:\n  - {{ id: f, path: {file} }}\nvalidators:\n  exists: {{ component: std/file-exists }}\ncriteria:\n  - {{ id: F, severity: must, validator: exists, targets: [f] }}\n"
        )
    };
    s.write("parent.yaml", contract("parent", "done.txt"));
    s.write("child.yaml", contract("child", "child.txt"));
    let vcc = env!("CARGO_BIN_EXE_vcc");
    let script = format!(
        "cd \"$VCC_ROOT\" && {vcc} converge child.yaml --max-iterations 2 -- sh -c 'echo x > child.txt' && echo y > done.txt"
    );
    let mut child = Command::new(vcc)
        .current_dir(s.path())
        .args([
            "converge",
            "parent.yaml",
            "--max-iterations",
            "2",
            "--",
            "sh",
            "-c",
            &script,
        ])
        .env("VCC_CACHE_DIR", shared_cache())
        .env_remove("VCC_BUDGET_FILE")
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let run = wait_within(&mut child, Duration::from_secs(120));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mine: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("vcc converge"))
        .collect();
    assert!(
        mine.iter().any(|l| l.starts_with("vcc converge: ")),
        "the parent's own lines: {mine:?}"
    );
    assert!(
        mine.iter()
            .any(|l| l.starts_with("vcc converge [child 1 child.yaml]: ")),
        "the child's lines: {mine:?}"
    );
    assert!(
        !mine
            .iter()
            .any(|l| l.starts_with("vcc converge: child 1 of the loop")),
        "no child line without its prefix: {mine:?}"
    );
}
