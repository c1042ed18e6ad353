//! Trust, bundles and records: what binds a contract beyond its text
//! (vcc.lock, the trust policy, bases), keys, bundles and the bundle store,
//! approvals, attestations, the verdict log and `vcc record`.

pub mod approvals;
pub mod attest;
pub mod binding;
pub mod bundles;
pub mod judges;
pub mod key;
pub mod ledger;
pub mod ledger_proofs;
pub mod record;
pub mod refresh;
pub mod store_cmd;
