//! The vcc contract: its model, its parser and its integrity pass.
//!
//! This crate knows nothing of wasmtime, so other tools can read and lint
//! contracts without pulling in a WebAssembly runtime. Validators are loaded
//! through the [`lint::Catalog`] trait, which the runtime implements.

mod adapters;
pub mod brief;
pub mod compose;
pub mod contract_files;
mod document;
pub mod exclude;
pub mod files;
mod gates;
mod judges;
pub mod lint;
pub mod model;
pub mod parse;
pub mod paths;
pub mod problem;
pub mod sources;
mod spans;
pub mod units;
pub mod vcc1;
pub mod view;

pub use adapters::lint_adapters;
pub use document::lexical;
pub use exclude::{Decision, Excludes, IgnoreFile};
pub use lint::{
    Catalog, ValidatorInfo, check_bundle_name, check_item_name, lint, params_key, require_signed,
};
pub use model::{
    BUILTIN_PREFIX, Budget, Contract, Criterion, Deliverable, Extends, FailAction, GeneratedFrom,
    Judge, JudgeParams, Limits, OnFail, Provider, Severity, TaskClass, ValidatorRef,
};
pub use parse::{Document, Kept, MAX_CONTRACT_BYTES, parse, parse_all};
pub use problem::{Code, FieldPath, Level, Problem};
pub use sources::{LOCK_FILE, Sources, load, load_all};
pub use units::{ByteSize, DurationSpec};

/// The JSON Schema of the contract format (`vcc schema`, and the committed
/// copy in `contracts/vcc-contract.schema.json`).
pub fn json_schema() -> serde_json::Value {
    let mut schema =
        serde_json::to_value(schemars::schema_for!(Contract)).unwrap_or(serde_json::Value::Null);
    if let Some(obj) = schema.as_object_mut() {
        obj.insert("$id".into(), "urn:vcc:contract:1".into());
    }
    schema
}
