//! Golden cases, including one for each false positive and false negative
//! of the VCC v1 reference (`consistency.simpleCrossCheck`) that this
//! validator avoids (README, "VCC v1": differences from the reference).

use super::*;
use vcc_sdk::Status;
use vcc_sdk::native::Files;

fn run(files: &[(&str, &str, &str)], params: &str) -> Outcome {
    let mut f = Files::default();
    let mut ids = Vec::new();
    for (id, path, text) in files {
        f.add(id, &format!("{MOUNT}/{path}"), text.as_bytes().to_vec());
        if !ids.contains(id) {
            ids.push(*id);
        }
    }
    f.run(|| Consistency::validate(f.criterion("AC-1", params, &ids)))
        .unwrap()
}

fn rules(o: &Outcome) -> Vec<String> {
    o.findings.iter().filter_map(|f| f.rule.clone()).collect()
}

#[test]
fn reference_false_positive_shared_words_are_not_a_contradiction() {
    // The reference flags this pair: `logged` is near `must not` in both.
    let o = run(
        &[
            ("a", "a.md", "# Security\n\nPasswords must not be logged.\n"),
            ("b", "b.md", "# Ops\n\nRequest tokens must not be logged.\n"),
        ],
        "{}",
    );
    assert_eq!(o.status, Status::Pass, "{:?}", o.findings);
}

#[test]
fn reference_false_positive_substring_of_an_in_scope_line() {
    // The reference finds "api" inside "API pagination" and flags it.
    let o = run(
        &[
            ("a", "a.md", "# Out of Scope\n\n- API\n"),
            ("b", "b.md", "# In Scope\n\n- API pagination\n"),
        ],
        "{}",
    );
    assert_eq!(o.status, Status::Pass, "{:?}", o.findings);
}

#[test]
fn reference_false_negative_a_scope_heading_it_does_not_know() {
    // The reference reads only "In Scope" and "Objectives" headings.
    let o = run(
        &[
            ("a", "a.md", "# Non-goals\n\n- Changing the export format\n"),
            (
                "b",
                "b.md",
                "## Scope\n\n- Changing the **export format**.\n",
            ),
        ],
        "{}",
    );
    assert_eq!(rules(&o), ["scope-contradiction"]);
    assert_eq!(o.findings[0].line, Some(3));
}

#[test]
fn a_must_and_a_must_not_on_the_same_subject_contradict() {
    let o = run(
        &[
            ("a", "a.md", "The export API must return a cursor.\n"),
            (
                "b",
                "b.md",
                "Intro.\n\nThe export API must not return a cursor.\n",
            ),
        ],
        "{}",
    );
    assert_eq!(rules(&o), ["negated-requirement"]);
    assert_eq!(o.findings[0].line, Some(3));
}

const SPEC: &str = "# Requirements\n\n- REQ-1: pages of 100\n- REQ-2: a cursor\n";

#[test]
fn reference_false_negative_a_missing_trace_matrix_is_not_a_pass() {
    // The reference ignores requireTraceMatrix and passes.
    let o = run(&[("spec", "spec.md", SPEC)], r#"{"trace_matrix": true}"#);
    assert_eq!(o.status, Status::Fail);
    assert_eq!(rules(&o), ["no-trace-matrix"]);
}

#[test]
fn every_requirement_traces_to_code_and_tests_that_exist() {
    let matrix = "| Requirement | Implementation | Tests |\n|---|---|---|\n| REQ-1 | `src/page.py` | `tests/test_page.py::test_size` |\n| REQ-2 | src/cursor.py | |\n| REQ-9 | src/x.py | tests/t.py |\n";
    let o = run(
        &[
            ("spec", "spec.md", SPEC),
            ("repo", "repo/TRACE.md", matrix),
            ("repo", "repo/src/page.py", "def page(): pass\n"),
            ("repo", "repo/tests/test_page.py", "def test_size(): pass\n"),
        ],
        r#"{"trace_matrix": true}"#,
    );
    let found: Vec<(String, Option<u32>, String)> = o
        .findings
        .iter()
        .map(|f| (f.rule.clone().unwrap(), f.line, f.message.clone()))
        .collect();
    let rules: Vec<&str> = found.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(
        rules,
        [
            "dangling-path",
            "unknown-requirement",
            "dangling-path",
            "dangling-path",
            "no-test"
        ],
        "{found:#?}"
    );
    assert_eq!(found[1].1, Some(5));
    assert!(found[0].2.contains("src/cursor.py"), "{}", found[0].2);
    assert_eq!(
        found[4].1,
        Some(4),
        "REQ-2 is defined on line 4 of the spec"
    );
}

#[test]
fn a_complete_matrix_passes() {
    let matrix = "Requirement,Implementation,Tests\nREQ-1,src/page.py,tests/test_page.py::test_size\nREQ-2,src/page.py,tests/test_page.py\n";
    let o = run(
        &[
            ("spec", "spec.md", SPEC),
            ("repo", "repo/trace.csv", matrix),
            ("repo", "repo/src/page.py", "x\n"),
            ("repo", "repo/tests/test_page.py", "def test_size(): pass\n"),
        ],
        r#"{"trace_matrix": true, "specification": ["spec"]}"#,
    );
    assert_eq!(o.status, Status::Pass, "{:?}", o.findings);
    assert!(
        o.summary.contains("2 requirement(s) traced"),
        "{}",
        o.summary
    );
}

#[test]
fn nothing_to_read_is_not_a_pass() {
    let o = run(&[("code", "src/a.py", "x = 1\n")], "{}");
    assert_eq!(o.status, Status::Skip);
}

#[test]
fn a_matrix_row_does_not_make_its_own_anchor_exist() {
    let plan = "# Plan\n\n| Requirement | Design | Test |\n|---|---|---|\n| REQ-1 | plan.md#T-1 | plan.md#T-3 |\n\n- T-1: something\n";
    let o = run(
        &[
            ("spec", "spec.md", "- REQ-1: one\n"),
            ("plan", "plan.md", plan),
        ],
        r#"{"trace_matrix": true, "specification": ["spec"]}"#,
    );
    assert_eq!(rules(&o), ["dangling-path"], "{:?}", o.findings);
    assert!(
        o.findings[0].message.contains("`T-3`"),
        "{}",
        o.findings[0].message
    );
}
