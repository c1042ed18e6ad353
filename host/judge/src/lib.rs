//! AI judges as a host capability.
//!
//! A validator asks the host for completions (vcc:validator@0.1.4
//! `judge`); this crate answers them. The guest never holds a key, never
//! chooses a model, an endpoint or sampling parameters, and never sees the
//! network: the contract names the judges (provider, model, pinned
//! parameters), the verifier's configuration ([`config`]) says which
//! endpoints may serve them, and the host composes the prompt with the
//! deliverables' text delimited as untrusted data ([`prompt`]).
//!
//! Every call is a record ([`vcc_report::judge::JudgeCall`]): its prompt
//! and raw response are kept as evidence, and its answer is read strictly
//! ([`provider`]). Answers come from, in order: a replayed session (and
//! nothing else: a miss is an error), vcc's cache, the endpoint. Spending
//! is counted per run against the limits of the contract, the
//! configuration and the command line; past them a call is refused, so
//! the criterion cannot pass.
//!
//! No wasmtime here: the runtime resolves the files a request names and
//! calls [`Run::complete`].

pub mod config;
mod net;
pub mod prompt;
pub mod provider;
pub mod store;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use vcc_contract::{Code, Contract, Document, FieldPath, Judge, Level, Problem, Severity};
use vcc_report::FileRead;
use vcc_report::judge::{
    CallSource, FileRef, JudgeCall, JudgeLimits, JudgeTokens, JudgeUsage, JudgingInfo,
};

pub use config::{Config, RunLimits};
pub use prompt::{FileText, Message};
pub use store::Session;

use crate::config::Endpoint;
use crate::net::Net;
use crate::prompt::Prompt;
use crate::store::{Stored, digest};

/// One call's deadline unless a limit says otherwise.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(120);

/// What the command line and the verifier's files set up for judging.
#[derive(Debug, Default, Clone)]
pub struct Setup {
    pub config: Option<Config>,
    /// `--judge-replay`: answers come from this session only.
    pub replay: Option<Session>,
    /// `--judge-record`: where the run's calls are written.
    pub record: Option<PathBuf>,
    /// `--judge-calls`, `--judge-tokens`, `--judge-cost`, `--judge-deadline`.
    pub flags: RunLimits,
}

impl Setup {
    /// Why a granted judge cannot be asked in this setup, if it cannot.
    fn unavailable(&self, name: &str, judge: &Judge) -> Option<String> {
        if self.replay.is_some() {
            return None;
        }
        let config = self.config.as_ref()?;
        let endpoint = match config.endpoint_for(name, judge) {
            Ok(e) => e,
            Err(why) => return Some(why),
        };
        match &endpoint.key_env {
            Some(var) if std::env::var_os(var).is_none_or(|v| v.is_empty()) => Some(format!(
                "judge `{name}`: endpoint `{}` takes its key from ${var}, which is not set",
                endpoint.id
            )),
            _ => None,
        }
    }

    /// The integrity pass over what only the verifier's setup can tell: a
    /// criterion granted a judge no allowed endpoint may serve cannot be
    /// verified (an error on a MUST).
    pub fn problems(&self, doc: &Document) -> Vec<Problem> {
        let c = &doc.contract;
        let mut out = Vec::new();
        let criteria = FieldPath::root().key("criteria");
        for (i, criterion) in c.criteria.iter().enumerate() {
            let granted: Vec<(usize, &String, &Judge)> = criterion
                .judges
                .iter()
                .enumerate()
                .filter_map(|(k, name)| c.judges.get(name).map(|j| (k, name, j)))
                .collect();
            if granted.is_empty() {
                continue;
            }
            // No configuration at all: said once, for every judge granted.
            let whys: Vec<(usize, String)> = if self.config.is_none() && self.replay.is_none() {
                let names: Vec<String> = granted.iter().map(|(_, n, _)| format!("`{n}`")).collect();
                vec![(
                    granted[0].0,
                    format!(
                        "judge(s) {} have no endpoint: there is no judge configuration (give --judges FILE, set VCC_JUDGES, add `judges:` to the trust policy, or write ~/.config/vcc/judges.yaml), and no session to replay (--judge-replay)",
                        names.join(", ")
                    ),
                )]
            } else {
                granted
                    .iter()
                    .filter_map(|(k, name, judge)| self.unavailable(name, judge).map(|w| (*k, w)))
                    .collect()
            };
            for (k, why) in whys {
                let (code, level) = match criterion.severity {
                    Severity::Must => (Code::UnverifiableMust, Level::Error),
                    _ => (Code::UnverifiableCriterion, Level::Warning),
                };
                let mut p = doc.problem(
                    code,
                    level,
                    &criteria.index(i).key("judges").index(k),
                    format!(
                        "criterion `{}` ({}) cannot be verified: {why}",
                        criterion.id,
                        criterion.severity.as_str()
                    ),
                );
                p.help = Some(match criterion.severity {
                    Severity::Must => "allow an endpoint for the judge in your judge configuration (--judges FILE; see the book's \"AI-judged criteria\", docs/src/guide/ai-judges.md); a MUST that cannot be judged makes every run invalid".into(),
                    _ => "the criterion will be reported as `error` on every run".into(),
                });
                out.push(p);
            }
        }
        out
    }
}

/// A request from a validator, its files resolved by the runtime.
#[derive(Debug, Clone)]
pub struct Ask {
    pub judge: String,
    pub messages: Vec<Message>,
    pub files: Vec<FileText>,
    pub schema: Option<String>,
    pub sample: u32,
}

/// What the validator is given for one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub text: String,
    pub model: String,
    pub call: String,
}

/// One call, made or refused: the record, the answer, and the bytes to
/// keep as evidence.
pub struct Made {
    pub call: JudgeCall,
    pub answer: Result<Answer, String>,
    pub prompt: Option<Vec<u8>>,
    pub response: Option<Vec<u8>>,
}

/// The judging of one `vcc check`.
pub struct Run {
    setup: Arc<Setup>,
    judges: BTreeMap<String, Judge>,
    limits: RunLimits,
    deadline: Duration,
    cache: Option<store::Cache>,
    state: Mutex<State>,
    net: OnceLock<Result<Net, String>>,
}

#[derive(Default)]
struct State {
    usage: JudgeUsage,
    /// Live calls started (the `calls` limit counts these).
    started: u64,
    /// Everything answered, for `--judge-record`.
    recorded: BTreeMap<String, Stored>,
}

/// A call ready to be answered.
struct Pending {
    call: JudgeCall,
    prompt_bytes: Vec<u8>,
    schema: Option<Value>,
}

/// Where a prepared call's answer comes from.
enum Source {
    Stored(Stored, CallSource),
    Live(net::Send),
}

impl Run {
    /// Start judging a contract. `cache`: vcc's cache of calls (a folder
    /// and the secret key its entries are sealed with).
    pub fn start(
        setup: Arc<Setup>,
        contract: &Contract,
        cache: Option<(PathBuf, [u8; 32])>,
    ) -> Run {
        let config_limits = setup.config.as_ref().map(|c| c.limits).unwrap_or_default();
        let limits = RunLimits::of_contract(contract.limits.as_ref())
            .tightest(config_limits)
            .tightest(setup.flags);
        Run {
            deadline: limits.deadline.unwrap_or(DEFAULT_DEADLINE),
            limits,
            judges: contract.judges.clone(),
            // A replay answers from the session alone.
            cache: cache
                .filter(|_| setup.replay.is_none())
                .map(|(dir, key)| store::Cache::new(dir, key)),
            setup,
            state: Mutex::new(State::default()),
            net: OnceLock::new(),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What the run's calls used so far.
    pub fn usage(&self) -> JudgeUsage {
        self.state().usage
    }

    /// Answer a criterion's requests, in order; call ids are
    /// `CRITERION#N` from `first`. `granted`: the judges the criterion
    /// may ask; `until`: when its time budget ends.
    pub fn complete(
        &self,
        criterion: &str,
        granted: &[String],
        first: usize,
        until: Instant,
        asks: Vec<Result<Ask, String>>,
    ) -> Vec<Made> {
        let mut made: Vec<Option<Made>> = Vec::new();
        let mut live = Vec::new();
        for (i, ask) in asks.into_iter().enumerate() {
            let id = format!("{criterion}#{}", first + i);
            let slot = made.len();
            made.push(None);
            match self.prepare(id, granted, until, ask) {
                Ok((p, Source::Stored(stored, source))) => {
                    made[slot] = Some(self.answered(p, stored, source, None));
                }
                Ok((p, Source::Live(mut send))) => {
                    send.timeout = self
                        .deadline
                        .min(until.saturating_duration_since(Instant::now()));
                    live.push((slot, p, send));
                }
                Err(done) => made[slot] = Some(*done),
            }
        }
        // Every live call at once.
        if !live.is_empty() {
            let (pending, sends): (Vec<_>, Vec<_>) = live
                .into_iter()
                .map(|(slot, p, send)| ((slot, p, send.endpoint.clone()), send))
                .unzip();
            let results = match self.net.get_or_init(Net::start) {
                Ok(net) => net.send_all(sends),
                Err(why) => sends.iter().map(|_| Err(why.clone())).collect(),
            };
            for ((slot, p, endpoint), result) in pending.into_iter().zip(results) {
                made[slot] = Some(self.received(p, &endpoint, result));
            }
        }
        made.into_iter()
            .map(|m| m.unwrap_or_else(refused_internal))
            .collect()
    }

    /// Everything that can be decided before the network: the judge, the
    /// prompt, the key, and whether a session or the cache answers.
    fn prepare(
        &self,
        id: String,
        granted: &[String],
        until: Instant,
        ask: Result<Ask, String>,
    ) -> Result<(Pending, Source), Box<Made>> {
        let mut call = JudgeCall {
            id,
            judge: String::new(),
            provider: String::new(),
            model: String::new(),
            reported_model: None,
            endpoint: String::new(),
            params: json!({}),
            sample: 0,
            key: String::new(),
            prompt: String::new(),
            response: None,
            files: Vec::new(),
            answer: None,
            error: None,
            latency_ms: 0,
            tokens: JudgeTokens::default(),
            cost: None,
            source: CallSource::None,
        };
        let ask = match ask {
            Ok(ask) => ask,
            Err(why) => return Err(self.refused(call, why, None)),
        };
        call.sample = ask.sample;
        call.files = ask
            .files
            .iter()
            .map(|f| FileRead {
                path: f.path.clone(),
                digest: f.digest.clone(),
            })
            .collect();
        let name = if ask.judge.is_empty() {
            match granted.first() {
                Some(first) => first.clone(),
                None => {
                    return Err(self.refused(
                        call,
                        "the criterion is granted no judge".into(),
                        None,
                    ));
                }
            }
        } else {
            ask.judge.clone()
        };
        call.judge = name.clone();
        if !granted.contains(&name) {
            let why = format!(
                "judge `{name}` is not granted to this criterion (granted: {})",
                if granted.is_empty() {
                    "none".to_string()
                } else {
                    granted.join(", ")
                }
            );
            return Err(self.refused(call, why, None));
        }
        let Some(judge) = self.judges.get(&name) else {
            let why = format!("the contract defines no judge `{name}`");
            return Err(self.refused(call, why, None));
        };
        call.provider = judge.provider.as_str().into();
        call.model = judge.model.clone();
        call.params = provider::sampling(judge, ask.sample);
        let prompt = match Prompt::compose(&ask.messages, &ask.files, ask.schema.as_deref()) {
            Ok(p) => p,
            Err(why) => return Err(self.refused(call, why, None)),
        };
        let prompt_bytes = prompt.bytes();
        call.prompt = digest(&prompt_bytes);
        call.key = key(&call);
        let schema = prompt.schema.clone();
        let pending = |call, source| {
            (
                Pending {
                    call,
                    prompt_bytes: prompt_bytes.clone(),
                    schema: schema.clone(),
                },
                source,
            )
        };

        if let Some(session) = &self.setup.replay {
            return match session.calls.get(&call.key) {
                Some(stored) => {
                    let stored = stored.clone();
                    Ok(pending(call, Source::Stored(stored, CallSource::Replay)))
                }
                None => {
                    let why = format!(
                        "the replayed session {} has no answer for this call (key {}): a replay answers only the calls it recorded",
                        session.path.display(),
                        call.key
                    );
                    Err(self.refused(call, why, Some(prompt_bytes)))
                }
            };
        }
        let endpoint = match &self.setup.config {
            Some(config) => match config.endpoint_for(&name, judge) {
                Ok(e) => e.clone(),
                Err(why) => return Err(self.refused(call, why, Some(prompt_bytes))),
            },
            None => {
                let why =
                    format!("judge `{name}` has no endpoint: there is no judge configuration");
                return Err(self.refused(call, why, Some(prompt_bytes)));
            }
        };
        call.endpoint = endpoint.host.clone();
        if prompt_bytes.len() as u64 > endpoint.max_input_bytes {
            let files: Vec<String> = ask
                .files
                .iter()
                .map(|f| format!("{} is {} bytes", f.path, f.text.len()))
                .collect();
            let why = format!(
                "the prompt is {} bytes{}, over the judge's input bound of {} bytes (max_input_bytes of endpoint `{}`); vcc never truncates a document",
                prompt_bytes.len(),
                if files.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", files.join(", "))
                },
                endpoint.max_input_bytes,
                endpoint.id
            );
            return Err(self.refused(call, why, Some(prompt_bytes)));
        }
        if let Some(stored) = self
            .cache
            .as_ref()
            .and_then(|c| c.get(&call.key, &endpoint.asked_as()))
        {
            return Ok(pending(call, Source::Stored(stored, CallSource::Cache)));
        }
        // A live call: it must fit the run's limits, and have its key.
        if let Err(why) = self.reserve(&endpoint, until) {
            return Err(self.refused(call, why, Some(prompt_bytes)));
        }
        let key = match &endpoint.key_env {
            Some(var) => match std::env::var(var) {
                Ok(k) if !k.is_empty() => Some(k),
                _ => {
                    let why = format!(
                        "endpoint `{}` takes its key from ${var}, which is not set",
                        endpoint.id
                    );
                    return Err(self.refused(call, why, Some(prompt_bytes)));
                }
            },
            None => None,
        };
        let body = provider::body(
            judge.provider,
            &judge.model,
            &call.params,
            &prompt,
            endpoint.structured,
        );
        Ok(pending(
            call,
            Source::Live(net::Send {
                endpoint,
                body,
                key,
                timeout: Duration::ZERO,
            }),
        ))
    }

    /// Count a live call against the limits, or say which one is spent.
    fn reserve(&self, endpoint: &Endpoint, until: Instant) -> Result<(), String> {
        if until <= Instant::now() {
            return Err("the criterion's time budget is spent".into());
        }
        if self.limits.cost.is_some() && endpoint.price.is_none() {
            return Err(format!(
                "a judge cost limit is set, and endpoint `{}` has no price in the judge configuration: the cost of a call could not be counted",
                endpoint.id
            ));
        }
        let mut state = self.state();
        if let Some(max) = self.limits.calls
            && state.started >= max
        {
            return Err(format!(
                "the run's judge budget is spent: {} of {max} calls (judge_calls)",
                state.started
            ));
        }
        if let Some(max) = self.limits.tokens
            && state.usage.tokens >= max
        {
            return Err(format!(
                "the run's judge budget is spent: {} of {max} tokens (judge_tokens)",
                state.usage.tokens
            ));
        }
        if let Some(max) = self.limits.cost
            && state.usage.cost >= max
        {
            return Err(format!(
                "the run's judge budget is spent: a cost of {} of {max} (judge_cost)",
                state.usage.cost
            ));
        }
        state.started += 1;
        Ok(())
    }

    /// A live exchange's outcome.
    fn received(
        &self,
        mut p: Pending,
        endpoint: &Endpoint,
        result: Result<net::Received, String>,
    ) -> Made {
        // A call made counts, whatever came back.
        self.state().usage.calls += 1;
        let received = match result {
            Ok(r) => r,
            Err(why) => {
                let prompt = std::mem::take(&mut p.prompt_bytes);
                return *self.refused(p.call, why, Some(prompt));
            }
        };
        p.call.latency_ms = received.latency.as_millis() as u64;
        if !(200..300).contains(&received.status) {
            let why = provider::error_text(received.status, &received.body);
            let prompt = std::mem::take(&mut p.prompt_bytes);
            let mut made = *self.refused(p.call, why, Some(prompt));
            made.call.response = Some(digest(&received.body));
            made.response = Some(received.body);
            return made;
        }
        let Ok(text) = String::from_utf8(received.body.clone()) else {
            let prompt = std::mem::take(&mut p.prompt_bytes);
            let mut made = *self.refused(p.call, "the response is not UTF-8".into(), Some(prompt));
            made.call.response = Some(digest(&received.body));
            made.response = Some(received.body);
            return made;
        };
        let tokens = provider::envelope(endpoint.provider, text.as_bytes(), p.schema.is_some())
            .map(|e| e.tokens)
            .unwrap_or_default();
        let cost = endpoint.price.map(|price| {
            (tokens.input as f64 * price.input + tokens.output as f64 * price.output) / 1e6
        });
        let stored = Stored {
            key: p.call.key.clone(),
            judge: p.call.judge.clone(),
            provider: p.call.provider.clone(),
            model: p.call.model.clone(),
            endpoint: endpoint.host.clone(),
            params: p.call.params.clone(),
            sample: p.call.sample,
            prompt_digest: p.call.prompt.clone(),
            prompt: None,
            response_digest: digest(text.as_bytes()),
            response: text,
            latency_ms: p.call.latency_ms,
            cost,
        };
        if let Some(cache) = &self.cache {
            cache.put(&stored, &endpoint.asked_as());
        }
        // Spent whatever the answer says; past a limit it is not used.
        let over = {
            let mut state = self.state();
            state.usage.tokens = state.usage.tokens.saturating_add(tokens.total());
            state.usage.cost += cost.unwrap_or(0.0);
            self.over_limit(&state.usage)
        };
        let mut made = self.answered(p, stored, CallSource::Live, over.clone());
        if let Some(why) = over {
            made.answer = Err(why.clone());
            made.call.answer = None;
            made.call.error = Some(why);
        }
        made
    }

    fn over_limit(&self, usage: &JudgeUsage) -> Option<String> {
        if let Some(max) = self.limits.tokens
            && usage.tokens > max
        {
            return Some(format!(
                "the run's judge budget is spent: {} of {max} tokens (judge_tokens); this answer came past it and is not used",
                usage.tokens
            ));
        }
        if let Some(max) = self.limits.cost
            && usage.cost > max
        {
            return Some(format!(
                "the run's judge budget is spent: a cost of {} of {max} (judge_cost); this answer came past it and is not used",
                usage.cost
            ));
        }
        None
    }

    /// Read an answer from a stored (or just received) response, exactly
    /// as a live one is read.
    fn answered(
        &self,
        mut p: Pending,
        stored: Stored,
        source: CallSource,
        over: Option<String>,
    ) -> Made {
        let provider = self
            .judges
            .get(&p.call.judge)
            .map(|j| j.provider)
            .unwrap_or(vcc_contract::Provider::OpenaiCompatible);
        let call = &mut p.call;
        call.source = source;
        call.endpoint = stored.endpoint.clone();
        call.latency_ms = stored.latency_ms;
        call.cost = stored.cost;
        call.response = Some(stored.response_digest.clone());
        let answer = provider::envelope(provider, stored.response.as_bytes(), p.schema.is_some())
            .and_then(|e| {
                call.reported_model = e.model.clone();
                call.tokens = e.tokens;
                let text = e.text?;
                let value = provider::answer(&text, p.schema.as_ref())?;
                Ok((text, value))
            });
        {
            let mut state = self.state();
            match source {
                CallSource::Cache => state.usage.cached += 1,
                CallSource::Replay => state.usage.replayed += 1,
                _ => {}
            }
            if answer.is_err() && over.is_none() {
                state.usage.failed += 1;
            }
            if self.setup.record.is_some() {
                let mut kept = stored.clone();
                kept.prompt = Some(String::from_utf8_lossy(&p.prompt_bytes).into_owned());
                state.recorded.insert(kept.key.clone(), kept);
            }
        }
        let answer = match answer {
            Ok((text, value)) => {
                call.answer = Some(value);
                Ok(Answer {
                    text: if p.schema.is_some() {
                        call.answer.as_ref().map_or(text.clone(), Value::to_string)
                    } else {
                        text
                    },
                    model: call.reported_model.clone().unwrap_or(call.model.clone()),
                    call: call.id.clone(),
                })
            }
            Err(why) => {
                call.error = Some(why.clone());
                Err(why)
            }
        };
        Made {
            call: p.call,
            answer,
            prompt: Some(p.prompt_bytes),
            response: Some(stored.response.into_bytes()),
        }
    }

    fn refused(&self, mut call: JudgeCall, why: String, prompt: Option<Vec<u8>>) -> Box<Made> {
        self.state().usage.failed += 1;
        call.error = Some(why.clone());
        call.source = CallSource::None;
        Box::new(Made {
            call,
            answer: Err(why),
            prompt,
            response: None,
        })
    }

    /// The run's judging, for the report; writes the recorded session.
    pub fn finish(&self) -> Result<JudgingInfo, String> {
        let state = self.state();
        let recorded = match &self.setup.record {
            Some(path) => Some(FileRef {
                path: path.display().to_string(),
                digest: Session::write(path, &state.recorded)?,
            }),
            None => None,
        };
        Ok(JudgingInfo {
            config: self.setup.config.as_ref().map(|c| FileRef {
                path: c.path.display().to_string(),
                digest: c.digest.clone(),
            }),
            replayed: self.setup.replay.as_ref().map(|s| FileRef {
                path: s.path.display().to_string(),
                digest: s.digest.clone(),
            }),
            recorded,
            usage: state.usage,
            limits: JudgeLimits {
                calls: self.limits.calls,
                tokens: self.limits.tokens,
                cost: self.limits.cost,
                deadline_ms: self.deadline.as_millis() as u64,
            },
        })
    }
}

/// The key of a call: what makes its answer the same answer.
fn key(call: &JudgeCall) -> String {
    store::call_key(
        &call.provider,
        &call.model,
        &call.params,
        &call.prompt,
        call.sample,
    )
}

fn refused_internal() -> Made {
    let why = "the host lost this call's answer".to_string();
    Made {
        call: JudgeCall {
            id: String::new(),
            judge: String::new(),
            provider: String::new(),
            model: String::new(),
            reported_model: None,
            endpoint: String::new(),
            params: json!({}),
            sample: 0,
            key: String::new(),
            prompt: String::new(),
            response: None,
            files: Vec::new(),
            answer: None,
            error: Some(why.clone()),
            latency_ms: 0,
            tokens: JudgeTokens::default(),
            cost: None,
            source: CallSource::None,
        },
        answer: Err(why),
        prompt: None,
        response: None,
    }
}
