//! std/sarif's reader, natively: hostile SARIF logs never panic, never run
//! away, and findings name lines of the file.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    let params = match which % 2 {
        0 => r#"{}"#,
        _ => {
            r#"{"level": "note", "max_results": 1, "deny_rules": ["R1"], "allow_rules": ["R2"], "honor_suppressions": true}"#
        }
    };
    let outcome = vcc_fuzz::judge::<sarif::Sarif>("results.sarif", bytes, params);
    vcc_fuzz::lines_within(&outcome, "results.sarif", bytes);
});
