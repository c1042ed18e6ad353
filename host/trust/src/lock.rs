//! `vcc.lock`, beside a contract: for every bundle the contract names, the
//! exact bundle manifest (by digest), where it came from, its component and
//! contract digests and who signed it. `vcc check` runs only what the lock
//! pins — never whatever a moving tag names today.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::refusal::{Code, Refusal};

/// The lock format (`vcc_lock`).
pub const FORMAT: u32 = 1;
/// The lock's file name, beside the contract.
pub const FILE: &str = vcc_contract::LOCK_FILE;

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lock {
    pub vcc_lock: u32,
    #[serde(default)]
    pub bundles: Vec<LockedBundle>,
    /// The base contract the contract extends, when it does: a contract
    /// that stops extending it is weakened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extends: Option<LockedBase>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedBundle {
    pub name: String,
    pub version: String,
    /// The contract's version requirement when it was locked.
    pub requirement: String,
    /// `HOST[:PORT]/REPO@sha256:…`, or `store` (from the local store).
    pub source: String,
    /// `sha256:<hex>` of the bundle manifest.
    pub manifest: String,
    /// Policy key ids of the signers that counted.
    pub signers: Vec<String>,
    #[serde(default)]
    pub validators: BTreeMap<String, LockedFile>,
    #[serde(default)]
    pub contracts: BTreeMap<String, LockedFile>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedFile {
    pub sha256: String,
    pub blake3: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedBase {
    pub bundle: String,
    pub contract: String,
}

impl Lock {
    /// `vcc.lock` beside `contract`.
    pub fn path_for(contract: &Path) -> PathBuf {
        vcc_contract::sources::lock_path(contract)
    }

    /// The lock beside `contract`; `None` if there is none.
    pub fn read_for(contract: &Path) -> Result<Option<Lock>, Refusal> {
        let path = Lock::path_for(contract);
        match std::fs::read(&path) {
            Ok(bytes) => Lock::parse(&path, &bytes).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Refusal::new(
                Code::LockStale,
                format!("{}: {e}", path.display()),
            )),
        }
    }

    /// The lock a contract's [`vcc_contract::Sources`] pinned with it.
    pub fn from_sources(sources: &vcc_contract::Sources) -> Result<Option<Lock>, Refusal> {
        let path = Lock::path_for(&sources.path);
        match &sources.lock {
            Ok(Some(bytes)) => Lock::parse(&path, bytes).map(Some),
            Ok(None) => Ok(None),
            Err(why) => Err(Refusal::new(Code::LockStale, why.clone())),
        }
    }

    /// A lock's bytes; `path` names it in messages.
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<Lock, Refusal> {
        let text = std::str::from_utf8(bytes).map_err(|_| {
            Refusal::new(
                Code::LockStale,
                format!("{} is not UTF-8; run `vcc lock` again", path.display()),
            )
        })?;
        let lock: Lock = serde_yaml::from_str(text).map_err(|e| {
            Refusal::new(
                Code::LockStale,
                format!(
                    "{} is not a vcc lock: {e}; run `vcc lock` again",
                    path.display()
                ),
            )
        })?;
        if lock.vcc_lock != FORMAT {
            return Err(Refusal::new(
                Code::LockStale,
                format!(
                    "{}: lock format {} (this vcc writes {FORMAT}); run `vcc lock`",
                    path.display(),
                    lock.vcc_lock
                ),
            ));
        }
        // A version or digest that does not read would quietly remove what
        // `vcc lock` compares against (its floor, its pins).
        for b in &lock.bundles {
            if semver::Version::parse(&b.version).is_err() || !is_sha256(&b.manifest) {
                return Err(Refusal::new(
                    Code::LockStale,
                    format!(
                        "{}: bundle `{}`: version `{}` or manifest `{}` is not what `vcc lock` writes; remove vcc.lock and lock again",
                        path.display(),
                        b.name,
                        b.version,
                        b.manifest
                    ),
                ));
            }
        }
        Ok(lock)
    }

    pub fn to_yaml(&self) -> String {
        format!(
            "# Written by `vcc lock`: the exact bundles this contract's validators come from.\n# `vcc check --locked` runs only what this file pins. Do not edit it by hand.\n{}",
            serde_yaml::to_string(self).unwrap_or_default()
        )
    }

    pub fn bundle(&self, name: &str) -> Option<&LockedBundle> {
        self.bundles.iter().find(|b| b.name == name)
    }
}

fn is_sha256(digest: &str) -> bool {
    digest
        .strip_prefix("sha256:")
        .is_some_and(|h| h.len() == 64 && h.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locks_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let contract = dir.path().join("contract.yaml");
        assert_eq!(Lock::read_for(&contract).unwrap(), None);
        let lock = Lock {
            vcc_lock: FORMAT,
            bundles: vec![LockedBundle {
                name: "acme/security".into(),
                version: "1.2.3".into(),
                requirement: "^1.2".into(),
                source: "store".into(),
                manifest: format!("sha256:{}", "a".repeat(64)),
                signers: vec!["platform".into()],
                validators: BTreeMap::new(),
                contracts: BTreeMap::new(),
            }],
            extends: None,
        };
        std::fs::write(Lock::path_for(&contract), lock.to_yaml()).unwrap();
        assert_eq!(Lock::read_for(&contract).unwrap(), Some(lock.clone()));
        std::fs::write(Lock::path_for(&contract), "vcc_lock: 1\nbundles: 7\n").unwrap();
        assert_eq!(Lock::read_for(&contract).unwrap_err().code, Code::LockStale);
        // A version that does not read would remove `vcc lock`'s floor.
        std::fs::write(
            Lock::path_for(&contract),
            lock.to_yaml().replace("version: 1.2.3", "version: '1.2'"),
        )
        .unwrap();
        let stale = Lock::read_for(&contract).unwrap_err();
        assert!(stale.message.contains("version `1.2`"), "{}", stale.message);
    }
}
