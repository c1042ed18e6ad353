//! Files that belong to the contract, not to the worker: `{ $file: PATH }`
//! anywhere in a criterion's params is replaced by the file's contents
//! (`.json` as JSON, `.yaml`/`.yml` as YAML, anything else as text), read
//! relative to the contract file when the contract is loaded.
//!
//! A schema in `schemas/` next to the contract is then the author's, not
//! something the producer of the deliverables can edit in the root. Each
//! file's blake3 goes into the contract's digest, so changing the file
//! changes the contract (a trust-policy pin, `vcc.lock` and `vcc converge`
//! all see it).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use serde_json::Value;

pub use crate::document::ContractFile;
use crate::document::Document;
use crate::problem::{Code, FieldPath, Level, Problem, Seg};

pub use crate::model::FILE_KEY;
/// A contract file is at most this large.
pub const MAX_FILE_BYTES: u64 = 4 << 20;

/// The path a `{ $file: PATH }` object names, if `value` is one.
pub fn reference(value: &Value) -> Option<&Value> {
    match value.as_object() {
        Some(map) if map.len() == 1 => map.get(FILE_KEY),
        _ => None,
    }
}

/// Where the bytes of a contract's files come from: the disk (relative
/// to the contract's folder), or the copies pinned when the contract was
/// first read (see [`crate::sources::Sources`]).
pub trait FileSource {
    /// The bytes of `path`, as written in the contract; `Err` says why not.
    fn read(&mut self, path: &str) -> Result<Vec<u8>, String>;
}

/// Files read from the disk, relative to `dir`; each one read is kept.
pub struct Disk<'a> {
    pub dir: &'a Path,
    pub read: &'a mut BTreeMap<String, Vec<u8>>,
}

impl FileSource for Disk<'_> {
    fn read(&mut self, path: &str) -> Result<Vec<u8>, String> {
        let bytes = read_file(self.dir, path)?;
        self.read.insert(path.to_string(), bytes.clone());
        Ok(bytes)
    }
}

/// Files from pinned copies only: a file the copies lack is an error,
/// never read from the disk.
pub struct Pinned<'a>(pub &'a BTreeMap<String, Vec<u8>>);

impl FileSource for Pinned<'_> {
    fn read(&mut self, path: &str) -> Result<Vec<u8>, String> {
        self.0
            .get(path)
            .cloned()
            .ok_or_else(|| "not among the files pinned with the contract".to_string())
    }
}

/// Replace every `{ $file: PATH }` in the params of `doc` with the file's
/// contents (read from `source`), record the files, and fold their digests
/// into `doc.digest`.
pub fn resolve(doc: &mut Document, source: &mut dyn FileSource) -> Result<(), Vec<Problem>> {
    let mut read: BTreeMap<String, (Value, String)> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut params: Vec<(usize, Value)> = doc
        .contract
        .criteria
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.params.clone().map(|p| (i, p)))
        .collect();
    for (i, value) in params.iter_mut() {
        let at = FieldPath::root().key("criteria").index(*i).key("params");
        substitute(
            value,
            &at,
            source,
            &mut read,
            &mut |field, message, help| {
                let mut p = doc.problem(Code::InvalidParams, Level::Error, &field, message);
                p.help = Some(help);
                problems.push(p);
            },
        );
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    for (i, value) in params {
        doc.contract.criteria[i].params = Some(value);
    }
    if read.is_empty() {
        return Ok(());
    }
    doc.files = read
        .into_iter()
        .map(|(path, (_, digest))| ContractFile { path, digest })
        .collect();
    doc.digest = combined_digest(&doc.digest, &doc.files);
    Ok(())
}

/// The digest of a contract that names files: its bytes' digest, then
/// each file (path as written, in byte order) and its digest.
pub fn combined_digest(bytes_digest: &str, files: &[ContractFile]) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"vcc-contract-with-files 1\n");
    hasher.update(bytes_digest.as_bytes());
    hasher.update(b"\n");
    for f in files {
        hasher.update(f.path.as_bytes());
        hasher.update(b"\0");
        hasher.update(f.digest.as_bytes());
        hasher.update(b"\n");
    }
    format!("blake3:{}", hasher.finalize().to_hex())
}

fn substitute(
    value: &mut Value,
    at: &FieldPath,
    source: &mut dyn FileSource,
    read: &mut BTreeMap<String, (Value, String)>,
    report: &mut dyn FnMut(FieldPath, String, String),
) {
    if let Some(path) = reference(value) {
        let field = at.key(FILE_KEY);
        let Some(path) = path.as_str().map(str::to_string) else {
            report(
                field,
                format!("`{FILE_KEY}` must be a path (a string)"),
                "write `{ $file: schemas/x.json }`, relative to the contract file".into(),
            );
            return;
        };
        if !read.contains_key(&path) {
            match source
                .read(&path)
                .and_then(|bytes| parse_file(&path, &bytes))
            {
                Ok(loaded) => {
                    read.insert(path.clone(), loaded);
                }
                Err(why) => {
                    report(
                        field,
                        format!("`{path}`: {why}"),
                        "the path is relative to the contract file; files may be JSON (.json), YAML (.yaml, .yml) or UTF-8 text".into(),
                    );
                    return;
                }
            }
        }
        if let Some((contents, _)) = read.get(&path) {
            *value = contents.clone();
        }
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                substitute(item, &at.key(key), source, read, report);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                let mut field = at.clone();
                field.0.push(Seg::Index(i));
                substitute(item, &field, source, read, report);
            }
        }
        _ => {}
    }
}

/// Read one file, relative to `dir`.
fn read_file(dir: &Path, path: &str) -> Result<Vec<u8>, String> {
    if path.is_empty() {
        return Err("the path is empty".into());
    }
    let full = dir.join(path);
    let file = crate::files::open_regular(&full).map_err(|e| format!("cannot open it: {e}"))?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read it: {e}"))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!("larger than {} MiB", MAX_FILE_BYTES >> 20));
    }
    Ok(bytes)
}

/// Parse one file's bytes: its value and digest.
fn parse_file(path: &str, bytes: &[u8]) -> Result<(Value, String), String> {
    let digest = format!("blake3:{}", blake3::hash(bytes).to_hex());
    let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())?;
    let extension = Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let value = match extension.as_deref() {
        Some("json") => serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?,
        Some("yaml" | "yml") => {
            crate::parse::parse_yaml_value(text).map_err(|(_, message, at)| match at {
                Some((line, column)) => format!("not valid YAML at {line}:{column}: {message}"),
                None => format!("not valid YAML: {message}"),
            })?
        }
        _ => Value::String(text.to_string()),
    };
    Ok((value, digest))
}
