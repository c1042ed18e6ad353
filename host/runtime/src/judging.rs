//! The `judge` import (vcc:validator@0.1.4): a validator's requests for
//! completions, answered by the run's [`vcc_judge::Run`].
//!
//! The guest names files by digest; the host finds them in the snapshot
//! (the bytes it hashed, recorded as read), hands their text to the judge
//! crate, and keeps every call's record and its prompt and raw response as
//! evidence of the criterion. A guest blocked here is not interrupted by
//! epochs, so each call's deadline is cut to what is left of the
//! criterion's own budget: judging counts against the criterion's timeout.

use std::sync::Arc;
use std::time::Instant;

use vcc_judge::{Ask, FileText, Message};
use vcc_report::judge::JudgeCall;
use vcc_report::output::Evidence;

use crate::vfs::FileAccess;

/// A criterion's access to the run's judges.
#[derive(Clone)]
pub struct JudgeGrant {
    pub run: Arc<vcc_judge::Run>,
    /// The judges the criterion grants, in its order.
    pub granted: Vec<String>,
}

/// What one validator run did with its grant.
pub struct JudgeAccess {
    pub grant: JudgeGrant,
    pub until: Instant,
    pub calls: Vec<JudgeCall>,
    pub evidence: Vec<Evidence>,
}

/// The bindings' types.
use crate::bindings::judge_wit as wit;

impl JudgeAccess {
    /// Answer a validator's requests for criterion `criterion`, reading the
    /// files they name from the snapshot; every call is kept as evidence.
    pub fn complete(
        &mut self,
        mut files: Option<&mut FileAccess>,
        criterion: &str,
        requests: Vec<wit::Request>,
    ) -> Vec<Result<wit::Answer, String>> {
        let asks: Vec<Result<Ask, String>> = requests
            .into_iter()
            .map(|r| ask(files.as_deref_mut(), r))
            .collect();
        let made = self.grant.run.complete(
            criterion,
            &self.grant.granted,
            self.calls.len(),
            self.until,
            asks,
        );
        made.into_iter()
            .map(|m| {
                for (what, bytes) in [("prompt", m.prompt), ("response", m.response)] {
                    if let Some(bytes) = bytes {
                        self.evidence.push(Evidence {
                            name: format!("judge/{}/{what}.json", m.call.id),
                            media_type: "application/json".into(),
                            bytes,
                        });
                    }
                }
                self.calls.push(m.call);
                m.answer.map(|a| wit::Answer {
                    text: a.text,
                    model: a.model,
                    call: a.call,
                })
            })
            .collect()
    }
}

/// A request with its files found in the snapshot, or why it cannot be.
fn ask(files: Option<&mut FileAccess>, r: wit::Request) -> Result<Ask, String> {
    let mut texts = Vec::new();
    if !r.files.is_empty() {
        let files = files.ok_or("no deliverables are available during describe()")?;
        for digest in &r.files {
            let path = files
                .snapshot
                .files
                .iter()
                .find(|(_, e)| &e.digest_string() == digest)
                .map(|(p, _)| p.clone())
                .ok_or_else(|| {
                    format!("no file of the deliverable snapshot has digest {digest}")
                })?;
            let bytes = files.read(&path)?;
            let text = std::str::from_utf8(&bytes)
                .ok()
                .filter(|t| !t.contains('\0'))
                .ok_or_else(|| {
                    format!(
                        "{path} is not UTF-8 text; a judge reads text (Markdown, JSON, source files)"
                    )
                })?;
            texts.push(FileText {
                path,
                digest: digest.clone(),
                text: text.to_string(),
            });
        }
    }
    Ok(Ask {
        judge: r.judge,
        messages: r
            .messages
            .into_iter()
            .map(|m| Message {
                role: m.role,
                content: m.content,
            })
            .collect(),
        files: texts,
        schema: r.schema,
        sample: r.sample,
    })
}
