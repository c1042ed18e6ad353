//! The host's side of a run: its state (`RunState`), the memory and table
//! limiter, and the imports a validator calls — `deliverables` (the
//! snapshot's files, their digests and signatures) and `judge`.

use super::*;

/// The store's data for one run.
pub struct RunState {
    pub(super) wasi: WasiCtx,
    pub(super) table: ResourceTable,
    pub(super) limiter: Limiter,
    pub(crate) files: Option<FileAccess>,
    /// The criterion's judges (`judge`), during `validate` only.
    pub(crate) judge: Option<crate::judging::JudgeAccess>,
    pub(crate) criterion: String,
}

impl WasiView for RunState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

/// Caps guest memory and tables, and remembers which cap was hit so the
/// report can say so (a failed grow surfaces as a plain error).
pub(super) struct Limiter {
    pub(super) memory: usize,
    pub(super) hit: Option<&'static str>,
}

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _max: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.memory {
            self.hit = Some("memory");
            wasmtime::bail!(
                "memory limit: the guest asked for {desired} bytes, the cap is {}",
                self.memory
            );
        }
        Ok(true)
    }
    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _max: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > MAX_TABLE_ELEMENTS {
            self.hit = Some("table");
            wasmtime::bail!("table limit: the guest asked for {desired} elements");
        }
        Ok(true)
    }
    fn instances(&self) -> usize {
        MAX_INSTANCES
    }
    fn tables(&self) -> usize {
        MAX_TABLES
    }
    fn memories(&self) -> usize {
        MAX_MEMORIES
    }
}

pub(super) fn info(files: &FileAccess, path: &str) -> Result<wit::FileInfo, String> {
    let entry = files.entry(path)?;
    Ok(wit::FileInfo {
        path: format!("{GUEST_ROOT}/{path}"),
        size: entry.size,
        digest: entry.digest_string(),
    })
}

/// A guest path (`/deliverables/x`) or a root-relative one, as a snapshot key.
pub(super) fn snapshot_key(path: &str) -> Result<String, String> {
    let rel = match path.strip_prefix(GUEST_ROOT) {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => rest,
        _ if path.starts_with('/') => return Err(format!("{path}: outside {GUEST_ROOT}")),
        _ => path,
    };
    let parts: Vec<&str> = rel
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if parts.contains(&"..") {
        return Err(format!("{path}: `..` is not allowed"));
    }
    Ok(parts.join("/"))
}

impl wit::Host for RunState {}

impl deliverables::Host for RunState {
    fn list_files(&mut self, deliverable: String) -> Result<Vec<wit::FileInfo>, String> {
        let files = self
            .files
            .as_ref()
            .ok_or("no deliverables are available during describe()")?;
        let paths = files
            .deliverables
            .get(&deliverable)
            .ok_or_else(|| format!("`{deliverable}` is not a deliverable of the contract"))?;
        paths.iter().map(|p| info(files, p)).collect()
    }

    fn read_file(&mut self, path: String) -> Result<Vec<u8>, String> {
        let files = self
            .files
            .as_mut()
            .ok_or("no deliverables are available during describe()")?;
        let key = snapshot_key(&path)?;
        files.read(&key).map(|bytes| bytes.to_vec())
    }

    fn list_deliverables(&mut self) -> Vec<String> {
        self.files
            .as_ref()
            .map(|f| f.order.clone())
            .unwrap_or_default()
    }

    fn stat_file(&mut self, path: String) -> Result<wit::FileInfo, String> {
        let files = self
            .files
            .as_ref()
            .ok_or("no deliverables are available during describe()")?;
        info(files, &snapshot_key(&path)?)
    }

    fn signatures(&mut self, path: String) -> wit::SignatureCheck {
        let checked = match (self.files.as_mut(), snapshot_key(&path)) {
            (Some(files), Ok(key)) => {
                let signers = files.signers.clone();
                crate::signatures::check(&mut |p| files.read(p), &key, signers.as_deref())
            }
            (None, _) => crate::signatures::Checked {
                signers: Vec::new(),
                problems: vec![(
                    "unsigned",
                    "no deliverables are available during describe()".into(),
                )],
            },
            (_, Err(e)) => crate::signatures::Checked {
                signers: Vec::new(),
                problems: vec![("unsigned", e)],
            },
        };
        wit::SignatureCheck {
            signers: checked.signers,
            problems: checked
                .problems
                .into_iter()
                .map(|(code, message)| wit::SignatureProblem {
                    code: code.to_string(),
                    message,
                })
                .collect(),
        }
    }
}

/// The `judge` import: answered by the criterion's grant (`judging.rs`).
impl judge_wit::Host for RunState {
    fn judges(&mut self) -> Vec<String> {
        self.judge
            .as_ref()
            .map(|j| j.grant.granted.clone())
            .unwrap_or_default()
    }

    fn complete(
        &mut self,
        requests: Vec<judge_wit::Request>,
    ) -> Vec<Result<judge_wit::Answer, String>> {
        let Some(access) = self.judge.as_mut() else {
            let why =
                "this criterion is granted no judge (or the validator asked during describe())";
            return requests.iter().map(|_| Err(why.to_string())).collect();
        };
        access.complete(self.files.as_mut(), &self.criterion, requests)
    }
}
