//! Golden cases, including one for each false positive and false negative
//! of the VCC v1 reference (`consistency.simpleCrossCheck`) that this
//! validator avoids (README, "VCC v1": differences from the reference).

use super::*;
use vcc_sdk::native::Files;
use vcc_sdk::{MOUNT, Status};

pub(crate) fn run(files: &[(&str, &str, &str)], params: &str) -> Outcome {
    let mut f = Files::default();
    let mut ids = Vec::new();
    for (id, path, text) in files {
        let full = format!("{MOUNT}/{path}");
        f.add(id, &full, text.as_bytes().to_vec());
        // The host's digest is the bytes' blake3; any injective stand-in
        // tells copies apart the same way.
        f.set_digest(&full, &format!("bytes:{text}"));
        if !ids.contains(id) {
            ids.push(*id);
        }
    }
    f.run(|| Consistency::validate(f.criterion("AC-1", params, &ids)))
        .unwrap()
}

pub(crate) fn rules(o: &Outcome) -> Vec<String> {
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
    assert_eq!(
        rules(&o),
        ["dangling-path", "dangling-path"],
        "{:?}",
        o.findings
    );
    // `T-1` is a list item, `T-3` only in the table: neither is an anchor.
    assert!(
        o.findings[0]
            .message
            .contains("names `T-1`, which is no heading or anchor"),
        "{}",
        o.findings[0].message
    );
    // A heading or an anchor beside the table is one; the document cited
    // whole is the matrix.
    let plan = "# Plan\n\n| Requirement | Design | Test |\n|---|---|---|\n| REQ-1 | plan.md#t-1-size | plan.md |\n\n## T-1: size\n";
    let o = run(
        &[
            ("spec", "spec.md", "- REQ-1: one\n"),
            ("plan", "plan.md", plan),
        ],
        r#"{"trace_matrix": true, "specification": ["spec"]}"#,
    );
    assert_eq!(rules(&o), ["dangling-path"], "{:?}", o.findings);
    assert!(
        o.findings[0]
            .message
            .contains("`plan.md` points into a trace matrix"),
        "{}",
        o.findings[0].message
    );
}

const ONE: &str = "# Requirements\n\n- REQ-1: pages of 100 records.\n";

/// The findings of a spec (`ONE`), a CSV matrix whose REQ-1 row names
/// `implementation` and `test`, and `files`.
fn traced(implementation: &str, test: &str, files: &[(&str, &str)]) -> Vec<String> {
    let matrix = format!("Requirement,Implementation,Tests\nREQ-1,{implementation},{test}\n");
    let mut all = vec![
        ("spec", "spec.md", ONE),
        ("repo", "repo/trace.csv", &matrix),
    ];
    all.extend(files.iter().map(|(p, t)| ("repo", *p, *t)));
    let o = run(&all, r#"{"trace_matrix": true, "specification": ["spec"]}"#);
    o.findings.iter().map(|f| f.message.clone()).collect()
}

#[test]
fn entries_resolve_to_definitions_in_each_language() {
    let files = [
        (
            "repo/src/page.py",
            "class Pager:\n    async def next(self): pass\n",
        ),
        ("repo/tests/test_page.py", "def test_size():\n    pass\n"),
        // `cargo test` builds src/lib.rs: a package's crate root.
        ("repo/Cargo.toml", "[package]\nname = \"page\"\n"),
        (
            "repo/src/lib.rs",
            "#[cfg(test)]\nmod tests {\n    #[test]\n    fn size() {}\n}\n",
        ),
        (
            "repo/web/page.test.ts",
            "test('pages hold 100 records', () => {});\nexport const size = (n: number) => n;\n",
        ),
        // `go test ./...` needs a module around the test file.
        ("repo/go.mod", "module page\n"),
        (
            "repo/go/page_test.go",
            "package page\n\nfunc TestSize(t *testing.T) {}\n",
        ),
        (
            "repo/docs/plan.md",
            "# Test plan\n\n## T-1: page size\n\n<a id=\"T-2\"></a>\n",
        ),
    ];
    for (implementation, test) in [
        ("src/page.py::Pager", "tests/test_page.py::test_size"),
        (
            "src/page.py::Pager::next",
            "tests/test_page.py::test_size[3]",
        ),
        ("src/lib.rs", "src/lib.rs::tests::size"),
        (
            "web/page.test.ts::size",
            "web/page.test.ts::pages hold 100 records",
        ),
        ("go/page_test.go", "go/page_test.go::TestSize"),
        ("src/page.py#L2", "docs/plan.md#T-1"),
        ("src/page.py", "docs/plan.md#T-2"),
    ] {
        let found = traced(implementation, test, &files);
        assert!(found.is_empty(), "{implementation} / {test}: {found:?}");
    }
}

#[test]
fn entries_into_the_matrix_or_the_specification_are_refused() {
    let files = [("repo/src/page.py", "def page(): pass\n")];
    for (test, says) in [
        ("trace.csv", "points into a trace matrix"),
        ("./trace.csv", "points into a trace matrix"),
        ("../spec.md", "is not a path under the deliverable root"),
        (
            "spec.md#requirements",
            "points into a specification document",
        ),
        ("spec.md", "points into a specification document"),
    ] {
        let found = traced("src/page.py", test, &files);
        assert_eq!(found.len(), 1, "{test}: {found:?}");
        assert!(found[0].contains(says), "{test}: {found:?}");
    }
    // A copy of the specification is the specification.
    let found = traced(
        "src/page.py",
        "docs/copy.md#requirements",
        &[("repo/src/page.py", "x\n"), ("repo/docs/copy.md", ONE)],
    );
    assert!(
        found[0].contains("points into a specification document"),
        "{found:?}"
    );
}

#[test]
fn a_mention_is_not_a_definition() {
    let files = [
        ("repo/src/page.py", "def page(): pass\n"),
        (
            "repo/plan.md",
            "# Plan\n\nTests T-1 will be written later.\n",
        ),
        (
            "repo/tests/test_page.py",
            "# def test_size(): to do\nX = 'def test_size()'\n",
        ),
        ("repo/src/Page.java", "class Page { void testSize() {} }\n"),
    ];
    for (test, says) in [
        ("plan.md#T-1", "no heading or anchor"),
        ("tests/test_page.py::test_size", "does not define"),
        ("src/page.py#L9", "past the end"),
        ("src/Page.java::testSize", "reads no definitions"),
    ] {
        let found = traced("src/page.py", test, &files);
        assert_eq!(found.len(), 1, "{test}: {found:?}");
        assert!(found[0].contains(says), "{test}: {found:?}");
    }
}

#[test]
fn without_specification_the_documents_defining_ids_are_the_specification() {
    let matrix = "Requirement,Implementation,Tests\nREQ-1,src/page.py,spec.md#requirements\nREQ-1,src/page.py,plan.md#T-1\n";
    let o = run(
        &[
            ("spec", "spec.md", ONE),
            ("repo", "repo/trace.csv", matrix),
            ("repo", "repo/src/page.py", "def page(): pass\n"),
            ("repo", "repo/plan.md", "# Plan\n\n## T-1: page size\n"),
        ],
        r#"{"trace_matrix": true}"#,
    );
    let messages: Vec<&str> = o.findings.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].contains("`spec.md#requirements` points into a specification document"),
        "{messages:?}"
    );
}

#[test]
fn documents_are_compared_as_a_reader_reads_them() {
    // Each pair reads the same to a reader: a look-alike letter, a
    // character reference, an HTML heading, a comment inside `must not`.
    for (out, inside) in [
        (
            "# Out of Scope\n\n- \u{41e}ffline mode\n",
            "# In Scope\n\n- Offline mode\n",
        ),
        (
            "# Out of Scope\n\n- Off&#108;ine mode\n",
            "# In Scope\n\n- Offline mode\n",
        ),
        (
            "<h2>Out of Scope</h2>\n\n- Offline mode\n",
            "# Goals\n\n- Offline mode\n",
        ),
    ] {
        let o = run(&[("a", "a.md", out), ("b", "b.md", inside)], "{}");
        assert_eq!(rules(&o), ["scope-contradiction"], "{out:?}");
    }
    let o = run(
        &[
            ("a", "a.md", "# Plan\n\nThe server must log every token.\n"),
            (
                "b",
                "b.md",
                "# Design\n\nThe server must <!-- x -->not log every token.\n",
            ),
        ],
        "{}",
    );
    assert_eq!(rules(&o), ["negated-requirement"]);
    assert_eq!(o.findings[0].line, Some(3));
}
