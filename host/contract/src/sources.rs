//! The bytes a contract is made of — the file itself, the files its params
//! name (`{ $file: PATH }`) and the `vcc.lock` beside it — read once.
//!
//! A loop (`vcc converge`) or a hook that judges many times must judge
//! against the bytes it read first: the command it runs, or the agent it
//! gates, can write the contract. [`Sources`] keeps those bytes, loads the
//! same [`Document`] from them every time, and tells whether the files on
//! disk still hold them ([`Sources::fingerprint`]).

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use crate::contract_files::{Disk, Pinned};
use crate::parse::{Document, MAX_CONTRACT_BYTES, parse_mapped};
use crate::problem::{Code, Level, Problem};
use crate::vcc1::Mapping;

/// The lock file beside a contract (written by `vcc lock`).
pub const LOCK_FILE: &str = "vcc.lock";

/// What a contract was loaded from.
#[derive(Debug, Clone, PartialEq)]
pub struct Sources {
    /// The contract file, as given.
    pub path: PathBuf,
    /// Its bytes.
    pub contract: Vec<u8>,
    /// The files its params name, by the path written in the contract.
    pub files: BTreeMap<String, Vec<u8>>,
    /// `vcc.lock` beside it: its bytes, absent when there is none, or why
    /// it could not be read (refused when the lock is used).
    pub lock: Result<Option<Vec<u8>>, String>,
    /// What the command line maps in a VCC v1 contract (`--artifact-root`,
    /// `--adapters`); empty for a native contract.
    pub mapping: Mapping,
}

impl Sources {
    /// Read the contract at `path`, the files it names and its lock, and
    /// load it; every problem found if it cannot be loaded.
    pub fn read(path: &Path) -> Result<(Sources, Document), Vec<Problem>> {
        Sources::read_mapped(path, Mapping::default())
    }

    /// [`Sources::read`], with what the command line maps in a VCC v1
    /// contract.
    pub fn read_mapped(path: &Path, mapping: Mapping) -> Result<(Sources, Document), Vec<Problem>> {
        let contract = read_contract(path)?;
        let mut doc = parse_mapped(path, &contract, &mapping)?;
        let mut files = BTreeMap::new();
        let dir = doc.dir().to_path_buf();
        crate::contract_files::resolve(
            &mut doc,
            &mut Disk {
                dir: &dir,
                read: &mut files,
            },
        )?;
        let sources = Sources {
            path: path.to_path_buf(),
            contract,
            files,
            lock: read_lock(&lock_path(path)),
            mapping,
        };
        Ok((sources, doc))
    }

    /// The document these bytes make (the same one every time).
    pub fn load(&self) -> Result<Document, Vec<Problem>> {
        let mut doc = parse_mapped(&self.path, &self.contract, &self.mapping)?;
        crate::contract_files::resolve(&mut doc, &mut Pinned(&self.files))?;
        Ok(doc)
    }

    /// blake3 over every byte the contract is made of: its file, its
    /// files and its lock. Two reads with the same fingerprint are the
    /// same contract.
    pub fn fingerprint(&self) -> String {
        let mut h = blake3::Hasher::new();
        h.update(b"vcc-contract-sources 1\n");
        let mut part = |name: &[u8], bytes: &[u8]| {
            h.update(name);
            h.update(b"\0");
            h.update(blake3::hash(bytes).to_hex().as_bytes());
            h.update(b"\n");
        };
        part(b"contract", &self.contract);
        for (path, bytes) in &self.files {
            part(format!("file {path}").as_bytes(), bytes);
        }
        match &self.lock {
            Ok(Some(bytes)) => part(b"lock", bytes),
            Ok(None) => part(b"no lock", b""),
            Err(why) => part(b"unreadable lock", why.as_bytes()),
        }
        if !self.mapping.is_empty() {
            part(b"mapping", self.mapping.canonical().as_bytes());
        }
        format!("blake3:{}", h.finalize().to_hex())
    }

    /// Whether the files on disk still hold these bytes: `Err` names what
    /// changed (or could not be read).
    pub fn unchanged_on_disk(&self) -> Result<(), String> {
        match Sources::read_mapped(&self.path, self.mapping.clone()) {
            Ok((now, _)) if now.fingerprint() == self.fingerprint() => Ok(()),
            Ok((now, _)) => Err(self.what_changed(&now)),
            Err(problems) => Err(format!(
                "{} can no longer be loaded ({})",
                self.path.display(),
                problems.first().map_or("?", |p| p.message.as_str())
            )),
        }
    }

    fn what_changed(&self, now: &Sources) -> String {
        let mut changed = Vec::new();
        if now.contract != self.contract {
            changed.push(self.path.display().to_string());
        }
        let paths: std::collections::BTreeSet<&String> =
            self.files.keys().chain(now.files.keys()).collect();
        for p in paths {
            if self.files.get(p) != now.files.get(p) {
                changed.push(format!("its file {p}"));
            }
        }
        if now.lock != self.lock {
            changed.push(lock_path(&self.path).display().to_string());
        }
        changed.join(", ")
    }
}

/// Read, hash and parse the contract at `path`, and read the files its
/// params name (`{ $file: PATH }`); the first problem if it cannot be
/// loaded (see [`load_all`] for all of them).
pub fn load(path: &Path) -> Result<Document, Box<Problem>> {
    load_all(path).map_err(crate::parse::first)
}

/// Read, hash and parse the contract at `path`, with every problem the
/// parser finds (at least one) if it cannot be loaded.
pub fn load_all(path: &Path) -> Result<Document, Vec<Problem>> {
    Sources::read(path).map(|(_, doc)| doc)
}

/// `vcc.lock` beside `contract`.
pub fn lock_path(contract: &Path) -> PathBuf {
    contract
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .join(LOCK_FILE)
}

fn read_lock(path: &Path) -> Result<Option<Vec<u8>>, String> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

fn read_contract(path: &Path) -> Result<Vec<u8>, Vec<Problem>> {
    let file_problem = |code, message: String| {
        vec![Problem {
            code,
            level: Level::Error,
            message,
            file: path.display().to_string(),
            field: None,
            line: None,
            column: None,
            help: None,
        }]
    };
    let file = crate::files::open_regular(path).map_err(|err| {
        file_problem(
            Code::ContractUnreadable,
            format!("cannot open the contract: {err}"),
        )
    })?;
    let mut bytes = Vec::new();
    file.take(MAX_CONTRACT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| {
            file_problem(
                Code::ContractUnreadable,
                format!("cannot read the contract: {err}"),
            )
        })?;
    if bytes.len() as u64 > MAX_CONTRACT_BYTES {
        return Err(file_problem(
            Code::ContractTooLarge,
            format!(
                "the contract is larger than {} MiB; contracts describe deliverables, they do not contain them",
                MAX_CONTRACT_BYTES >> 20
            ),
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONTRACT: &str = "vcc: 1
id: s
deliverables: [{ id: a, path: a.json }]
validators: { schema: { component: std/json-schema } }
criteria:
  - { id: A, severity: must, validator: schema, targets: [a], params: { schema: { $file: s.json } } }
";

    #[test]
    fn the_pinned_bytes_load_the_same_document_after_the_files_change() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.yaml");
        std::fs::write(&path, CONTRACT).unwrap();
        std::fs::write(dir.path().join("s.json"), r#"{"type":"object"}"#).unwrap();
        let (sources, doc) = Sources::read(&path).unwrap();
        assert!(sources.unchanged_on_disk().is_ok());
        std::fs::write(dir.path().join("s.json"), r#"{"type":"array"}"#).unwrap();
        let again = sources.load().unwrap();
        assert_eq!(again.digest, doc.digest);
        assert_eq!(
            again.contract.criteria[0].params,
            doc.contract.criteria[0].params
        );
        let changed = sources.unchanged_on_disk().unwrap_err();
        assert_eq!(changed, "its file s.json");
        std::fs::write(lock_path(&path), "x").unwrap();
        std::fs::write(dir.path().join("s.json"), r#"{"type":"object"}"#).unwrap();
        assert!(
            sources
                .unchanged_on_disk()
                .unwrap_err()
                .ends_with("vcc.lock")
        );
    }
}
