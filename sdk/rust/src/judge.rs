//! Ask the AI judges the contract grants this criterion, through the host
//! (vcc:validator@0.1.4).
//!
//! The validator writes the question and names the files to judge by
//! digest; the host adds the files' text as delimited, untrusted data,
//! calls the judge the verifier's configuration allows, with the model and
//! sampling the contract pins, and records the call. The validator never
//! holds a key, picks a model or sees the network. An `Err` answer is a
//! call that has no answer (an endpoint error, a timeout, a budget spent, a
//! miss in a replayed session, an answer that does not match the schema):
//! never guess one in its place.
//!
//! ```ignore
//! use vcc_sdk::judge::{self, Request};
//!
//! let asks: Vec<Request> = (0..3)
//!     .map(|sample| {
//!         Request::new("", sample)
//!             .system("Grade the report from 1 to 5.")
//!             .user("Does the report answer the question?")
//!             .file(&info.digest)
//!             .schema(serde_json::json!({"type": "object", "properties": {"score": {"type": "integer"}}, "required": ["score"], "additionalProperties": false}))
//!     })
//!     .collect();
//! for answer in judge::complete(&asks) { /* … */ }
//! ```

pub use crate::bindings::vcc::validator::judge::{Answer, Message, Request};

/// The judges the criterion grants, in its order (empty: none).
pub fn judges() -> Vec<String> {
    #[cfg(not(target_family = "wasm"))]
    if let Some(found) = crate::native::with(|f| f.judges()) {
        return found;
    }
    crate::bindings::vcc::validator::judge::judges()
}

/// Ask for completions; the host runs them at once and answers each, in
/// order.
pub fn complete(requests: &[Request]) -> Vec<Result<Answer, String>> {
    #[cfg(not(target_family = "wasm"))]
    if let Some(found) = crate::native::with(|f| f.complete(requests)) {
        return found;
    }
    crate::bindings::vcc::validator::judge::complete(requests)
}

impl Request {
    /// A request to `judge` (empty: the first judge granted) for sample
    /// `sample` of its question.
    pub fn new(judge: &str, sample: u32) -> Request {
        Request {
            judge: judge.to_string(),
            messages: Vec::new(),
            files: Vec::new(),
            schema: None,
            sample,
        }
    }

    pub fn system(mut self, content: impl Into<String>) -> Request {
        self.messages.push(Message {
            role: "system".into(),
            content: content.into(),
        });
        self
    }

    pub fn user(mut self, content: impl Into<String>) -> Request {
        self.messages.push(Message {
            role: "user".into(),
            content: content.into(),
        });
        self
    }

    /// Include a file of the snapshot, by its digest (`blake3:…`, as
    /// [`crate::stat`] and [`crate::files`] give it).
    pub fn file(mut self, digest: &str) -> Request {
        self.files.push(digest.to_string());
        self
    }

    /// The JSON Schema the answer must match; the host refuses any other.
    pub fn schema(mut self, schema: serde_json::Value) -> Request {
        self.schema = Some(schema.to_string());
        self
    }
}
