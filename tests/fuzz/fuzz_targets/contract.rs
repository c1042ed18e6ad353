//! The contract reader on arbitrary bytes, as YAML and as JSON: parsing
//! and the integrity pass must return problems, never panic, overflow the
//! stack or run away with memory.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    for name in ["contract.yaml", "contract.json"] {
        if let Ok(doc) = vcc_contract::parse(Path::new(name), bytes) {
            let problems = vcc_contract::lint(&doc, None, None);
            // Every problem renders as JSON (the report carries them).
            for p in &problems {
                assert!(serde_json::to_string(p).is_ok());
            }
        }
    }
});
