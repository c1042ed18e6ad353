//! `std/file-exists`: every target deliverable has files, and they have bytes.
//!
//! With no params a criterion passes iff every target has at least one file
//! and no target file is empty. Params narrow or widen that: `glob` counts
//! only matching files, `min`/`max` bound the count per target, and
//! `allow_empty` accepts zero-byte files. `changed_since` (a map of path
//! → the blake3 the file had, written by `vcc init --task` when it drafts
//! a contract) makes the criterion fail until the work changed something:
//! it passes only when a listed file has other bytes or is gone, or a
//! target holds a file the map does not list.

use vcc_sdk::serde::Deserialize;
use vcc_sdk::serde_json::json;
use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator, relative};

struct FileExists;

#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde", deny_unknown_fields)]
struct Params {
    glob: Option<String>,
    #[serde(default = "one")]
    min: u64,
    max: Option<u64>,
    #[serde(default)]
    allow_empty: bool,
    /// Path (relative to the root) → `blake3:<hex>` it had when the
    /// contract was drafted.
    #[serde(default)]
    changed_since: std::collections::BTreeMap<String, String>,
}

fn one() -> u64 {
    1
}

/// The glob, compiled; or the params problem with its pointer.
fn prepare(params: &Params) -> Result<Option<vcc_plugin_common::GlobMatcher>, Finding> {
    if let Some(max) = params.max
        && max < params.min
    {
        return Err(
            Finding::new(format!("max ({max}) is below min ({})", params.min)).param("/max"),
        );
    }
    params
        .glob
        .as_deref()
        .map(vcc_plugin_common::glob)
        .transpose()
        .map_err(|e| Finding::new(e).param("/glob"))
}

impl Validator for FileExists {
    fn describe() -> Description {
        Description::new(
            "std/file-exists",
            env!("CARGO_PKG_VERSION"),
            "target deliverables exist and are non-empty (optionally: glob, min/max file counts)",
        )
        .params_schema(json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "glob": {
                    "type": "string",
                    "description": "count only files whose path (relative to the deliverable root) matches this glob"
                },
                "min": {
                    "type": "integer", "minimum": 0, "default": 1,
                    "description": "minimum number of (matching) files per target"
                },
                "max": {
                    "type": "integer", "minimum": 0,
                    "description": "maximum number of (matching) files per target"
                },
                "allow_empty": {
                    "type": "boolean", "default": false,
                    "description": "accept zero-byte files"
                },
                "changed_since": {
                    "type": "object",
                    "additionalProperties": { "type": "string", "pattern": "^blake3:[0-9a-f]{64}$" },
                    "description": "path (relative to the root) → the blake3 it had when the contract was drafted: the criterion passes only when one of them changed or is gone, or a target holds a file not listed (`vcc init --task` writes it)"
                }
            }
        }))
    }

    fn check_params(params: &str) -> Result<(), Vec<Finding>> {
        let params: Params = vcc_plugin_common::parse_params(params)?;
        prepare(&params).map(|_| ()).map_err(|f| vec![f])
    }

    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params: Params = criterion.params()?;
        let matcher = prepare(&params).map_err(|f| vcc_sdk::invalid_params(f.message))?;
        if criterion.targets.is_empty() {
            return Ok(Outcome::skip("the criterion has no targets to check"));
        }

        let mut findings = vcc_plugin_common::bounded::Findings::default();
        let mut counted = 0usize;
        for target in &criterion.targets {
            let files: Vec<&str> = target
                .paths
                .iter()
                .map(String::as_str)
                .filter(|p| matcher.as_ref().is_none_or(|m| m.is_match(relative(p))))
                .collect();
            let count = files.len() as u64;
            counted += files.len();
            let what = match &params.glob {
                Some(glob) => format!("files matching `{glob}`"),
                None => "files".to_string(),
            };
            if count < params.min {
                findings.push(
                    Finding::new(format!(
                        "deliverable `{}` has {count} {what}, at least {} required",
                        target.id, params.min
                    ))
                    .rule("min-count"),
                );
            }
            if let Some(max) = params.max
                && count > max
            {
                findings.push(
                    Finding::new(format!(
                        "deliverable `{}` has {count} {what}, at most {max} allowed",
                        target.id
                    ))
                    .rule("max-count"),
                );
            }
            if !params.allow_empty {
                for path in files {
                    if vcc_sdk::stat(path)?.size == 0 {
                        findings.push(Finding::new("file is empty").path(path).rule("empty"));
                    }
                }
            }
        }

        if !params.changed_since.is_empty() {
            let paths: Vec<&str> = criterion
                .targets
                .iter()
                .flat_map(|t| t.paths.iter().map(String::as_str))
                .collect();
            if let Some(unchanged) = unchanged(&params.changed_since, &paths) {
                findings.push(
                    Finding::new(format!(
                        "none of the files the work is about changed since the contract was drafted ({unchanged}): the work is not done yet"
                    ))
                    .rule("unchanged"),
                );
            }
        }

        let targets = criterion.targets.len();
        Ok(if findings.is_empty() {
            Outcome::pass(format!("{counted} file(s) present in {targets} target(s)"))
        } else {
            Outcome::fail(format!(
                "{} problem(s) in {targets} target(s)",
                findings.len()
            ))
            .findings(findings.into_vec())
        })
    }
}

/// `None` when the work changed something: a listed file has other bytes
/// or is gone, or a target file is not listed. Else the files, as they
/// were drafted.
fn unchanged(
    drafted: &std::collections::BTreeMap<String, String>,
    present: &[&str],
) -> Option<String> {
    if present.iter().any(|p| !drafted.contains_key(relative(p))) {
        return None;
    }
    for (path, digest) in drafted {
        match vcc_sdk::stat(path) {
            Ok(info) if &info.digest == digest => {}
            // Other bytes, or gone (or no longer readable): changed.
            _ => return None,
        }
    }
    Some(
        drafted
            .keys()
            .map(|p| format!("`{p}`"))
            .collect::<Vec<_>>()
            .join(", "),
    )
}

vcc_sdk::export_validator!(FileExists);
