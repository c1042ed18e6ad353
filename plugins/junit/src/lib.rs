//! `std/junit`: JUnit XML reports show zero failures and errors, at least a
//! minimum number of tests, the required tests, and no skipped tests unless
//! allowed.
//!
//! Counts come from the `<testcase>` elements themselves, not from the
//! `tests=`/`failures=` attributes of a suite (which a producer can get
//! wrong). Several report files are judged together. A required test is
//! named as `name`, `class.name`, `class::name` or a pytest node id
//! (`tests/test_api.py::TestX::test_y`); a missing one gets the closest
//! name in the reports as a suggestion. A file that is not a JUnit report
//! (not XML, or another root element) is an error: it says nothing about
//! the tests. A TAP stream (`ok 1 - name`, `1..N`) is read too (tap.rs).

mod tap;

use vcc_plugin_common::bounded::{self, Findings};
use vcc_plugin_common::{clip, xml};
use vcc_sdk::serde::Deserialize;
use vcc_sdk::serde_json::json;
use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator, relative};

pub struct Junit;

#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde", deny_unknown_fields)]
struct Params {
    #[serde(default = "one")]
    min_tests: usize,
    #[serde(default)]
    allow_skipped: bool,
    #[serde(default)]
    required_tests: Vec<String>,
}

fn one() -> usize {
    1
}

#[derive(Debug, Clone, PartialEq)]
enum TestResult {
    Passed,
    Failed(String),
    Errored(String),
    Skipped(String),
}

#[derive(Debug, Clone)]
struct Case {
    /// `classname.name`, or `name` without a class.
    id: String,
    name: String,
    outcome: TestResult,
    line: u32,
}

impl Validator for Junit {
    fn describe() -> Description {
        Description::new(
            "std/junit",
            env!("CARGO_PKG_VERSION"),
            "JUnit XML: no failures or errors, enough tests, required tests present, no skips unless allowed",
        )
        .params_schema(json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "min_tests": { "type": "integer", "minimum": 0, "default": 1, "description": "minimum number of test cases across all reports" },
                "allow_skipped": { "type": "boolean", "default": false, "description": "accept skipped test cases" },
                "required_tests": {
                    "type": "array", "items": { "type": "string", "minLength": 1 },
                    "description": "test names that must be present (and pass): `name`, `class.name`, `class::name` or a pytest node id `tests/test_x.py::test_y`"
                }
            }
        }))
    }

    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params: Params = criterion.params()?;
        let paths: Vec<&str> = criterion.paths().collect();
        if paths.is_empty() {
            return Ok(Outcome::skip("no JUnit report to check"));
        }
        let mut findings = Findings::default();
        let mut all: Vec<Case> = Vec::new();
        let mut per_file = Vec::new();
        for path in &paths {
            let text = vcc_sdk::read_to_string(path)?;
            let cases = if tap::is_tap(&text) {
                tap::cases(&text)
            } else {
                cases(&text).map_err(|(message, line)| {
                    format!(
                        "{} is not a JUnit XML report (line {line}: {message}); std/junit reads <testsuites> or <testsuite> documents, and TAP streams",
                        relative(path)
                    )
                })?
            };
            for case in &cases {
                let (rule, what, message) = match &case.outcome {
                    TestResult::Passed => continue,
                    TestResult::Failed(m) => ("failure", "failed", m),
                    TestResult::Errored(m) => ("error", "errored", m),
                    TestResult::Skipped(_) if params.allow_skipped => continue,
                    TestResult::Skipped(m) => ("skipped", "was skipped", m),
                };
                let detail = if message.is_empty() {
                    String::new()
                } else {
                    format!(": {}", clip(message, 200))
                };
                findings.push(
                    Finding::new(format!("test `{}` {what}{detail}", case.id))
                        .path(path)
                        .line(case.line)
                        .rule(rule),
                );
            }
            per_file.push(json!({"file": relative(path), "summary": summary(&cases)}));
            all.extend(cases);
        }
        if all.len() < params.min_tests {
            findings.push(
                Finding::new(format!(
                    "{} test case(s) found; at least {} required",
                    all.len(),
                    params.min_tests
                ))
                .rule("min-tests"),
            );
        }
        for name in &params.required_tests {
            if !all.iter().any(|c| matches_name(c, name)) {
                let hint = closest(&all, name)
                    .map(|c| format!("; the closest is `{c}`"))
                    .unwrap_or_default();
                findings.push(
                    Finding::new(format!("required test `{name}` is not in the report{hint}"))
                        .rule("required-test"),
                );
            }
        }
        let total = summary(&all);
        let evidence = bounded::evidence(json!({"total_tests": total}), &per_file);
        let outcome = if findings.is_empty() {
            Outcome::pass(format!("{} test(s) passed", total["passed"]))
        } else {
            Outcome::fail(format!(
                "{} failed, {} errored, {} skipped of {} test(s)",
                total["failed"], total["errored"], total["skipped"], total["tests"]
            ))
            .findings(findings.into_vec())
        };
        Ok(outcome.evidence("junit-summary.json", "application/json", evidence))
    }
}

fn matches_name(case: &Case, wanted: &str) -> bool {
    case.name == wanted
        || case.id == wanted
        || case.id.replace('.', "::") == wanted
        || wanted.replace("::", ".") == case.id
        || pytest_id(wanted).is_some_and(|id| id == case.id)
}

/// A pytest node id as pytest's JUnit XML names the test:
/// `tests/test_api.py::TestX::test_y` → `tests.test_api.TestX.test_y`.
fn pytest_id(node: &str) -> Option<String> {
    let (file, rest) = node.split_once("::")?;
    let module = file.strip_suffix(".py")?.replace(['/', '\\'], ".");
    Some(format!("{module}.{}", rest.replace("::", ".")))
}

/// The test id in the reports closest to `wanted` (by edit distance over
/// the dotted forms), if one is close enough to be a likely typo.
fn closest(cases: &[Case], wanted: &str) -> Option<String> {
    let wanted = pytest_id(wanted).unwrap_or_else(|| wanted.replace("::", "."));
    let limit = (wanted.chars().count() / 3).max(3);
    cases
        .iter()
        .filter_map(|c| {
            let d = distance(&c.id, &wanted, limit).min(distance(&c.name, &wanted, limit));
            (d <= limit).then_some((d, &c.id))
        })
        .min()
        .map(|(_, id)| id.clone())
}

/// Levenshtein distance, or `limit + 1` once it is sure to exceed `limit`.
fn distance(a: &str, b: &str, limit: usize) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > limit {
        return limit + 1;
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        let mut best = row[0];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            let next = (row[j + 1] + 1).min(row[j] + 1).min(prev + cost);
            prev = row[j + 1];
            row[j + 1] = next;
            best = best.min(next);
        }
        if best > limit {
            return limit + 1;
        }
    }
    row[b.len()]
}

fn summary(cases: &[Case]) -> vcc_sdk::serde_json::Value {
    let count = |f: fn(&TestResult) -> bool| cases.iter().filter(|c| f(&c.outcome)).count();
    json!({
        "tests": cases.len(),
        "passed": count(|o| *o == TestResult::Passed),
        "failed": count(|o| matches!(o, TestResult::Failed(_))),
        "errored": count(|o| matches!(o, TestResult::Errored(_))),
        "skipped": count(|o| matches!(o, TestResult::Skipped(_))),
    })
}

/// The elements of the JUnit vocabulary: where they may stand is checked.
const VOCABULARY: [&str; 6] = [
    "testsuites",
    "testsuite",
    "testcase",
    "failure",
    "error",
    "skipped",
];

/// The test cases of a report, read where junitparser (the strictest
/// common reader) reads them: `<testcase>` children of a `<testsuite>`
/// (suites nest), the suites children of the root `<testsuites>`, all
/// without a namespace. A test case anywhere else (directly under
/// `<testsuites>`, in an unknown wrapper, in a namespace) is counted by
/// some readers and not by others: the report is refused, naming its line.
fn cases(text: &str) -> Result<Vec<Case>, (String, u32)> {
    let root = xml::parse(text)?;
    if root.name != "testsuites" && root.name != "testsuite" {
        return Err((
            format!(
                "the root element is <{}>, not <testsuites> or <testsuite>",
                root.name
            ),
            root.line,
        ));
    }
    if root.namespaced {
        return Err((
            format!(
                "the root <{}> is in an XML namespace: junitparser and ElementTree readers do not see it as a JUnit report",
                root.name
            ),
            root.line,
        ));
    }
    let mut placed: Vec<&xml::Element> = vec![&root];
    let mut found = Vec::new();
    if root.name == "testsuite" {
        suite(&root, &mut placed, &mut found);
    } else {
        for s in plain_children(&root, "testsuite") {
            placed.push(s);
            suite(s, &mut placed, &mut found);
        }
    }
    misplaced(&root, &placed)?;
    Ok(found.into_iter().map(case).collect())
}

fn plain_children<'a>(
    e: &'a xml::Element,
    name: &'a str,
) -> impl Iterator<Item = &'a xml::Element> + 'a {
    e.children
        .iter()
        .filter(move |c| c.name == name && !c.namespaced)
}

/// The test cases of one suite and of the suites nested in it.
fn suite<'a>(
    s: &'a xml::Element,
    placed: &mut Vec<&'a xml::Element>,
    found: &mut Vec<&'a xml::Element>,
) {
    for c in &s.children {
        if c.namespaced {
            continue;
        }
        if c.name == "testcase" {
            placed.push(c);
            found.push(c);
        } else if c.name == "testsuite" {
            placed.push(c);
            suite(c, placed, found);
        }
    }
}

/// Refuse a suite or test case that is not where it is read, and any
/// JUnit element in a namespace (a reader that ignores namespaces and one
/// that honours them would count different tests or results).
fn misplaced(root: &xml::Element, placed: &[&xml::Element]) -> Result<(), (String, u32)> {
    let mut todo: Vec<(&xml::Element, &xml::Element)> =
        root.children.iter().rev().map(|c| (c, root)).collect();
    while let Some((e, parent)) = todo.pop() {
        if VOCABULARY.contains(&e.name.as_str()) {
            if e.namespaced {
                return Err((
                    format!(
                        "<{}> is in an XML namespace: junitparser does not read it as a JUnit <{}>, other readers do; write JUnit elements without a namespace",
                        e.name, e.name
                    ),
                    e.line,
                ));
            }
            let where_read = matches!(e.name.as_str(), "testcase" | "testsuite" | "testsuites");
            if where_read && !placed.iter().any(|p| std::ptr::eq(*p, e)) {
                return Err((
                    format!(
                        "<{}> inside <{}> (line {}): junitparser reads test cases only as children of a <testsuite>, and suites only under the root; other readers count it, so the report says two things",
                        e.name, parent.name, parent.line
                    ),
                    e.line,
                ));
            }
        }
        todo.extend(e.children.iter().rev().map(|c| (c, e)));
    }
    Ok(())
}

/// A test case and its result: a `<failure>`, `<error>` or `<skipped>`
/// at any depth inside it (junitparser walks every descendant, so one in
/// `<system-out>` or in a wrapper still fails the test), the worst first.
fn case(tc: &xml::Element) -> Case {
    let name = tc.attr("name").unwrap_or("").to_string();
    let id = match tc.attr("classname").filter(|c| !c.is_empty()) {
        Some(class) => format!("{class}.{name}"),
        None => name.clone(),
    };
    let message = |e: &xml::Element| {
        e.attr("message")
            .map(str::to_string)
            .unwrap_or_else(|| e.text.trim().lines().next().unwrap_or("").to_string())
    };
    let first = |n: &'static str| tc.descendants(n).into_iter().find(|e| !e.namespaced);
    let outcome = if let Some(f) = first("failure") {
        TestResult::Failed(message(f))
    } else if let Some(e) = first("error") {
        TestResult::Errored(message(e))
    } else if let Some(s) = first("skipped") {
        TestResult::Skipped(message(s))
    } else {
        TestResult::Passed
    };
    Case {
        id,
        name,
        outcome,
        line: tc.line,
    }
}

vcc_sdk::export_validator!(Junit);

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="99" failures="0">
  <testsuite name="api">
    <testcase classname="api.export" name="paginates" time="0.01"/>
    <testcase classname="api.export" name="filters_by_date">
      <failure message="expected 3 rows, got 4">assertion failed</failure>
    </testcase>
    <testcase classname="api.export" name="streams"><error message="panicked"/></testcase>
    <testcase name="slow_case"><skipped/></testcase>
  </testsuite>
</testsuites>
"#;

    #[test]
    fn counts_come_from_the_cases_not_the_attributes() {
        let c = cases(REPORT).unwrap();
        assert_eq!(
            summary(&c),
            json!({"tests": 4, "passed": 1, "failed": 1, "errored": 1, "skipped": 1})
        );
        assert_eq!(
            c[1].outcome,
            TestResult::Failed("expected 3 rows, got 4".into())
        );
        assert_eq!(c[1].line, 5);
        assert_eq!(c[3].id, "slow_case");
    }

    #[test]
    fn names_match_with_or_without_class() {
        let c = cases(REPORT).unwrap();
        assert!(matches_name(&c[0], "paginates"));
        assert!(matches_name(&c[0], "api.export.paginates"));
        assert!(matches_name(&c[0], "api::export::paginates"));
        assert!(!matches_name(&c[0], "export"));
    }

    #[test]
    fn pytest_node_ids_and_suggestions() {
        let report = r#"<testsuites><testsuite name="pytest">
<testcase classname="tests.test_api" name="test_export" file="tests/test_api.py" line="3"/>
<testcase classname="tests.test_api.TestFilters" name="test_by_date[2024]"/>
</testsuite></testsuites>"#;
        let c = cases(report).unwrap();
        assert!(matches_name(&c[0], "tests/test_api.py::test_export"));
        assert!(matches_name(
            &c[1],
            "tests/test_api.py::TestFilters::test_by_date[2024]"
        ));
        assert!(!matches_name(&c[0], "tests/test_api.py::test_import"));
        assert_eq!(
            closest(&c, "tests/test_api.py::test_exports").as_deref(),
            Some("tests.test_api.test_export")
        );
        assert_eq!(closest(&c, "something_else_entirely"), None);
    }

    #[test]
    fn results_at_any_depth_of_a_case_count() {
        let report = r#"<testsuites><testsuite name="t">
<testcase name="a"><system-out>out<failure message="boom"/></system-out></testcase>
<testcase name="b"><rerun><error message="imp">E</error></rerun></testcase>
<testcase name="c"><properties><skipped/></properties></testcase>
<testcase name="d"><skipped/><failure message="worst"/></testcase>
</testsuite></testsuites>"#;
        let o: Vec<TestResult> = cases(report)
            .unwrap()
            .into_iter()
            .map(|c| c.outcome)
            .collect();
        assert_eq!(
            o,
            [
                TestResult::Failed("boom".into()),
                TestResult::Errored("imp".into()),
                TestResult::Skipped(String::new()),
                TestResult::Failed("worst".into())
            ]
        );
    }

    #[test]
    fn suites_nest_and_cases_outside_them_are_refused() {
        let nested = r#"<testsuite name="a"><testsuite name="b"><testcase name="x"/></testsuite><testcase name="y"/></testsuite>"#;
        assert_eq!(cases(nested).unwrap().len(), 2);
        for (report, line) in [
            (
                "<testsuites>\n<testcase name=\"x\"/>\n<testsuite/></testsuites>",
                2,
            ),
            (
                "<testsuites><testsuite>\n<group><testcase name=\"x\"/></group></testsuite></testsuites>",
                2,
            ),
            (
                "<testsuite><testcase name=\"a\">\n<testcase name=\"x\"/></testcase></testsuite>",
                2,
            ),
            (
                "<testsuites><group>\n<testsuite><testcase/></testsuite></group></testsuites>",
                2,
            ),
            (
                "<testsuites><testsuites><testsuite/></testsuites></testsuites>",
                1,
            ),
        ] {
            let err = cases(report).unwrap_err();
            assert!(
                err.0.contains("junitparser") && err.1 == line,
                "{report}: {err:?}"
            );
        }
    }

    #[test]
    fn namespaced_junit_elements_are_refused() {
        for report in [
            r#"<testsuite><x:testcase xmlns:x="urn:x" name="a"/></testsuite>"#,
            r#"<testsuite><testcase name="a"><x:failure xmlns:x="urn:x"/></testcase></testsuite>"#,
            r#"<testsuite xmlns="urn:x"><testcase name="a"/></testsuite>"#,
            r#"<testsuite><testcase xmlns="urn:x" name="a"/></testsuite>"#,
        ] {
            assert!(
                cases(report).unwrap_err().0.contains("namespace"),
                "{report}"
            );
        }
        let plain =
            r#"<testsuite><testcase name="a"><y:note xmlns:y="urn:y"/></testcase></testsuite>"#;
        assert_eq!(cases(plain).unwrap()[0].outcome, TestResult::Passed);
    }

    #[test]
    fn other_xml_is_not_a_report() {
        assert!(cases("<coverage/>").unwrap_err().0.contains("<coverage>"));
    }
}
