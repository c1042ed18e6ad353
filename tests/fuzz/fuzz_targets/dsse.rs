//! DSSE envelopes, as bundle signatures, approvals and signed records
//! arrive: any bytes read as an envelope never panic, and nothing in them
//! verifies against a key they were not signed with.
#![no_main]

use std::path::Path;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use vcc_trust::dsse::Envelope;
use vcc_trust::keys::{PrivateKey, PublicKey};
use vcc_trust::policy::Policy;

/// A key no input was signed with.
fn key() -> &'static PublicKey {
    static KEY: OnceLock<PublicKey> = OnceLock::new();
    KEY.get_or_init(|| PrivateKey::generate().expect("a key").public())
}

/// A trust policy naming only that key, as a reviewer's role.
fn policy() -> &'static Policy {
    static POLICY: OnceLock<Policy> = OnceLock::new();
    POLICY.get_or_init(|| {
        let pem = key().to_pem().replace('\n', "\n      ");
        let text = format!(
            "trust: 1\nkeys:\n  - id: reviewer\n    public_key: |\n      {pem}\nroles:\n  Reviewer: [reviewer]\n"
        );
        Policy::parse(Path::new("/fuzz/trust.yaml"), &text).expect("the fuzz policy reads")
    })
}

fuzz_target!(|data: &[u8]| {
    if let Ok(envelope) = serde_json::from_slice::<Envelope>(data) {
        assert!(
            !envelope.signed_by(key()),
            "an envelope verified with a key nobody signed with"
        );
        let _ = envelope.payload_bytes();
        // What is read back is what was written.
        let again: Envelope =
            serde_json::from_slice(&serde_json::to_vec(&envelope).expect("an envelope serializes"))
                .expect("a written envelope reads back");
        assert_eq!(again, envelope);
    }
    if let Ok(statement) = vcc_trust::approval::read(data) {
        assert!(statement.contract_digest.starts_with("blake3:"));
        assert!(statement.root_digest.starts_with("blake3:"));
        assert!(
            statement.signers(Some(policy())).is_err(),
            "an approval verified with a key nobody signed with"
        );
    }
});
