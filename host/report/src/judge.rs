//! What a report says about AI judges: every call, and the run's use of
//! them. A call is evidence: its prompt and raw response are stored as
//! evidence items and named here by digest, with the model that answered,
//! the sampling parameters sent, the tokens, the cost and where the answer
//! came from (the endpoint, vcc's cache, or a recorded session).

use serde::{Deserialize, Serialize};

/// One completion a validator asked of a judge, as the host made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeCall {
    /// `CRITERION#N`: the N-th call of the criterion's run (0-based).
    pub id: String,
    /// The judge's name in the contract.
    pub judge: String,
    /// `openai-compatible` or `anthropic`.
    pub provider: String,
    /// The model the contract asked for.
    pub model: String,
    /// The model the provider said answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_model: Option<String>,
    /// `HOST[:PORT]` of the endpoint (never its key); for a replayed call,
    /// the endpoint that answered when the session was recorded.
    pub endpoint: String,
    /// The sampling parameters sent (the sample's seed included).
    pub params: serde_json::Value,
    pub sample: u32,
    /// `blake3:<hex>` over provider, model, parameters, prompt and sample:
    /// the cache's and the session's key.
    pub key: String,
    /// `blake3:<hex>` of the prompt (the `prompt` evidence item).
    pub prompt: String,
    /// `blake3:<hex>` of the raw response (the `response` evidence item).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
    /// The deliverable files the prompt included, with their digests.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<crate::FileRead>,
    /// The answer as the validator was given it (JSON when the request had
    /// a schema, else text); absent when the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<serde_json::Value>,
    /// Why the call has no answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// As measured when the call was made (a replayed call keeps the
    /// recorded figure, so a replayed report is the recorded one).
    pub latency_ms: u64,
    pub tokens: JudgeTokens,
    /// In the unit of the configuration's prices; absent when the
    /// endpoint has no price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    /// Where the answer came from.
    pub source: CallSource,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgeTokens {
    pub input: u64,
    pub output: u64,
}

impl JudgeTokens {
    pub fn total(self) -> u64 {
        self.input.saturating_add(self.output)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CallSource {
    /// Asked of the endpoint in this run (and stored in the cache).
    Live,
    /// Answered from vcc's cache of earlier calls.
    Cache,
    /// Answered from a recorded session (`--judge-replay`).
    Replay,
    /// Never answered: the call failed before or at the endpoint.
    None,
}

impl CallSource {
    pub fn as_str(self) -> &'static str {
        match self {
            CallSource::Live => "live",
            CallSource::Cache => "cache",
            CallSource::Replay => "replay",
            CallSource::None => "none",
        }
    }
}

/// The run's use of AI judges.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JudgingInfo {
    /// The verifier's judge configuration the run used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<FileRef>,
    /// The session the run replayed (`--judge-replay`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replayed: Option<FileRef>,
    /// The session the run recorded (`--judge-record`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded: Option<FileRef>,
    pub usage: JudgeUsage,
    pub limits: JudgeLimits,
}

/// A file by path and `blake3:<hex>` digest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileRef {
    pub path: String,
    pub digest: String,
}

/// What the run's judge calls used. Only live calls spend: cached and
/// replayed answers cost nothing now.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct JudgeUsage {
    /// Calls asked of an endpoint.
    pub calls: u64,
    pub cached: u64,
    pub replayed: u64,
    pub failed: u64,
    /// Tokens of live calls.
    pub tokens: u64,
    /// Cost of live calls.
    pub cost: f64,
}

/// The per-run limits in force (absent: none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct JudgeLimits {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calls: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    /// One call's deadline.
    pub deadline_ms: u64,
}

/// A criterion's judge calls in one line: `3 judge call(s): 2 live, 1
/// from cache; 1 failed; 1,240 tokens`.
pub fn calls_line(calls: &[JudgeCall]) -> String {
    let count = |s: CallSource| calls.iter().filter(|c| c.source == s).count();
    let mut parts = Vec::new();
    for (source, words) in [
        (CallSource::Live, "live"),
        (CallSource::Cache, "from the cache"),
        (CallSource::Replay, "replayed"),
    ] {
        let n = count(source);
        if n > 0 {
            parts.push(format!("{n} {words}"));
        }
    }
    let failed = calls.iter().filter(|c| c.error.is_some()).count();
    let tokens: u64 = calls.iter().map(|c| c.tokens.total()).sum();
    let mut line = format!("{} judge call(s)", calls.len());
    if !parts.is_empty() {
        line.push_str(&format!(": {}", parts.join(", ")));
    }
    if failed > 0 {
        line.push_str(&format!("; {failed} without an answer"));
    }
    line.push_str(&format!("; {tokens} tokens"));
    line
}

impl JudgingInfo {
    /// The run's judging in one line, for people.
    pub fn line(&self) -> String {
        let u = &self.usage;
        let mut line = format!(
            "{} live call(s), {} from the cache, {} replayed, {} without an answer; {} tokens",
            u.calls, u.cached, u.replayed, u.failed, u.tokens
        );
        if u.cost > 0.0 {
            line.push_str(&format!(", cost {:.6}", u.cost));
        }
        if let Some(r) = &self.replayed {
            line.push_str(&format!("; replayed {} ({})", r.path, r.digest));
        }
        if let Some(r) = &self.recorded {
            line.push_str(&format!("; recorded to {} ({})", r.path, r.digest));
        }
        line
    }
}
