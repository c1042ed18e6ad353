use std::sync::{Arc, Mutex};

use vcc_sdk::Status;
use vcc_sdk::judge::{Answer, Request};
use vcc_sdk::native::Files;

use super::*;

const PARAMS: &str = r#"{"rubric": {"question": "Is it clear?", "anchors": {"1": "unclear", "5": "clear"}}, "threshold": 4}"#;

/// A report judged by a scripted judge that gives `scores` in turn.
fn judged(params: &str, scores: &[Result<u32, &str>]) -> (Result<Outcome, String>, Vec<Request>) {
    let mut files = Files::default();
    files.add("report", "/deliverables/report.md", b"# Report\n".to_vec());
    files.set_digest("/deliverables/report.md", "blake3:aa");
    let asked = Arc::new(Mutex::new(Vec::new()));
    let scores: Vec<Result<u32, String>> =
        scores.iter().map(|s| s.map_err(str::to_string)).collect();
    let log = asked.clone();
    files.judge(&["editor", "second"], move |r: &Request| {
        let mut log = log.lock().unwrap();
        let n = log.len();
        log.push(r.clone());
        scores[n % scores.len()].clone().map(|s| Answer {
            text: format!(r#"{{"score": {s}, "rationale": "because {n}"}}"#),
            model: "m".into(),
            call: format!("AC#{n}"),
        })
    });
    let outcome = files.run(|| Rubric::validate(files.criterion("AC", params, &["report"])));
    let asked = asked.lock().unwrap().clone();
    (outcome, asked)
}

#[test]
fn agreeing_samples_pass_and_spread_over_the_judges() {
    let (outcome, asked) = judged(PARAMS, &[Ok(5), Ok(4), Ok(5)]);
    let outcome = outcome.unwrap();
    assert_eq!(outcome.status, Status::Pass, "{}", outcome.summary);
    assert!(outcome.summary.contains("3 of 3 samples at or above 4"));
    let who: Vec<(&str, u32)> = asked.iter().map(|r| (r.judge.as_str(), r.sample)).collect();
    assert_eq!(who, vec![("editor", 0), ("second", 0), ("editor", 1)]);
    // The file goes by digest; the threshold is never shown to the judge.
    assert_eq!(asked[0].files, vec!["blake3:aa".to_string()]);
    let text: String = asked[0]
        .messages
        .iter()
        .map(|m| m.content.as_str())
        .collect();
    assert!(text.contains("Is it clear?") && text.contains("5: clear"));
    assert!(!text.contains("threshold"));
    assert_eq!(outcome.findings.len(), 3);
}

#[test]
fn agreeing_low_scores_fail() {
    let (outcome, _) = judged(PARAMS, &[Ok(2), Ok(2), Ok(1)]);
    assert_eq!(outcome.unwrap().status, Status::Fail);
}

#[test]
fn scores_far_apart_are_no_verdict() {
    let (outcome, _) = judged(PARAMS, &[Ok(5), Ok(1), Ok(5)]);
    let outcome = outcome.unwrap();
    assert_eq!(outcome.status, Status::Skip);
    assert!(outcome.summary.contains("disagree"), "{}", outcome.summary);
}

#[test]
fn a_split_below_the_confidence_is_no_verdict() {
    let params = PARAMS.replace(
        r#""threshold": 4"#,
        r#""threshold": 4, "max_variance": 0.25"#,
    );
    let (outcome, _) = judged(&params, &[Ok(4), Ok(3), Ok(4)]);
    let outcome = outcome.unwrap();
    assert_eq!(outcome.status, Status::Skip);
    assert!(outcome.summary.contains("split"), "{}", outcome.summary);
}

#[test]
fn a_sample_without_an_answer_is_an_error() {
    let (outcome, _) = judged(
        PARAMS,
        &[Ok(5), Err("the endpoint answered HTTP 500"), Ok(5)],
    );
    let err = outcome.unwrap_err();
    assert!(err.contains("2 of 3 samples have an answer"), "{err}");
    assert!(err.contains("HTTP 500"), "{err}");
    // Unless the contract accepts fewer.
    let params = PARAMS.replace(r#""threshold": 4"#, r#""threshold": 4, "min_valid": 2"#);
    let (outcome, _) = judged(&params, &[Ok(5), Err("timeout"), Ok(5)]);
    assert_eq!(outcome.unwrap().status, Status::Pass);
}

#[test]
fn a_pdf_is_an_error_naming_its_format() {
    let mut files = Files::default();
    files.add("report", "/deliverables/report.pdf", b"%PDF".to_vec());
    files.judge(&["editor"], |_| Err("never asked".into()));
    let err = files
        .run(|| Rubric::validate(files.criterion("AC", PARAMS, &["report"])))
        .unwrap_err();
    assert!(err.contains("report.pdf is PDF"), "{err}");
}

#[test]
fn params_the_schema_cannot_check() {
    let bad = |params: &str| Rubric::check_params(params).unwrap_err()[0].message.clone();
    assert!(bad(r#"{"rubric": {"question": "q"}, "threshold": 9}"#).contains("outside the scale"));
    assert!(
        bad(r#"{"rubric": {"question": "q", "scale": [3, 1]}, "threshold": 2}"#)
            .contains("increasing")
    );
    assert!(
        bad(r#"{"rubric": {"question": "q", "anchors": {"7": "x"}}, "threshold": 2}"#)
            .contains("anchor `7`")
    );
    assert!(bad(r#"{"rubric": {}, "threshold": 2}"#).contains("asks nothing"));
    assert!(Rubric::check_params(PARAMS).is_ok());
}
