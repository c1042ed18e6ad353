//! `vcc converge`: the loop through the real binary, with a scripted agent
//! (tests/agents/fake_agent.py) in place of a model.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use vcc_test_support::Scratch;

use crate::{Run, repo, shared_cache, wait_within};

/// Three MUST criteria; criterion X holds when the root has x.txt.
const THREE: &str = "vcc: 1
id: loop
deliverables:
  - { id: a, path: a.txt }
  - { id: b, path: b.txt }
  - { id: c, path: c.txt }
validators:
  exists: { component: std/file-exists }
criteria:
  - { id: A, severity: must, validator: exists, targets: [a], on_fail: { prompt: Write a.txt. } }
  - { id: B, severity: must, validator: exists, targets: [b] }
  - { id: C, severity: must, validator: exists, targets: [c] }
";

/// A deliverable root with a contract, and a log folder outside it.
struct World {
    root: Scratch,
    logs: Scratch,
}

impl World {
    fn new(contract: &str) -> World {
        let root = Scratch::new();
        root.write("contract.yaml", contract);
        World {
            root,
            logs: Scratch::new(),
        }
    }

    fn contract(&self) -> PathBuf {
        self.root.path().join("contract.yaml")
    }

    fn log(&self) -> PathBuf {
        self.logs.path().join("agent.jsonl")
    }

    /// What the agent was handed, run by run.
    fn agent_runs(&self) -> Vec<Value> {
        std::fs::read_to_string(self.log())
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// `vcc converge CONTRACT --format json FLAGS -- python3 fake_agent.py AGENT…`
    fn converge(&self, flags: &[&str], agent: &[&str]) -> Run {
        let mut child = self.spawn(flags, agent);
        wait_within(&mut child, Duration::from_secs(120))
    }

    fn spawn(&self, flags: &[&str], agent: &[&str]) -> std::process::Child {
        let script = repo().join("tests/agents/fake_agent.py");
        Command::new(env!("CARGO_BIN_EXE_vcc"))
            .arg("converge")
            .arg(self.contract())
            .args(["--format", "json"])
            .args(flags)
            .arg("--")
            .arg("python3")
            .arg(script)
            .args(agent)
            .env("VCC_CACHE_DIR", shared_cache())
            .env("AGENT_LOG", self.log())
            // Run inside a loop's command, these loops would be its children.
            .env_remove("VCC_BUDGET_FILE")
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run vcc converge")
    }
}

fn reason(report: &Value) -> &str {
    report["termination"]["reason"].as_str().unwrap()
}

/// Per criterion: attempts, passed_at, attempts_until_pass.
fn attempts(report: &Value) -> Vec<(String, u64, Value, Value)> {
    report["criteria"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_string(),
                c["attempts"].as_u64().unwrap(),
                c["passed_at"].clone(),
                c["attempts_until_pass"].clone(),
            )
        })
        .collect()
}

#[test]
fn an_agent_fixing_one_criterion_a_run_is_accepted_at_the_third() {
    let w = World::new(THREE);
    let run = w.converge(&[], &["fix-one"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let r = run.json();
    assert_eq!(reason(&r), "accepted");
    assert_eq!(r["accepted"], true);
    assert_eq!(r["lifecycle"], "FULFILLED");
    assert_eq!(
        r["iterations"].as_array().unwrap().len(),
        4,
        "check 0, then 3 runs"
    );
    // When each iteration began, and how much of the budget it had used
    // (runs: 3 of the default 10 by the end).
    let used: Vec<f64> = r["iterations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|it| {
            assert!(it["started_at"].as_str().unwrap().ends_with('Z'), "{it}");
            it["utilisation"].as_f64().unwrap()
        })
        .collect();
    assert_eq!(used, vec![0.0, 0.1, 0.2, 0.3]);
    assert_eq!(r["metrics"]["remediation_iterations"], 3);
    assert_eq!(r["metrics"]["validity"], true);
    assert_eq!(
        attempts(&r),
        vec![
            ("A".into(), 1, 1.into(), 1.into()),
            ("B".into(), 2, 2.into(), 2.into()),
            ("C".into(), 3, 3.into(), 3.into())
        ]
    );
    let first = &r["iterations"][0];
    assert!(
        first.get("command").is_none(),
        "iteration 0 is the first check"
    );
    assert_eq!(
        first["check"]["failing"],
        serde_json::json!(["A", "B", "C"])
    );
    let second = &r["iterations"][1];
    assert_eq!(second["command"]["exit_code"], 0);
    assert_eq!(
        second["command"]["handed"],
        serde_json::json!(["A", "B", "C"])
    );
    assert_eq!(second["check"]["failing"], serde_json::json!(["B", "C"]));
    let overhead = &r["metrics"]["validation_overhead"];
    assert!(overhead["check_ms"].is_u64() && overhead["command_ms"].is_u64());
    assert_eq!(r["last_check"]["verdict"], "accepted");

    // What the agent was handed: the feedback file, its Markdown, the budget.
    let runs = w.agent_runs();
    assert_eq!(runs.len(), 3);
    let fb = &runs[0]["feedback"];
    assert_eq!(fb["iteration"], 1);
    assert_eq!(fb["verdict"], "rejected");
    let must: Vec<&str> = fb["must"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(must, ["A", "B", "C"]);
    assert_eq!(fb["must"][0]["prompt"], "Write a.txt.");
    assert_eq!(fb["must"][0]["attempts"], 1);
    assert_eq!(
        runs[0]["budget_left"]["iterations"], 10,
        "the default budget"
    );
    assert_eq!(runs[2]["budget_left"]["iterations"], 8);
    // The first run's Markdown starts with the whole brief (`vcc
    // explain`); later runs get only what failed.
    let md = runs[0]["markdown"].as_str().unwrap();
    assert!(md.starts_with("# Contract `loop`"), "{md}");
    assert!(
        md.contains("\n---\n\n# vcc: contract `loop` is not accepted (rejected)"),
        "{md}"
    );
    assert!(md.contains("### A (MUST, fail)"), "{md}");
    assert!(md.contains("What to do: Write a.txt."), "{md}");
    assert!(md.contains("Budget: run 1 of 10\n"), "{md}");
    let later = runs[1]["markdown"].as_str().unwrap();
    assert!(
        later.starts_with("# vcc: contract `loop` is not accepted (rejected)"),
        "{later}"
    );
    // $VCC_BRIEF: every criterion, numbered, on every run.
    for run in &runs {
        let brief = run["brief"].as_str().unwrap();
        assert!(brief.contains("1. [MUST] A\n"), "{brief}");
        assert!(brief.contains("3. [MUST] C\n"), "{brief}");
        assert!(brief.contains("If it fails: Write a.txt."), "{brief}");
    }
}

#[test]
fn an_accepted_contract_never_runs_the_command() {
    let w = World::new(THREE);
    for f in ["a.txt", "b.txt", "c.txt"] {
        w.root.write(f, "x");
    }
    let run = w.converge(&[], &["stuck"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(reason(&run.json()), "accepted");
    assert_eq!(run.json()["metrics"]["remediation_iterations"], 0);
    assert!(w.agent_runs().is_empty(), "the command ran");
}

#[test]
fn a_stuck_agent_stops_on_stagnation_after_k_runs() {
    let w = World::new(THREE);
    let run = w.converge(&[], &["stuck"]);
    assert_eq!(run.code, 1);
    let r = run.json();
    assert_eq!(reason(&r), "stagnation");
    assert_eq!(r["lifecycle"], "VIOLATED");
    assert_eq!(
        r["metrics"]["remediation_iterations"], 2,
        "K = 2 by default"
    );
    assert!(
        r["termination"]["detail"]
            .as_str()
            .unwrap()
            .contains("A, B, C"),
        "{}",
        r["termination"]
    );
    let prints: Vec<&Value> = (0..3)
        .map(|i| &r["iterations"][i]["check"]["fingerprint"])
        .collect();
    assert!(prints[0] == prints[1] && prints[1] == prints[2]);
    // For whoever takes the task next: what failed, how often, what was
    // tried (`vcc explain --results`).
    let saved = w.logs.path().join("converge.json");
    std::fs::write(&saved, &run.stdout).unwrap();
    let brief = crate::vcc(&[
        "explain",
        w.contract().to_str().unwrap(),
        "--format",
        "prompt",
        "--results",
        saved.to_str().unwrap(),
    ]);
    assert_eq!(brief.code, 0, "{}", brief.stderr);
    assert!(
        brief
            .stdout
            .contains("Results so far: The last loop ended VIOLATED (stagnation:"),
        "{}",
        brief.stdout
    );
    assert!(
        brief.stdout.contains(
            "- A (MUST): fail in the last check; not passing in 3 of 3 check(s); handed over 2 time(s); never passed. Last: "
        ),
        "{}",
        brief.stdout
    );
    // --stagnation 1 stops after one unchanged run.
    let run = World::new(THREE).converge(&["--stagnation", "1"], &["stuck"]);
    assert_eq!(run.json()["metrics"]["remediation_iterations"], 1);
}

#[test]
fn a_flapping_agent_is_not_stagnation_and_ends_on_the_iteration_budget() {
    let w = World::new(
        &THREE
            .replace(
                "  - { id: C, severity: must, validator: exists, targets: [c] }\n",
                "",
            )
            .replace("  - { id: c, path: c.txt }\n", ""),
    );
    let run = w.converge(&["--max-iterations", "4"], &["flap", "A", "B"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let r = run.json();
    assert_eq!(reason(&r), "budget_iterations", "{}", r["termination"]);
    assert_eq!(r["metrics"]["remediation_iterations"], 4);
    let failing: Vec<&Value> = (1..5)
        .map(|i| &r["iterations"][i]["check"]["failing"])
        .collect();
    assert_eq!(failing[0], &serde_json::json!(["B"]));
    assert_eq!(failing[1], &serde_json::json!(["A"]));
}

#[test]
fn an_abort_criterion_stops_at_once() {
    let w = World::new(&THREE.replace(
        "targets: [b] }",
        "targets: [b], on_fail: { action: abort } }",
    ));
    let run = w.converge(&[], &["fix-one"]);
    assert_eq!(run.code, 1);
    let r = run.json();
    assert_eq!(reason(&r), "abort");
    let detail = r["termination"]["detail"].as_str().unwrap();
    assert!(detail.contains("criterion B"), "{detail}");
    // It failed before any work: the detail says the command never ran.
    assert!(
        detail.contains("on the first check, before the command ever ran"),
        "{detail}"
    );
    assert!(w.agent_runs().is_empty(), "no run after an abort");
}

#[test]
fn a_must_past_its_max_attempts_stops_the_loop() {
    let contract = THREE.replace(
        "targets: [c] }",
        "targets: [c], on_fail: { max_attempts: 2 } }",
    ) + "budget: { stagnation: 5 }\n";
    let w = World::new(&contract);
    let run = w.converge(&[], &["stuck"]);
    assert_eq!(run.code, 1);
    let r = run.json();
    assert_eq!(reason(&r), "attempts", "{}", r["termination"]);
    assert!(
        r["termination"]["detail"]
            .as_str()
            .unwrap()
            .contains("MUST C still fails after 2")
    );
    assert_eq!(r["metrics"]["remediation_iterations"], 2);
    let md = w.agent_runs()[1]["markdown"].as_str().unwrap().to_string();
    assert!(md.contains("Attempt 2 of 2."), "{md}");
}

#[test]
fn cost_and_token_budgets_come_from_what_the_command_reports() {
    let relaxed = format!("{THREE}budget: {{ stagnation: 10 }}\n");
    let w = World::new(&relaxed);
    let run = w.converge(&["--max-cost", "0.5"], &["spend", "10", "0.25"]);
    assert_eq!(run.code, 1);
    let r = run.json();
    assert_eq!(reason(&r), "budget_cost", "{}", r["termination"]);
    assert_eq!(r["usage"]["cost"], 0.5);
    assert_eq!(r["metrics"]["remediation_iterations"], 2);
    assert_eq!(r["iterations"][1]["command"]["usage"]["cost"], 0.25);

    let w = World::new(&relaxed);
    let run = w.converge(&["--max-tokens", "1000"], &["spend", "400", "0"]);
    let r = run.json();
    assert_eq!(reason(&r), "budget_tokens", "{}", r["termination"]);
    assert_eq!(r["usage"]["tokens"], 1200);
    let left: Vec<Value> = w
        .agent_runs()
        .iter()
        .map(|a| a["budget_left"]["tokens"].clone())
        .collect();
    assert_eq!(left, [1000, 600, 200].map(Value::from), "$VCC_BUDGET_LEFT");

    // A line vcc cannot read under a usage budget: what is left is unknown.
    let w = World::new(&relaxed);
    let run = w.converge(&["--max-tokens", "1000"], &["spend", "-5", "0"]);
    let r = run.json();
    assert_eq!(reason(&r), "usage_invalid", "{}", r["termination"]);

    // Without a usage budget it decides nothing, but it is not hidden:
    // the run records it (and human output says it was ignored).
    let w = World::new(&relaxed);
    let run = w.converge(&["--max-iterations", "2"], &["spend", "-5", "0"]);
    let r = run.json();
    assert_eq!(reason(&r), "budget_iterations", "{}", r["termination"]);
    let error = r["iterations"][1]["command"]["usage_error"]
        .as_str()
        .unwrap_or_else(|| panic!("{}", r["iterations"]));
    assert!(error.starts_with("$VCC_USAGE line 1:"), "{error}");
}

#[test]
fn the_contract_budget_is_a_ceiling_flags_cannot_raise() {
    let w = World::new(&format!("{THREE}budget: {{ iterations: 3, cost: 1 }}\n"));
    for flags in [["--max-iterations", "4"], ["--max-cost", "2"]] {
        let run = w.converge(&flags, &["stuck"]);
        assert_eq!(run.code, 2, "{}", run.stdout);
        let r = run.json();
        assert_eq!(reason(&r), "invalid");
        assert!(
            r["termination"]["detail"]
                .as_str()
                .unwrap()
                .contains("never raise it"),
            "{}",
            r["termination"]
        );
    }
    let run = w.converge(&["--max-iterations", "1"], &["stuck"]);
    assert_eq!(reason(&run.json()), "budget_iterations");
    assert_eq!(run.json()["limits"]["iterations"], 1);
}

#[test]
fn a_slow_command_is_stopped_when_the_time_budget_runs_out() {
    let w = World::new(THREE);
    // The budget leaves the first check (well under a second, but the
    // machine may be loaded) time to finish, so the command does start.
    let run = w.converge(&["--max-time", "8s"], &["sleep", "600"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let r = run.json();
    assert_eq!(reason(&r), "budget_time", "{}", r["termination"]);
    assert_eq!(r["lifecycle"], "EXPIRED");
    let stopped = r["iterations"][1]["command"]["stopped"].as_str().unwrap();
    assert!(stopped.contains("time ran out"), "{stopped}");
}

#[test]
fn a_command_that_cannot_start_or_fails_is_reported() {
    let w = World::new(THREE);
    let mut child = Command::new(env!("CARGO_BIN_EXE_vcc"))
        .args(["converge", "--format", "json"])
        .arg(w.contract())
        .args(["--", "/nonexistent/agent"])
        .env("VCC_CACHE_DIR", shared_cache())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let run = wait_within(&mut child, Duration::from_secs(60));
    assert_eq!(run.code, 1);
    let r = run.json();
    assert_eq!(reason(&r), "command_not_started");
    assert!(
        r["termination"]["detail"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/agent")
    );

    // A non-zero exit is recorded and the loop goes on, unless asked.
    let run = w.converge(&["--max-iterations", "1"], &["exit", "3"]);
    assert_eq!(reason(&run.json()), "budget_iterations");
    assert_eq!(run.json()["iterations"][1]["command"]["exit_code"], 3);
    let run = w.converge(&["--stop-on-command-error"], &["exit", "3"]);
    assert_eq!(reason(&run.json()), "command_error");
}

#[test]
fn an_agent_that_weakens_the_contract_is_not_judged_by_its_edit() {
    let w = World::new(THREE);
    let run = w.converge(&[], &["edit-contract"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let r = run.json();
    assert_eq!(reason(&r), "contract_changed", "{}", r["termination"]);
    assert_eq!(r["accepted"], false);
}

/// The first-hour hole: an agent lowers only the failing MUST to SHOULD,
/// so the edited contract would be accepted. The loop judges every check
/// by the bytes it read first, stops `contract_changed`, and never says
/// accepted — not in the exit code, the report, the metrics or the
/// headline.
#[test]
fn an_agent_that_lowers_only_the_failing_must_is_stopped_not_accepted() {
    let two = "vcc: 1
id: loop
deliverables:
  - { id: a, path: a.txt }
  - { id: b, path: b.txt }
validators:
  exists: { component: std/file-exists }
criteria:
  - { id: A, severity: must, validator: exists, targets: [a] }
  - { id: B, severity: must, validator: exists, targets: [b] }
";
    let w = World::new(two);
    w.root.write("a.txt", "done\n");
    let original = format!("blake3:{}", blake3::hash(two.as_bytes()).to_hex());
    let run = w.converge(&[], &["weaken-failing"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let r = run.json();
    assert_eq!(reason(&r), "contract_changed", "{}", r["termination"]);
    assert_eq!(r["accepted"], false);
    assert_eq!(r["metrics"]["validity"], false);
    assert_eq!(r["contract_digest"], original.as_str());
    let last = &r["last_check"];
    assert_eq!(
        last["contract"]["digest"],
        original.as_str(),
        "the last verdict is under the original contract"
    );
    assert_eq!(last["verdict"], "rejected");
    let b = last["criteria"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "B")
        .unwrap();
    assert_eq!(b["severity"], "must");
    let edited = std::fs::read_to_string(w.contract()).unwrap();
    assert!(
        edited.contains("id: B, severity: should"),
        "the agent did edit it: {edited}"
    );
    assert!(
        r["termination"]["detail"]
            .as_str()
            .unwrap()
            .contains("contract.yaml")
    );

    // The headline a person reads says STOPPED, never ACCEPTED.
    std::fs::write(w.contract(), two).unwrap();
    let script = repo().join("tests/agents/fake_agent.py");
    let mut child = Command::new(env!("CARGO_BIN_EXE_vcc"))
        .arg("converge")
        .arg(w.contract())
        .args(["--", "python3"])
        .arg(script)
        .arg("weaken-failing")
        .env("VCC_CACHE_DIR", shared_cache())
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let human = wait_within(&mut child, Duration::from_secs(120));
    assert_eq!(human.code, 1);
    let headline = human.stderr.lines().last().unwrap_or_default();
    assert!(
        headline.contains("STOPPED, NOT accepted (contract_changed)"),
        "{}",
        human.stderr
    );
    assert!(!human.stderr.contains("ACCEPTED after"), "{}", human.stderr);
}

#[test]
fn an_invalid_contract_exits_2() {
    let w = World::new("vcc: 1\nid: broken\ncriteria: []\n");
    let run = w.converge(&[], &["stuck"]);
    assert_eq!(run.code, 2);
    assert_eq!(reason(&run.json()), "invalid");
}

#[test]
fn ctrl_c_stops_the_command_and_vcc_and_the_report_is_written() {
    let w = World::new(THREE);
    let report = w.logs.path().join("converge.json");
    let mut child = w.spawn(&["--report", report.to_str().unwrap()], &["sleep", "60"]);
    let started = PathBuf::from(format!("{}.started", w.log().display()));
    let t = Instant::now();
    while !started.exists() {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the agent never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let unfinished: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(reason(&unfinished), "unfinished", "until the loop ends");
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let run = wait_within(&mut child, Duration::from_secs(30));
    assert_eq!(run.code, 1, "{}", run.stderr);
    let written: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(reason(&written), "interrupted");
    assert_eq!(written["lifecycle"], "TERMINATED");
    assert_eq!(
        written["iterations"][1]["command"]["stopped"],
        "interrupted"
    );
    assert_eq!(run.json()["termination"], written["termination"]);
}

#[test]
fn the_agent_is_told_where_the_root_and_contract_are() {
    let w = World::new(THREE);
    w.converge(&["--max-iterations", "1"], &["stuck"]);
    let runs = w.agent_runs();
    let usage = runs[0]["usage_file"].as_str().unwrap();
    assert!(Path::new(usage).is_absolute());
    assert!(
        !Path::new(usage).starts_with(w.root.path()),
        "outside the root"
    );
}

/// Whether process `pid` has ended (a zombie waiting for its reaper has).
fn ended(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // `PID (COMMAND) STATE …`: the state follows the last ')'.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| matches!(rest.trim_start().chars().next(), Some('Z' | 'X'))),
    }
}

/// A `vcc converge` killed outright (SIGKILL) left its command running,
/// reparented to init, and whatever the command started: an agent that
/// goes on writing the deliverables with nobody to judge it. Now the
/// command dies with vcc (PR_SET_PDEATHSIG) and so does its process group
/// (the guard): the command's background job never writes its file.
#[test]
fn a_converge_killed_outright_takes_its_command_and_its_children_along() {
    let w = World::new(THREE);
    let dir = w.logs.path();
    let (go, late, pids) = (dir.join("go"), dir.join("late"), dir.join("pids"));
    // The agent: a background job that writes `late` once `go` exists,
    // then both pids (itself, the job), then it waits for the job.
    let agent = format!(
        "(while [ ! -e '{go}' ]; do sleep 0.05; done; echo late > '{late}') &\n\
         echo \"$$ $!\" > '{pids}.tmp' && mv '{pids}.tmp' '{pids}'\n\
         wait\n",
        go = go.display(),
        late = late.display(),
        pids = pids.display()
    );
    let mut vcc = Command::new(env!("CARGO_BIN_EXE_vcc"))
        .arg("converge")
        .arg(w.contract())
        .args(["--format", "json", "--", "sh", "-c", &agent])
        .env("VCC_CACHE_DIR", shared_cache())
        .env_remove("VCC_BUDGET_FILE")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while !pids.exists() {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the agent never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let started: Vec<u32> = std::fs::read_to_string(&pids)
        .unwrap()
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(started.len(), 2);
    vcc.kill().unwrap(); // SIGKILL
    vcc.wait().unwrap();
    let t = Instant::now();
    while !started.iter().all(|p| ended(*p)) {
        if t.elapsed() > Duration::from_secs(30) {
            // End them (their folder goes with the test), then fail.
            for pid in &started {
                let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            }
            panic!("the command and its job outlived vcc: {started:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    std::fs::write(&go, "").unwrap();
    assert!(!late.exists(), "the background job went on");
}

/// An advisory contract has nothing to converge to: the loop stops after
/// its first check, without running the command, saying the sentence
/// every way of running vcc says; exit 1, 0 with --allow-advisory.
#[test]
fn an_advisory_contract_stops_the_loop_before_the_command() {
    let w = World::new(&THREE.replace("vcc: 1\n", "vcc: 1\nadvisory: true\n"));
    let run = w.converge(&[], &["fix-one"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let r = run.json();
    assert_eq!(reason(&r), "advisory");
    let detail = r["termination"]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("an advisory contract reports and never accepts: nothing is accepted and nothing is blocked")
            && detail.contains("(the command did not run)"),
        "{detail}"
    );
    assert!(w.agent_runs().is_empty(), "the command never ran");
    assert_eq!(w.converge(&["--allow-advisory"], &["fix-one"]).code, 0);
}
