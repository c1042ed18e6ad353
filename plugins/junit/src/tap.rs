//! TAP (the Test Anything Protocol, versions 12–14) read as test cases:
//! `ok N - name`, `not ok N - name`, `# SKIP` and `# TODO` directives, a
//! plan `1..N`, and `Bail out!`. A stream without a plan, or with fewer
//! tests than it planned, ended early: that is an error case, never a
//! pass. Indented lines (YAML diagnostics, subtests) are not top-level
//! results.

use super::{Case, TestResult};

/// Whether a text is a TAP stream (its first result or header line).
pub fn is_tap(text: &str) -> bool {
    text.lines()
        .map(str::trim_end)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .is_some_and(|l| {
            l.starts_with("TAP version")
                || l.starts_with("1..")
                || l.starts_with("ok")
                || l.starts_with("not ok")
        })
}

pub fn cases(text: &str) -> Vec<Case> {
    let mut out = Vec::new();
    let mut plan: Option<usize> = None;
    let mut last_line = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = (i + 1) as u32;
        last_line = line;
        if raw.starts_with(' ') || raw.starts_with('\t') {
            continue;
        }
        let l = raw.trim_end();
        if let Some(n) = l.strip_prefix("1..") {
            plan = n.split_whitespace().next().and_then(|n| n.parse().ok());
            continue;
        }
        if let Some(reason) = l.strip_prefix("Bail out!") {
            out.push(case(
                line,
                "Bail out!",
                TestResult::Errored(reason.trim().to_string()),
            ));
            return out;
        }
        let (passed, rest) = if let Some(r) = l.strip_prefix("not ok") {
            (false, r)
        } else if let Some(r) = l.strip_prefix("ok") {
            (true, r)
        } else {
            continue;
        };
        let (body, directive) = match rest.split_once('#') {
            Some((b, d)) => (b, d.trim()),
            None => (rest, ""),
        };
        let body = body.trim();
        let number_end = body
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(body.len());
        let name = body[number_end..].trim().trim_start_matches('-').trim();
        let name = if name.is_empty() {
            format!("test {}", &body[..number_end])
        } else {
            name.to_string()
        };
        let upper = directive.to_uppercase();
        let outcome = if upper.starts_with("SKIP") {
            TestResult::Skipped(directive.to_string())
        } else if upper.starts_with("TODO") {
            // A TODO test is expected to fail: not a failure, not a pass.
            TestResult::Skipped(directive.to_string())
        } else if passed {
            TestResult::Passed
        } else {
            TestResult::Failed(String::new())
        };
        out.push(case(line, &name, outcome));
    }
    match plan {
        None => out.push(case(
            last_line,
            "(plan)",
            TestResult::Errored(
                "the TAP stream has no plan `1..N`: it may have stopped early".into(),
            ),
        )),
        Some(n) if out.len() < n => out.push(case(
            last_line,
            "(plan)",
            TestResult::Errored(format!(
                "the plan says 1..{n}, and {} test(s) ran",
                out.len()
            )),
        )),
        _ => {}
    }
    out
}

fn case(line: u32, name: &str, outcome: TestResult) -> Case {
    Case {
        id: name.to_string(),
        name: name.to_string(),
        outcome,
        line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(
            matches!(&c.last().unwrap().outcome, TestResult::Errored(m) if m.contains("no plan"))
        );
        assert!(!is_tap("<testsuite/>"));
    }
}
