//! The verdict log: an append-only file of JSON lines, one per verdict
//! (`vcc check --ledger`, every check and the end of `vcc converge`, the
//! hook, MCP), made tamper-evident the way transparency logs are: an RFC
//! 6962 Merkle tree over the lines, C2SP signed checkpoints, and offline
//! receipts of inclusion. Nothing here depends on wasmtime.

pub mod append;
pub mod checked;
pub mod consistency;
pub mod entry;
pub mod file;
pub mod merkle;
pub mod note;
pub mod receipt;
pub mod stats;
pub mod verify;

pub use append::Repaired;
pub use entry::{Entry, Kind, Outcome};
pub use file::{Appended, Error, Ledger};
pub use verify::{Problem, ProblemKind, Verification, verify};
