//! Trust policies: any text read as a policy never panics, never reads a
//! key file without a cap, and a policy that reads holds only what it
//! says (keys it lists, thresholds of at least one).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use vcc_trust::policy::Policy;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Key files are read relative to a folder that does not exist.
    if let Ok(policy) = Policy::parse(Path::new("/nonexistent-vcc-fuzz/trust.yaml"), text) {
        for rule in &policy.rules {
            assert!(
                !rule.require.met(&Default::default()),
                "a bundle rule that needs no signature"
            );
            let keys = rule.require.keys();
            for signer in &keys {
                assert!(
                    policy.keys.contains_key(*signer),
                    "a rule names an unlisted key"
                );
            }
            let unique: std::collections::BTreeSet<&str> = keys.iter().copied().collect();
            assert_eq!(unique.len(), keys.len(), "a key counted twice in one rule");
        }
        for rule in policy.records.iter().chain(&policy.attestations) {
            assert!((1..=rule.signers.len()).contains(&rule.threshold));
            assert!(rule.signers.iter().all(|s| policy.keys.contains_key(s)));
        }
        for signers in policy.roles.values() {
            assert!(signers.iter().all(|s| policy.keys.contains_key(s)));
        }
        let _ = policy.rule_for("acme/lint");
        let _ = policy.check_contract(Path::new("contracts/a.yaml"), "blake3:00");
    }
});
