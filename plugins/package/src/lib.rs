//! `std/package`: a zip, tar or tar.gz package holds each input
//! deliverable with the very bytes the host hashed, nothing else unless
//! allowed, and (with `manifest`) a manifest that lists every entry with
//! its digest.
//!
//! An input file is found in the package by its path under the root, its
//! path relative to the package's folder, or its name when only one entry
//! has it, after its name is normalised as unpacking does (`./`, `//`
//! dropped). Two entries unpacked onto one path are refused, whatever
//! `allow_extra` says. Entry names that could escape where the package is
//! unpacked (absolute, `..`), links, encryption, ZIP64, unknown
//! compression and any record that readers could read two ways (see
//! `archive`) are findings, never unpacked; the package is read
//! with an entry count and a size limit (`max_entries`, `max_bytes`), so a
//! zip bomb stops at the limit. A manifest is `MANIFEST.json` or
//! `manifest.json` at the top: `{"files": [{"path", "sha256" | "blake3"}]}`
//! (or the list alone).

mod archive;

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};
use vcc_plugin_common::bounded::{self, Findings};
use vcc_plugin_common::{allow_empty_schema, nothing};
use vcc_sdk::serde::Deserialize;
use vcc_sdk::serde_json::{Value, json};
use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator, relative};

use archive::{Entry, Limits};

struct Package;

#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde", deny_unknown_fields)]
struct Params {
    #[serde(default)]
    inputs: Vec<String>,
    #[serde(default)]
    manifest: bool,
    #[serde(default)]
    allow_extra: bool,
    #[serde(default = "max_entries")]
    max_entries: usize,
    #[serde(default = "max_bytes")]
    max_bytes: u64,
    #[serde(default)]
    allow_empty: bool,
}

fn max_entries() -> usize {
    10_000
}

fn max_bytes() -> u64 {
    64 << 20
}

const MANIFESTS: &[&str] = &["MANIFEST.json", "manifest.json"];

impl Validator for Package {
    fn describe() -> Description {
        Description::new(
            "std/package",
            env!("CARGO_PKG_VERSION"),
            "a zip/tar package holds each input deliverable with the bytes the host hashed, nothing else, and a manifest if asked",
        )
        .params_schema(json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "inputs": { "type": "array", "items": { "type": "string", "minLength": 1 }, "description": "deliverable ids whose every file must be in the package, byte for byte", "x-vcc-deliverable": true },
                "manifest": { "type": "boolean", "default": false, "description": "a MANIFEST.json at the top lists every entry with its sha256 or blake3" },
                "allow_extra": { "type": "boolean", "default": false, "description": "entries that are not inputs (or the manifest) are allowed" },
                "max_entries": { "type": "integer", "minimum": 1, "default": 10000 },
                "max_bytes": { "type": "integer", "minimum": 1, "default": 67108864, "description": "unpacked bytes at most (a larger package is refused, not unpacked)" },
                "allow_empty": allow_empty_schema("no package")
            }
        }))
    }

    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params: Params = criterion.params()?;
        let packages: Vec<String> = criterion.paths().map(str::to_string).collect();
        if packages.is_empty() {
            return Ok(nothing(params.allow_empty, "no package"));
        }
        let mut inputs = Vec::new();
        for id in &params.inputs {
            for f in vcc_sdk::files(id).map_err(|e| format!("params.inputs: {e}"))? {
                inputs.push((relative(&f.path).to_string(), f.digest));
            }
        }
        let limits = Limits {
            entries: params.max_entries,
            bytes: params.max_bytes,
        };
        let mut findings = Findings::default();
        let mut seen = Vec::new();
        for package in &packages {
            let data = vcc_sdk::read(package)?;
            let entries = match archive::read(&data, limits) {
                Ok(e) => e,
                Err(why) => {
                    findings.push(
                        Finding::new(format!("the package cannot be read: {why}"))
                            .path(package)
                            .rule("unreadable"),
                    );
                    continue;
                }
            };
            let at = |message: String, rule: &str| Finding::new(message).path(package).rule(rule);
            collisions(&entries, &mut |m, r| findings.push(at(m, r)));
            let (folders, files): (Vec<Entry>, Vec<Entry>) =
                entries.into_iter().partition(|e| e.folder);
            let checked = check(package, &files, &folders, &inputs, &params, &mut findings);
            seen.push(json!({"package": relative(package), "entries": checked}));
        }
        let evidence = bounded::evidence(json!({"inputs": inputs.len()}), &seen);
        let outcome = if findings.is_empty() {
            Outcome::pass(format!(
                "{} package(s) hold the {} input file(s) byte for byte{}",
                packages.len(),
                inputs.len(),
                if params.manifest {
                    ", with a manifest that matches"
                } else {
                    ""
                }
            ))
        } else {
            Outcome::fail(format!(
                "{} problem(s) in {} package(s)",
                findings.len(),
                packages.len()
            ))
            .findings(findings.into_vec())
        };
        Ok(outcome.evidence("package-check.json", "application/json", evidence))
    }
}

/// Every problem of one package but its [`collisions`]; its files with
/// their digests.
fn check(
    package: &str,
    entries: &[Entry],
    folders: &[Entry],
    inputs: &[(String, String)],
    params: &Params,
    findings: &mut Findings,
) -> Vec<Value> {
    let at = |message: String, rule: &str| Finding::new(message).path(package).rule(rule);
    let folder = relative(package).rsplit_once('/').map_or("", |(d, _)| d);
    let mut used: BTreeMap<&str, &str> = BTreeMap::new();
    for (path, digest) in inputs {
        let Some(e) = find(entries, path, folder) else {
            findings.push(at(
                format!("input `{path}` is not in the package"),
                "missing-input",
            ));
            continue;
        };
        used.insert(e.name.as_str(), path.as_str());
        // A folder entry there too: GNU tar would replace the input with
        // an empty folder.
        let others = onto(entries, path, folder).chain(onto(folders, path, folder));
        for other in others.filter(|o| !std::ptr::eq(*o, e)) {
            findings.push(at(
                format!(
                    "entry `{}` would be unpacked onto input `{path}`, which entry `{}` holds",
                    other.name, e.name
                ),
                "duplicate-entry",
            ));
        }
        if let Some(why) = unreadable(e, folders) {
            findings.push(at(
                format!("input `{path}`: {why}, so its owner could not read it once unpacked"),
                "unreadable",
            ));
        }
        let got = format!("blake3:{}", blake3::hash(&e.bytes).to_hex());
        if &got != digest {
            findings.push(at(
                format!(
                    "entry `{}` is not the bytes of `{path}` ({got}, the deliverable is {digest})",
                    e.name
                ),
                "different-bytes",
            ));
        }
    }
    let manifest = entries
        .iter()
        .find(|e| MANIFESTS.contains(&archive::normal(&e.name).as_str()));
    match (params.manifest, manifest) {
        (true, None) => findings.push(at(
            "no manifest (MANIFEST.json at the top of the package)".into(),
            "no-manifest",
        )),
        (true, Some(m)) => check_manifest(m, entries, findings, package),
        _ => {}
    }
    if !params.allow_extra {
        for e in entries {
            let manifest = MANIFESTS.contains(&archive::normal(&e.name).as_str());
            if !used.contains_key(e.name.as_str()) && !manifest {
                findings.push(at(
                    format!("entry `{}` is not an input of the package", e.name),
                    "extra-entry",
                ));
            }
        }
    }
    entries
        .iter()
        .map(|e| json!({"name": e.name, "blake3": blake3::hash(&e.bytes).to_hex().to_string(), "input": used.get(e.name.as_str())}))
        .collect()
}

/// Why the file unpacked from `e` would be unreadable by its owner, if it
/// would: no owner read bit (GNU tar and unzip apply the mode as it is;
/// only root reads it anyway), or a folder entry above it its owner cannot
/// list or enter.
fn unreadable(e: &Entry, folders: &[Entry]) -> Option<String> {
    if let Some(mode) = e.mode.filter(|m| m & 0o400 == 0) {
        return Some(format!("entry `{}` has mode {mode:04o}", e.name));
    }
    let name = archive::fold(&e.name);
    folders.iter().find_map(|f| {
        let mode = f.mode.filter(|m| m & 0o500 != 0o500)?;
        let above = name.starts_with(&format!("{}/", archive::fold(&f.name)));
        above.then(|| format!("folder entry `{}` above it has mode {mode:04o}", f.name))
    })
}

/// Entries that are unsafe to unpack, or that would be unpacked onto the
/// same path as another on Linux, macOS or Windows (`notes.md` and
/// `./notes.md`, `a//b` and `a/b`, `Notes.md` and `notes.md`, `notes.md.`
/// and `notes.md `, NFC and NFD: see [`archive::fold`]), a folder entry
/// onto a file (GNU tar replaces the file with an empty folder), or a file
/// onto a folder another needs (`a` and `a/b`). Whatever `allow_extra`
/// says: the second overwrites the first, which may be an input.
fn collisions(entries: &[Entry], push: &mut dyn FnMut(String, &str)) {
    let mut names: BTreeMap<String, &str> = BTreeMap::new();
    let mut folders: BTreeMap<String, &str> = BTreeMap::new();
    for e in entries {
        if e.folder && archive::normal(&e.name).is_empty() {
            // `./`, which GNU tar writes first: the folder unpacked into.
            continue;
        }
        if let Some(why) = archive::unsafe_name(&e.name) {
            push(
                format!(
                    "entry `{}` has {why}: it could be unpacked outside its folder",
                    e.name
                ),
                "unsafe-entry",
            );
        }
        let key = archive::fold(&e.name);
        if e.folder {
            // The same folder twice is harmless; a folder and a file
            // (either first) on one path is not.
            if let Some(file) = names.get(&key) {
                push(
                    format!(
                        "folder entry `{}` would be unpacked onto entry `{file}`: it replaces the file with an empty folder",
                        e.name
                    ),
                    "duplicate-entry",
                );
            }
            folders.insert(key, e.name.as_str());
            continue;
        }
        if let Some(folder) = folders.get(&key) {
            push(
                format!(
                    "entry `{}` would be unpacked onto folder entry `{folder}`",
                    e.name
                ),
                "duplicate-entry",
            );
        }
        if let Some(first) = names.insert(key, e.name.as_str()) {
            push(
                format!(
                    "entry `{}` would be unpacked onto entry `{first}`: it is in the package twice",
                    e.name
                ),
                "duplicate-entry",
            );
        }
    }
    for (key, name) in names.iter().chain(folders.iter()) {
        let mut folder = key.as_str();
        while let Some((parent, _)) = folder.rsplit_once('/') {
            if let Some(file) = names.get(parent) {
                push(
                    format!("entry `{name}` needs a folder where entry `{file}` is a file"),
                    "duplicate-entry",
                );
            }
            folder = parent;
        }
    }
}

/// The entries that would be unpacked onto an input: its path under the
/// root (unpacked at the root) or under the package's folder (unpacked
/// beside the package).
fn onto<'a>(
    entries: &'a [Entry],
    path: &'a str,
    folder: &'a str,
) -> impl Iterator<Item = &'a Entry> {
    let within = path
        .strip_prefix(folder)
        .and_then(|p| p.strip_prefix('/'))
        .filter(|_| !folder.is_empty());
    let path = archive::fold(path);
    let within = within.map(archive::fold);
    entries.iter().filter(move |e| {
        let n = archive::fold(&e.name);
        n == path || within.as_ref().is_some_and(|w| &n == w)
    })
}

/// The entry holding an input: by its path under the root, by its path
/// relative to the package's folder, or by its name if only one entry
/// has that name.
fn find<'a>(entries: &'a [Entry], path: &str, folder: &str) -> Option<&'a Entry> {
    let within = path
        .strip_prefix(folder)
        .map(|p| p.trim_start_matches('/'))
        .filter(|_| !folder.is_empty());
    if let Some(e) = entries.iter().find(|e| {
        let n = archive::normal(&e.name);
        n == path || Some(n.as_str()) == within
    }) {
        return Some(e);
    }
    let base = path.rsplit('/').next().unwrap_or(path);
    let mut named = entries
        .iter()
        .filter(|e| archive::normal(&e.name).rsplit('/').next() == Some(base));
    match (named.next(), named.next()) {
        (Some(e), None) => Some(e),
        _ => None,
    }
}

fn check_manifest(m: &Entry, entries: &[Entry], findings: &mut Findings, package: &str) {
    let at = |message: String| {
        Finding::new(message)
            .path(package)
            .rule("manifest-mismatch")
    };
    let value: Value = match vcc_sdk::serde_json::from_slice(&m.bytes) {
        Ok(v) => v,
        Err(e) => {
            findings.push(at(format!("the manifest `{}` is not JSON: {e}", m.name)));
            return;
        }
    };
    let Some(list) = value
        .get("files")
        .and_then(Value::as_array)
        .or_else(|| value.as_array())
        .cloned()
    else {
        // Another shape would list nothing, and every entry would be "not
        // in the manifest": say what shape was expected instead.
        let has = match &value {
            Value::Object(o) => format!(
                "an object with {}",
                if o.is_empty() {
                    "no key".to_string()
                } else {
                    o.keys()
                        .take(5)
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ),
            _ => "not an object or a list".into(),
        };
        findings.push(at(format!(
            "the manifest `{}` is not in the shape std/package reads: expected {{\"files\": [{{\"path\": \"…\", \"sha256\": \"…\"}}]}} (or \"blake3\" for \"sha256\"; or the list alone), but it is {has}; `vcc package manifest DIR` writes one",
            m.name
        )));
        return;
    };
    let mut listed = BTreeSet::new();
    for item in &list {
        let Some(path) = item.get("path").and_then(Value::as_str) else {
            findings.push(at("a manifest item has no `path`".into()));
            continue;
        };
        listed.insert(archive::normal(path));
        let Some(e) = entries
            .iter()
            .find(|e| archive::normal(&e.name) == archive::normal(path))
        else {
            findings.push(at(format!(
                "the manifest lists `{path}`, which the package does not hold"
            )));
            continue;
        };
        // Every digest the item gives must be the entry's: a right sha256
        // beside a wrong blake3 is a manifest that lies.
        let sha256 = item.get("sha256").and_then(Value::as_str);
        let blake3 = item.get("blake3").and_then(Value::as_str);
        let ok = (sha256.is_some() || blake3.is_some())
            && sha256.is_none_or(|want| {
                format!("{:x}", Sha256::digest(&e.bytes)) == want.trim_start_matches("sha256:")
            })
            && blake3.is_none_or(|want| {
                blake3::hash(&e.bytes).to_hex().as_str() == want.trim_start_matches("blake3:")
            });
        if !ok {
            findings.push(at(format!(
                "the manifest's digest of `{path}` is not the entry's (or it has none)"
            )));
        }
    }
    for e in entries {
        if e.name != m.name && !listed.contains(&archive::normal(&e.name)) {
            findings.push(at(format!("entry `{}` is not in the manifest", e.name)));
        }
    }
}

vcc_sdk::export_validator!(Package);

#[cfg(test)]
mod tests;
