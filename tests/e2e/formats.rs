//! Report formats for CI and people, each read back by someone else's
//! code: JUnit XML by PyPI `junitparser`, SARIF by Microsoft's SARIF
//! Multitool (the official 2.1.0 schema and rules) and PyPI `sarif-tools`,
//! the HTML page by headless Chromium; GitHub workflow commands and the job
//! summary against fake `GITHUB_*` files.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use vcc_test_support::Scratch;

use crate::world::tools_dir;
use crate::{Run, repo, vcc};

/// A MUST that fails with a located finding, a SHOULD vcc cannot judge
/// (an error), a MAY with nothing to judge (a skip), and a MUST that
/// passes.
const CONTRACT: &str = "vcc: 1
id: formats
deliverables:
  - { id: notes, path: notes.md }
  - { id: transcript, path: transcript.json }
  - { id: junit, path: junit.xml, required: false }
validators:
  text: { component: std/text-match }
  calls: { component: std/tool-calls }
  junit: { component: std/junit }
  exists: { component: std/file-exists }
criteria:
  - { id: NO-TODO, severity: must, validator: text, targets: [notes], params: { must_not_match: ['TODO.*'] }, description: No TODO is left. }
  - { id: CALLS, severity: should, validator: calls, targets: [transcript], params: { required: [Bash] } }
  - { id: TESTS, severity: may, validator: junit, targets: [junit] }
  - { id: NOTES, severity: must, validator: exists, targets: [notes] }
";

fn project() -> (Scratch, PathBuf) {
    let dir = Scratch::new();
    let contract = dir.write("contract.yaml", CONTRACT);
    dir.write(
        "notes.md",
        "# Notes\n\nDone.\nTODO: the <b>pager</b> | pipe\n",
    );
    dir.write("transcript.json", "{\"not\": \"a transcript\"}\n");
    (dir, contract)
}

pub(crate) fn python(script: &str, arg: &Path) -> Value {
    let python = tools_dir().join("reports-py/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run tests/install-tools.sh",
        python.display()
    );
    let out = Command::new(python)
        .arg(repo().join("tests/readers").join(script))
        .arg(arg)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn check_with_reports(dir: &Scratch, contract: &Path) -> (Run, PathBuf) {
    let out = dir.path().join("reports");
    let file = |name: &str| out.join(name).display().to_string();
    let run = vcc(&[
        "check",
        contract.to_str().unwrap(),
        "--format",
        "sarif",
        "--report-json",
        &file("vcc.json"),
        "--report-junit",
        &file("junit.xml"),
        "--report-sarif",
        &file("vcc.sarif"),
        "--report-gitlab",
        &file("codequality.json"),
        "--report-markdown",
        &file("vcc.md"),
        "--report-html",
        &file("vcc.html"),
    ]);
    (run, out)
}

#[test]
fn junit_is_read_back_by_junitparser() {
    let (dir, contract) = project();
    let (run, out) = check_with_reports(&dir, &contract);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let read = python("junit_read.py", &out.join("junit.xml"));
    let suite = &read["suites"][0];
    assert_eq!(suite["name"], "formats");
    assert_eq!(suite["properties"]["vcc.verdict"], "REJECTED");
    let case = |id: &str| {
        suite["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("no case {id}: {suite}"))
    };
    // Four criteria, and the host's row for the transcript no MUST targets.
    assert_eq!(suite["tests"], 5);
    assert_eq!(case("deliverable:transcript")["result"], "pass");
    let todo = case("NO-TODO");
    assert_eq!(todo["classname"], "formats.MUST");
    assert_eq!(todo["result"], "failure");
    assert_eq!(todo["file"], "notes.md");
    assert_eq!(todo["line"], "4");
    assert_eq!(case("CALLS")["result"], "error");
    assert_eq!(case("CALLS")["classname"], "formats.SHOULD");
    assert_eq!(case("TESTS")["result"], "skipped");
    assert_eq!(case("NOTES")["result"], "pass");
}

/// A gate on ruff's SARIF (std/sarif), whose results name files by
/// absolute `file://` URI as ruff writes them: one in the root, one
/// outside it. Beside it a MUST that passes and a MAY that skips.
const RUFF_CONTRACT: &str = "vcc: 1
id: ruff-gate
deliverables:
  - { id: lint, path: ruff.sarif }
  - { id: notes, path: notes.md }
  - { id: junit, path: junit.xml, required: false }
validators:
  sarif: { component: std/sarif }
  exists: { component: std/file-exists }
  junit: { component: std/junit }
criteria:
  - { id: RUFF, severity: must, validator: sarif, targets: [lint] }
  - { id: NOTES, severity: must, validator: exists, targets: [notes] }
  - { id: TESTS, severity: may, validator: junit, targets: [junit] }
";

/// A project whose ruff log names `src/app.py` by its absolute URI, and
/// its canonical root.
fn ruff_project() -> (Scratch, PathBuf, String) {
    let dir = Scratch::new();
    let contract = dir.write("contract.yaml", RUFF_CONTRACT);
    dir.write("notes.md", "# Notes\n");
    dir.write("src/my app.py", "import os\n");
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let root = root.to_str().unwrap().to_string();
    let result = |uri: &str, line: u32| {
        serde_json::json!({
            "ruleId": "F401", "level": "error",
            "message": { "text": "`os` imported but unused" },
            "locations": [{ "physicalLocation": {
                "artifactLocation": { "uri": uri },
                "region": { "startLine": line, "startColumn": 8 }
            } }]
        })
    };
    let log = serde_json::json!({
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": { "name": "ruff", "rules": [{ "id": "F401" }] } },
            "results": [
                result(&format!("file://{root}/src/my%20app.py"), 1),
                result("file:///opt/elsewhere/lib.py", 3),
            ]
        }]
    });
    dir.write("ruff.sarif", log.to_string());
    (dir, contract, root)
}

/// Microsoft's SARIF Multitool (the official 2.1.0 schema and its rules)
/// on `log`: every result it reports at `error` or `warning` (a result
/// without a level is a warning).
fn multitool_complaints(log: &Path, scratch: &Path) -> Vec<Value> {
    let multitool =
        tools_dir().join("sarif-npm/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool");
    assert!(
        multitool.exists(),
        "{} is missing: run tests/install-tools.sh",
        multitool.display()
    );
    let validation = scratch.join("validation.sarif");
    let _ = std::fs::remove_file(&validation);
    let status = Command::new(&multitool)
        .arg("validate")
        .arg(log)
        .arg("--output")
        .arg(&validation)
        .env("DOTNET_CLI_TELEMETRY_OPTOUT", "1")
        .env("DOTNET_SYSTEM_GLOBALIZATION_INVARIANT", "1")
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stdout)
    );
    let verdicts: Value = serde_json::from_slice(&std::fs::read(&validation).unwrap()).unwrap();
    verdicts["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| matches!(r["level"].as_str(), None | Some("error" | "warning")))
        .cloned()
        .collect()
}

#[test]
fn sarif_is_valid_for_the_sarif_sdk_and_read_by_sarif_tools() {
    let (dir, contract, root) = ruff_project();
    let out = dir.path().join("reports");
    let report = |name: &str| out.join(name).display().to_string();
    let run = vcc(&[
        "check",
        contract.to_str().unwrap(),
        "--format",
        "sarif",
        "--report-sarif",
        &report("vcc.sarif"),
        "--report-html",
        &report("vcc.html"),
        "--report-gitlab",
        &report("codequality.json"),
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    // stdout is the same SARIF log as the file.
    let printed: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(printed["version"], "2.1.0");

    let complaints = multitool_complaints(&out.join("vcc.sarif"), dir.path());
    assert!(
        complaints.is_empty(),
        "the SARIF Multitool reports errors or warnings: {complaints:#?}"
    );

    let log: Value =
        serde_json::from_slice(&std::fs::read(out.join("vcc.sarif")).unwrap()).unwrap();
    let run0 = &log["runs"][0];
    assert_eq!(
        run0["originalUriBaseIds"]["ROOT"]["uri"],
        format!("file://{root}/").as_str()
    );
    for rule in run0["tool"]["driver"]["rules"].as_array().unwrap() {
        assert_ne!(rule["name"], rule["id"], "SARIF1001: {rule}");
    }
    let results = run0["results"].as_array().unwrap();
    let located = |r: &Value| r["locations"][0]["physicalLocation"].clone();
    let ruff: Vec<Value> = results
        .iter()
        .filter(|r| r["ruleId"] == "RUFF")
        .map(located)
        .collect();
    assert_eq!(ruff.len(), 2, "{results:#?}");
    assert_eq!(
        ruff[0]["artifactLocation"],
        serde_json::json!({ "uri": "src/my%20app.py", "uriBaseId": "ROOT" }),
        "ruff's absolute URI in the root is made relative to it"
    );
    assert_eq!(ruff[0]["region"]["startLine"], 1);
    assert_eq!(
        ruff[1]["artifactLocation"],
        serde_json::json!({ "uri": "file:///opt/elsewhere/lib.py" }),
        "a file outside the root keeps its absolute URI and no base"
    );
    let outside = results.iter().find(|r| located(r) == ruff[1]).unwrap();
    assert!(
        outside["message"]["text"]
            .as_str()
            .unwrap()
            .ends_with("(at /opt/elsewhere/lib.py, outside the deliverable root)"),
        "{outside}"
    );
    assert!(
        !results.iter().any(|r| r["ruleId"] == "NOTES"),
        "a pass is not sent as a result without --sarif-passes: {results:#?}"
    );
    let tests = results.iter().find(|r| r["ruleId"] == "TESTS").unwrap();
    assert_eq!(
        (tests["kind"].as_str(), tests["level"].as_str()),
        (Some("review"), Some("none")),
        "a skip is visible, at level none as SARIF asks of a result that is not a fail"
    );
    assert_eq!(
        located(tests),
        serde_json::json!({
            "artifactLocation": { "uri": "contract.yaml", "uriBaseId": "ROOT" },
            "region": { "startLine": 14 }
        }),
        "a result without findings points at its criterion in the contract"
    );

    // The HTML page links the file once under the root, GitLab gets the
    // path relative to it and the outside file at the contract.
    let html = std::fs::read_to_string(out.join("vcc.html")).unwrap();
    assert!(
        html.contains(&format!("href=\"file://{root}/src/my app.py#L1\"")),
        "{html}"
    );
    assert_eq!(html.matches(&format!("{root}/{root}")).count(), 0);
    let issues: Value =
        serde_json::from_slice(&std::fs::read(out.join("codequality.json")).unwrap()).unwrap();
    let paths: Vec<&str> = issues
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["location"]["path"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&"src/my app.py"), "{paths:?}");
    assert!(!paths.iter().any(|p| p.starts_with('/')), "{paths:?}");

    // sarif-tools reads it; fingerprints are stable across runs.
    let read = python("sarif_read.py", &out.join("vcc.sarif"));
    assert_eq!(read["tools"], serde_json::json!(["vcc"]));
    let again = dir.path().join("again.sarif");
    let run = vcc(&[
        "check",
        contract.to_str().unwrap(),
        "--report-sarif",
        again.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let read_again = python("sarif_read.py", &again);
    let prints = |r: &Value| -> Vec<Value> {
        r["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["fingerprint"].clone())
            .collect()
    };
    assert_eq!(prints(&read), prints(&read_again));
}

/// `--sarif-passes` sends the criteria that passed as `kind: pass`
/// results, and the log still has no error or warning for the Multitool.
#[test]
fn sarif_passes_are_sent_when_asked() {
    let (dir, contract, _) = ruff_project();
    let log = dir.path().join("reports/vcc.sarif");
    let run = vcc(&[
        "check",
        contract.to_str().unwrap(),
        "--sarif-passes",
        "--report-sarif",
        log.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let complaints = multitool_complaints(&log, dir.path());
    assert!(complaints.is_empty(), "{complaints:#?}");
    let read = python("sarif_read.py", &log);
    let notes = read["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["rule"] == "NOTES")
        .cloned()
        .unwrap_or_else(|| panic!("no pass: {read}"));
    assert_eq!(
        (notes["kind"].as_str(), notes["level"].as_str()),
        (Some("pass"), Some("none"))
    );
}

#[test]
fn gitlab_code_quality_and_markdown() {
    let (dir, contract) = project();
    let (run, out) = check_with_reports(&dir, &contract);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let issues: Value =
        serde_json::from_slice(&std::fs::read(out.join("codequality.json")).unwrap()).unwrap();
    let issues = issues.as_array().unwrap();
    let fingerprints: std::collections::BTreeSet<&str> = issues
        .iter()
        .map(|i| i["fingerprint"].as_str().unwrap())
        .collect();
    assert_eq!(fingerprints.len(), issues.len(), "unique fingerprints");
    let todo = issues
        .iter()
        .find(|i| i["check_name"] == "vcc/formats/NO-TODO")
        .unwrap();
    assert_eq!(todo["severity"], "critical");
    assert_eq!(todo["location"]["path"], "notes.md");
    assert_eq!(todo["location"]["lines"]["begin"], 4);
    let calls = issues
        .iter()
        .find(|i| i["check_name"] == "vcc/formats/CALLS")
        .unwrap();
    assert_eq!(
        calls["severity"], "critical",
        "a SHOULD vcc could not judge is one step up"
    );
    // ajv (not vcc's code) against the shape GitLab documents.
    let ajv = tools_dir().join("ajv-npm/node_modules/.bin/ajv");
    assert!(
        ajv.exists(),
        "{} is missing: run tests/install-tools.sh",
        ajv.display()
    );
    let validated = Command::new(&ajv)
        .args(["validate", "--spec=draft7", "-s"])
        .arg(repo().join("tests/readers/gitlab-codequality.schema.json"))
        .arg("-d")
        .arg(out.join("codequality.json"))
        .output()
        .unwrap();
    assert!(
        validated.status.success(),
        "{}{}",
        String::from_utf8_lossy(&validated.stdout),
        String::from_utf8_lossy(&validated.stderr)
    );
    let md = std::fs::read_to_string(out.join("vcc.md")).unwrap();
    assert!(md.starts_with("## vcc: formats — REJECTED"), "{md}");
    assert!(
        md.contains("| ❌ | `NO-TODO` | MUST | fail (validator) |"),
        "{md}"
    );
    assert!(
        md.contains("| ⏭️ | `TESTS` | MAY | skip (validator) |"),
        "{md}"
    );
    assert!(!md.contains("<b>"), "validator text is escaped: {md}");
    let json: Value =
        serde_json::from_slice(&std::fs::read(out.join("vcc.json")).unwrap()).unwrap();
    assert_eq!(json["verdict"], "rejected");
}

#[test]
fn github_actions_gets_annotations_and_a_job_summary() {
    let (dir, contract) = project();
    let summary = dir.write("summary.md", "earlier step\n");
    let output = Command::new(env!("CARGO_BIN_EXE_vcc"))
        .args(["check", contract.to_str().unwrap(), "--format", "json"])
        .env("VCC_CACHE_DIR", crate::shared_cache())
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stdout.contains("::error"), "stdout stays the report");
    let error = stderr
        .lines()
        .find(|l| l.starts_with("::error "))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        error.starts_with(
            "::error file=notes.md,line=4,col=1,title=vcc formats%3A NO-TODO MUST fail::"
        ),
        "{error}"
    );
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("::warning title=vcc formats%3A CALLS SHOULD error::")),
        "{stderr}"
    );
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("::notice title=vcc formats%3A TESTS MAY skip::")),
        "{stderr}"
    );
    let text = std::fs::read_to_string(&summary).unwrap();
    assert!(
        text.starts_with("earlier step\n## vcc: formats — REJECTED"),
        "appended: {text}"
    );

    // Past GitHub's caps: ten of a kind, then one notice with the count.
    let many = Scratch::new();
    let contract = many.write(
        "contract.yaml",
        "vcc: 1\nid: many\ndeliverables: [{ id: n, path: n.md }]\nvalidators: { t: { component: std/text-match } }\ncriteria: [{ id: T, severity: must, validator: t, targets: [n], params: { must_not_match: [x] } }]\n",
    );
    many.write("n.md", "x\n".repeat(15));
    let output = Command::new(env!("CARGO_BIN_EXE_vcc"))
        .args(["check", contract.to_str().unwrap()])
        .env("VCC_CACHE_DIR", crate::shared_cache())
        .env("GITHUB_ACTIONS", "true")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.lines().filter(|l| l.starts_with("::error ")).count(),
        10,
        "{stderr}"
    );
    assert!(
        stderr.contains("::notice title=vcc::5 more annotation(s) not shown"),
        "{stderr}"
    );
}

/// Render `page` in headless Chromium: its DOM after load, and a
/// screenshot kept as a test artifact.
pub(crate) fn chromium(page: &Path, screenshot: &Path) -> String {
    let run = |extra: &[&str]| {
        let profile = Scratch::new();
        let out = Command::new("chromium")
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1200,900",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args(extra)
            .arg(format!("file://{}", page.display()))
            .output()
            .expect("chromium is installed by tests/install-tools.sh");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    run(&[&format!("--screenshot={}", screenshot.display())]);
    assert!(
        std::fs::metadata(screenshot).is_ok_and(|m| m.len() > 1000),
        "no screenshot"
    );
    run(&["--dump-dom"])
}

#[test]
fn the_html_report_renders_in_chromium() {
    let (dir, contract) = project();
    let (run, out) = check_with_reports(&dir, &contract);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let artifacts = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html-report");
    std::fs::create_dir_all(&artifacts).unwrap();
    let dom = chromium(&out.join("vcc.html"), &artifacts.join("check.png"));
    assert!(
        dom.contains("<span class=\"verdict v-rejected\" id=\"verdict\">REJECTED</span>"),
        "{dom}"
    );
    for (id, status) in [
        ("NO-TODO", "fail"),
        ("CALLS", "error"),
        ("TESTS", "skip"),
        ("NOTES", "pass"),
    ] {
        assert!(
            dom.contains(&format!(
                "<tr data-criterion=\"{id}\" data-status=\"{status}\">"
            )),
            "{id} {status}: {dom}"
        );
    }
    assert!(
        dom.contains("notes.md#L4"),
        "findings link to their lines: {dom}"
    );
    assert!(dom.contains("&lt;b&gt;pager&lt;/b&gt;"), "escaped: {dom}");
    assert!(!dom.contains("<b>pager</b>"));

    // A loop's page has a bar per check.
    let loop_dir = Scratch::new();
    let contract = loop_dir.write(
        "contract.yaml",
        "vcc: 1\nid: loop\ndeliverables: [{ id: a, path: a.txt }]\nvalidators: { e: { component: std/file-exists } }\ncriteria: [{ id: A, severity: must, validator: e, targets: [a] }]\n",
    );
    let html = loop_dir.path().join("loop.html");
    let run = vcc(&[
        "converge",
        contract.to_str().unwrap(),
        "--report-html",
        html.to_str().unwrap(),
        "--",
        "sh",
        "-c",
        &format!("echo done > {}", loop_dir.path().join("a.txt").display()),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let dom = chromium(&html, &artifacts.join("converge.png"));
    assert!(dom.contains("<svg id=\"chart\""), "{dom}");
    assert!(dom.contains("data-check=\"0\" data-failing=\"1\""), "{dom}");
    assert!(dom.contains("data-check=\"1\" data-failing=\"0\""), "{dom}");
}

#[test]
fn reports_name_their_run_time_and_commit() {
    let (dir, contract) = project();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "x"]);
    let head = git(&["rev-parse", "HEAD"]);
    let first = crate::check_json(&contract, &[]).json();
    let second = crate::check_json(&contract, &[]).json();
    assert_eq!(first["run"]["commit"], head.as_str());
    assert_eq!(first["run"]["id"].as_str().unwrap().len(), 32);
    assert_ne!(first["run"]["id"], second["run"]["id"]);
    assert!(
        first["run"]["started_at"]
            .as_str()
            .unwrap()
            .starts_with("20")
    );
}

#[test]
fn a_report_file_that_cannot_be_written_makes_the_run_invalid() {
    let (dir, contract) = project();
    dir.write("blocker", "a file where a folder should be");
    let run = vcc(&[
        "check",
        contract.to_str().unwrap(),
        "--report-junit",
        dir.path().join("blocker/junit.xml").to_str().unwrap(),
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("the report could not be written"),
        "{}",
        run.stderr
    );
}

/// The script of `examples/ci/gitlab-ci.yml`, run locally: the JUnit and
/// Code Quality artifacts GitLab reads are written, and the JUnit one reads
/// back with junitparser.
#[test]
fn the_gitlab_example_writes_the_artifacts_gitlab_reads() {
    let job: serde_yaml::Value = serde_yaml::from_str(
        &std::fs::read_to_string(repo().join("examples/ci/gitlab-ci.yml")).unwrap(),
    )
    .unwrap();
    let job = &job["vcc"];
    let (dir, contract) = project();
    let bin = Path::new(env!("CARGO_BIN_EXE_vcc"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut last = None;
    for line in job["script"].as_sequence().unwrap() {
        last = Some(
            Command::new("bash")
                .args(["-c", line.as_str().unwrap()])
                .current_dir(dir.path())
                .env("PATH", &path)
                .env("VCC_CACHE_DIR", crate::shared_cache())
                .env("VCC_CONTRACT_FILE", &contract)
                .output()
                .unwrap(),
        );
    }
    assert_eq!(
        last.unwrap().status.code(),
        Some(1),
        "the job fails: not accepted"
    );
    let reports = &job["artifacts"]["reports"];
    let junit = dir.path().join(reports["junit"].as_str().unwrap());
    let quality = dir.path().join(reports["codequality"].as_str().unwrap());
    assert_eq!(
        python("junit_read.py", &junit)["suites"][0]["name"],
        "formats"
    );
    let issues: Value = serde_json::from_slice(&std::fs::read(quality).unwrap()).unwrap();
    assert!(!issues.as_array().unwrap().is_empty());
    assert!(dir.path().join("vcc.md").exists());
}
