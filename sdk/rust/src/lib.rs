//! Write a vcc validator component in Rust.
//!
//! A validator is a type implementing [`Validator`], exported with
//! [`export_validator!`], built with `cargo build --target wasm32-wasip2`:
//!
//! ```ignore
//! use vcc_sdk::{Criterion, Description, Outcome, Validator};
//!
//! struct NonEmpty;
//!
//! impl Validator for NonEmpty {
//!     fn describe() -> Description {
//!         Description::new("non-empty", "0.1.0", "every target file has bytes")
//!     }
//!     fn validate(criterion: Criterion) -> Result<Outcome, String> {
//!         for path in criterion.paths() {
//!             if vcc_sdk::stat(path)?.size == 0 {
//!                 return Ok(Outcome::fail(format!("{} is empty", vcc_sdk::relative(path))));
//!             }
//!         }
//!         Ok(Outcome::pass("all target files have bytes"))
//!     }
//! }
//!
//! vcc_sdk::export_validator!(NonEmpty);
//! ```
//!
//! A plugin depends on this crate only; the WIT bindings are generated here
//! from the repository's `wit/` folder, never from a copy.

// The generated code names this crate by its public path, so that the
// `export!` macro works from plugin crates; make that path work here too.
extern crate self as vcc_sdk;

#[doc(hidden)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "../../wit",
        world: "plugin",
        pub_export_macro: true,
        default_bindings_module: "vcc_sdk::bindings",
        runtime_path: "vcc_sdk::__wit_bindgen::rt",
    });
}

#[doc(hidden)]
pub use wit_bindgen as __wit_bindgen;

pub use serde;
pub use serde_json;

pub use bindings::vcc::validator::types::{
    Criterion, Description, Evidence, FileInfo, Finding, Outcome, SignatureCheck, SignatureProblem,
    Status, Target,
};

use bindings::vcc::validator::deliverables;

pub mod judge;
#[cfg(not(target_family = "wasm"))]
pub mod native;
use serde::de::DeserializeOwned;

/// Where the host mounts the deliverable root (read-only) for WASI file APIs.
pub const MOUNT: &str = "/deliverables";

/// The version of the `vcc:validator` WIT package this SDK builds against.
pub const WIT_VERSION: &str = "0.1.4";

/// How an `Err` from `validate` says that the params are wrong, not the
/// deliverables: the host then reports reason `invalid_params` (an error,
/// never a fail that an agent would try to fix in the deliverables).
pub const INVALID_PARAMS: &str = "invalid params:";

/// An `Err` for `validate` that blames the params: `invalid params: …`.
pub fn invalid_params(message: impl std::fmt::Display) -> String {
    format!("{INVALID_PARAMS} {message}")
}

/// A validator: describe yourself, then judge one criterion at a time.
///
/// Return `Err` only when the validator itself cannot work (bad schema in
/// params, an internal bug); the host records status `error`. A deliverable
/// that does not meet the criterion is `Ok(Outcome::fail(..))`.
pub trait Validator {
    fn describe() -> Description;
    fn validate(criterion: Criterion) -> Result<Outcome, String>;

    /// Check params (a JSON document that already satisfied the parameter
    /// schema) for what the schema cannot say: a regex that must compile, a
    /// value that must make sense with another. `vcc lint` (and every `vcc
    /// check`, before any run) reports each finding as `INVALID_PARAMS`;
    /// give it a JSON pointer into the params with [`Finding::param`].
    /// Accepts everything unless implemented.
    fn check_params(params: &str) -> Result<(), Vec<Finding>> {
        let _ = params;
        Ok(())
    }
}

/// Export `$t` (a [`Validator`]) as the component's `vcc:validator/validator`.
#[macro_export]
macro_rules! export_validator {
    ($t:ty) => {
        // Only components export: native builds (unit tests, `native`) may
        // link several validators into one program.
        #[cfg(not(target_family = "wasm"))]
        const _: fn($crate::Criterion) -> ::core::result::Result<$crate::Outcome, ::std::string::String> =
            <$t as $crate::Validator>::validate;
        #[cfg(target_family = "wasm")]
        const _: () = {
            struct VccValidatorExport;
            impl $crate::bindings::exports::vcc::validator::params::Guest for VccValidatorExport {
                fn check_params(
                    params: ::std::string::String,
                ) -> ::core::result::Result<(), ::std::vec::Vec<$crate::Finding>> {
                    <$t as $crate::Validator>::check_params(&params)
                }
            }
            impl $crate::bindings::exports::vcc::validator::validator::Guest for VccValidatorExport {
                fn describe() -> $crate::Description {
                    <$t as $crate::Validator>::describe()
                }
                fn validate(
                    criterion: $crate::Criterion,
                ) -> ::core::result::Result<$crate::Outcome, ::std::string::String> {
                    <$t as $crate::Validator>::validate(criterion)
                }
            }
            $crate::bindings::export!(VccValidatorExport with_types_in $crate::bindings);
        };
    };
}

/// Declare the validator stateless: no criterion's outcome depends on an
/// earlier criterion judged by the same instance (no counters, no caches of
/// what was read, in statics or elsewhere). vcc may then judge the next
/// criterion of the same run with the same instance instead of a fresh one,
/// which for small validators is most of the cost of a criterion. Without
/// it, every criterion gets a fresh instance.
///
/// It writes a `vcc:stateless` custom section into the module.
#[macro_export]
macro_rules! stateless {
    () => {
        #[cfg(target_family = "wasm")]
        #[unsafe(link_section = "vcc:stateless")]
        #[used]
        static VCC_STATELESS: [u8; 1] = [1];
    };
}

/// The files of a deliverable of the contract, by id (any deliverable, not
/// only the criterion's targets).
pub fn files(deliverable: &str) -> Result<Vec<FileInfo>, String> {
    #[cfg(not(target_family = "wasm"))]
    if let Some(found) = native::with(|f| f.files(deliverable)) {
        return found;
    }
    deliverables::list_files(deliverable)
}

/// The ids of every deliverable of the contract, in contract order.
pub fn deliverable_ids() -> Vec<String> {
    #[cfg(not(target_family = "wasm"))]
    if let Some(found) = native::with(|f| f.deliverable_ids()) {
        return found;
    }
    deliverables::list_deliverables()
}

/// The bytes of a file the host hashed. Recorded in the report's `files_read`.
pub fn read(path: &str) -> Result<Vec<u8>, String> {
    #[cfg(not(target_family = "wasm"))]
    if let Some(found) = native::with(|f| f.read(path)) {
        return found;
    }
    deliverables::read_file(path)
}

/// The text of a file; an error names the file when it is not UTF-8.
pub fn read_to_string(path: &str) -> Result<String, String> {
    String::from_utf8(read(path)?).map_err(|e| {
        format!(
            "{} is not UTF-8 text (invalid byte at offset {}): read it as bytes with vcc_sdk::read",
            relative(path),
            e.utf8_error().valid_up_to()
        )
    })
}

/// Size and digest of a file, without reading it.
pub fn stat(path: &str) -> Result<FileInfo, String> {
    #[cfg(not(target_family = "wasm"))]
    if let Some(found) = native::with(|f| f.stat(path)) {
        return found;
    }
    deliverables::stat_file(path)
}

/// Who signed a file, as the host verified it against the trust policy
/// (the DSSE envelope beside it, `PATH.dsse.json`, over its exact bytes):
/// the trusted signers' ids (empty unless the policy's threshold is met)
/// and why any signature did not count. The validator never verifies a
/// signature itself. Since vcc:validator@0.1.3.
pub fn signatures(path: &str) -> SignatureCheck {
    #[cfg(not(target_family = "wasm"))]
    if let Some(found) = native::with(|f| f.signatures(path)) {
        return found;
    }
    deliverables::signatures(path)
}

/// A guest path made relative to the deliverable root, for messages.
pub fn relative(path: &str) -> &str {
    path.strip_prefix(MOUNT)
        .map(|rest| rest.trim_start_matches('/'))
        .unwrap_or(path)
}

impl Criterion {
    /// The criterion's params, parsed into `T`. `{}` when the contract gave none.
    /// A params error says `invalid params:` (see [`INVALID_PARAMS`]).
    pub fn params<T: DeserializeOwned>(&self) -> Result<T, String> {
        serde_json::from_str(&self.params)
            .map_err(|err| invalid_params(format!("criterion {}: {err}", self.id)))
    }

    /// Every target file's guest path, in target order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.targets
            .iter()
            .flat_map(|t| t.paths.iter().map(String::as_str))
    }
}

impl Description {
    /// A description accepting no params (`{}` only).
    pub fn new(name: &str, version: &str, summary: &str) -> Self {
        Description {
            name: name.to_string(),
            version: version.to_string(),
            summary: summary.to_string(),
            params_schema: r#"{"type":"object","additionalProperties":false}"#.to_string(),
        }
    }

    /// Set the JSON Schema the host checks `params` against.
    pub fn params_schema(mut self, schema: serde_json::Value) -> Self {
        self.params_schema = schema.to_string();
        self
    }
}

impl Outcome {
    pub fn new(status: Status, summary: impl Into<String>) -> Self {
        Outcome {
            status,
            summary: summary.into(),
            findings: Vec::new(),
            evidence: Vec::new(),
        }
    }
    pub fn pass(summary: impl Into<String>) -> Self {
        Self::new(Status::Pass, summary)
    }
    pub fn fail(summary: impl Into<String>) -> Self {
        Self::new(Status::Fail, summary)
    }
    pub fn skip(summary: impl Into<String>) -> Self {
        Self::new(Status::Skip, summary)
    }
    pub fn finding(mut self, finding: Finding) -> Self {
        self.findings.push(finding);
        self
    }
    pub fn findings(mut self, findings: impl IntoIterator<Item = Finding>) -> Self {
        self.findings.extend(findings);
        self
    }
    pub fn evidence(mut self, name: &str, media_type: &str, bytes: impl Into<Vec<u8>>) -> Self {
        self.evidence.push(Evidence {
            name: name.to_string(),
            media_type: media_type.to_string(),
            bytes: bytes.into(),
        });
        self
    }
}

impl Finding {
    pub fn new(message: impl Into<String>) -> Self {
        Finding {
            message: message.into(),
            path: None,
            line: None,
            column: None,
            rule: None,
        }
    }
    /// In `check_params`: the JSON pointer of the param the finding is
    /// about (`/rules/0/matches`); lint names the contract field from it.
    pub fn param(mut self, pointer: &str) -> Self {
        self.path = Some(pointer.to_string());
        self
    }
    /// The file the finding is about (guest path or relative path).
    pub fn path(mut self, path: &str) -> Self {
        self.path = Some(relative(path).to_string());
        self
    }
    pub fn line(mut self, line: u32) -> Self {
        self.line = Some(line);
        self
    }
    pub fn column(mut self, column: u32) -> Self {
        self.column = Some(column);
        self
    }
    pub fn rule(mut self, rule: &str) -> Self {
        self.rule = Some(rule.to_string());
        self
    }
}
