//! `std/sarif`: SARIF 2.1.0 logs (linters, type checkers, security scans)
//! have at most `max_results` results at or above a level.
//!
//! A result's level is its own `level`, else its rule's
//! `defaultConfiguration.level`, else `warning` (SARIF §3.27.10). The rule
//! is found as SARIF says (rules.rs): in the driver or, through
//! `rule.toolComponent`, in `tool.extensions` (CodeQL's layout). A result
//! that names a rule that cannot be found, or a level that is not one of
//! SARIF's four, counts as `error`: the strictest reading. A result whose
//! `kind` is one of SARIF's five non-failure kinds (`pass`, `review`, …)
//! does not count unless it gives its own level (other than `none`):
//! sarif-tools counts it at that level whatever its kind. A `kind` that is
//! not one of SARIF's six (case-sensitive: `FAIL` is not `fail`) is a
//! failure. Suppressions are written by whoever wrote the log (the worker):
//! they do not hide a result (sarif-tools counts it) unless
//! `honor_suppressions` says the log's producer is trusted; then a result
//! with an accepted suppression does not count, as the SARIF SDK reads it.
//! `allow_rules` never count; `deny_rules` count at any level.
//! Findings point at the source location each result names.
//!
//! A file that is not a SARIF 2.1.0 log is an error (it says nothing about
//! the code). A run without a `results` array produced no results (SARIF:
//! the tool did not analyse), and an invocation with `executionSuccessful:
//! false` is a failure: an analysis that did not run never passes. Logs
//! with no run that has results are judged as nothing (skip, unless
//! `allow_empty`).

mod rules;

use std::collections::BTreeMap;

use vcc_plugin_common::bounded::{self, Findings};
use vcc_plugin_common::{allow_empty_schema, clip, json, nothing};
use vcc_sdk::serde::Deserialize;
use vcc_sdk::serde_json::{Value, json as j};
use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator, relative};

pub struct Sarif;

#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde", deny_unknown_fields)]
struct Params {
    #[serde(default = "error_level")]
    level: Level,
    #[serde(default)]
    max_results: usize,
    #[serde(default)]
    allow_rules: Vec<String>,
    #[serde(default)]
    deny_rules: Vec<String>,
    #[serde(default)]
    allow_empty: bool,
    #[serde(default)]
    honor_suppressions: bool,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[serde(crate = "vcc_sdk::serde", rename_all = "lowercase")]
enum Level {
    None,
    Note,
    Warning,
    Error,
}

fn error_level() -> Level {
    Level::Error
}

impl Level {
    fn parse(text: &str) -> Option<Level> {
        Some(match text {
            "none" => Level::None,
            "note" => Level::Note,
            "warning" => Level::Warning,
            "error" => Level::Error,
            _ => return None,
        })
    }
    fn name(self) -> &'static str {
        match self {
            Level::None => "none",
            Level::Note => "note",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
struct Issue {
    rule: String,
    level: Level,
    message: String,
    uri: Option<String>,
    line: Option<u32>,
    /// Why its rule could not be found, when it could not.
    unresolved: Option<String>,
    /// The level of its rule as sarif-tools finds it (in the driver), when
    /// that is higher than the rule SARIF's references lead to.
    driver_says: Option<Level>,
    /// It has suppressions, every one accepted (§3.34.3).
    suppressed: bool,
}

/// What one log holds.
struct Log {
    issues: Vec<Issue>,
    /// Runs that have a `results` array (an analysis that ran).
    analysed: usize,
    /// Tools whose invocation says it did not run successfully.
    failed_tools: Vec<String>,
}

impl Validator for Sarif {
    fn describe() -> Description {
        Description::new(
            "std/sarif",
            env!("CARGO_PKG_VERSION"),
            "SARIF 2.1.0: no more than max_results results at or above a level, with rule allow/deny lists",
        )
        .params_schema(j!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "level": { "enum": ["error", "warning", "note", "none"], "default": "error", "description": "results at or above this level count" },
                "max_results": { "type": "integer", "minimum": 0, "default": 0, "description": "counted results allowed" },
                "allow_rules": { "type": "array", "items": { "type": "string" }, "description": "rule ids whose results never count" },
                "deny_rules": { "type": "array", "items": { "type": "string" }, "description": "rule ids whose results count at any level" },
                "allow_empty": allow_empty_schema("no run with results"),
                "honor_suppressions": { "type": "boolean", "default": false, "description": "results with an accepted suppression in the log do not count (trust the log's producer: the suppressions are theirs)" }
            }
        }))
    }

    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params: Params = criterion.params()?;
        let paths: Vec<&str> = criterion.paths().collect();
        if paths.is_empty() {
            return Ok(Outcome::skip("no SARIF log to check"));
        }
        let mut findings = Findings::default();
        let mut counted: Vec<(String, Issue)> = Vec::new();
        let mut by_level: BTreeMap<&str, usize> = BTreeMap::new();
        let mut analysed = 0;
        let mut unresolved = 0;
        let mut suppressed = 0;
        for path in &paths {
            let text = vcc_sdk::read_to_string(path)?;
            let log = read(&text).map_err(|(message, line)| {
                format!(
                    "{} is not a SARIF 2.1.0 log (line {}: {message}); std/sarif reads SARIF 2.1.0 JSON",
                    relative(path),
                    line.unwrap_or(1)
                )
            })?;
            analysed += log.analysed;
            for tool in log.failed_tools {
                findings.push(
                    Finding::new(format!(
                        "`{tool}` reports that it did not run successfully (executionSuccessful: false)"
                    ))
                    .path(path)
                    .rule("tool-failed"),
                );
            }
            for issue in log.issues {
                unresolved += usize::from(issue.unresolved.is_some());
                suppressed += usize::from(issue.suppressed);
                *by_level.entry(issue.level.name()).or_default() += 1;
                if counts(&issue, &params) {
                    counted.push((relative(path).to_string(), issue));
                }
            }
        }
        let evidence = bounded::evidence(
            j!({"by_level": by_level, "counted": counted.len(), "unresolved_rules": unresolved, "suppressed": suppressed, "suppressions_honored": params.honor_suppressions, "allowed": params.max_results, "runs_with_results": analysed}),
            &[],
        );
        if analysed == 0 && findings.is_empty() {
            let outcome = nothing(params.allow_empty, "no SARIF run has results");
            return Ok(outcome.evidence("sarif-summary.json", "application/json", evidence));
        }
        let too_many = counted.len() > params.max_results;
        if too_many {
            for (log, issue) in &counted {
                let unresolved = issue
                    .unresolved
                    .as_ref()
                    .map(|why| format!(", counted as error: its rule is not found ({why})"))
                    .or_else(|| {
                        issue.driver_says.map(|l| {
                            format!(", counted as {}: sarif-tools reads its rule in tool.driver.rules so", l.name())
                        })
                    })
                    .unwrap_or_default();
                let mut f = Finding::new(format!(
                    "{} [{}]: {} (in {log}{unresolved})",
                    issue.rule,
                    issue.level.name(),
                    clip(&issue.message, 200)
                ))
                .rule(&issue.rule);
                // A line is in the file the result names: without the
                // file, it would read as a line of the log (found by the
                // `sarif` fuzz target).
                if let Some(uri) = &issue.uri {
                    f = f.path(uri);
                    if let Some(line) = issue.line {
                        f = f.line(line);
                    }
                }
                findings.push(f);
            }
        }
        let threshold = params.level.name();
        let outcome = if findings.is_empty() {
            Outcome::pass(format!(
                "{} result(s) at or above `{threshold}` (at most {} allowed)",
                counted.len(),
                params.max_results
            ))
        } else if too_many {
            Outcome::fail(format!(
                "{} result(s) at or above `{threshold}`; at most {} allowed",
                counted.len(),
                params.max_results
            ))
            .findings(findings.into_vec())
        } else {
            Outcome::fail("an analysis did not run successfully").findings(findings.into_vec())
        };
        Ok(outcome.evidence("sarif-summary.json", "application/json", evidence))
    }
}

fn counts(issue: &Issue, params: &Params) -> bool {
    if params.allow_rules.contains(&issue.rule) || (issue.suppressed && params.honor_suppressions) {
        return false;
    }
    params.deny_rules.contains(&issue.rule)
        || (issue.level >= params.level && issue.level != Level::None)
}

/// A SARIF log: its failing results, and whether its analyses ran.
fn read(text: &str) -> Result<Log, (String, Option<u32>)> {
    let doc = json::parse(text).map_err(|e| (e.message, Some(e.line)))?;
    let runs = doc
        .value
        .get("runs")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let analysed = runs
        .iter()
        .filter(|r| r.get("results").is_some_and(Value::is_array))
        .count();
    let failed_tools = runs
        .iter()
        .filter(|r| {
            r.get("invocations")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .any(|i| i.get("executionSuccessful") == Some(&Value::Bool(false)))
        })
        .map(|r| {
            r.pointer("/tool/driver/name")
                .and_then(Value::as_str)
                .unwrap_or("a tool")
                .to_string()
        })
        .collect();
    Ok(Log {
        issues: issues(text)?,
        analysed,
        failed_tools,
    })
}

/// The failing results of a SARIF log.
fn issues(text: &str) -> Result<Vec<Issue>, (String, Option<u32>)> {
    let doc = json::parse(text).map_err(|e| (e.message, Some(e.line)))?;
    let log = &doc.value;
    match log.get("version").and_then(Value::as_str) {
        Some("2.1.0") => {}
        Some(other) => {
            return Err((
                format!("version {other}"),
                doc.position("/version").map(|p| p.0),
            ));
        }
        None => return Err(("no `version` field".into(), Some(1))),
    }
    let runs = log
        .get("runs")
        .and_then(Value::as_array)
        .ok_or(("no `runs` array".to_string(), Some(1)))?;
    let mut out = Vec::new();
    for (r, run) in runs.iter().enumerate() {
        // Not an object: no reader can say what it reports (fail closed).
        if !run.is_object() {
            return Err((format!("runs[{r}] is not an object"), Some(1)));
        }
        // Results kept in an external property file are not read here: a
        // SARIF SDK consumer merges them, so an empty inline list proves
        // nothing (fail closed).
        if run
            .pointer("/externalPropertyFileReferences/results")
            .is_some_and(|r| r.as_array().is_none_or(|a| !a.is_empty()))
        {
            let at = doc
                .position(&format!("/runs/{r}/externalPropertyFileReferences"))
                .map(|p| p.0);
            return Err((
                format!(
                    "runs[{r}] keeps results in an external property file (externalPropertyFileReferences.results), which vcc does not read: inline them"
                ),
                at,
            ));
        }
        // An error-level tool execution notification (`could not parse
        // src/app.js, file skipped`) is a file never analysed: it counts
        // as an error, as GitHub's tool status shows it.
        let invocations = run.get("invocations").and_then(Value::as_array);
        for notification in invocations
            .into_iter()
            .flatten()
            .filter_map(|i| {
                i.get("toolExecutionNotifications")
                    .and_then(Value::as_array)
            })
            .flatten()
            .filter(|n| n.get("level").and_then(Value::as_str) == Some("error"))
        {
            out.push(Issue {
                rule: "(tool execution notification)".into(),
                level: Level::Error,
                message: notification
                    .pointer("/message/text")
                    .and_then(Value::as_str)
                    .unwrap_or("an error-level tool execution notification")
                    .to_string(),
                uri: None,
                line: None,
                unresolved: None,
                driver_says: None,
                suppressed: false,
            });
        }
        let results = run.get("results").and_then(Value::as_array);
        for (i, result) in results.into_iter().flatten().enumerate() {
            if !result.is_object() {
                let at = doc.position(&format!("/runs/{r}/results/{i}")).map(|p| p.0);
                return Err((format!("runs[{r}].results[{i}] is not an object"), at));
            }
            if !a_failure(result) {
                continue;
            }
            let rule = rules::resolve(run, result);
            let rule_id = result
                .get("ruleId")
                .and_then(Value::as_str)
                .or_else(|| result.pointer("/rule/id").and_then(Value::as_str))
                .or_else(|| match &rule {
                    rules::Rule::Found(r) => r.get("id").and_then(Value::as_str),
                    _ => None,
                })
                .unwrap_or("(no rule)")
                .to_string();
            let (mut level, unresolved) = level(result, &rule);
            if let rules::Rule::Found(found) = &rule
                && result.get("level").is_none()
            {
                // An invocation may configure the rule's level: the
                // higher of that and its default (sarif-tools applies it,
                // another reader may not; vcc is the stricter of both).
                level = level.max(rules::overridden(run, found).unwrap_or(Level::None));
            }
            // GitHub code scanning shows a rule of security-severity 9.0 or
            // more as Critical and fails the check: at least an error.
            if let rules::Rule::Found(found) = &rule
                && found
                    .pointer("/properties/security-severity")
                    .and_then(|v| {
                        v.as_f64()
                            .or_else(|| v.as_str().and_then(|t| t.trim().parse().ok()))
                    })
                    .is_some_and(|v: f64| v >= 9.0)
            {
                level = level.max(Level::Error);
            }
            let mut driver_says = None;
            if result.get("level").is_none() {
                // sarif-tools looks for the rule in the driver only: where
                // that reads higher than SARIF's rule, count it so.
                let driver = rules::driver_reading(run, result);
                if driver > level {
                    level = driver;
                    driver_says = Some(driver);
                }
            }
            let location = result.pointer("/locations/0/physicalLocation");
            let uri = location
                .and_then(|l| l.pointer("/artifactLocation/uri"))
                .and_then(Value::as_str)
                .map(uri_path);
            let line = location
                .and_then(|l| l.pointer("/region/startLine"))
                .and_then(Value::as_u64)
                .map(|l| l as u32);
            let message = result
                .pointer("/message/text")
                .or_else(|| result.pointer("/message/markdown"))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            out.push(Issue {
                rule: rule_id,
                level,
                message,
                uri,
                line,
                unresolved,
                driver_says,
                suppressed: suppressed(result),
            });
        }
    }
    Ok(out)
}

/// A result's level (§3.27.10): its own, else its rule's default, else
/// `warning`; `error` when its rule is not found or a level is not one of
/// the four (an unknown word is not a reason to count it less).
/// The path a result's URI names: a `file:` URI (`file:///abs/a.py`,
/// `file://localhost/abs`, `file:/abs`, as ruff and other tools write
/// them) becomes the absolute path, and percent-escapes are decoded
/// (`my%20file.py` is `my file.py`), so the host can show it relative to
/// the deliverable root. A URI whose escapes do not decode to UTF-8 is
/// kept as written rather than guessed at.
fn uri_path(uri: &str) -> String {
    let path = if let Some(rest) = uri.strip_prefix("file://") {
        // `file:///p` and `file://localhost/p` are the local `/p`; any
        // other authority is another machine's file, kept as `//HOST/p`
        // (absolute, so never read as a path under the root).
        match rest.strip_prefix("localhost") {
            Some(local) if local.starts_with('/') => local,
            _ if rest.starts_with('/') => rest,
            _ => return format!("//{rest}"),
        }
    } else if let Some(rest) = uri.strip_prefix("file:").filter(|r| r.starts_with('/')) {
        rest
    } else {
        uri
    };
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push(((hex(h).unwrap_or(0) << 4) | hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| path.to_string())
}

fn level(result: &Value, rule: &rules::Rule) -> (Level, Option<String>) {
    let parse = |v: &Value| v.as_str().and_then(Level::parse).unwrap_or(Level::Error);
    if let Some(own) = result.get("level") {
        return (parse(own), None);
    }
    match rule {
        rules::Rule::Found(r) => (
            r.pointer("/defaultConfiguration/level")
                .map_or(Level::Warning, parse),
            None,
        ),
        rules::Rule::Unnamed => (Level::Warning, None),
        rules::Rule::Unresolved(why) => (Level::Error, Some(why.clone())),
    }
}

/// SARIF's result kinds (§3.27.9) that say the result is not a failure.
const NOT_FAILURES: [&str; 5] = ["pass", "review", "open", "informational", "notApplicable"];

/// Whether a result is read as a failure: kind `fail` or absent; a kind
/// that is not one of SARIF's six (it cannot say "not a failure"); or a
/// non-failure kind with its own level other than `none` (sarif-tools
/// reads the level and not the kind, so the strictest reading counts it).
fn a_failure(result: &Value) -> bool {
    let Some(kind) = result.get("kind") else {
        return true;
    };
    let known = kind.as_str().filter(|k| NOT_FAILURES.contains(k));
    if known.is_none() {
        return true;
    }
    result
        .get("level")
        .is_some_and(|l| l.as_str() != Some("none"))
}

/// Suppressions would hide a result (with `honor_suppressions`) only when
/// there is one and every one is accepted (status absent or `accepted`): one `underReview` or
/// `rejected` beside an accepted one leaves it standing, as the SARIF SDK
/// reads it (§3.34.3).
fn suppressed(result: &Value) -> bool {
    result
        .get("suppressions")
        .and_then(Value::as_array)
        .is_some_and(|s| {
            !s.is_empty()
                && s.iter().all(|s| {
                    s.get("status").is_none()
                        || s.get("status").and_then(Value::as_str) == Some("accepted")
                })
        })
}

vcc_sdk::export_validator!(Sarif);

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = r#"{
  "version": "2.1.0",
  "runs": [{
    "tool": {"driver": {"name": "lint", "rules": [{"id": "R1", "defaultConfiguration": {"level": "error"}}, {"id": "R2"}]}},
    "results": [
      {"ruleId": "R1", "message": {"text": "unused variable"}, "locations": [{"physicalLocation": {"artifactLocation": {"uri": "src/a.rs"}, "region": {"startLine": 7}}}]},
      {"ruleId": "R2", "message": {"text": "style"}},
      {"ruleId": "R2", "level": "note", "message": {"text": "hint"}},
      {"ruleId": "R1", "kind": "pass", "message": {"text": "fine"}},
      {"ruleId": "R1", "suppressions": [{"kind": "inSource"}], "message": {"text": "waived"}}
    ]
  }]
}"#;

    fn params(v: Value) -> Params {
        vcc_sdk::serde_json::from_value(v).unwrap()
    }

    #[test]
    fn file_uris_become_paths_with_escapes_decoded() {
        assert_eq!(uri_path("file:///tmp/ws/src/a.py"), "/tmp/ws/src/a.py");
        assert_eq!(uri_path("file://localhost/tmp/a%20b.py"), "/tmp/a b.py");
        assert_eq!(uri_path("file:/tmp/x.py"), "/tmp/x.py");
        // Another machine's file is never a path under the root.
        assert_eq!(uri_path("file://src/etc/passwd"), "//src/etc/passwd");
        assert_eq!(
            uri_path("file://localhost.evil/x.py"),
            "//localhost.evil/x.py"
        );
        assert_eq!(uri_path("src/caf%C3%A9.py"), "src/café.py");
        assert_eq!(uri_path("src/100%.py"), "src/100%.py");
        assert_eq!(
            uri_path("src/%FF.py"),
            "src/%FF.py",
            "not UTF-8: kept as written"
        );
    }

    #[test]
    fn levels_come_from_results_then_rules_then_warning() {
        let issues = issues(LOG).unwrap();
        let levels: Vec<(&str, Level)> =
            issues.iter().map(|i| (i.rule.as_str(), i.level)).collect();
        assert_eq!(
            levels,
            vec![
                ("R1", Level::Error),
                ("R2", Level::Warning),
                ("R2", Level::Note),
                ("R1", Level::Error)
            ]
        );
        assert_eq!(issues[0].uri.as_deref(), Some("src/a.rs"));
        assert_eq!(issues[0].line, Some(7));
    }

    #[test]
    fn thresholds_and_rule_lists() {
        let issues = issues(LOG).unwrap();
        let n = |p: Params| issues.iter().filter(|i| counts(i, &p)).count();
        // The suppressed R1 counts unless suppressions are honored.
        assert_eq!(n(params(j!({}))), 2);
        assert_eq!(n(params(j!({"honor_suppressions": true}))), 1);
        assert_eq!(n(params(j!({"level": "warning"}))), 3);
        assert_eq!(n(params(j!({"level": "note"}))), 4);
        assert_eq!(n(params(j!({"allow_rules": ["R1"]}))), 0);
        assert_eq!(n(params(j!({"deny_rules": ["R2"]}))), 4);
    }

    #[test]
    fn a_line_without_its_file_is_not_reported() {
        // `artifactLoctaion`: the result has a region but names no file.
        let log = LOG.replace(r#""artifactLocation""#, r#""artifactLoctaion""#);
        let mut files = vcc_sdk::native::Files::default();
        files.add("d", "/deliverables/results.sarif", log.into_bytes());
        let criterion = files.criterion("AC-1", "{}", &["d"]);
        let outcome = files.run(|| Sarif::validate(criterion)).unwrap();
        assert_eq!(outcome.status, vcc_sdk::Status::Fail);
        let f = &outcome.findings[0];
        assert!(
            f.message.starts_with("R1 [error]: unused variable"),
            "{}",
            f.message
        );
        assert_eq!((f.path.as_deref(), f.line), (None, None));
    }

    #[test]
    fn codeql_rules_in_extensions_keep_their_level() {
        let log = r#"{"version": "2.1.0", "runs": [{
          "tool": {"driver": {"name": "CodeQL"}, "extensions": [{"name": "codeql/js-queries", "rules": [{"id": "js/xss", "defaultConfiguration": {"level": "error"}}]}]},
          "results": [
            {"ruleId": "js/xss", "rule": {"id": "js/xss", "index": 0, "toolComponent": {"index": 0}}, "message": {"text": "xss"}},
            {"ruleId": "js/gone", "rule": {"id": "js/gone", "index": 4, "toolComponent": {"index": 0}}, "message": {"text": "?"}},
            {"ruleId": "js/xss", "level": "fatal", "message": {"text": "odd level"}},
            {"message": {"text": "no rule"}}
          ]}]}"#;
        let issues = issues(log).unwrap();
        let levels: Vec<Level> = issues.iter().map(|i| i.level).collect();
        assert_eq!(
            levels,
            [Level::Error, Level::Error, Level::Error, Level::Warning]
        );
        assert_eq!(issues[0].unresolved, None);
        assert!(
            issues[1]
                .unresolved
                .as_deref()
                .unwrap()
                .contains("no rule 4")
        );
    }

    #[test]
    fn a_rule_read_higher_in_the_driver_counts_at_that_level() {
        // Red team 34: the extension's rule 0 is a note, the driver's rule 0
        // an error; sarif-tools reads the driver's.
        let log = r#"{"version": "2.1.0", "runs": [{
          "tool": {"driver": {"name": "CodeQL", "rules": [{"id": "js/code-injection", "defaultConfiguration": {"level": "error"}}]},
                   "extensions": [{"name": "q", "rules": [{"id": "js/eval-call", "defaultConfiguration": {"level": "note"}}]}]},
          "results": [
            {"ruleId": "js/eval-call", "rule": {"id": "js/eval-call", "index": 0, "toolComponent": {"index": 0}}, "message": {"text": "eval"}},
            {"ruleId": "js/eval-call", "level": "note", "rule": {"index": 0, "toolComponent": {"index": 0}}, "message": {"text": "own level"}}
          ]}]}"#;
        let issues = issues(log).unwrap();
        assert_eq!(issues[0].level, Level::Error);
        assert_eq!(issues[0].driver_says, Some(Level::Error));
        assert_eq!(
            (issues[1].level, issues[1].driver_says),
            (Level::Note, None)
        );
    }

    #[test]
    fn a_suppression_under_review_or_rejected_leaves_the_result() {
        let r = |s: Value| suppressed(&j!({ "suppressions": s }));
        assert!(r(j!([{"kind": "inSource"}])));
        assert!(r(j!([{"kind": "external", "status": "accepted"}])));
        assert!(!r(j!([{"status": "accepted"}, {"status": "rejected"}])));
        assert!(!r(j!([{"status": "underReview"}])));
        assert!(!r(j!([])));
    }

    #[test]
    fn kinds_count_as_sarif_tools_and_the_spec_read_them() {
        let f = |v: Value| a_failure(&v);
        assert!(f(j!({})));
        assert!(f(j!({"kind": "fail", "level": "none"})));
        assert!(f(j!({"kind": "FAIL"})));
        assert!(f(j!({"kind": "Pass"})));
        assert!(f(j!({"kind": 3})));
        assert!(f(j!({"kind": "review", "level": "error"})));
        assert!(f(j!({"kind": "pass", "level": "note"})));
        assert!(f(j!({"kind": "open", "level": "fatal"})));
        assert!(!f(j!({"kind": "review"})));
        assert!(!f(j!({"kind": "pass", "level": "none"})));
        assert!(!f(j!({"kind": "notApplicable"})));
        assert!(!f(j!({"kind": "informational"})));
    }

    #[test]
    fn runs_and_results_that_are_not_objects_are_refused() {
        let run = issues(r#"{"version": "2.1.0", "runs": [1]}"#).unwrap_err();
        assert!(run.0.contains("runs[0] is not an object"), "{}", run.0);
        let log =
            r#"{"version": "2.1.0", "runs": [{"results": [{"message": {"text": "a"}}, "b"]}]}"#;
        assert!(issues(log).unwrap_err().0.contains("results[1]"));
    }

    #[test]
    fn critical_rules_external_results_and_tool_errors() {
        let critical = r#"{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"e","rules":[{"id":"x","defaultConfiguration":{"level":"note"},"properties":{"security-severity":"9.8"}}]}},"results":[{"ruleId":"x","ruleIndex":0,"message":{"text":"m"}}]}]}"#;
        let found = issues(critical).unwrap_or_default();
        assert!(found.iter().all(|i| i.level == Level::Error) && found.len() == 1);
        let external = r#"{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"e"}},"externalPropertyFileReferences":{"results":[{"location":{"uri":"x"}}]},"results":[]}]}"#;
        assert!(issues(external).is_err());
        let notified = r#"{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"e"}},"results":[],"invocations":[{"executionSuccessful":true,"toolExecutionNotifications":[{"level":"error","message":{"text":"could not parse"}},{"level":"note","message":{"text":"fine"}}]}]}]}"#;
        let found = issues(notified).unwrap_or_default();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].level, Level::Error);
    }

    #[test]
    fn other_versions_are_refused() {
        assert!(
            issues(r#"{"version": "2.0.0", "runs": []}"#)
                .unwrap_err()
                .0
                .contains("2.0.0")
        );
        assert!(issues("[]").is_err());
    }
}
