//! `vcc record` files as std/exit-record reads them, natively: a hostile
//! record never panics, and one not sealed by its `record_digest` never
//! passes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vcc_sdk::Status;

fuzz_target!(|data: &[u8]| {
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    let params = match which % 2 {
        0 => r#"{"allow_cwd_outside_root": true}"#,
        _ => r#"{"command": ["cargo", "test"], "require_inputs": true, "check_output": false}"#,
    };
    let outcome = vcc_fuzz::judge::<exit_record::ExitRecord>("test.record.json", bytes, params);
    vcc_fuzz::lines_within(&outcome, "test.record.json", bytes);
    if let Ok(o) = &outcome
        && o.status == Status::Pass
    {
        // A pass means the record is sealed: its digest is its own.
        let record: serde_json::Value =
            serde_json::from_slice(bytes).expect("a passing record is JSON");
        let claimed = record[vcc_record::DIGEST_FIELD]
            .as_str()
            .unwrap_or_default();
        assert_eq!(
            claimed,
            vcc_record::digest(&record),
            "an unsealed record passed"
        );
    }
});
