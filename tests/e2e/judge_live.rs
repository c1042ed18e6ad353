//! std/rubric against real inference engines, not a script: a hosted
//! endpoint when `VCC_TEST_JUDGE_URL` and `VCC_TEST_JUDGE_KEY` are set
//! (SKIPPED otherwise). What a real model answers cannot be known in
//! advance, so these tests assert what must hold whatever it answers: the
//! calls are live and recorded, the answers parse or the row says why, the
//! key is nowhere, and a replay of the recorded session gives the same row.

use std::path::Path;

use serde_json::{Value, json};
use vcc_test_support::Scratch;

use crate::Run;

const REPORT: &str = "# Findings\n\nQuestion: how do the three verifiers admit work?\n\nAnswer: each admits work only when every MUST criterion passed; the first adds signed records, the second a verdict log, the third AI judges.\n";

/// Where a real judge is served, and by what.
pub struct Engine<'a> {
    pub provider: &'a str,
    pub url: &'a str,
    pub model: &'a str,
    /// The variable holding the key, and its value (never to be seen in
    /// any output).
    pub key: Option<(&'a str, &'a str)>,
    /// `structured:` of an OpenAI-compatible endpoint.
    pub structured: Option<&'a str>,
}

fn vcc(cache: &Path, engine: &Engine, args: &[&str]) -> Run {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_vcc"));
    cmd.args(args)
        .env("VCC_CACHE_DIR", cache)
        .env("NO_COLOR", "1");
    if let Some((var, value)) = engine.key {
        cmd.env(var, value);
    }
    let output = cmd.output().expect("run vcc");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn row(run: &Run) -> Value {
    let mut c = run.criterion("AC-1");
    if let Some(o) = c.as_object_mut() {
        o.remove("duration_ms");
    }
    c
}

/// Judge a report with the engine (two samples), record the session, and
/// replay it without an endpoint; returns the live row.
pub fn judge_and_replay(engine: &Engine) -> Value {
    let scratch = Scratch::new();
    let seed = if engine.provider == "anthropic" {
        ""
    } else {
        ", seed: 3"
    };
    scratch.write(
        "contract/contract.yaml",
        format!(
            "vcc: 1\nid: live-judge\nroot: ../out\ndeliverables:\n  - {{ id: report, path: report.md }}\njudges:\n  real: {{ provider: {}, model: {}, params: {{ temperature: 0, max_tokens: 256{seed} }} }}\nvalidators:\n  rubric: {{ component: std/rubric }}\ncriteria:\n  - id: AC-1\n    severity: must\n    validator: rubric\n    targets: [report]\n    judges: [real]\n    params:\n      rubric: {{ question: \"Does the report answer its question?\", anchors: {{ \"1\": \"no\", \"5\": \"fully\" }} }}\n      threshold: 4\n      samples: 2\n",
            engine.provider,
            json!(engine.model)
        ),
    );
    let mut extra = engine
        .key
        .map(|(var, _)| format!(", key_env: {var}"))
        .unwrap_or_default();
    if let Some(s) = engine.structured {
        extra.push_str(&format!(", structured: {s}"));
    }
    scratch.write(
        "contract/judges.yaml",
        format!(
            "judges: 1\nendpoints:\n  - {{ id: real, provider: {}, url: '{}'{extra} }}\nlimits: {{ calls: 4, deadline: 300s }}\n",
            engine.provider, engine.url
        ),
    );
    scratch.write("out/report.md", REPORT);
    let path = |rel: &str| scratch.path().join(rel).display().to_string();
    let (contract, judges, session) = (
        path("contract/contract.yaml"),
        path("contract/judges.yaml"),
        path("session.json"),
    );
    let live = vcc(
        &scratch.path().join("cache"),
        engine,
        &[
            "check",
            &contract,
            "--format",
            "json",
            "--judges",
            &judges,
            "--judge-record",
            &session,
        ],
    );
    let c = row(&live);
    let calls = c["judge_calls"].as_array().cloned().unwrap_or_default();
    assert_eq!(calls.len(), 2, "{c}\n{}", live.stderr);
    for call in &calls {
        assert_eq!(call["source"], "live", "{call}");
        assert_eq!(call["model"], engine.model);
        assert!(call["latency_ms"].is_u64());
    }
    // Whatever the model said, the row is a judgment or says why not; a
    // pass needs both samples at 4 or 5.
    let status = c["status"].as_str().unwrap_or_default();
    assert!(["pass", "fail", "skip", "error"].contains(&status), "{c}");
    if status == "pass" {
        for call in &calls {
            let score = call["answer"]["score"].as_f64().unwrap_or(0.0);
            assert!(score >= 4.0, "a pass with a sample below 4: {c}");
        }
    }
    if status != "error" {
        for call in &calls {
            assert!(call["answer"].is_object(), "an unparsed answer: {call}");
        }
    }
    if let Some((_, key)) = engine.key {
        assert!(!live.stdout.contains(key) && !live.stderr.contains(key));
        let recorded = std::fs::read_to_string(&session).expect("the session");
        assert!(!recorded.contains(key));
    }

    // The recorded session alone gives the same row, with no endpoint.
    let again = vcc(
        &scratch.path().join("cache-replay"),
        engine,
        &[
            "check",
            &contract,
            "--format",
            "json",
            "--judge-replay",
            &session,
        ],
    );
    let mut replayed = row(&again);
    for call in replayed["judge_calls"].as_array_mut().unwrap() {
        assert_eq!(call["source"], "replay");
        call["source"] = json!("live");
    }
    assert_eq!(replayed.to_string(), c.to_string());
    assert_eq!(live.code, again.code);
    c
}

/// A real hosted endpoint: `VCC_TEST_JUDGE_URL` (the API base, e.g.
/// `https://api.openai.com/v1`), `VCC_TEST_JUDGE_KEY`, and optionally
/// `VCC_TEST_JUDGE_MODEL` [gpt-4o-mini] and `VCC_TEST_JUDGE_PROVIDER`
/// [openai-compatible].
#[test]
fn a_hosted_judge_when_one_is_configured() {
    let (Ok(url), Ok(key)) = (
        std::env::var("VCC_TEST_JUDGE_URL"),
        std::env::var("VCC_TEST_JUDGE_KEY"),
    ) else {
        eprintln!(
            "SKIPPED: a_hosted_judge_when_one_is_configured needs VCC_TEST_JUDGE_URL and VCC_TEST_JUDGE_KEY (and optionally VCC_TEST_JUDGE_MODEL, VCC_TEST_JUDGE_PROVIDER)"
        );
        return;
    };
    let model = std::env::var("VCC_TEST_JUDGE_MODEL").unwrap_or_else(|_| "gpt-4o-mini".into());
    let provider =
        std::env::var("VCC_TEST_JUDGE_PROVIDER").unwrap_or_else(|_| "openai-compatible".into());
    let c = judge_and_replay(&Engine {
        provider: &provider,
        url: &url,
        model: &model,
        key: Some(("VCC_TEST_JUDGE_KEY", &key)),
        structured: None,
    });
    // A hosted model that answers at all answers in the schema.
    assert_ne!(c["status"], "error", "{c}");
}

/// A real inference engine on loopback: llama.cpp, through llama-cpp-python's
/// OpenAI-compatible server (installed by tests/install-tools.sh), serving a
/// tiny model the test writes with the `gguf` package
/// (tests/judge/tiny_model.py: its output is a fixed preference, so under
/// the schema's grammar it answers `{"score": 5, "rationale": ""}`). The
/// engine, its tokenizer, its chat template and its JSON-schema grammar are
/// all real; only the weights are made up.
#[test]
fn a_local_inference_engine_judges_under_a_schema_grammar() {
    let python = crate::world::tools_dir().join("llama-py/bin/python");
    if !python.exists() {
        // Opt-in: building llama.cpp does not fit a clean CI run's budget.
        eprintln!(
            "SKIPPED: a_local_inference_engine_judges_under_a_schema_grammar needs {} (VCC_INSTALL_LLAMA=1 bash tests/install-tools.sh builds llama-cpp-python and installs gguf)",
            python.display()
        );
        return;
    }
    let scratch = Scratch::new();
    let model = scratch.path().join("tiny.gguf");
    let wrote = std::process::Command::new(&python)
        .arg(crate::repo().join("tests/judge/tiny_model.py"))
        .arg(&model)
        .output()
        .expect("run tiny_model.py");
    assert!(
        wrote.status.success(),
        "{}",
        String::from_utf8_lossy(&wrote.stderr)
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let log = std::fs::File::create(scratch.path().join("server.log")).expect("log");
    let server = std::process::Command::new(&python)
        .args(["-m", "llama_cpp.server", "--model"])
        .arg(&model)
        .args([
            "--model_alias",
            "tiny",
            "--host",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            "--n_ctx",
            "8192",
            "--n_threads",
            "1",
            "--chat_format",
            "llama-2",
        ])
        .stdout(log.try_clone().expect("log"))
        .stderr(log)
        .spawn()
        .expect("start llama_cpp.server");
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut server = Kill(server);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        if let Ok(Some(status)) = server.0.try_wait() {
            panic!(
                "llama_cpp.server exited ({status}):\n{}",
                std::fs::read_to_string(scratch.path().join("server.log")).unwrap_or_default()
            );
        }
        assert!(
            std::time::Instant::now() < deadline,
            "llama_cpp.server did not listen within 120 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let url = format!("http://127.0.0.1:{port}/v1");
    let c = judge_and_replay(&Engine {
        provider: "openai-compatible",
        url: &url,
        model: "tiny",
        key: None,
        structured: Some("json_object_schema"),
    });
    assert_eq!(c["status"], "pass", "{c}");
    for call in c["judge_calls"].as_array().unwrap() {
        assert_eq!(call["answer"]["score"], 5, "{call}");
        assert_eq!(call["reported_model"], "tiny", "{call}");
        assert!(call["tokens"]["input"].as_u64().unwrap_or(0) > 0, "{call}");
    }
}
