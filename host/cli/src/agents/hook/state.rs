//! What a hook keeps between the stops of a session, in the cache folder:
//! the project folder, pinned at the session's first stop (shared by its
//! subagents), and per session and subagent the contract and root pinned
//! with it and the stops blocked this turn.
//!
//! The agent must not be able to write any of it: a rewritten state is a
//! weaker contract, another root or a spent budget. So the folder must be
//! absolute (a relative one would follow the folder the harness starts the
//! hook in), the current user's alone (as the component cache), and
//! outside the project and the deliverable root.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::json;
use vcc_report::harness::{Harness, Stop};

use crate::args::Cli;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use vcc_contract::Sources;
use vcc_runtime::Cache;

use crate::output::write_atomically;

/// Kept per session (and subagent).
#[derive(Default, Serialize, Deserialize)]
pub(super) struct Session {
    /// Stops blocked since one was last let through: the turn's count.
    pub(super) blocks: u32,
    /// The contract as it was at the first stop: an agent that edits it
    /// is not judged by its own edit.
    #[serde(default)]
    pub(super) pinned: Option<PinnedSources>,
    /// The deliverable root, resolved at the first stop with the
    /// contract: an agent that stops in another folder is still judged
    /// on this one.
    #[serde(default)]
    pub(super) root: Option<PathBuf>,
}

/// [`Sources`], kept as JSON (bytes in base64).
#[derive(Serialize, Deserialize)]
pub(super) struct PinnedSources {
    path: PathBuf,
    contract: String,
    files: std::collections::BTreeMap<String, String>,
    /// `null`: no lock; `{"bytes": …}` or `{"error": …}`.
    lock: serde_json::Value,
}

impl PinnedSources {
    pub(super) fn of(s: &Sources) -> PinnedSources {
        PinnedSources {
            path: s.path.clone(),
            contract: B64.encode(&s.contract),
            files: s
                .files
                .iter()
                .map(|(p, b)| (p.clone(), B64.encode(b)))
                .collect(),
            lock: match &s.lock {
                Ok(None) => serde_json::Value::Null,
                Ok(Some(b)) => json!({ "bytes": B64.encode(b) }),
                Err(e) => json!({ "error": e }),
            },
        }
    }

    pub(super) fn sources(&self) -> Result<Sources, String> {
        let bytes = |t: &str| B64.decode(t).map_err(|e| format!("session state: {e}"));
        let mut files = std::collections::BTreeMap::new();
        for (p, b) in &self.files {
            files.insert(p.clone(), bytes(b)?);
        }
        let lock = match (&self.lock["bytes"], &self.lock["error"]) {
            (serde_json::Value::String(b), _) => Ok(Some(bytes(b)?)),
            (_, serde_json::Value::String(e)) => Err(e.clone()),
            _ => Ok(None),
        };
        Ok(Sources {
            path: self.path.clone(),
            contract: bytes(&self.contract)?,
            files,
            lock,
            mapping: Default::default(),
        })
    }
}

/// The project folder of a session, as pinned.
#[derive(Serialize, Deserialize)]
struct ProjectPin {
    project: PathBuf,
}

/// Where a session's state is, and its pinned project folder.
pub(super) struct State {
    /// `<cache>/hooks/<harness>`, resolved.
    dir: PathBuf,
    /// The state of this session (and subagent).
    file: PathBuf,
    /// The project folder pinned at the session's first stop.
    pub(super) project: PathBuf,
}

impl State {
    /// The state folder of this hook, checked, and the session's project
    /// folder: pinned now if this is the session's first stop.
    pub(super) fn open(cli: &Cli, harness: Harness, stop: &Stop) -> Result<State, String> {
        let cache = cli.cache_dir.clone().or_else(Cache::default_dir).ok_or(
            "no folder for the session state: set VCC_CACHE_DIR or --cache-dir to an absolute path",
        )?;
        if !cache.is_absolute() {
            return Err(format!(
                "the cache folder `{}` (where the session state is kept) is a relative path, which would follow the folder the harness starts the hook in; give an absolute --cache-dir or VCC_CACHE_DIR",
                cache.display()
            ));
        }
        let dir = cache.join("hooks").join(harness.name());
        vcc_trust::dirs::create_private(&dir).map_err(|e| {
            format!(
                "cannot create the session state folder {}: {e}",
                dir.display()
            )
        })?;
        let dir = std::fs::canonicalize(&dir)
            .map_err(|e| format!("the session state folder {}: {e}", dir.display()))?;
        let candidate = project_folder(harness, stop)?;
        outside(&dir, &candidate, "project folder")?;
        vcc_trust::dirs::trusted(&dir).map_err(|why| {
            format!(
                "the session state folder {} could be written by others: {why}",
                dir.display()
            )
        })?;
        let session = key(&stop.session);
        let project = pin_project(&dir.join(format!("{session}.project.json")), &candidate)?;
        outside(&dir, &project, "project folder")?;
        let mut name = stop.session.clone();
        if let Some(sub) = &stop.subagent {
            name.push_str(&format!("\0{}\0{}", sub.kind, sub.id));
        }
        Ok(State {
            file: dir.join(format!("{}.json", key(&name))),
            dir,
            project,
        })
    }

    /// The session's state: a fresh one at its first stop. A state that
    /// cannot be read is not taken for a fresh one (that would drop the
    /// pinned contract): it is an error.
    pub(super) fn load(&self) -> Result<Session, String> {
        match std::fs::read(&self.file) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                format!(
                    "the session state {} cannot be read ({e}); delete it to start the session afresh",
                    self.file.display()
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Session::default()),
            Err(e) => Err(format!(
                "the session state {} cannot be read: {e}",
                self.file.display()
            )),
        }
    }

    pub(super) fn save(&self, session: &Session) -> Result<(), String> {
        let text = serde_json::to_string(session).map_err(|e| e.to_string())?;
        write_atomically(&self.file, text.as_bytes()).map_err(|e| {
            format!(
                "vcc cannot keep the session state in {}: {e}",
                self.file.display()
            )
        })
    }

    /// The check's whole report, beside the session's state (its findings
    /// past the few the feedback shows): where it was written.
    pub(super) fn write_report(&self, report: &vcc_report::Report) -> Result<PathBuf, String> {
        let path = self.file.with_extension("report.json");
        let text = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
        write_atomically(&path, text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(path)
    }

    /// Refused when the state lies under the deliverable root.
    pub(super) fn outside_root(&self, root: &Path) -> Result<(), String> {
        outside(&self.dir, root, "deliverable root")
    }
}

/// The state's file name of a session id: a digest, so an id cannot name
/// a path.
fn key(text: &str) -> String {
    blake3::hash(text.as_bytes()).to_hex()[..32].to_string()
}

/// Refused when `dir` (the state) lies under `folder`, which the agent
/// can write.
fn outside(dir: &Path, folder: &Path, what: &str) -> Result<(), String> {
    if dir.starts_with(folder) {
        return Err(format!(
            "the session state folder {} is inside the {what} {}: the agent could rewrite the contract pinned for the session and its count of blocked stops; keep the cache folder outside it (--cache-dir, VCC_CACHE_DIR)",
            dir.display(),
            folder.display()
        ));
    }
    Ok(())
}

/// The folder the harness says the session is about: its project
/// variable ([`Harness::project_vars`]), else the event's folder, else
/// the folder the hook was started in. Pinned at a session's first stop;
/// at every stop the state folder must lie outside it too (a pin the
/// agent wrote into a state folder inside the project would name another
/// folder).
fn project_folder(harness: Harness, stop: &Stop) -> Result<PathBuf, String> {
    let folder = |path: &Path, whence: &str| {
        if !path.is_absolute() {
            return Err(format!(
                "{whence} is `{}`, not an absolute path",
                path.display()
            ));
        }
        match std::fs::canonicalize(path) {
            Ok(real) if real.is_dir() => Ok(real),
            Ok(_) => Err(format!("{whence} `{}` is not a folder", path.display())),
            Err(e) => Err(format!("{whence} `{}`: {e}", path.display())),
        }
    };
    for var in harness.project_vars() {
        if let Some(value) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            return folder(Path::new(&value), &format!("${var}"));
        }
    }
    match &stop.cwd {
        Some(cwd) => folder(cwd, "the hook input's folder"),
        None => std::env::current_dir()
            .map_err(|e| format!("the hook's own folder: {e}"))
            .and_then(|cwd| folder(&cwd, "the hook's own folder")),
    }
}

/// The project folder pinned in `file`, or `candidate`, pinned there now.
/// The first stop of a session to pin wins (its subagents may stop at
/// once): the pin is written aside and linked into place, which fails if
/// another got there first.
fn pin_project(file: &Path, candidate: &Path) -> Result<PathBuf, String> {
    let read = |file: &Path| -> Result<PathBuf, String> {
        let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let pin: ProjectPin = serde_json::from_slice(&bytes).map_err(|e| {
            format!(
                "the session state {} cannot be read ({e}); delete it to start the session afresh",
                file.display()
            )
        })?;
        Ok(pin.project)
    };
    if file.exists() {
        return read(file);
    }
    let text = serde_json::to_string(&ProjectPin {
        project: candidate.to_path_buf(),
    })
    .map_err(|e| e.to_string())?;
    let aside = file.with_extension(format!("{}.tmp", std::process::id()));
    write_atomically(&aside, text.as_bytes())
        .map_err(|e| format!("cannot pin the project folder in {}: {e}", file.display()))?;
    let linked = std::fs::hard_link(&aside, file);
    let _ = std::fs::remove_file(&aside);
    match linked {
        Ok(()) => Ok(candidate.to_path_buf()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => read(file),
        Err(e) => Err(format!(
            "cannot pin the project folder in {}: {e}",
            file.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::Path;

    use vcc_contract::Sources;

    use super::{PinnedSources, key, outside, pin_project};

    fn sources(lock: Result<Option<Vec<u8>>, String>) -> Sources {
        Sources {
            path: "/project/vcc.yaml".into(),
            contract: b"vcc: 1\nid: pinned\n\xff not utf-8".to_vec(),
            files: BTreeMap::from([("schema.json".to_string(), b"{}".to_vec())]),
            lock,
            mapping: Default::default(),
        }
    }

    /// The contract judged at every stop is byte for byte the one pinned
    /// at the first, lock (or why it could not be read) included.
    #[test]
    fn pinned_sources_come_back_byte_for_byte() {
        for lock in [
            Ok(None),
            Ok(Some(b"lock bytes".to_vec())),
            Err("unreadable".into()),
        ] {
            let pinned = PinnedSources::of(&sources(lock.clone()));
            let text = serde_json::to_string(&pinned).unwrap();
            let back: PinnedSources = serde_json::from_str(&text).unwrap();
            let back = back.sources().unwrap();
            let first = sources(lock);
            assert_eq!(back.path, first.path);
            assert_eq!(back.contract, first.contract);
            assert_eq!(back.files, first.files);
            assert_eq!(back.lock, first.lock);
        }
    }

    /// The first stop of a session pins the project folder; a later stop
    /// from another folder (where the agent `cd`'d) gets the first.
    #[test]
    fn the_first_stop_pins_the_project_folder() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("project.json");
        let first = pin_project(&file, Path::new("/work/project")).unwrap();
        let later = pin_project(&file, Path::new("/work/project/decoy")).unwrap();
        assert_eq!(first, Path::new("/work/project"));
        assert_eq!(later, first);
    }

    #[test]
    fn state_under_a_folder_the_agent_writes_is_refused() {
        let why = outside(
            Path::new("/work/project/.cache/hooks/codex"),
            Path::new("/work/project"),
            "project folder",
        )
        .unwrap_err();
        assert!(
            why.contains("inside the project folder /work/project"),
            "{why}"
        );
        assert!(
            outside(
                Path::new("/home/u/.cache/vcc"),
                Path::new("/work/project"),
                "project folder"
            )
            .is_ok()
        );
    }

    /// A session id names no path: `../../x` is a digest like any other.
    #[test]
    fn a_session_id_is_hashed_into_a_file_name() {
        let name = key("../../etc/passwd");
        assert_eq!(name.len(), 32);
        assert!(name.chars().all(|c| c.is_ascii_hexdigit()), "{name}");
    }
}
