//! Answers kept for later: vcc's cache of judge calls, and recorded
//! sessions (`--judge-record`, `--judge-replay`).
//!
//! Both hold the raw response of each call under its key (provider, model,
//! sampling parameters, prompt digest, sample index; the cache adds the
//! endpoint that answered), and the answer is
//! read from it again exactly as a live one is: a replayed call gives the
//! answer, the tokens and the model the live call gave. Only responses
//! the endpoint gave with a 2xx status are kept (a timeout or a 500 is
//! asked again); a malformed answer is kept, and stays malformed.
//!
//! Cache entries are MAC'd with the component cache's secret key (a file
//! only this user can read), so an entry written by anything but vcc is
//! refused and the call is made again; an entry answers only for the
//! endpoint that gave it, so a changed server is asked afresh. A session
//! is the verifier's file, kept outside the deliverable root; its digest
//! is in every report that used it, and every entry is checked against
//! its own digests and its key recomputed from its content on load: an
//! entry filed under another call's key never answers that call.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

const SESSION_VERSION: u32 = 1;

/// One answered call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stored {
    pub key: String,
    pub judge: String,
    pub provider: String,
    pub model: String,
    pub endpoint: String,
    pub params: Value,
    pub sample: u32,
    pub prompt_digest: String,
    /// The prompt (sessions keep it, so an auditor can read what was
    /// asked; the cache keeps only its digest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// The response body, as the endpoint sent it.
    pub response: String,
    pub response_digest: String,
    pub latency_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
}

pub fn digest(bytes: &[u8]) -> String {
    format!("blake3:{}", blake3::hash(bytes).to_hex())
}

/// The key of a call: what makes its answer the same answer.
pub fn call_key(provider: &str, model: &str, params: &Value, prompt: &str, sample: u32) -> String {
    let key = serde_json::json!({
        "vcc-judge-call": 1,
        "provider": provider,
        "model": model,
        "params": params,
        "prompt": prompt,
        "sample": sample,
    });
    digest(key.to_string().as_bytes())
}

impl Stored {
    /// The entry's own digests hold, and its key is the one its content
    /// gives: an answer filed under another prompt's key is refused.
    fn check(&self) -> Result<(), String> {
        let own = call_key(
            &self.provider,
            &self.model,
            &self.params,
            &self.prompt_digest,
            self.sample,
        );
        if own != self.key {
            return Err(format!(
                "call {}: its key is not the one its provider, model, params, prompt digest and sample give ({own}); the entry was edited or moved",
                self.key
            ));
        }
        if digest(self.response.as_bytes()) != self.response_digest {
            return Err(format!(
                "call {}: the response is not the bytes its digest names",
                self.key
            ));
        }
        if let Some(prompt) = &self.prompt
            && digest(prompt.as_bytes()) != self.prompt_digest
        {
            return Err(format!(
                "call {}: the prompt is not the bytes its digest names",
                self.key
            ));
        }
        Ok(())
    }
}

/// The cache: `DIR/SLOT.json`, each `{ "mac": …, "entry": … }`; the slot
/// is the call's key and the endpoint it was asked of, and the MAC covers
/// the slot too, so an entry copied to another slot does not verify.
pub struct Cache {
    dir: PathBuf,
    key: [u8; 32],
}

#[derive(Serialize, Deserialize)]
struct Sealed {
    mac: String,
    entry: Box<serde_json::value::RawValue>,
}

impl Cache {
    pub fn new(dir: PathBuf, key: [u8; 32]) -> Cache {
        Cache { dir, key }
    }

    /// Where the answer of call `key` asked of `endpoint` (what names the
    /// server and how it is asked) is kept.
    fn slot(key: &str, endpoint: &str) -> String {
        let slot = serde_json::json!({ "vcc-judge-cache": 1, "call": key, "endpoint": endpoint });
        blake3::hash(slot.to_string().as_bytes())
            .to_hex()
            .to_string()
    }

    fn mac(&self, slot: &str, entry: &str) -> String {
        let mut mac = blake3::Hasher::new_keyed(&self.key);
        mac.update(slot.as_bytes())
            .update(b"\n")
            .update(entry.as_bytes());
        mac.finalize().to_hex().to_string()
    }

    /// The entry for call `key` asked of `endpoint`, if one is there that
    /// vcc wrote.
    pub fn get(&self, key: &str, endpoint: &str) -> Option<Stored> {
        let slot = Cache::slot(key, endpoint);
        let text = std::fs::read_to_string(self.dir.join(format!("{slot}.json"))).ok()?;
        let sealed: Sealed = serde_json::from_str(&text).ok()?;
        if self.mac(&slot, sealed.entry.get()) != sealed.mac {
            return None;
        }
        let entry: Stored = serde_json::from_str(sealed.entry.get()).ok()?;
        (entry.key == key && entry.check().is_ok()).then_some(entry)
    }

    /// Keep an entry that `endpoint` answered. Only a speed-up and a way
    /// to repeat: a failure to write is not an error of the run.
    pub fn put(&self, entry: &Stored, endpoint: &str) {
        let Ok(text) = serde_json::to_string(entry) else {
            return;
        };
        let slot = Cache::slot(&entry.key, endpoint);
        let sealed = format!(
            "{{\"mac\":\"{}\",\"entry\":{text}}}",
            self.mac(&slot, &text)
        );
        let _ = std::fs::create_dir_all(&self.dir);
        let path = self.dir.join(format!("{slot}.json"));
        let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
        if std::fs::write(&tmp, sealed).is_ok() && std::fs::rename(&tmp, &path).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

/// A recorded session, as read for replay.
#[derive(Debug, Clone)]
pub struct Session {
    pub path: PathBuf,
    pub digest: String,
    pub calls: BTreeMap<String, Stored>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionFile {
    vcc_judge_session: u32,
    /// The vcc that recorded it.
    vcc: String,
    calls: Vec<Stored>,
}

impl Session {
    pub fn read(path: &Path) -> Result<Session, String> {
        let bytes = std::fs::read(path)
            .map_err(|e| format!("the judge session {}: {e}", path.display()))?;
        let file: SessionFile = serde_json::from_slice(&bytes).map_err(|e| {
            format!(
                "the judge session {} is not a session vcc recorded: {e}",
                path.display()
            )
        })?;
        if file.vcc_judge_session != SESSION_VERSION {
            return Err(format!(
                "the judge session {} has version {}; this vcc reads version {SESSION_VERSION}",
                path.display(),
                file.vcc_judge_session
            ));
        }
        let mut calls = BTreeMap::new();
        for call in file.calls {
            call.check()
                .map_err(|why| format!("the judge session {}: {why}", path.display()))?;
            if let Some(other) = calls.get(&call.key)
                && other != &call
            {
                return Err(format!(
                    "the judge session {}: call {} is there twice, with different answers",
                    path.display(),
                    call.key
                ));
            }
            calls.insert(call.key.clone(), call);
        }
        Ok(Session {
            path: path.to_path_buf(),
            digest: digest(&bytes),
            calls,
        })
    }

    /// Write the calls of a run as a session, atomically; its digest.
    pub fn write(path: &Path, calls: &BTreeMap<String, Stored>) -> Result<String, String> {
        let file = SessionFile {
            vcc_judge_session: SESSION_VERSION,
            vcc: env!("CARGO_PKG_VERSION").to_string(),
            calls: calls.values().cloned().collect(),
        };
        let mut bytes = serde_json::to_vec_pretty(&file).map_err(|e| e.to_string())?;
        bytes.push(b'\n');
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let tmp = dir.join(format!(
            ".{}.{}.tmp",
            name.unwrap_or_else(|| "session".into()),
            std::process::id()
        ));
        let wrote = std::fs::write(&tmp, &bytes).and_then(|()| std::fs::rename(&tmp, path));
        if let Err(e) = wrote {
            let _ = std::fs::remove_file(&tmp);
            return Err(format!(
                "the judge session could not be written to {}: {e}",
                path.display()
            ));
        }
        Ok(digest(&bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(prompt: &str) -> Stored {
        let response = r#"{"choices":[]}"#.to_string();
        let params = serde_json::json!({"temperature": 0.0});
        let prompt_digest = digest(prompt.as_bytes());
        Stored {
            key: call_key("openai-compatible", "m", &params, &prompt_digest, 0),
            judge: "j".into(),
            provider: "openai-compatible".into(),
            model: "m".into(),
            endpoint: "127.0.0.1:1".into(),
            params,
            sample: 0,
            prompt_digest,
            prompt: Some(prompt.into()),
            response_digest: digest(response.as_bytes()),
            response,
            latency_ms: 5,
            cost: None,
        }
    }

    const HERE: &str = "http://127.0.0.1:1/v1";

    #[test]
    fn the_cache_refuses_entries_it_did_not_seal() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().join("judge"), [7; 32]);
        let e = stored("p");
        cache.put(&e, HERE);
        assert_eq!(cache.get(&e.key, HERE), Some(e.clone()));
        // Another key (another user's, or a forger's) does not verify.
        let other = Cache::new(dir.path().join("judge"), [8; 32]);
        assert_eq!(other.get(&e.key, HERE), None);
        // An edited answer does not verify.
        let file = dir
            .path()
            .join(format!("judge/{}.json", Cache::slot(&e.key, HERE)));
        let text = std::fs::read_to_string(&file).unwrap();
        std::fs::write(&file, text.replace("\"latency_ms\":5", "\"latency_ms\":6")).unwrap();
        assert_eq!(cache.get(&e.key, HERE), None);
    }

    #[test]
    fn a_cached_answer_is_only_for_the_endpoint_that_gave_it() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().join("judge"), [7; 32]);
        let e = stored("p");
        cache.put(&e, HERE);
        let there = "http://127.0.0.1:2/v1";
        assert_eq!(cache.get(&e.key, there), None, "another server: a miss");
        // Copied to the other endpoint's slot, the MAC no longer holds.
        let judge = dir.path().join("judge");
        std::fs::copy(
            judge.join(format!("{}.json", Cache::slot(&e.key, HERE))),
            judge.join(format!("{}.json", Cache::slot(&e.key, there))),
        )
        .unwrap();
        assert_eq!(cache.get(&e.key, there), None);
        assert_eq!(cache.get(&e.key, HERE), Some(e));
    }

    #[test]
    fn the_key_is_what_it_always_was() {
        // Sessions recorded before keep replaying: the key's recipe is
        // fixed (provider, model, params, prompt digest, sample).
        assert_eq!(
            call_key("anthropic", "m", &serde_json::json!({}), "blake3:00", 2),
            digest(
                br#"{"vcc-judge-call":1,"provider":"anthropic","model":"m","params":{},"prompt":"blake3:00","sample":2}"#
            )
        );
    }

    #[test]
    fn sessions_round_trip_and_refuse_edits() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        let mut calls = BTreeMap::new();
        let e = stored("p");
        calls.insert(e.key.clone(), e);
        let d = Session::write(&path, &calls).unwrap();
        let s = Session::read(&path).unwrap();
        assert_eq!(s.digest, d);
        assert_eq!(s.calls, calls);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            &path,
            text.replace(r#"{\"choices\":[]}"#, r#"{\"choices\":[1]}"#),
        )
        .unwrap();
        assert!(Session::read(&path).unwrap_err().contains("not the bytes"));
    }

    #[test]
    fn a_session_entry_under_another_calls_key_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        // The answer to prompt "p", filed under the key of prompt "q".
        let mut moved = stored("p");
        moved.key = stored("q").key;
        let calls = BTreeMap::from([(moved.key.clone(), moved.clone())]);
        Session::write(&path, &calls).unwrap();
        let err = Session::read(&path).unwrap_err();
        assert!(
            err.contains(&format!("call {}: its key is not the one", moved.key)),
            "{err}"
        );
        // Without the prompt text the digest still decides the key.
        moved.prompt = None;
        let calls = BTreeMap::from([(moved.key.clone(), moved)]);
        Session::write(&path, &calls).unwrap();
        assert!(Session::read(&path).unwrap_err().contains("its key is not"));
    }
}
