//! Signatures as the host verified them (`signatures`, vcc:validator@0.1.3):
//! a validator never checks a signature itself, it asks the host, which
//! verifies against the trust policy's signers for records.

/// Who signed the record at `path`, as the host verified it, and what is
/// wrong: an unsigned record, an unknown key, a signature over other bytes
/// (each the host's stable code), or no signer among `allowed`.
pub fn check(path: &str, allowed: &[String]) -> (Vec<String>, Vec<(String, String)>) {
    let check = vcc_sdk::signatures(path);
    if check.signers.is_empty() {
        let mut problems: Vec<(String, String)> = check
            .problems
            .into_iter()
            .map(|p| {
                (
                    p.code,
                    format!("the record is not signed by a trusted key: {}", p.message),
                )
            })
            .collect();
        if problems.is_empty() {
            problems.push((
                "unsigned".into(),
                "the record is not signed by a trusted key".into(),
            ));
        }
        return (Vec::new(), problems);
    }
    if !allowed.is_empty() && !check.signers.iter().any(|s| allowed.contains(s)) {
        return (
            check.signers.clone(),
            vec![(
                "not-an-allowed-signer".into(),
                format!(
                    "the record is signed by {}, not by {} as the contract asks",
                    check.signers.join(", "),
                    allowed.join(" or ")
                ),
            )],
        );
    }
    (check.signers, Vec::new())
}
