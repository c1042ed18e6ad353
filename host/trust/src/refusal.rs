//! Why something is not trusted, with a stable code tools can match on.
//!
//! The codes are the contract crate's problem codes, so a refusal reads
//! the same in `vcc bundle verify` and in a `vcc check` report.

use serde::Serialize;
pub use vcc_contract::Code;

/// Something refused: its code and, in words, why.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Refusal {
    pub code: Code,
    pub message: String,
}

impl Refusal {
    pub fn new(code: Code, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
        }
    }

    /// As a problem of a check's report, about `file`.
    pub fn problem(&self, file: &str) -> vcc_contract::Problem {
        vcc_contract::Problem {
            code: self.code,
            level: vcc_contract::Level::Error,
            message: self.message.clone(),
            file: file.to_string(),
            field: None,
            line: None,
            column: None,
            help: None,
        }
    }
}
