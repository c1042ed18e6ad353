//! The trust chain for validators that come from elsewhere: Ed25519 keys,
//! DSSE envelopes over in-toto Statements, validator bundles as OCI image
//! layouts, the trust policy that says whose signatures count, `vcc.lock`,
//! and the local store of pulled bundles.
//!
//! Nothing here runs a component or opens a network connection: the
//! runtime and the registry client build on it. Every refusal carries a
//! stable [`Code`](refusal::Code).

pub mod approval;
pub mod bundle;
pub mod dirs;
pub mod dsse;
pub mod keys;
pub mod layout;
pub mod lock;
pub mod policy;
pub mod refusal;
pub mod renewal;
pub mod select;
pub mod store;
pub mod store_admin;
pub mod verify;

pub use refusal::{Code, Refusal};
