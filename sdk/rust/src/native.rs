//! Run a validator natively, over files held in memory, without a host:
//! for unit tests of validator logic, and for measuring that logic without
//! the sandbox (`bench/native`). Only in native builds; a component always
//! reads through the host.
//!
//! ```ignore
//! let mut files = vcc_sdk::native::Files::default();
//! files.add("notes", "/deliverables/notes.md", b"# Notes\n".to_vec());
//! let outcome = files.run(|| MyValidator::validate(files.criterion("AC-1", "{}", &["notes"])));
//! ```

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Arc;

use crate::judge::{Answer, Request};
use crate::{Criterion, FileInfo, Target};

/// Deliverables by id, and the bytes of every file (by guest path).
#[derive(Default, Clone)]
pub struct Files {
    deliverables: BTreeMap<String, Vec<String>>,
    bytes: BTreeMap<String, Arc<[u8]>>,
    digests: BTreeMap<String, String>,
    judges: Vec<String>,
    judge: Option<Arc<JudgeFn>>,
}

/// A stand-in for the host's judge in native tests: one answer per request.
pub type JudgeFn = dyn Fn(&Request) -> Result<Answer, String> + Send + Sync;

thread_local! {
    static CURRENT: RefCell<Option<Files>> = const { RefCell::new(None) };
}

impl Files {
    /// Add a file (a guest path under `/deliverables`) to deliverable `id`.
    pub fn add(&mut self, id: &str, path: &str, bytes: impl Into<Arc<[u8]>>) {
        let files = self.deliverables.entry(id.to_string()).or_default();
        files.push(path.to_string());
        files.sort();
        self.bytes.insert(path.to_string(), bytes.into());
    }

    /// Set the digest `stat` reports for a file (the SDK does not hash;
    /// without this it reports an empty digest).
    pub fn set_digest(&mut self, path: &str, digest: &str) {
        self.digests.insert(path.to_string(), digest.to_string());
    }

    /// Grant `judges`, answered by `answer` (natively there is no host to
    /// call a model: the test decides what the judge says).
    pub fn judge(
        &mut self,
        judges: &[&str],
        answer: impl Fn(&Request) -> Result<Answer, String> + Send + Sync + 'static,
    ) {
        self.judges = judges.iter().map(|j| j.to_string()).collect();
        self.judge = Some(Arc::new(answer));
    }

    pub(crate) fn judges(&self) -> Vec<String> {
        self.judges.clone()
    }

    pub(crate) fn complete(&self, requests: &[Request]) -> Vec<Result<Answer, String>> {
        requests
            .iter()
            .map(|r| match &self.judge {
                Some(answer) => answer(r),
                None => Err("no judge is granted in this test".into()),
            })
            .collect()
    }

    /// A criterion over these deliverables, as the host would build it.
    pub fn criterion(&self, id: &str, params: &str, targets: &[&str]) -> Criterion {
        Criterion {
            id: id.to_string(),
            params: params.to_string(),
            targets: targets
                .iter()
                .map(|t| Target {
                    id: t.to_string(),
                    paths: self.deliverables.get(*t).cloned().unwrap_or_default(),
                })
                .collect(),
        }
    }

    /// Call `f` with these files serving `read`, `stat`, `files` and
    /// `deliverable_ids` on this thread.
    pub fn run<R>(&self, f: impl FnOnce() -> R) -> R {
        let previous = CURRENT.with(|c| c.replace(Some(self.clone())));
        let result = f();
        CURRENT.with(|c| *c.borrow_mut() = previous);
        result
    }

    pub(crate) fn files(&self, id: &str) -> Result<Vec<FileInfo>, String> {
        let paths = self
            .deliverables
            .get(id)
            .ok_or_else(|| format!("no deliverable `{id}`"))?;
        paths.iter().map(|p| self.stat(p)).collect()
    }

    pub(crate) fn deliverable_ids(&self) -> Vec<String> {
        self.deliverables.keys().cloned().collect()
    }

    pub(crate) fn read(&self, path: &str) -> Result<Vec<u8>, String> {
        self.bytes
            .get(path)
            .map(|b| b.to_vec())
            .ok_or_else(|| format!("{path}: no such deliverable file"))
    }

    /// Natively there is no trust policy: nothing is trusted.
    pub(crate) fn signatures(&self, _path: &str) -> crate::SignatureCheck {
        crate::SignatureCheck {
            signers: Vec::new(),
            problems: vec![crate::SignatureProblem {
                code: "no-policy".into(),
                message: "no host, so no trust policy: no signature is trusted".into(),
            }],
        }
    }

    pub(crate) fn stat(&self, path: &str) -> Result<FileInfo, String> {
        let bytes = self
            .bytes
            .get(path)
            .ok_or_else(|| format!("{path}: no such deliverable file"))?;
        Ok(FileInfo {
            path: path.to_string(),
            size: bytes.len() as u64,
            digest: self.digests.get(path).cloned().unwrap_or_default(),
        })
    }
}

/// `f` applied to the files of the current [`Files::run`], if any.
pub(crate) fn with<R>(f: impl FnOnce(&Files) -> R) -> Option<R> {
    CURRENT.with(|c| c.borrow().as_ref().map(f))
}
