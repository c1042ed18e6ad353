//! Standard validators on large inputs: what they return stays under the
//! host's output caps (10,000 findings, 4 MiB of evidence, 64 KiB per
//! string), so a big honest input is judged — pass or fail — and never
//! turns into an `output_limit` error.

use serde_json::Value;
use vcc_test_support::Scratch;

use crate::check_json;

/// Evidence bytes of every item, and the finding count, of one criterion.
fn sizes(criterion: &Value) -> (u64, usize) {
    let evidence = criterion["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["size"].as_u64().unwrap())
        .sum();
    (evidence, criterion["findings"].as_array().unwrap().len())
}

/// The budget is generous on purpose: these cases test the output caps,
/// not the clock, and a loaded machine (every core busy) must not turn an
/// honest pass into a timeout.
fn contract(scratch: &Scratch, validator: &str, path: &str, params: &str) -> std::path::PathBuf {
    scratch.write(
        "contract.yaml",
        format!(
            "vcc: 1\nid: large\ndeliverables:\n  - {{ id: d, path: {path:?} }}\nvalidators:\n  v: {{ component: {validator} }}\ncriteria:\n  - {{ id: AC-1, severity: must, validator: v, targets: [d], params: {params}, limits: {{ timeout: 900s }} }}\n"
        ),
    )
}

#[test]
fn text_match_over_100000_files() {
    let scratch = Scratch::new();
    for i in 0..100_000 {
        scratch.write(
            &format!("src/m{:03}/f{i}.rs", i % 500),
            format!("// SPDX-License-Identifier: Apache-2.0\nfn f{i}() {{}} // TODO\n"),
        );
    }
    let path = contract(
        &scratch,
        "std/text-match",
        "src",
        "{ must_match: [SPDX-License-Identifier], must_not_match: [TODO] }",
    );
    let run = check_json(&path, &[]);
    let c = run.criterion("AC-1");
    assert_eq!(c["status"], "fail", "{}", c["summary"]);
    assert_eq!(c["reason"], "validator");
    assert!(
        c["summary"]
            .as_str()
            .unwrap()
            .contains("100000 problem(s) in 100000 file(s)"),
        "{}",
        c["summary"]
    );
    let (evidence, findings) = sizes(&c);
    assert!(findings <= 1_001, "{findings} findings");
    assert!(evidence <= 4 << 20, "{evidence} bytes of evidence");
    assert_eq!(run.json()["deliverables"]["files"], 100_001);

    // The same tree passes when the rule holds: a pass, not a skip or error.
    let path = contract(
        &scratch,
        "std/text-match",
        "src",
        "{ must_match: [SPDX-License-Identifier] }",
    );
    let run = check_json(&path, &[]);
    assert_eq!(run.code, 0, "{}", run.criterion("AC-1")["summary"]);
}

#[test]
fn citation_coverage_over_5000_documents() {
    let scratch = Scratch::new();
    let paragraph = "Export latency fell by half after the change to cursors. \
        Nobody measured the cost of the new index on writes. \
        The vendor confirmed the numbers in two separate reviews [1].\n\n\
        ## References\n\n1. Vendor review of cursor pagination, 2026.\n";
    for i in 0..5_000 {
        scratch.write(
            &format!("reports/r{i:04}.md"),
            format!("# Report {i}\n\n{paragraph}"),
        );
    }
    let path = contract(
        &scratch,
        "std/citation-coverage",
        "reports",
        "{ min_coverage: 0.9 }",
    );
    let run = check_json(&path, &[]);
    let c = run.criterion("AC-1");
    assert_eq!(c["status"], "fail", "{}", c["summary"]);
    assert_eq!(c["reason"], "validator");
    let summary = c["summary"].as_str().unwrap();
    assert!(summary.len() < 2_000, "the summary is cut: {summary}");
    assert!(summary.contains("and 4990 more"), "{summary}");
    let (evidence, findings) = sizes(&c);
    assert!(findings <= 1_001, "{findings} findings");
    assert!(evidence <= 4 << 20, "{evidence} bytes of evidence");
}
