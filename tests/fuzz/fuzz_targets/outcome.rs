//! What a validator returns, as the host receives it: the cap checks never
//! panic, what they keep is within every cap, and what reaches a report is
//! valid JSON that reads back the same and is free of control characters
//! once cleaned for a terminal.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use vcc_report::output::{EVIDENCE_CAP, Evidence, MAX_FINDINGS, MAX_TEXT, Returned};
use vcc_report::{Finding, Status};

/// The WIT `outcome` record, as arbitrary values.
#[derive(Debug, Arbitrary)]
struct Outcome {
    status: u8,
    summary: String,
    findings: Vec<(
        String,
        Option<String>,
        Option<u32>,
        Option<u32>,
        Option<String>,
    )>,
    evidence: Vec<(String, String, Vec<u8>)>,
}

fuzz_target!(|o: Outcome| {
    let returned = Returned {
        status: match o.status % 4 {
            0 => Status::Pass,
            1 => Status::Fail,
            2 => Status::Skip,
            // Not expressible in WIT, but the check must refuse it anyway.
            _ => Status::Error,
        },
        summary: o.summary,
        findings: o
            .findings
            .into_iter()
            .map(|(message, path, line, column, rule)| Finding {
                message,
                path,
                line,
                column,
                rule,
            })
            .collect(),
        evidence: o
            .evidence
            .into_iter()
            .map(|(name, media_type, bytes)| Evidence {
                name,
                media_type,
                bytes,
            })
            .collect(),
    };
    let Ok(kept) = returned.check() else {
        return;
    };
    assert_ne!(kept.status, Status::Error);
    assert!(kept.findings.len() <= MAX_FINDINGS);
    assert!(kept.evidence.iter().map(|e| e.bytes.len()).sum::<usize>() <= EVIDENCE_CAP);
    assert!(kept.summary.len() <= MAX_TEXT);
    for finding in &kept.findings {
        let json = serde_json::to_string(finding).expect("a finding serializes");
        let back: Finding = serde_json::from_str(&json).expect("and reads back");
        assert_eq!(&back, finding);
        let shown = vcc_report::text::clean(&finding.message);
        assert!(!shown.chars().any(char::is_control));
    }
    assert!(
        !vcc_report::text::clean(&kept.summary)
            .chars()
            .any(char::is_control)
    );
});
