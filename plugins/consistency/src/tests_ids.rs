//! Requirement ids, scope sections, negations and reStructuredText as a
//! reader reads them (issue 34, round 4): `ids.rs`, `doc.rs`, `rst.rs`.

use crate::tests::{rules, run};
use vcc_sdk::Status;

/// A specification defining REQ-1 and `second` (an id written some way),
/// and a matrix covering only REQ-1: the second id must be found.
fn uncovered(second: &str) -> Vec<String> {
    let spec = format!(
        "# Spec\n\n- REQ-1: pages hold 50 items.\n- {second}: the last page has no cursor.\n"
    );
    let matrix = "| Requirement | Implementation | Tests |\n|---|---|---|\n| REQ-1 | src/p.py | tests/test_p.py::test_size |\n";
    let o = run(
        &[
            ("spec", "spec.md", &spec),
            ("repo", "repo/TRACE.md", matrix),
            ("repo", "repo/src/p.py", "def page(): pass\n"),
            ("repo", "repo/tests/test_p.py", "def test_size(): pass\n"),
        ],
        r#"{"trace_matrix": true, "specification": ["spec"]}"#,
    );
    rules(&o)
}

#[test]
fn requirement_ids_are_read_as_shown() {
    for second in [
        "REQ-2",
        "REQ&#45;2",
        "REQ-<span>2</span>",
        "REQ-*2*",
        "REQ-\u{200b}2",
        "REQ\u{2011}2",
        "REQ-\u{ff12}",
        "REQ\u{2010}2",
    ] {
        assert_eq!(uncovered(second), ["uncovered-requirement"], "{second:?}");
    }
    // ASCII is read as written: `REQ-1O` is no second id.
    assert!(uncovered("Not REQ-x").is_empty());
}

#[test]
fn a_matrix_row_is_folded_as_the_specification_is() {
    let spec = "# Spec\n\n- REQ\u{2011}2: the last page has no cursor.\n";
    let matrix = "| Requirement | Implementation | Tests |\n|---|---|---|\n| REQ-2 | src/p.py | tests/test_p.py::test_size |\n";
    let o = run(
        &[
            ("spec", "spec.md", spec),
            ("repo", "repo/TRACE.md", matrix),
            ("repo", "repo/src/p.py", "def page(): pass\n"),
            ("repo", "repo/tests/test_p.py", "def test_size(): pass\n"),
        ],
        r#"{"trace_matrix": true, "specification": ["spec"]}"#,
    );
    assert_eq!(o.status, Status::Pass, "{:?}", o.findings);
}

#[test]
fn an_empty_implementation_file_is_refused() {
    for body in ["", "\n  \n"] {
        let spec = "# Spec\n\n- REQ-1: pages hold 50 items.\n";
        let matrix = "| Requirement | Implementation | Tests |\n|---|---|---|\n| REQ-1 | src/p.py | tests/test_p.py::test_size |\n";
        let o = run(
            &[
                ("spec", "spec.md", spec),
                ("repo", "repo/TRACE.md", matrix),
                ("repo", "repo/src/p.py", body),
                ("repo", "repo/tests/test_p.py", "def test_size(): pass\n"),
            ],
            r#"{"trace_matrix": true, "specification": ["spec"]}"#,
        );
        assert_eq!(rules(&o), ["dangling-path"], "{body:?}");
    }
}

fn contradiction(a: &str, b: &str) -> Vec<String> {
    let (pa, pb) = (if a.contains(".. ") { "a.rst" } else { "a.md" }, "b.md");
    rules(&run(&[("d", pa, a), ("d", pb, b)], "{}"))
}

#[test]
fn negations_read_contractions_clauses_and_headings() {
    let must = "# A\n\nThe server must log every token.\n";
    for b in [
        "# B\n\nThe server mustn't log every token.\n",
        "# B\n\nThe server mustn\u{2019}t log every token.\n",
        "# B\n\nThe server shan't log every token.\n",
        "# B\n\nAlso, the server must not log every token.\n",
        "# B\n\nNote: the server must not log every token.\n",
        "# B\n\nThe client must retry and the server must not log every token.\n",
        "# B\n\nThe server, when idle, must not log every token.\n",
        "# B\n\n## The server must not log every token.\n",
    ] {
        assert_eq!(contradiction(must, b), ["negated-requirement"], "{b:?}");
    }
    // A struck `not`, as `<del>not</del>`.
    let struck = "# B\n\nThe server must <span style=\"text-decoration: line-through\">not</span> log every token.\n";
    // As `<del>`: against a.md, and against its own struck reading.
    assert_eq!(
        contradiction("# A\n\nThe server must not log every token.\n", struck),
        ["negated-requirement", "negated-requirement"]
    );
    // Other subjects still agree.
    let other = "# B\n\nAlso, the client must not log every token.\n";
    assert!(contradiction(must, other).is_empty());
}

#[test]
fn style_character_references_hide_as_decoded() {
    let a =
        "# A\n\nThe server must <span style=\"display&#58;none\">never</span> log every token.\n";
    let b = "# B\n\nThe server must not log every token.\n";
    assert_eq!(contradiction(a, b), ["negated-requirement"]);
}

#[test]
fn scope_sections_are_found_numbered_nested_and_labelled() {
    let a = "# Design\n\n## In Scope\n\n- Offline mode\n";
    for b in [
        "# Plan\n\n## 3. Out of Scope\n\n- Offline mode\n",
        "# Plan\n\n## 2.1 Non-goals\n\n- Offline mode\n",
        "# Plan\n\n## IV. Out of Scope\n\n- Offline mode\n",
        "# Plan\n\n## Out of Scope\n\n### Features\n\n- Offline mode\n",
        "# Plan\n\n**Out of scope:**\n\n- Offline mode\n",
        "# Plan\n\nOut of scope:\n\n- Offline mode\n",
    ] {
        let o = run(&[("d", "a.md", a), ("d", "b.md", b)], "{}");
        assert_eq!(rules(&o), ["scope-contradiction"], "{b:?}");
    }
    // A sibling section after the sub-section is not out of scope.
    let b =
        "# Plan\n\n## Out of Scope\n\n### Features\n\n- Billing\n\n## Later\n\n- Offline mode\n";
    let o = run(&[("d", "a.md", a), ("d", "b.md", b)], "{}");
    assert_eq!(o.status, Status::Pass, "{:?}", o.findings);
}

#[test]
fn rst_constructs_vcc_does_not_render_are_refused() {
    for (text, line) in [
        (
            "Rules\n=====\n\nThe server must n\\ ot log every token.\n",
            4,
        ),
        (
            "Rules\n=====\n\nThe server must |nt| log every token.\n\n.. |nt| replace:: not\n",
            4,
        ),
    ] {
        let o = run(&[("d", "b.rst", text)], "{}");
        assert_eq!(rules(&o), ["rst-unrendered"], "{text:?}");
        assert_eq!(o.findings[0].line, Some(line));
    }
    // A literal block and a grid table are read as they are.
    let ok = "Rules\n=====\n\nExample::\n\n    C:\\path |x|\n\n+-----+\n| a b |\n+-----+\n";
    let o = run(&[("d", "b.rst", ok)], "{}");
    assert_eq!(o.status, Status::Pass, "{:?}", o.findings);
}
