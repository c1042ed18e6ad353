//! std/junit's reader (JUnit XML and TAP), natively: hostile test reports
//! never panic, never run away, and findings name lines of the file.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    let (name, params) = match which % 3 {
        0 => ("report.xml", r#"{}"#),
        1 => ("report.tap", r#"{"min_tests": 2, "allow_skipped": true}"#),
        _ => ("report.xml", r#"{"required_tests": ["a.b", "test_x"]}"#),
    };
    let outcome = vcc_fuzz::judge::<junit::Junit>(name, bytes, params);
    vcc_fuzz::lines_within(&outcome, name, bytes);
});
