use super::*;

fn errors(text: &str) -> Vec<String> {
    cases(text)
        .into_iter()
        .filter_map(|c| match c.outcome {
            TestResult::Errored(m) => Some(m),
            _ => None,
        })
        .collect()
}

fn passed(text: &str) -> usize {
    cases(text)
        .iter()
        .filter(|c| c.outcome == TestResult::Passed)
        .count()
}

#[test]
fn results_directives_and_the_plan() {
    let text = "TAP version 13\n1..4\nok 1 - pages\nnot ok 2 - cursor\n  ---\n  message: boom\n  ...\nok 3 - slow # SKIP no network\nnot ok 4 - later # TODO not yet\n";
    assert!(is_tap(text));
    let c = cases(text);
    let got: Vec<(&str, &TestResult, u32)> = c
        .iter()
        .map(|c| (c.name.as_str(), &c.outcome, c.line))
        .collect();
    assert_eq!(got.len(), 4);
    assert_eq!(got[0], ("pages", &TestResult::Passed, 3));
    assert_eq!(got[1], ("cursor", &TestResult::Failed(String::new()), 4));
    assert!(matches!(got[2].1, TestResult::Skipped(_)));
    assert!(matches!(got[3].1, TestResult::Skipped(_)));
}

#[test]
fn a_stream_that_stopped_early_is_an_error() {
    let c = cases("1..3\nok 1 - a\n");
    assert!(matches!(&c.last().unwrap().outcome, TestResult::Errored(m) if m.contains("1..3")));
    let c = cases("ok 1 - a\n");
    assert!(matches!(&c.last().unwrap().outcome, TestResult::Errored(m) if m.contains("no plan")));
    assert!(!is_tap("<testsuite/>"));
}

#[test]
fn okay_is_output_not_a_test() {
    // Issue 34: a plan of 4 with 3 tests and a stray `okay, …` line.
    let e = errors("1..4\nok 1\nok 2\nok 3\nokay, all good\n");
    assert!(e.iter().any(|m| m.contains("1..4, and 3")), "{e:?}");
    assert!(
        errors("1..2\nok 1\nok1\nok 2\n").is_empty(),
        "`ok1` is no test to anyone"
    );
    // `ok,` is a test to TAP::Parser and none to the spec: refused.
    assert!(
        errors("1..2\nok 1\nok,2\n")
            .iter()
            .any(|m| m.contains("no TAP test line"))
    );
    assert!(errors("1..1\nok\t1\n").is_empty());
    assert_eq!(passed("1..2\nok\nok\n"), 2);
}

#[test]
fn numbers_and_plans_are_checked() {
    for bad in [
        "1..2\nok 1\nok 3\n",
        "1..2\nok 1\nok 1\n",
        "1..2\nok 2\nok 1\n",
        "1..2\nok 1\nok 2\nok 3\n",
        "1..2\nok 1\n1..2\nok 2\n",
        "ok 1\n1..3\nok 2\nok 3\n",
        "1..2 # not a plan\nok 1\nok 2\n",
        "ok 1\nTAP version 13\n1..1\n",
        "TAP version 12\n1..1\nok 1\n",
    ] {
        assert!(!errors(bad).is_empty(), "{bad:?} should be refused");
    }
    for good in [
        "ok 1\nok 2\n1..2\n",
        "1..0 # SKIP nothing here\n",
        "1..0\n",
        "1..2\nok 1\nok 02\n",
    ] {
        assert!(errors(good).is_empty(), "{good:?}: {:?}", errors(good));
    }
}

#[test]
fn directives_follow_tap_parser() {
    let c = cases("1..3\nnot ok 1 - a \\# TODO x\nok 2 # skipped\nok 3 #skip: later\n");
    assert_eq!(
        c[0].outcome,
        TestResult::Failed(String::new()),
        "an escaped # is no directive"
    );
    assert_eq!(
        c[1].outcome,
        TestResult::Passed,
        "`skipped` is not the word SKIP"
    );
    assert!(matches!(c[2].outcome, TestResult::Skipped(_)));
    let c = cases("1..1\nnot ok 1 # SKIP no net\n");
    assert!(
        matches!(c[0].outcome, TestResult::Failed(_)),
        "SKIP excuses no failure"
    );
    let c = cases("1..1\nnot ok 1 - a \\\\# TODO x\n");
    assert!(
        matches!(c[0].outcome, TestResult::Skipped(_)),
        "an escaped backslash"
    );
}

#[test]
fn bail_out_and_yaml_blocks() {
    // Bail out ends the run at any depth.
    assert!(!errors("1..2\nok 1\n    Bail out! db down\nok 2\n").is_empty());
    // A YAML block that test lines interrupt hides them from TAP::Parser.
    assert!(!errors("TAP version 13\n1..3\nok 1\n  ---\nok 2\nok 3\n  ...\n").is_empty());
    assert!(!errors("TAP version 13\n1..1\nok 1\n  ---\n  a: 1\n").is_empty());
    assert!(
        !errors("TAP version 14\n1..2\nok 1\n  ---\n  ...\nok 2\n").is_empty(),
        "an empty block"
    );
    let good = "TAP version 13\n1..2\nok 1\n  ---\n  a: 1\n  ...\nok 2\n";
    assert!(errors(good).is_empty(), "{:?}", errors(good));
    // Subtests (TAP 14) are indented: the parent line counts.
    let sub = "TAP version 14\n1..1\n# Subtest: a\n    ok 1 - inner\n    1..1\nok 1 - a\n";
    assert!(errors(sub).is_empty());
    assert_eq!(passed(sub), 1);
}

#[test]
fn a_failing_subtest_fails_under_an_ok_parent() {
    let text = "TAP version 14\n1..2\n# Subtest: inner\n    1..2\n    ok 1 - a\n    not ok 2 - b\nok 1 - inner\nok 2 - c\n";
    let c = cases(text);
    assert!(
        c.iter()
            .any(|c| c.line == 6 && matches!(c.outcome, TestResult::Failed(_))),
        "the subtest's not ok"
    );
    // Without the version line tap-parser still says not ok.
    let c = cases("1..1\n    1..1\n    not ok 1 - b\nok 1 - inner\n");
    assert!(c.iter().any(|c| matches!(c.outcome, TestResult::Failed(_))));
    // A TODO subtest is no failure.
    let c = cases("1..1\n    1..1\n    not ok 1 - b # TODO later\nok 1 - inner\n");
    assert!(
        c.iter()
            .all(|c| !matches!(c.outcome, TestResult::Failed(_) | TestResult::Errored(_)))
    );
}

#[test]
fn pragma_strict_refuses_non_tap_lines() {
    let text = "TAP version 14\npragma +strict\n1..2\nok 1 - a\nsomething unexpected\nok 2 - c\n";
    assert!(!errors(text).is_empty());
    // Off again, or never on: output lines are not judged.
    let off = "TAP version 14\npragma +strict\npragma -strict\n1..2\nok 1 - a\nnoise\nok 2 - c\n";
    assert!(errors(off).is_empty(), "{:?}", errors(off));
    assert!(errors("TAP version 14\n1..1\nnoise\nok 1\n").is_empty());
    let fine = "TAP version 14\npragma +strict\n1..1\n# note\n\n    ok 1 - sub\n    1..1\nok 1\n";
    assert!(errors(fine).is_empty(), "{:?}", errors(fine));
}
