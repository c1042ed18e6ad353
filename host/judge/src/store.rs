//! Answers kept for later: vcc's cache of judge calls, and recorded
//! sessions (`--judge-record`, `--judge-replay`).
//!
//! Both hold the raw response of each call under its key (provider, model,
//! sampling parameters, prompt digest, sample index), and the answer is
//! read from it again exactly as a live one is: a replayed call gives the
//! answer, the tokens and the model the live call gave. Only responses
//! the endpoint gave with a 2xx status are kept (a timeout or a 500 is
//! asked again); a malformed answer is kept, and stays malformed.
//!
//! Cache entries are MAC'd with the component cache's secret key (a file
//! only this user can read), so an entry written by anything but vcc is
//! refused and the call is made again. A session is the verifier's file,
//! kept outside the deliverable root; its digest is in every report that
//! used it, and every entry is checked against its own digests on load.

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

impl Stored {
    /// The entry's own digests hold.
    fn check(&self) -> Result<(), String> {
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

/// The cache: `DIR/KEY.json`, each `{ "mac": …, "entry": … }`.
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

    fn file(&self, key: &str) -> PathBuf {
        let hex = key.strip_prefix("blake3:").unwrap_or(key);
        self.dir.join(format!("{hex}.json"))
    }

    /// The entry for `key`, if one is there that vcc wrote.
    pub fn get(&self, key: &str) -> Option<Stored> {
        let text = std::fs::read_to_string(self.file(key)).ok()?;
        let sealed: Sealed = serde_json::from_str(&text).ok()?;
        let mac = blake3::keyed_hash(&self.key, sealed.entry.get().as_bytes());
        if mac.to_hex().as_str() != sealed.mac {
            return None;
        }
        let entry: Stored = serde_json::from_str(sealed.entry.get()).ok()?;
        (entry.key == key && entry.check().is_ok()).then_some(entry)
    }

    /// Keep an entry. Only a speed-up and a way to repeat: a failure to
    /// write is not an error of the run.
    pub fn put(&self, entry: &Stored) {
        let Ok(text) = serde_json::to_string(entry) else {
            return;
        };
        let mac = blake3::keyed_hash(&self.key, text.as_bytes());
        let sealed = format!("{{\"mac\":\"{}\",\"entry\":{text}}}", mac.to_hex());
        let _ = std::fs::create_dir_all(&self.dir);
        let path = self.file(&entry.key);
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

    fn stored(key: &str) -> Stored {
        let response = r#"{"choices":[]}"#.to_string();
        Stored {
            key: key.into(),
            judge: "j".into(),
            provider: "openai-compatible".into(),
            model: "m".into(),
            endpoint: "127.0.0.1:1".into(),
            params: serde_json::json!({"temperature": 0.0}),
            sample: 0,
            prompt_digest: digest(b"p"),
            prompt: Some("p".into()),
            response_digest: digest(response.as_bytes()),
            response,
            latency_ms: 5,
            cost: None,
        }
    }

    #[test]
    fn the_cache_refuses_entries_it_did_not_seal() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().join("judge"), [7; 32]);
        let e = stored("blake3:aa");
        cache.put(&e);
        assert_eq!(cache.get("blake3:aa"), Some(e.clone()));
        // Another key (another user's, or a forger's) does not verify.
        let other = Cache::new(dir.path().join("judge"), [8; 32]);
        assert_eq!(other.get("blake3:aa"), None);
        // An edited answer does not verify.
        let file = dir.path().join("judge/aa.json");
        let text = std::fs::read_to_string(&file).unwrap();
        std::fs::write(&file, text.replace("\"latency_ms\":5", "\"latency_ms\":6")).unwrap();
        assert_eq!(cache.get("blake3:aa"), None);
    }

    #[test]
    fn sessions_round_trip_and_refuse_edits() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        let mut calls = BTreeMap::new();
        calls.insert("blake3:aa".to_string(), stored("blake3:aa"));
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
}
