//! JUnit XML: a `<testsuite>` per contract, a `<testcase>` per criterion
//! (its severity in the `classname`: `CONTRACT.MUST`), `fail` as
//! `<failure>`, `error` as `<error>`, `skip` as `<skipped>`, the findings
//! in the body, and `file`/`line` attributes from the first finding that
//! has them. A contract that could not be evaluated is one `<error>` test
//! case, `integrity`, listing its problems. The run's identity (verdict,
//! digests, run id, commit) are suite properties; each judge call of a
//! criterion is a test case property (`vcc.judge.ID`).

use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};
use vcc_report::{Report, Status};

use crate::{contract_name, findings_text, reason_word, severity_word, status_word, verdict_word};

pub fn write(reports: &[Report]) -> String {
    let mut out = quick_junit::Report::new("vcc");
    for r in reports {
        out.add_test_suite(suite(r));
    }
    out.to_string()
        .unwrap_or_else(|e| format!("<!-- the JUnit report could not be written: {e} -->\n"))
}

fn suite(r: &Report) -> TestSuite {
    let name = contract_name(r);
    let mut suite = TestSuite::new(name);
    suite.set_time(Duration::from_millis(r.runtime.duration_ms));
    let mut props = vec![
        ("vcc.verdict", verdict_word(r.verdict).to_string()),
        ("vcc.reason", r.reason.clone()),
        ("vcc.contract.path", r.contract.path.clone()),
        ("vcc.run.id", r.run.id.clone()),
        ("vcc.run.started_at", r.run.started_at.clone()),
        ("vcc.version", r.runtime.vcc_version.clone()),
    ];
    if let Some(d) = &r.contract.digest {
        props.push(("vcc.contract.digest", d.clone()));
    }
    if let Some(d) = &r.deliverables {
        props.push(("vcc.root", d.root_absolute.clone()));
        props.push(("vcc.root.digest", d.root_digest.clone()));
    }
    if let Some(c) = &r.run.commit {
        props.push(("vcc.commit", c.clone()));
    }
    if let Some(j) = &r.judging {
        props.push(("vcc.judging", j.line()));
    }
    if let Some(reused) = &r.reused {
        props.push((
            "vcc.reused",
            format!("{} seq {}", reused.ledger, reused.seq),
        ));
    }
    suite.add_properties(props.into_iter().map(|(k, v)| Property::new(k, v)));
    for c in &r.criteria {
        let mut status = match c.status {
            Status::Pass => TestCaseStatus::success(),
            Status::Fail => TestCaseStatus::non_success(NonSuccessKind::Failure),
            Status::Error => TestCaseStatus::non_success(NonSuccessKind::Error),
            Status::Skip => TestCaseStatus::skipped(),
        };
        if c.status != Status::Pass {
            status.set_message(format!(
                "{} {} ({}): {}",
                severity_word(c.severity),
                status_word(c.status),
                reason_word(c.reason),
                c.summary
            ));
            status.set_type(reason_word(c.reason));
            let body = findings_text(c);
            if !body.is_empty() {
                status.set_description(body);
            }
        }
        let mut case = TestCase::new(c.id.as_str(), status);
        case.set_classname(format!("{name}.{}", severity_word(c.severity)));
        case.set_time(Duration::from_millis(c.duration_ms));
        if let Some(f) = c.findings.iter().find(|f| f.path.is_some()) {
            if let Some(path) = &f.path {
                case.extra.insert("file".into(), path.as_str().into());
            }
            if let Some(line) = f.line {
                case.extra.insert("line".into(), line.to_string().into());
            }
        }
        case.add_properties([
            Property::new("vcc.validator", c.validator.component.as_str()),
            Property::new("vcc.summary", c.summary.as_str()),
        ]);
        if let Some(e) = &c.produced_artifact {
            case.add_property(Property::new("vcc.producedArtifact", e.as_str()));
        }
        // Every judge call, one property each: what answered, and the
        // digests of its prompt and raw response.
        case.add_properties(
            c.judge_calls
                .iter()
                .map(|call| Property::new(format!("vcc.judge.{}", call.id), judge_call(call))),
        );
        suite.add_test_case(case);
    }
    // Every row visible: a contract that ran nothing still shows why.
    if r.criteria.is_empty() {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status.set_message(r.reason.clone());
        status.set_type("invalid");
        let body: String = r
            .problems
            .iter()
            .map(|p| {
                format!(
                    "{}{}: {}: {}\n",
                    p.file,
                    p.line.map(|l| format!(":{l}")).unwrap_or_default(),
                    p.code.as_str(),
                    p.message
                )
            })
            .collect();
        if !body.is_empty() {
            status.set_description(body);
        }
        let mut case = TestCase::new("integrity", status);
        case.set_classname(format!("{name}.contract"));
        suite.add_test_case(case);
    }
    suite
}

/// One judge call as a property value.
fn judge_call(c: &vcc_report::judge::JudgeCall) -> String {
    let outcome = match (&c.answer, &c.error) {
        (_, Some(e)) => format!("error: {e}"),
        (Some(a), None) => format!("answer: {a}"),
        (None, None) => String::new(),
    };
    format!(
        "judge {} ({} {}{}) sample {} from {}: {}; {} tokens; prompt {} response {}",
        c.judge,
        c.provider,
        c.model,
        c.reported_model
            .as_deref()
            .map(|m| format!(", answered by {m}"))
            .unwrap_or_default(),
        c.sample,
        c.source.as_str(),
        outcome,
        c.tokens.total(),
        c.prompt,
        c.response.as_deref().unwrap_or("-")
    )
}
