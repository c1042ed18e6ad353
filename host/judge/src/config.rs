//! The verifier's judge configuration: which endpoints may serve which
//! judges, where their keys are, what their tokens cost, and the run's
//! limits. It never comes from a contract or the deliverable root: whoever
//! writes the deliverables must not be able to point a judge at a server
//! that always says yes.
//!
//! Found as `--judges FILE`, else `$VCC_JUDGES`, else the `judges:`
//! section of the trust policy, else `~/.config/vcc/judges.yaml`:
//!
//! ```yaml
//! judges: 1
//! endpoints:
//!   - id: local
//!     provider: openai-compatible          # or anthropic
//!     url: http://127.0.0.1:8080/v1        # POST {url}/chat/completions ({url}/messages)
//!     key_env: LOCAL_JUDGE_KEY             # the key is read from this variable, never written anywhere
//!     models: ["qwen2.5-*"]                # globs of the models it may serve [default: any]
//!     price: { input: 0.15, output: 0.60 } # per million tokens, in your cost unit
//!     structured: json_schema              # json_schema | json_object | json_object_schema | none (openai-compatible)
//!     max_input_bytes: 262144              # a longer prompt is an error, never truncated
//!     concurrency: 4                       # calls at once
//! limits: { calls: 200, tokens: 2000000, cost: 5.0, deadline: 120s }
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use vcc_contract::{DurationSpec, Judge, Provider};

/// A prompt longer than this is refused unless the endpoint says more.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 256 << 10;
/// How many calls an endpoint gets at once unless it says.
pub const DEFAULT_CONCURRENCY: usize = 4;

#[derive(Debug, Clone)]
pub struct Config {
    /// The file it was read from (the trust policy, for its `judges:`).
    pub path: PathBuf,
    /// `blake3:<hex>` of what was read: the section, for a trust policy.
    pub digest: String,
    pub endpoints: Vec<Endpoint>,
    pub limits: RunLimits,
}

#[derive(Debug, Clone)]
pub struct Endpoint {
    pub id: String,
    pub provider: Provider,
    /// Without a trailing `/`.
    pub url: String,
    /// `HOST[:PORT]`, for reports.
    pub host: String,
    pub key_env: Option<String>,
    models: Vec<globset::GlobMatcher>,
    pub models_shown: Vec<String>,
    pub price: Option<Price>,
    pub structured: Structured,
    pub max_input_bytes: u64,
    pub concurrency: usize,
}

impl Endpoint {
    /// What makes another server, or the same one asked differently: a
    /// cached answer is reused only for the same (a changed url is a miss).
    pub fn asked_as(&self) -> String {
        format!(
            "{} {} {:?}",
            self.provider.as_str(),
            self.url,
            self.structured
        )
    }
}

/// Per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub input: f64,
    pub output: f64,
}

/// How an OpenAI-compatible endpoint is asked for an answer in a schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Structured {
    /// `response_format: { type: json_schema, … }` (OpenAI, vLLM,
    /// llama.cpp's server, Ollama).
    #[default]
    JsonSchema,
    /// `response_format: { type: json_object }`: JSON, the schema only in
    /// the prompt.
    JsonObject,
    /// `response_format: { type: json_object, schema: … }`: the form
    /// llama-cpp-python's server (and Anyscale, Together) constrain to the
    /// schema.
    JsonObjectSchema,
    /// Nothing asked: the schema only in the prompt. The answer is still
    /// parsed and checked strictly.
    None,
}

/// The run's limits on judging; absent: none.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RunLimits {
    pub calls: Option<u64>,
    pub tokens: Option<u64>,
    pub cost: Option<f64>,
    pub deadline: Option<Duration>,
}

impl RunLimits {
    /// Each limit at the lower of the two.
    pub fn tightest(self, other: RunLimits) -> RunLimits {
        fn low<T: PartialOrd + Copy>(a: Option<T>, b: Option<T>) -> Option<T> {
            match (a, b) {
                (Some(a), Some(b)) => Some(if b < a { b } else { a }),
                (a, b) => a.or(b),
            }
        }
        RunLimits {
            calls: low(self.calls, other.calls),
            tokens: low(self.tokens, other.tokens),
            cost: low(self.cost, other.cost),
            deadline: low(self.deadline, other.deadline),
        }
    }

    /// The contract's `limits` (`judge_calls`, …).
    pub fn of_contract(limits: Option<&vcc_contract::Limits>) -> RunLimits {
        let Some(l) = limits else {
            return RunLimits::default();
        };
        RunLimits {
            calls: l.judge_calls,
            tokens: l.judge_tokens,
            cost: l.judge_cost,
            deadline: l.judge_deadline.map(|d| d.0),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    /// Absent in a trust policy's section.
    #[serde(default)]
    judges: Option<u32>,
    #[serde(default)]
    endpoints: Vec<EndpointEntry>,
    #[serde(default)]
    limits: Option<LimitsEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EndpointEntry {
    id: String,
    provider: Provider,
    url: String,
    #[serde(default)]
    key_env: Option<String>,
    #[serde(default)]
    models: Vec<String>,
    #[serde(default)]
    price: Option<Price>,
    #[serde(default)]
    structured: Structured,
    #[serde(default)]
    max_input_bytes: Option<u64>,
    #[serde(default)]
    concurrency: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitsEntry {
    #[serde(default)]
    calls: Option<u64>,
    #[serde(default)]
    tokens: Option<u64>,
    #[serde(default)]
    cost: Option<f64>,
    #[serde(default)]
    deadline: Option<DurationSpec>,
}

impl Config {
    /// The configuration a command uses: `explicit`, else `$VCC_JUDGES`,
    /// else `policy_section` (the trust policy's `judges:`, with the
    /// policy's path), else `~/.config/vcc/judges.yaml` if it exists.
    pub fn locate(
        explicit: Option<&Path>,
        policy_section: Option<(&Path, &serde_json::Value)>,
    ) -> Result<Option<Config>, String> {
        if let Some(path) = explicit {
            return Config::read(path).map(Some);
        }
        if let Some(env) = std::env::var_os("VCC_JUDGES").filter(|v| !v.is_empty()) {
            return Config::read(Path::new(&env)).map(Some);
        }
        if let Some((path, section)) = policy_section {
            return Config::from_value(path, section).map(Some);
        }
        let home = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")));
        match home.map(|h| h.join("vcc/judges.yaml")) {
            Some(path) if path.exists() => Config::read(&path).map(Some),
            _ => Ok(None),
        }
    }

    /// Read a judge configuration file (`judges: 1`).
    pub fn read(path: &Path) -> Result<Config, String> {
        let bytes = std::fs::read(path)
            .map_err(|e| format!("the judge configuration {}: {e}", path.display()))?;
        let text = std::str::from_utf8(&bytes).map_err(|_| {
            format!(
                "the judge configuration {} is not UTF-8 text",
                path.display()
            )
        })?;
        let de = serde_yaml::Deserializer::from_str(text);
        let file: File = serde_path_to_error::deserialize(de).map_err(|e| {
            format!(
                "the judge configuration {}: at `{}`: {}",
                path.display(),
                e.path(),
                e.inner()
            )
        })?;
        if file.judges != Some(1) {
            return Err(format!(
                "the judge configuration {} must start with `judges: 1`",
                path.display()
            ));
        }
        let digest = format!("blake3:{}", blake3::hash(&bytes).to_hex());
        Config::build(path, digest, file)
    }

    /// The `judges:` section of a trust policy at `path`.
    pub fn from_value(path: &Path, section: &serde_json::Value) -> Result<Config, String> {
        let file: File = serde_path_to_error::deserialize(section).map_err(|e| {
            format!(
                "the trust policy {}: at `judges.{}`: {}",
                path.display(),
                e.path(),
                e.inner()
            )
        })?;
        let digest = format!(
            "blake3:{}",
            blake3::hash(section.to_string().as_bytes()).to_hex()
        );
        Config::build(path, digest, file)
    }

    fn build(path: &Path, digest: String, file: File) -> Result<Config, String> {
        let at = |what: String| format!("the judge configuration {}: {what}", path.display());
        let mut endpoints: Vec<Endpoint> = Vec::new();
        for (i, e) in file.endpoints.into_iter().enumerate() {
            let here = format!("endpoints[{i}] (`{}`)", e.id);
            if e.id.is_empty() || endpoints.iter().any(|x| x.id == e.id) {
                return Err(at(format!("{here}: every endpoint needs an id of its own")));
            }
            let (url, host) = check_url(&e.url).map_err(|why| at(format!("{here}: url: {why}")))?;
            let mut models = Vec::new();
            for m in &e.models {
                let glob = globset::Glob::new(m)
                    .map_err(|err| at(format!("{here}: models: `{m}`: {err}")))?;
                models.push(glob.compile_matcher());
            }
            if let Some(p) = e.price
                && !(p.input.is_finite()
                    && p.input >= 0.0
                    && p.output.is_finite()
                    && p.output >= 0.0)
            {
                return Err(at(format!("{here}: price: numbers of 0 or more")));
            }
            if e.structured != Structured::JsonSchema && e.provider == Provider::Anthropic {
                return Err(at(format!(
                    "{here}: structured: an Anthropic endpoint answers through a tool whose input is the schema; leave it out"
                )));
            }
            if let Some(var) = &e.key_env
                && (var.is_empty() || var.contains('='))
            {
                return Err(at(format!(
                    "{here}: key_env names an environment variable, like OPENAI_API_KEY"
                )));
            }
            endpoints.push(Endpoint {
                id: e.id,
                provider: e.provider,
                url,
                host,
                key_env: e.key_env,
                models,
                models_shown: e.models,
                price: e.price,
                structured: e.structured,
                max_input_bytes: e.max_input_bytes.unwrap_or(DEFAULT_MAX_INPUT_BYTES),
                concurrency: e.concurrency.unwrap_or(DEFAULT_CONCURRENCY).clamp(1, 64),
            });
        }
        let limits = match file.limits {
            Some(l) => {
                if let Some(c) = l.cost
                    && !(c.is_finite() && c >= 0.0)
                {
                    return Err(at("limits.cost: a number of 0 or more".into()));
                }
                RunLimits {
                    calls: l.calls,
                    tokens: l.tokens,
                    cost: l.cost,
                    deadline: l.deadline.map(|d| d.0),
                }
            }
            None => RunLimits::default(),
        };
        Ok(Config {
            path: path.to_path_buf(),
            digest,
            endpoints,
            limits,
        })
    }

    /// The endpoint that may serve `judge`, or why none may.
    pub fn endpoint_for(&self, name: &str, judge: &Judge) -> Result<&Endpoint, String> {
        let serves = |e: &&Endpoint| {
            e.provider == judge.provider
                && (e.models.is_empty() || e.models.iter().any(|m| m.is_match(&judge.model)))
        };
        match &judge.endpoint {
            Some(wanted) => {
                let named = self
                    .endpoints
                    .iter()
                    .find(|e| &e.id == wanted || e.url == wanted.trim_end_matches('/'));
                match named {
                    Some(e) if serves(&e) => Ok(e),
                    Some(e) => Err(format!(
                        "judge `{name}` asks for endpoint `{wanted}`, which the judge configuration ({}) allows for {} models {} only, not {} `{}`",
                        self.path.display(),
                        e.provider.as_str(),
                        shown_models(e),
                        judge.provider.as_str(),
                        judge.model
                    )),
                    None => Err(format!(
                        "judge `{name}` asks for endpoint `{wanted}`, which the judge configuration ({}) does not allow",
                        self.path.display()
                    )),
                }
            }
            None => self.endpoints.iter().find(serves).ok_or_else(|| {
                format!(
                    "no endpoint of the judge configuration ({}) may serve judge `{name}` ({} `{}`)",
                    self.path.display(),
                    judge.provider.as_str(),
                    judge.model
                )
            }),
        }
    }
}

fn shown_models(e: &Endpoint) -> String {
    if e.models_shown.is_empty() {
        "(any)".into()
    } else {
        e.models_shown.join(", ")
    }
}

/// `http(s)://HOST[:PORT][/PATH]` without credentials, query or fragment:
/// the URL without a trailing `/`, and `HOST[:PORT]`.
fn check_url(url: &str) -> Result<(String, String), String> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or("an http:// or https:// URL")?;
    let authority = rest.split('/').next().unwrap_or_default();
    if authority.is_empty() {
        return Err("no host".into());
    }
    if authority.contains('@') {
        return Err(
            "credentials in the URL would be written wherever the URL is; name the key's variable with key_env".into(),
        );
    }
    if url.contains(['?', '#']) || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("no query, fragment or spaces".into());
    }
    Ok((url.trim_end_matches('/').to_string(), authority.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> Result<Config, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("judges.yaml");
        std::fs::write(&path, text).unwrap();
        Config::read(&path)
    }

    fn judge(provider: Provider, model: &str, endpoint: Option<&str>) -> Judge {
        Judge {
            provider,
            model: model.into(),
            endpoint: endpoint.map(str::to_string),
            params: Default::default(),
            extensions: Default::default(),
        }
    }

    #[test]
    fn endpoints_serve_the_models_they_list() {
        let c = config(
            "judges: 1\nendpoints:\n  - { id: a, provider: openai-compatible, url: 'http://127.0.0.1:9/v1/', models: ['qwen*'] }\n  - { id: b, provider: anthropic, url: 'https://api.anthropic.com/v1' }\n",
        )
        .unwrap();
        let e = c
            .endpoint_for("j", &judge(Provider::OpenaiCompatible, "qwen2.5", None))
            .unwrap();
        assert_eq!(
            (e.id.as_str(), e.url.as_str(), e.host.as_str()),
            ("a", "http://127.0.0.1:9/v1", "127.0.0.1:9")
        );
        assert!(
            c.endpoint_for("j", &judge(Provider::OpenaiCompatible, "gpt-4", None))
                .unwrap_err()
                .contains("no endpoint")
        );
        assert_eq!(
            c.endpoint_for("j", &judge(Provider::Anthropic, "claude", Some("b")))
                .unwrap()
                .id,
            "b"
        );
        let err = c
            .endpoint_for(
                "j",
                &judge(
                    Provider::OpenaiCompatible,
                    "qwen",
                    Some("http://evil.example/v1"),
                ),
            )
            .unwrap_err();
        assert!(err.contains("does not allow"), "{err}");
    }

    #[test]
    fn credentials_and_unknown_fields_are_refused() {
        let err = config(
            "judges: 1\nendpoints:\n  - { id: a, provider: openai-compatible, url: 'http://user:sk-123@host/v1' }\n",
        )
        .unwrap_err();
        assert!(err.contains("key_env") && !err.contains("sk-123"), "{err}");
        let err = config("judges: 1\nendpoint: []\n").unwrap_err();
        assert!(err.contains("endpoint"), "{err}");
        assert!(config("endpoints: []\n").unwrap_err().contains("judges: 1"));
    }
}
