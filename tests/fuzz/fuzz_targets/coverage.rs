//! std/coverage's readers (lcov and Cobertura XML), natively: hostile
//! coverage reports never panic and never run away.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    let (name, params) = match which % 3 {
        0 => ("lcov.info", r#"{"min": 80}"#),
        1 => ("coverage.xml", r#"{"min": 50, "per_file_min": 10}"#),
        _ => (
            "coverage.out",
            r#"{"min": 1, "include": ["src/**"], "exclude": ["**/gen/**"]}"#,
        ),
    };
    let outcome = vcc_fuzz::judge::<coverage::Coverage>(name, bytes, params);
    vcc_fuzz::lines_within(&outcome, name, bytes);
});
