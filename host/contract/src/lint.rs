//! The integrity pass: everything that can be known before a validator runs.
//!
//! `vcc lint` runs it alone and every `vcc check` runs it first; a check
//! with any error here is `invalid` and runs no validator. Loading
//! validators needs the runtime, so it comes in through [`Catalog`] and this
//! crate stays free of wasmtime.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::exclude::Excludes;
use crate::model::{
    BUILTIN_PREFIX, Budget, Criterion, FailAction, Limits, OnFail, Severity, ValidatorRef,
};
use crate::parse::Document;
use crate::paths;
use crate::problem::{Code, FieldPath, Level, Problem, Seg};

/// What lint needs to know about a validator component.
#[derive(Debug, Clone)]
pub struct ValidatorInfo {
    /// The JSON Schema of the validator's `params`.
    pub params_schema: Value,
    /// `blake3:<hex>` of the component's bytes.
    pub digest: String,
    /// It imports the `judge` interface (vcc:validator@0.1.4): it can ask
    /// AI judges (a Rust component imports it only when it does).
    pub judge: bool,
}

/// Loads the validators a contract binds.
pub trait Catalog {
    /// Load the component bound as `name` and describe it, or say, in words,
    /// why it cannot be used (missing, digest mismatch, unsupported WIT
    /// version, does not load).
    fn describe(&mut self, name: &str, binding: &ValidatorRef) -> Result<ValidatorInfo, String>;

    /// What the validator bound as `name` says about params that satisfied
    /// its schema (its `check-params`, since vcc:validator@0.1.2): one
    /// (JSON pointer, message) per problem, none when they are fine. `Err`
    /// when it could not be asked (it trapped, ran out of time).
    fn check_params(
        &mut self,
        _name: &str,
        _params: &Value,
    ) -> Result<Vec<(String, String)>, String> {
        Ok(Vec::new())
    }

    /// Whether params with this key (see [`params_key`]) satisfied their
    /// schema in an earlier lint, as the catalog remembers it. Checking them
    /// again means compiling the schema (milliseconds), on every run.
    fn params_known_valid(&mut self, _key: &blake3::Hash) -> bool {
        false
    }

    /// Params with this key satisfied their schema.
    fn params_valid(&mut self, _key: blake3::Hash) {}
}

/// What identifies one params check: the component (whose `check-params`
/// ran), its schema and the params, exactly.
pub fn params_key(info: &ValidatorInfo, params: &Value) -> blake3::Hash {
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"vcc params 2\0");
    hasher.update(info.digest.as_bytes());
    hasher.update(b"\0");
    hasher.update(info.params_schema.to_string().as_bytes());
    hasher.update(b"\0");
    hasher.update(params.to_string().as_bytes());
    hasher.finalize()
}

/// A bundle name: `/`-separated segments of lowercase letters, digits,
/// `.`, `_` and `-`, each starting with a letter or digit (an OCI
/// repository name), like `acme/security`.
pub fn check_bundle_name(name: &str) -> Result<(), String> {
    let segment_ok = |s: &str| {
        s.bytes()
            .next()
            .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b))
    };
    if name.len() <= 128 && name.split('/').all(segment_ok) {
        Ok(())
    } else {
        Err(format!(
            "`{name}` is not a bundle name: use lowercase path segments like `acme/security`"
        ))
    }
}

/// The name of a validator or contract inside a bundle (it becomes a file
/// name there): letters, digits, `.`, `_`, `-`, starting with a letter or
/// digit, at most 64 characters.
pub fn check_item_name(name: &str) -> Result<(), String> {
    let ok = name.len() <= 64
        && name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{name}` is not a name for a validator or contract in a bundle: letters, digits, `.`, `_`, `-`"
        ))
    }
}

/// Under a trust policy's `require_signed`: every validator is `std/` or
/// from a bundle (which the policy verifies); any other is an error.
pub fn require_signed(doc: &Document, policy: &Path) -> Vec<Problem> {
    let mut out = Vec::new();
    for (name, v) in &doc.contract.validators {
        if v.builtin().is_some() || v.bundle.is_some() {
            continue;
        }
        let mut p = doc.problem(
            Code::UnsignedValidator,
            Level::Error,
            &FieldPath::root().key("validators").key(name).key("component"),
            format!(
                "validator `{name}` ({}) is not from a signed bundle, and the trust policy ({}) requires signed validators",
                v.component,
                policy.display()
            ),
        );
        p.help = Some("use a `std/` validator, or one from a bundle the trust policy trusts (`bundle:`, `validator:`), or ask the policy's owner".into());
        out.push(p);
    }
    out
}

/// Bounds on limits; outside them a number is a typo or an attack.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(3600);
pub const MIN_TIMEOUT: Duration = Duration::from_millis(1);
pub const MAX_MEMORY: u64 = 4 << 30;
pub const MIN_MEMORY: u64 = 1 << 20;
const MAX_ID_LEN: usize = 128;

/// Run the integrity pass. With `catalog` absent, validators are not loaded
/// (and nothing about them is checked beyond their names). `root` is the
/// deliverable root (default: the contract's folder): a component under it
/// is the producer's to replace, so it must be pinned.
pub fn lint(
    doc: &Document,
    catalog: Option<&mut dyn Catalog>,
    root: Option<&Path>,
) -> Vec<Problem> {
    // A translated VCC v1 contract brings the problems found translating it.
    let mut lint = Lint {
        doc,
        problems: doc.notes.clone(),
        root: root.map_or_else(|| doc.default_root(), Path::to_path_buf),
        explicit_root: root.is_some(),
        param_refs: HashSet::new(),
    };
    let root = FieldPath::root();
    let c = &doc.contract;

    lint.check_id(&root.key("id"), &c.id, "contract");
    if let Some(r) = &c.root
        && Path::new(r).is_absolute()
    {
        let mut p = lint.problem(
            Code::PathAbsolute,
            Level::Error,
            &root.key("root"),
            format!("root `{r}` is absolute, so the contract only works on this machine"),
        );
        p.help =
            Some("write it relative to the contract file (e.g. `root: ..`), or give --dir".into());
        lint.problems.push(p);
    }
    let deliverables = lint.deliverables();
    lint.excludes();
    lint.contract_files();
    lint.dependencies(&deliverables);
    lint.validators();
    lint.extends();
    let used = lint.criteria(&deliverables);
    if let Some(limits) = &c.limits {
        lint.limits(&root.key("limits"), limits);
    }
    if let Some(budget) = &c.budget {
        lint.budget(&root.key("budget"), budget);
    }

    // A MUST that could not even be translated is reported already; saying
    // "no MUST" on top of it would mislead.
    let untranslated_must = doc.notes.iter().any(|n| n.code == Code::UnverifiableMust);
    if !c.advisory && !untranslated_must && !c.criteria.iter().any(|c| c.severity == Severity::Must)
    {
        let mut p = lint.problem(
            Code::NoMust,
            Level::Error,
            &root.key("criteria"),
            "the contract has no MUST criterion, so it could never be accepted".into(),
        );
        p.help = Some("add a `severity: must` criterion, or declare `advisory: true`".into());
        lint.problems.push(p);
    }
    for (name, _) in c
        .validators
        .iter()
        .filter(|(n, _)| !used.contains(n.as_str()))
    {
        lint.push(
            Code::UnusedValidator,
            Level::Warning,
            &root.key("validators").key(name),
            format!("validator `{name}` is not used by any criterion"),
        );
    }
    if let Some(catalog) = catalog {
        lint.bound_validators(catalog);
    }
    lint.unchecked_deliverables();
    crate::gates::lint(doc, &mut lint.problems);
    crate::judges::lint(doc, &mut lint.problems);
    lint.problems
}

struct Lint<'a> {
    doc: &'a Document,
    problems: Vec<Problem>,
    root: PathBuf,
    /// The root was given (`vcc lint --dir`): files params name in it are
    /// checked too.
    explicit_root: bool,
    /// Deliverables criteria use through params a validator marks
    /// `x-vcc-deliverable` (`cover`, `produced`, `schema_deliverable`).
    param_refs: HashSet<String>,
}

impl<'a> Lint<'a> {
    fn problem(&self, code: Code, level: Level, field: &FieldPath, message: String) -> Problem {
        self.doc.problem(code, level, field, message)
    }

    fn push(&mut self, code: Code, level: Level, field: &FieldPath, message: String) {
        let p = self.problem(code, level, field, message);
        self.problems.push(p);
    }

    fn check_id(&mut self, field: &FieldPath, id: &str, what: &str) {
        let ok = !id.is_empty()
            && id.len() <= MAX_ID_LEN
            && id.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
            && id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
        if !ok {
            let mut p = self.problem(
                Code::InvalidId,
                Level::Error,
                field,
                format!("{what} id {} is not valid", crate::problem::quoted(id)),
            );
            p.help = Some(format!(
                "use letters, digits, `.`, `_` and `-`, starting with a letter or digit, at most {MAX_ID_LEN} characters"
            ));
            self.problems.push(p);
        }
    }

    /// Deliverable ids, paths, and the id → index map.
    fn deliverables(&mut self) -> HashMap<&'a str, usize> {
        let list = FieldPath::root().key("deliverables");
        let mut ids = HashMap::new();
        let doc: &'a Document = self.doc;
        for (i, d) in doc.contract.deliverables.iter().enumerate() {
            let at = list.index(i);
            self.check_id(&at.key("id"), &d.id, "deliverable");
            // The first declaration wins; later ones are reported.
            if ids.contains_key(d.id.as_str()) {
                self.push(
                    Code::DuplicateId,
                    Level::Error,
                    &at.key("id"),
                    format!("deliverable id `{}` is used twice", d.id),
                );
            } else {
                ids.insert(d.id.as_str(), i);
            }
            if let Err((code, message)) = paths::check(&d.path) {
                self.push(code, Level::Error, &at.key("path"), message);
            }
        }
        ids
    }

    /// `{ $file: PATH }` left in params (a contract that was not read from
    /// a file, like a bundle's, cannot name files), and files the
    /// producer of the deliverables could edit.
    fn contract_files(&mut self) {
        let criteria = FieldPath::root().key("criteria");
        for (i, c) in self.doc.contract.criteria.iter().enumerate() {
            if let Some(params) = &c.params
                && let Some(at) = first_reference(params, criteria.index(i).key("params"))
            {
                let mut p = self.problem(
                    Code::InvalidParams,
                    Level::Error,
                    &at,
                    "`$file` names a file, but this contract was not read from a folder it could be relative to".into(),
                );
                p.help = Some("write the value inline, or ship the contract as a file".into());
                self.problems.push(p);
            }
        }
        let root = std::fs::canonicalize(&self.root).ok();
        for f in &self.doc.files {
            let full = std::fs::canonicalize(self.doc.dir().join(&f.path)).ok();
            if let (Some(root), Some(full)) = (&root, full)
                && full.starts_with(root)
            {
                let mut p = self.problem(
                    Code::ContractFileInRoot,
                    Level::Warning,
                    &FieldPath::root().key("criteria"),
                    format!(
                        "`{}` lies under the deliverable root, where whoever writes the deliverables can change it",
                        f.path
                    ),
                );
                p.field = None;
                p.help = Some(
                    "keep the contract's files outside the deliverable root (e.g. `root: ..` and the files beside the contract), or pin the contract's digest in the trust policy".into(),
                );
                self.problems.push(p);
            }
        }
    }

    /// Deliverables no criterion targets nor names through its params. A
    /// required one is still checked: the host gives it a MUST row of its
    /// own (see `presence_checks`), so only its existence is judged.
    fn unchecked_deliverables(&mut self) {
        let c = &self.doc.contract;
        let targeted: HashSet<&str> = c
            .criteria
            .iter()
            .flat_map(|c| c.targets.iter().map(String::as_str))
            .chain(self.param_refs.iter().map(String::as_str))
            .collect();
        let mut found = Vec::new();
        for (i, d) in c.deliverables.iter().enumerate() {
            if !targeted.contains(d.id.as_str()) {
                let message = if d.required {
                    format!(
                        "deliverable `{}` is not a target of any criterion: vcc checks only that it exists (a MUST row of its own, `{}`)",
                        d.id,
                        crate::model::presence_id(&d.id)
                    )
                } else {
                    format!(
                        "deliverable `{}` is not a target of any criterion, and is not required: nothing checks it",
                        d.id
                    )
                };
                found.push((i, message));
            }
        }
        for (i, message) in found {
            let mut p = self.problem(
                Code::UncheckedDeliverable,
                Level::Warning,
                &FieldPath::root().key("deliverables").index(i).key("id"),
                message,
            );
            p.help = Some("target it with a criterion that checks its contents".into());
            self.problems.push(p);
        }
    }

    /// Params a validator marks as naming deliverables (`"x-vcc-deliverable":
    /// true`: a deliverable id, or a list of them) must name deliverables
    /// of the contract; the ones named count as used.
    fn deliverable_refs(&mut self, at: &FieldPath, info: &ValidatorInfo, params: &Value) {
        let Some(props) = info
            .params_schema
            .get("properties")
            .and_then(Value::as_object)
        else {
            return;
        };
        let ids: HashSet<&str> = self
            .doc
            .contract
            .deliverables
            .iter()
            .map(|d| d.id.as_str())
            .collect();
        let mut unknown = Vec::new();
        for (name, schema) in props {
            if schema.get(DELIVERABLE_KEYWORD) != Some(&Value::Bool(true)) {
                continue;
            }
            let named: Vec<&str> = match params.get(name) {
                Some(Value::String(id)) => vec![id.as_str()],
                Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
                _ => continue,
            };
            for id in named {
                if ids.contains(id) {
                    self.param_refs.insert(id.to_string());
                } else {
                    unknown.push((name.clone(), id.to_string()));
                }
            }
        }
        for (name, id) in unknown {
            let mut p = self.problem(
                Code::UnknownTarget,
                Level::Error,
                &at.key("params").key(&name),
                format!("`{name}` names deliverable `{id}`, which the contract does not have"),
            );
            p.help = closest(&id, &ids.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                .map(|g| format!("did you mean `{g}`?"));
            self.problems.push(p);
        }
    }

    /// Params a validator marks as naming a file in the deliverable root
    /// (`"x-vcc-root-file": true` in its parameter schema) must name one.
    fn root_files(&mut self, at: &FieldPath, info: &ValidatorInfo, params: &Value) {
        let Some(props) = info
            .params_schema
            .get("properties")
            .and_then(Value::as_object)
        else {
            return;
        };
        for (name, schema) in props {
            if schema.get(ROOT_FILE_KEYWORD) != Some(&Value::Bool(true)) {
                continue;
            }
            let Some(path) = params.get(name).and_then(Value::as_str) else {
                continue;
            };
            let is_file = paths::check(path).ok().and_then(|spec| match spec {
                paths::PathSpec::Literal(p) => std::fs::symlink_metadata(self.root.join(p)).ok(),
                paths::PathSpec::Glob(_) => None,
            });
            if !is_file.is_some_and(|m| m.is_file()) {
                let mut p = self.problem(
                    Code::InvalidParams,
                    Level::Error,
                    &at.key("params").key(name),
                    format!(
                        "`{name}: {path}` names no file in the deliverable root {}",
                        self.root.display()
                    ),
                );
                p.help = Some(
                    "give the path of a regular file relative to the deliverable root, or put the file beside the contract and write `{ $file: PATH }` where the validator takes the value inline".into(),
                );
                self.problems.push(p);
            }
        }
    }

    /// `exclude` patterns, and deliverables they would hide entirely.
    fn excludes(&mut self) {
        let c = &self.doc.contract;
        let excludes = match Excludes::new(&c.exclude, &[], false) {
            Ok(excludes) => excludes,
            Err(bad) => {
                let mut p = self.problem(
                    Code::InvalidExclude,
                    Level::Error,
                    &FieldPath::root().key("exclude").index(bad.index),
                    format!("exclude pattern: {}", bad.message),
                );
                p.help = Some(
                    "write a gitignore pattern relative to the deliverable root, e.g. `target/` or `*.log`".into(),
                );
                self.problems.push(p);
                return;
            }
        };
        let list = FieldPath::root().key("deliverables");
        for (i, d) in c.deliverables.iter().enumerate() {
            let Ok(spec) = paths::check(&d.path) else {
                continue;
            };
            if let Some(rule) = excludes.hides(&spec) {
                let mut p = self.problem(
                    Code::ExcludedDeliverable,
                    Level::Error,
                    &list.index(i).key("path"),
                    format!(
                        "deliverable `{}` ({}) only names excluded files ({rule}), so no criterion could ever see it",
                        d.id, d.path
                    ),
                );
                p.help = Some(if rule.starts_with("(always)") {
                    "`.git` is never part of the deliverables; name the files a criterion should judge elsewhere".into()
                } else {
                    "narrow the `exclude` pattern, or add a `!pattern` line after it that keeps these files".into()
                });
                self.problems.push(p);
            }
        }
    }

    fn dependencies(&mut self, ids: &HashMap<&str, usize>) {
        let list = FieldPath::root().key("deliverables");
        let all = &self.doc.contract.deliverables;
        let mut edges: Vec<Vec<usize>> = vec![Vec::new(); all.len()];
        for (i, d) in all.iter().enumerate() {
            for (j, dep) in d.depends_on.iter().enumerate() {
                match ids.get(dep.as_str()) {
                    Some(&k) => edges[i].push(k),
                    None => self.push(
                        Code::UnknownDependency,
                        Level::Error,
                        &list.index(i).key("depends_on").index(j),
                        format!(
                            "deliverable `{}` depends on `{dep}`, which is not a deliverable",
                            d.id
                        ),
                    ),
                }
            }
        }
        if let Some(cycle) = find_cycle(&edges) {
            let names: Vec<&str> = cycle.iter().map(|&i| all[i].id.as_str()).collect();
            let first = cycle[0];
            self.push(
                Code::DependencyCycle,
                Level::Error,
                &list.index(first).key("depends_on"),
                format!(
                    "deliverables depend on each other in a cycle: {}",
                    names.join(" → ")
                ),
            );
        }
    }

    fn validators(&mut self) {
        let map = FieldPath::root().key("validators");
        for (name, v) in &self.doc.contract.validators {
            let at = map.key(name);
            self.check_id(&at, name, "validator");
            if let Some(bundle) = &v.bundle {
                self.bundle_binding(&at, name, bundle, v);
            } else if v.component.trim().is_empty() {
                let mut p = self.problem(
                    Code::MissingField,
                    Level::Error,
                    &at,
                    format!("validator `{name}` names no component"),
                );
                p.help = Some("give `component: std/NAME` or a `.wasm` path, or `bundle:` and `validator:` for a validator of a signed bundle".into());
                self.problems.push(p);
            } else if v.component.starts_with(BUILTIN_PREFIX)
                && v.component.len() == BUILTIN_PREFIX.len()
            {
                self.push(
                    Code::InvalidValue,
                    Level::Error,
                    &at.key("component"),
                    format!(
                        "validator `{name}`: `{}` names no built-in validator",
                        v.component
                    ),
                );
            }
            if v.bundle.is_none() {
                for (field, given) in [
                    ("validator", v.validator.is_some()),
                    ("version", v.version.is_some()),
                ] {
                    if given {
                        self.push(
                            Code::InvalidValue,
                            Level::Error,
                            &at.key(field),
                            format!("validator `{name}`: `{field}` belongs with `bundle`"),
                        );
                    }
                }
            }
            if let Some(digest) = &v.digest
                && !is_digest(digest)
            {
                let mut p = self.problem(
                    Code::InvalidDigest,
                    Level::Error,
                    &at.key("digest"),
                    format!(
                        "validator `{name}`: digest {} is not `blake3:<64 lowercase hex digits>`",
                        crate::problem::quoted(digest)
                    ),
                );
                p.help = Some(
                    "`vcc validator inspect COMPONENT` and `b3sum` print a component's digest; write it as `blake3:<64 hex digits>`".into(),
                );
                self.problems.push(p);
            }
        }
    }

    /// A validator from a bundle: a bundle name, a validator name, a
    /// version requirement; no component or digest (`vcc.lock` pins it).
    fn bundle_binding(&mut self, at: &FieldPath, name: &str, bundle: &str, v: &ValidatorRef) {
        if let Err(message) = check_bundle_name(bundle) {
            self.push(Code::InvalidValue, Level::Error, &at.key("bundle"), message);
        }
        if !v.component.is_empty() {
            self.push(
                Code::InvalidValue,
                Level::Error,
                &at.key("component"),
                format!("validator `{name}` names both a component and a bundle; keep one"),
            );
        }
        if v.digest.is_some() {
            let mut p = self.problem(
                Code::InvalidValue,
                Level::Error,
                &at.key("digest"),
                format!("validator `{name}` comes from bundle `{bundle}`, which `vcc.lock` pins; a digest here would pin nothing more"),
            );
            p.help = Some("remove `digest`; run `vcc lock` to pin the bundle".into());
            self.problems.push(p);
        }
        if let Some(item) = &v.validator
            && let Err(message) = check_item_name(item)
        {
            self.push(
                Code::InvalidValue,
                Level::Error,
                &at.key("validator"),
                message,
            );
        }
        if let Some(version) = &v.version {
            self.version_requirement(&at.key("version"), version);
        }
    }

    fn version_requirement(&mut self, at: &FieldPath, version: &str) {
        if let Err(e) = semver::VersionReq::parse(version) {
            let mut p = self.problem(
                Code::InvalidValue,
                Level::Error,
                at,
                format!("`{version}` is not a semver requirement: {e}"),
            );
            p.help = Some("e.g. `^1.2`, `~1.2.3`, `>=1.2, <2`, or `=1.2.3`".into());
            self.problems.push(p);
        }
    }

    /// `extends`: which bundle, which of its contracts, which versions.
    fn extends(&mut self) {
        let Some(e) = &self.doc.contract.extends else {
            return;
        };
        let at = FieldPath::root().key("extends");
        if let Err(message) = check_bundle_name(&e.bundle) {
            self.push(Code::InvalidValue, Level::Error, &at.key("bundle"), message);
        }
        if let Err(message) = check_item_name(&e.contract) {
            self.push(
                Code::InvalidValue,
                Level::Error,
                &at.key("contract"),
                message,
            );
        }
        if let Some(version) = &e.version {
            self.version_requirement(&at.key("version"), version);
        }
    }

    /// Criteria: ids, references, limits. Returns the validator names used.
    fn criteria(&mut self, deliverables: &HashMap<&str, usize>) -> BTreeSet<&'a str> {
        let list = FieldPath::root().key("criteria");
        let doc: &'a Document = self.doc;
        let contract = &doc.contract;
        let mut ids = HashSet::new();
        let mut used = BTreeSet::new();
        for (i, c) in contract.criteria.iter().enumerate() {
            let at = list.index(i);
            self.check_id(&at.key("id"), &c.id, "criterion");
            if !ids.insert(c.id.as_str()) {
                self.push(
                    Code::DuplicateId,
                    Level::Error,
                    &at.key("id"),
                    format!("criterion id `{}` is used twice", c.id),
                );
            }
            if let Some(why) = &c.not_evaluated {
                self.not_evaluated(i, c, why);
            } else if c.validator.is_empty() {
                let mut p = self.problem(
                    Code::MissingField,
                    Level::Error,
                    &at,
                    "missing field `validator`".into(),
                );
                p.help = Some(
                    "name a key of `validators`, or say why vcc cannot judge it with `not_evaluated: \"…\"`".into(),
                );
                self.problems.push(p);
            } else if contract.validators.contains_key(&c.validator) {
                used.insert(c.validator.as_str());
            } else {
                let mut p = self.problem(
                    Code::UnknownValidator,
                    Level::Error,
                    &at.key("validator"),
                    format!("criterion `{}` uses validator `{}`, which is not declared under `validators`", c.id, c.validator),
                );
                p.help = Some(format!(
                    "declare it, e.g. `validators: {{ {}: {{ component: std/file-exists }} }}`",
                    c.validator
                ));
                self.problems.push(p);
            }
            for (j, t) in c.targets.iter().enumerate() {
                if !deliverables.contains_key(t.as_str()) {
                    self.push(
                        Code::UnknownTarget,
                        Level::Error,
                        &at.key("targets").index(j),
                        format!(
                            "criterion `{}` targets `{t}`, which is not a deliverable",
                            c.id
                        ),
                    );
                }
            }
            if let Some(limits) = &c.limits {
                self.limits(&at.key("limits"), limits);
            }
            if let Some(on_fail) = &c.on_fail {
                self.on_fail(&at.key("on_fail"), c, on_fail);
            }
        }
        used
    }

    fn on_fail(&mut self, at: &FieldPath, c: &Criterion, on_fail: &OnFail) {
        if on_fail.action == FailAction::Warn && c.severity == Severity::Must {
            let mut p = self.problem(
                Code::WaivesMust,
                Level::Error,
                &at.key("action"),
                format!(
                    "criterion `{}` is a MUST, and `warn` would let a loop go on past its failure: a MUST is never waived",
                    c.id
                ),
            );
            p.help = Some(
                "use `retry` or `abort`, or lower the criterion to `should` if it may fail".into(),
            );
            self.problems.push(p);
        }
        if on_fail.max_attempts == Some(0) {
            self.push(
                Code::LimitOutOfRange,
                Level::Error,
                &at.key("max_attempts"),
                "max_attempts is 0: the criterion could never be retried; give 1 or more, or use `action: abort`".into(),
            );
        }
    }

    fn budget(&mut self, at: &FieldPath, budget: &Budget) {
        for (field, value) in [
            ("iterations", budget.iterations),
            ("stagnation", budget.stagnation),
        ] {
            if value == Some(0) {
                self.push(
                    Code::LimitOutOfRange,
                    Level::Error,
                    &at.key(field),
                    format!("{field} is 0; give 1 or more"),
                );
            }
        }
        if let Some(cost) = budget.cost
            && !(cost.is_finite() && cost >= 0.0)
        {
            self.push(
                Code::LimitOutOfRange,
                Level::Error,
                &at.key("cost"),
                format!("cost {cost} is not a number of 0 or more"),
            );
        }
    }

    fn limits(&mut self, at: &FieldPath, limits: &Limits) {
        if let Some(t) = limits.timeout
            && !(MIN_TIMEOUT..=MAX_TIMEOUT).contains(&t.0)
        {
            self.push(
                Code::LimitOutOfRange,
                Level::Error,
                &at.key("timeout"),
                format!("timeout {t} is outside 1ms..1h"),
            );
        }
        if let Some(m) = limits.memory
            && !(MIN_MEMORY..=MAX_MEMORY).contains(&m.0)
        {
            self.push(
                Code::LimitOutOfRange,
                Level::Error,
                &at.key("memory"),
                format!("memory {m} is outside 1MiB..4GiB"),
            );
        }
    }

    /// A criterion vcc cannot judge: a MUST makes the contract unverifiable;
    /// a SHOULD or MAY is a visible `skip` row, said here as a note.
    fn not_evaluated(&mut self, i: usize, c: &Criterion, why: &str) {
        let at = &FieldPath::root().key("criteria").index(i);
        let code = self
            .doc
            .origin
            .as_ref()
            .and_then(|o| o.blame_code(i))
            .unwrap_or(Code::UnverifiableMust);
        if code == Code::InvalidValue {
            return; // the translation reported the broken binding already
        }
        if !c.validator.is_empty() {
            let mut p = self.problem(
                Code::InvalidValue,
                Level::Error,
                &at.key("not_evaluated"),
                format!(
                    "criterion `{}` has both a validator and `not_evaluated`",
                    c.id
                ),
            );
            p.help = Some(
                "remove one: a criterion is either judged or reported as not evaluated".into(),
            );
            self.problems.push(p);
            return;
        }
        if c.severity == Severity::Must {
            let mut p = self.problem(
                code,
                Level::Error,
                &at.key("not_evaluated"),
                format!("MUST criterion `{}` cannot be verified by vcc: {why}", c.id),
            );
            p.help = Some(if self.doc.format == "vcc: 1" {
                "bind a validator with `validator:`, or lower the severity (a SHOULD or MAY is reported as a `skip` row)".into()
            } else {
                "bind a validator with `x-vcc-validator: { component: std/…, params: {…} }` (or a bundle's: `{ bundle, validator, version }`), or lower the severity (a SHOULD or MAY is reported as a `skip` row); `vcc check --only ID…` still runs the other criteria".into()
            });
            self.problems.push(p);
        } else {
            self.push(
                Code::NotEvaluated,
                Level::Note,
                &at.key("not_evaluated"),
                format!(
                    "{} criterion `{}` is reported as `skip`, not evaluated: {why}",
                    c.severity.as_str().to_uppercase(),
                    c.id
                ),
            );
        }
    }

    /// Load every validator a criterion uses; check params against its schema.
    fn bound_validators(&mut self, catalog: &mut dyn Catalog) {
        let contract = &self.doc.contract;
        let mut loaded: BTreeMap<&str, Result<ValidatorInfo, String>> = BTreeMap::new();
        // Compiled once per validator: 200 criteria on one validator must
        // not compile its schema 200 times.
        let mut checkers: BTreeMap<&str, ParamsChecker> = BTreeMap::new();
        let list = FieldPath::root().key("criteria");
        for (i, c) in contract.criteria.iter().enumerate() {
            let Some(binding) = contract.validators.get(&c.validator) else {
                continue; // already UNKNOWN_VALIDATOR
            };
            if binding.digest.as_deref().is_some_and(|d| !is_digest(d)) {
                continue; // already INVALID_DIGEST: one problem, not two
            }
            let info = loaded
                .entry(c.validator.as_str())
                .or_insert_with(|| catalog.describe(&c.validator, binding));
            let at = list.index(i);
            match info {
                Err(cause) => {
                    let (code, level) = match c.severity {
                        Severity::Must => (Code::UnverifiableMust, Level::Error),
                        _ => (Code::UnverifiableCriterion, Level::Warning),
                    };
                    let mut p = self.problem(
                        code,
                        level,
                        &at.key("validator"),
                        format!(
                            "criterion `{}` ({}) cannot be verified: validator `{}` ({}): {cause}",
                            c.id,
                            c.severity.as_str(),
                            c.validator,
                            binding.shown()
                        ),
                    );
                    p.help = Some(match c.severity {
                        Severity::Must => "fix the validator binding; a MUST that cannot be checked makes every run invalid".into(),
                        _ => "the criterion will be reported as `error` on every run".into(),
                    });
                    self.problems.push(p);
                }
                Ok(info) => {
                    self.judge_grant(&at, c, info);
                    let params = c
                        .params
                        .clone()
                        .unwrap_or_else(|| Value::Object(Default::default()));
                    if self.explicit_root {
                        self.root_files(&at, info, &params);
                    }
                    self.deliverable_refs(&at, info, &params);
                    let key = params_key(info, &params);
                    if catalog.params_known_valid(&key) {
                        continue;
                    }
                    let checker = checkers
                        .entry(c.validator.as_str())
                        .or_insert_with(|| compile_params_schema(&info.params_schema));
                    let mut errors = params_errors(checker, &params);
                    // The validator's own check runs only on params its
                    // schema accepted: it may rely on their shape.
                    if errors.is_empty() {
                        errors = match catalog.check_params(&c.validator, &params) {
                            Ok(problems) => problems,
                            Err(why) => {
                                vec![(String::new(), format!("its params check failed: {why}"))]
                            }
                        };
                    }
                    if errors.is_empty() {
                        catalog.params_valid(key);
                    }
                    for (pointer, message) in errors {
                        let mut field = at.key("params");
                        for token in pointer.split('/').skip(1) {
                            field.0.push(match token.parse::<usize>() {
                                Ok(n) => Seg::Index(n),
                                Err(_) => Seg::Key(token.replace("~1", "/").replace("~0", "~")),
                            });
                        }
                        let mut p = self.problem(
                            Code::InvalidParams,
                            Level::Error,
                            &field,
                            format!(
                                "criterion `{}`: validator `{}` refuses its params: {message}",
                                c.id, c.validator
                            ),
                        );
                        p.help = Some(format!(
                            "`vcc validator inspect {}` shows what it accepts",
                            binding.shown()
                        ));
                        self.problems.push(p);
                    }
                }
            }
        }
        self.unpinned(&loaded);
    }

    /// A validator whose parameter schema says it needs AI judges
    /// (`"x-vcc-judged": true`, as std/rubric's does) needs a criterion
    /// that grants one; a grant to a validator that cannot ask (it does not
    /// import `judge`) is said, not an error.
    fn judge_grant(&mut self, at: &FieldPath, c: &Criterion, info: &ValidatorInfo) {
        let needs = info.params_schema.get(JUDGED_KEYWORD) == Some(&Value::Bool(true));
        if needs && c.judges.is_empty() {
            let (code, level) = match c.severity {
                Severity::Must => (Code::UnverifiableMust, Level::Error),
                _ => (Code::UnverifiableCriterion, Level::Warning),
            };
            let mut p = self.problem(
                code,
                level,
                &at.key("judges"),
                format!(
                    "criterion `{}` ({}) cannot be verified: validator `{}` asks AI judges, and the criterion grants none",
                    c.id,
                    c.severity.as_str(),
                    c.validator
                ),
            );
            p.help = Some(
                "define a judge under `judges:` and grant it: `judges: [NAME]` on the criterion"
                    .into(),
            );
            self.problems.push(p);
        } else if !info.judge && !c.judges.is_empty() {
            let mut p = self.problem(
                Code::UnusedJudge,
                Level::Warning,
                &at.key("judges"),
                format!(
                    "criterion `{}` grants judges, but validator `{}` never asks one (it does not import vcc:validator/judge)",
                    c.id, c.validator
                ),
            );
            p.help = Some("remove `judges:` from the criterion".into());
            self.problems.push(p);
        }
    }

    /// A component the producer of the deliverables can replace judges
    /// nothing: one under the deliverable root must be pinned by digest
    /// (the pin is checked when it loads); one elsewhere should be.
    fn unpinned(&mut self, loaded: &BTreeMap<&str, Result<ValidatorInfo, String>>) {
        let root = absolute(&self.root);
        let canonical_root = std::fs::canonicalize(&self.root).ok();
        for (name, info) in loaded {
            let Some(binding) = self.doc.contract.validators.get(*name) else {
                continue;
            };
            if binding.builtin().is_some() || binding.digest.is_some() || binding.bundle.is_some() {
                continue;
            }
            let path = absolute(&self.doc.dir().join(&binding.component));
            // Lexically (a symlink under the root is the producer's too),
            // and through symlinks (a root named by another path).
            let inside = path.starts_with(&root)
                || canonical_root
                    .as_ref()
                    .is_some_and(|r| std::fs::canonicalize(&path).is_ok_and(|p| p.starts_with(r)));
            let pin = match info {
                Ok(info) => format!(
                    "pin it: `{name}: {{ component: {}, digest: \"{}\" }}`",
                    binding.component, info.digest
                ),
                Err(_) => {
                    "pin it with `digest: \"blake3:…\"` (`vcc validator inspect` prints the digest)"
                        .to_string()
                }
            };
            let (level, message) = if inside {
                (
                    Level::Error,
                    format!(
                        "validator `{name}` ({}) lies under the deliverable root ({}) and is not pinned: whoever writes the deliverables can replace the judge",
                        binding.component,
                        self.root.display()
                    ),
                )
            } else {
                (
                    Level::Warning,
                    format!(
                        "validator `{name}` ({}) is not pinned by digest: a changed file would judge the next run",
                        binding.component
                    ),
                )
            };
            let mut p = self.problem(
                Code::UnpinnedValidator,
                level,
                &FieldPath::root()
                    .key("validators")
                    .key(name)
                    .key("component"),
                message,
            );
            p.help = Some(pin);
            self.problems.push(p);
        }
    }
}

/// `path` made absolute against the working folder, `.` and `..` resolved
/// by name (not through the filesystem).
fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// A parameter-schema keyword a validator puts on a param that names a
/// file in the deliverable root; `vcc lint --dir` checks the file is there.
pub const ROOT_FILE_KEYWORD: &str = "x-vcc-root-file";

/// A keyword at the top of a validator's parameter schema saying that it
/// needs AI judges: a criterion that grants none cannot be verified.
pub const JUDGED_KEYWORD: &str = "x-vcc-judged";

/// A parameter-schema keyword a validator puts on a param that names
/// deliverables of the contract by id (a string or a list of strings).
pub const DELIVERABLE_KEYWORD: &str = "x-vcc-deliverable";

/// The field of the first `{ $file: PATH }` in `value`.
fn first_reference(value: &Value, at: FieldPath) -> Option<FieldPath> {
    if crate::contract_files::reference(value).is_some() {
        return Some(at.key(crate::contract_files::FILE_KEY));
    }
    match value {
        Value::Object(map) => map.iter().find_map(|(k, v)| first_reference(v, at.key(k))),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| first_reference(v, at.index(i))),
        _ => None,
    }
}

/// A compiled parameter schema, and the schema (for messages).
type ParamsChecker = Result<(jsonschema::Validator, Value), String>;

/// Compile a validator's parameter schema.
///
/// The schema comes from an untrusted component, so patterns use the
/// linear-time `regex` engine: a hostile pattern cannot stall lint.
fn compile_params_schema(schema: &Value) -> ParamsChecker {
    jsonschema::options()
        .with_pattern_options(jsonschema::PatternOptions::regex())
        .build(schema)
        .map(|v| (v, schema.clone()))
        .map_err(|err| format!("the validator's parameter schema is not valid: {err}"))
}

/// Validate params against a compiled schema: (JSON pointer, message).
fn params_errors(checker: &ParamsChecker, params: &Value) -> Vec<(String, String)> {
    match checker {
        Ok((validator, schema)) => {
            let mut errors: Vec<(String, String)> = validator
                .iter_errors(params)
                .take(20)
                .map(|e| (e.instance_path().to_string(), params_message(&e, schema)))
                .collect();
            // An unknown parameter also fails every alternative of an
            // `anyOf`: say the first, which is the one to fix.
            if errors.len() > 1 {
                errors.sort_by_key(|(_, m)| !m.starts_with("unknown parameter"));
            }
            errors
        }
        Err(message) => vec![(String::new(), message.clone())],
    }
}

/// What a params error means, in the words of the contract: the parameter
/// names and values a user writes, did-you-mean for a misspelling, and
/// for `oneOf`/`anyOf` the forms that would be accepted — never a dump of
/// the schema or of the params.
fn params_message(error: &jsonschema::ValidationError, schema: &Value) -> String {
    use jsonschema::error::ValidationErrorKind as Kind;
    let at = error.instance_path().to_string();
    match error.kind() {
        Kind::AdditionalProperties { unexpected } => {
            let allowed = allowed_properties(schema, error.schema_path().as_str(), &at);
            unexpected
                .iter()
                .map(|name| {
                    let guess = closest(name, &allowed)
                        .map(|g| format!("did you mean `{g}`? "))
                        .unwrap_or_default();
                    format!(
                        "unknown parameter `{name}`; {guess}allowed: {}",
                        names(&allowed)
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        }
        Kind::Required { property } => {
            format!("missing parameter `{}`", property.as_str().unwrap_or("?"))
        }
        Kind::Enum { options } => {
            let options: Vec<String> = options
                .as_array()
                .map(|o| o.iter().map(shown).collect())
                .unwrap_or_default();
            let got = shown(error.instance());
            let guess = closest(
                got.trim_matches('"'),
                &options
                    .iter()
                    .map(|o| o.trim_matches('"').to_string())
                    .collect::<Vec<_>>(),
            )
            .map(|g| format!("; did you mean `{g}`?"))
            .unwrap_or_default();
            format!("{got} is not one of {}{guess}", options.join(", "))
        }
        Kind::AnyOf { context } | Kind::OneOfNotValid { context } => {
            // A form of another type (a string where an object was written)
            // says nothing useful when a form of the right type is there.
            let wrong_type = |errors: &Vec<jsonschema::ValidationError>| {
                errors.iter().all(|e| {
                    matches!(e.kind(), Kind::Type { .. })
                        && e.instance_path() == error.instance_path()
                })
            };
            let relevant: Vec<_> = context.iter().filter(|c| !wrong_type(c)).collect();
            let context: Vec<_> = if relevant.is_empty() {
                context.iter().collect()
            } else {
                relevant
            };
            let forms: Vec<Vec<String>> = context
                .iter()
                .map(|errors| errors.iter().map(|e| params_message(e, schema)).collect())
                .collect();
            if let [only] = forms.as_slice() {
                return only.join("; ");
            }
            let needed: Option<Vec<String>> = forms
                .iter()
                .map(|f| match f.as_slice() {
                    [one] => one.strip_prefix("missing parameter ").map(String::from),
                    _ => None,
                })
                .collect();
            match needed {
                Some(needed) if !needed.is_empty() => {
                    format!("needs one of {}", needed.join(", "))
                }
                _ => format!(
                    "matches none of the {} accepted forms: {}",
                    forms.len(),
                    forms
                        .iter()
                        .enumerate()
                        .map(|(i, f)| format!(
                            "({}) {}",
                            i + 1,
                            f.first().map_or("", String::as_str)
                        ))
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            }
        }
        Kind::Type { kind } => {
            let expected = match kind {
                jsonschema::error::TypeKind::Single(t) => {
                    let t = t.to_string();
                    let article = if t.starts_with(['a', 'e', 'i', 'o', 'u']) {
                        "an"
                    } else {
                        "a"
                    };
                    format!("{article} {t}")
                }
                jsonschema::error::TypeKind::Multiple(set) => {
                    let list: Vec<String> = set.iter().map(|t| t.to_string()).collect();
                    format!("one of: {}", list.join(", "))
                }
            };
            format!(
                "{} is {}, where {expected} is expected",
                shown(error.instance()),
                kind_of(error.instance())
            )
        }
        Kind::OneOfMultipleValid { .. } => {
            "matches more than one of the accepted forms; remove what makes it ambiguous".into()
        }
        _ => {
            // jsonschema's own words, with the value shortened.
            let text = error.to_string();
            let value = error.instance().to_string();
            if value.len() > 60 {
                text.replace(&value, &shown(error.instance()))
            } else {
                text
            }
        }
    }
}

/// A JSON value as a user would read it, at most 60 characters.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 60 {
        text
    } else {
        format!("{}…", text.chars().take(57).collect::<String>())
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The properties allowed where an `additionalProperties` error was
/// found: the subschema its schema path names, else the one the instance
/// path leads to.
fn allowed_properties(schema: &Value, schema_path: &str, instance: &str) -> Vec<String> {
    let parent = schema_path
        .strip_suffix("/additionalProperties")
        .and_then(|p| schema.pointer(p));
    match parent
        .and_then(|p| p.get("properties"))
        .and_then(Value::as_object)
    {
        Some(props) => props.keys().cloned().collect(),
        None => properties_at(schema, instance),
    }
}

/// The properties a params schema allows at a JSON pointer into the
/// params (through `properties` and `items`).
fn properties_at(schema: &Value, pointer: &str) -> Vec<String> {
    let mut node = schema;
    for token in pointer.split('/').skip(1) {
        node = match (
            node.get("properties").and_then(|p| p.get(token)),
            node.get("items"),
        ) {
            (Some(next), _) => next,
            (None, Some(items)) => items,
            _ => return Vec::new(),
        };
    }
    node.get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

fn names(list: &[String]) -> String {
    if list.is_empty() {
        return "none".into();
    }
    list.iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The closest name to `got`, if it is a likely misspelling.
fn closest<'a>(got: &str, names: &'a [String]) -> Option<&'a str> {
    crate::problem::closest(got, names.iter().map(String::as_str))
}

fn is_digest(text: &str) -> bool {
    text.strip_prefix("blake3:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// One cycle in a directed graph, as a closed walk (first node repeated).
fn find_cycle(edges: &[Vec<usize>]) -> Option<Vec<usize>> {
    // Iterative DFS: contracts are small, but a hostile one must not be able
    // to overflow the stack with a long chain.
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Active,
        Done,
    }
    let mut mark = vec![Mark::New; edges.len()];
    for start in 0..edges.len() {
        if mark[start] != Mark::New {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        mark[start] = Mark::Active;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&to) = edges[node].get(*next) {
                *next += 1;
                match mark[to] {
                    Mark::New => {
                        mark[to] = Mark::Active;
                        stack.push((to, 0));
                    }
                    Mark::Active => {
                        let from = stack.iter().position(|&(n, _)| n == to).unwrap_or(0);
                        let mut cycle: Vec<usize> = stack[from..].iter().map(|&(n, _)| n).collect();
                        cycle.push(to);
                        return Some(cycle);
                    }
                    Mark::Done => {}
                }
            } else {
                mark[node] = Mark::Done;
                stack.pop();
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;
    use std::path::Path;

    fn lint_yaml(text: &str) -> Vec<Problem> {
        let doc = parse(Path::new("c.yaml"), text.as_bytes()).unwrap();
        lint(&doc, None, None)
    }

    fn codes(problems: &[Problem]) -> Vec<Code> {
        problems.iter().map(|p| p.code).collect()
    }

    const GOOD: &str = "vcc: 1\nid: t\ndeliverables:\n  - { id: a, path: a.txt }\n  - { id: b, path: b.txt, depends_on: [a] }\nvalidators:\n  fx: { component: std/file-exists }\ncriteria:\n  - { id: AC-1, severity: must, validator: fx, targets: [a, b] }\n";

    #[test]
    fn a_good_contract_has_no_problems() {
        assert_eq!(lint_yaml(GOOD), vec![]);
    }

    #[test]
    fn references_must_resolve() {
        let text = GOOD
            .replace("targets: [a, b]", "targets: [a, nope]")
            .replace("depends_on: [a]", "depends_on: [ghost]")
            .replace("validator: fx", "validator: fz");
        let problems = lint_yaml(&text);
        let c = codes(&problems);
        assert!(c.contains(&Code::UnknownTarget), "{c:?}");
        assert!(c.contains(&Code::UnknownDependency), "{c:?}");
        assert!(c.contains(&Code::UnknownValidator), "{c:?}");
        let target = problems
            .iter()
            .find(|p| p.code == Code::UnknownTarget)
            .unwrap();
        assert_eq!(target.field.as_deref(), Some("criteria[0].targets[1]"));
        assert_eq!(target.line, Some(9));
    }

    #[test]
    fn cycles_are_found_and_named() {
        let text = GOOD.replace(
            "{ id: a, path: a.txt }",
            "{ id: a, path: a.txt, depends_on: [b] }",
        );
        let problems = lint_yaml(&text);
        let cycle = problems
            .iter()
            .find(|p| p.code == Code::DependencyCycle)
            .unwrap();
        assert!(cycle.message.contains("a → b → a"), "{}", cycle.message);
        let text = GOOD.replace("depends_on: [a]", "depends_on: [b]");
        assert!(codes(&lint_yaml(&text)).contains(&Code::DependencyCycle));
    }

    #[test]
    fn a_long_dependency_chain_does_not_overflow() {
        let mut text = String::from("vcc: 1\nid: t\nadvisory: true\ndeliverables:\n");
        for i in 0..20_000 {
            text.push_str(&format!(
                "  - {{ id: d{i}, path: f{i}, depends_on: [d{}] }}\n",
                i + 1
            ));
        }
        text.push_str("  - { id: d20000, path: last, depends_on: [d0] }\n");
        let problems = lint_yaml(&text);
        assert!(codes(&problems).contains(&Code::DependencyCycle));
    }

    #[test]
    fn ids_paths_and_digests_are_checked() {
        let text = GOOD
            .replace("{ id: b, path: b.txt", "{ id: a, path: ../b.txt")
            .replace(
                "std/file-exists }",
                "std/file-exists, digest: \"sha256:00\" }",
            )
            .replace("id: AC-1", "id: \"AC 1\\u001b[31m\"");
        let c = codes(&lint_yaml(&text));
        for code in [
            Code::DuplicateId,
            Code::PathEscapesRoot,
            Code::InvalidDigest,
            Code::InvalidId,
        ] {
            assert!(c.contains(&code), "{code:?} missing from {c:?}");
        }
    }

    #[test]
    fn zero_must_is_refused_unless_advisory() {
        let text = GOOD.replace("severity: must", "severity: should");
        assert!(codes(&lint_yaml(&text)).contains(&Code::NoMust));
        let text = text.replace("id: t\n", "id: t\nadvisory: true\n");
        assert!(!codes(&lint_yaml(&text)).contains(&Code::NoMust));
    }

    #[test]
    fn warn_never_waives_a_must() {
        let warned = "targets: [a, b], on_fail: { action: warn } }";
        let text = GOOD.replace("targets: [a, b] }", warned);
        let problems = lint_yaml(&text);
        assert_eq!(codes(&problems), vec![Code::WaivesMust]);
        assert_eq!(
            problems[0].field.as_deref(),
            Some("criteria[0].on_fail.action")
        );
        assert!(
            problems[0].message.contains("never waived"),
            "{}",
            problems[0].message
        );
        let text = text.replace("severity: must", "severity: should")
            + "  - { id: AC-2, severity: must, validator: fx, targets: [a] }\n";
        assert_eq!(lint_yaml(&text), vec![]);
    }

    #[test]
    fn a_budget_of_nothing_is_refused() {
        let text = format!("{GOOD}budget: {{ iterations: 0, stagnation: 0, cost: -1 }}\n");
        let fields: Vec<_> = lint_yaml(&text)
            .into_iter()
            .map(|p| (p.code, p.field.unwrap_or_default()))
            .collect();
        let want = ["budget.iterations", "budget.stagnation", "budget.cost"];
        assert_eq!(
            fields,
            want.map(|f| (Code::LimitOutOfRange, f.to_string()))
                .to_vec()
        );
        // The names of the first release still read.
        let old = format!(
            "{GOOD}budget: {{ max_iterations: 3, stagnation_window: 2, max_duration: 1m }}\n"
        );
        assert_eq!(lint_yaml(&old), vec![]);
    }

    #[test]
    fn limits_out_of_range_are_refused() {
        let text = format!("{GOOD}limits: {{ timeout: 2h, memory: 8GiB }}\n");
        let problems = lint_yaml(&text);
        assert_eq!(
            codes(&problems),
            vec![Code::LimitOutOfRange, Code::LimitOutOfRange]
        );
        let text = format!("{GOOD}limits: {{ timeout: 0s }}\n");
        assert_eq!(codes(&lint_yaml(&text)), vec![Code::LimitOutOfRange]);
    }

    #[test]
    fn unused_validators_and_unchecked_deliverables_are_warnings() {
        let text = GOOD.replace("targets: [a, b]", "targets: [a]").replace(
            "validators:\n",
            "validators:\n  spare: { component: std/json-schema }\n",
        );
        let problems = lint_yaml(&text);
        assert_eq!(
            codes(&problems),
            vec![Code::UnusedValidator, Code::UncheckedDeliverable]
        );
        assert!(problems.iter().all(|p| !p.is_error()));
    }

    struct FakeCatalog(Result<ValidatorInfo, String>);
    impl Catalog for FakeCatalog {
        fn describe(&mut self, _: &str, _: &ValidatorRef) -> Result<ValidatorInfo, String> {
            self.0.clone()
        }
    }

    /// A validator whose own params check refuses `pattern: "("`.
    struct Picky;
    impl Catalog for Picky {
        fn describe(&mut self, _: &str, _: &ValidatorRef) -> Result<ValidatorInfo, String> {
            Ok(ValidatorInfo {
                judge: false,
                params_schema: serde_json::json!({"type": "object"}),
                digest: "blake3:01".into(),
            })
        }
        fn check_params(
            &mut self,
            _: &str,
            params: &Value,
        ) -> Result<Vec<(String, String)>, String> {
            Ok(match params["rules"][1]["pattern"].as_str() {
                Some("(") => vec![("/rules/1/pattern".into(), "unclosed group".into())],
                _ => Vec::new(),
            })
        }
    }

    #[test]
    fn the_validators_own_params_check_names_the_field() {
        let text = GOOD.replace(
            "targets: [a, b] }",
            "targets: [a, b], params: { rules: [{ pattern: ok }, { pattern: \"(\" }] } }",
        );
        let doc = parse(Path::new("c.yaml"), text.as_bytes()).unwrap();
        let problems = lint(&doc, Some(&mut Picky), None);
        assert_eq!(codes(&problems), vec![Code::InvalidParams]);
        assert_eq!(
            problems[0].field.as_deref(),
            Some("criteria[0].params.rules[1].pattern")
        );
        assert!(problems[0].message.contains("unclosed group"));
        let fine = GOOD.replace(
            "targets: [a, b] }",
            "targets: [a, b], params: { rules: [] } }",
        );
        let doc = parse(Path::new("c.yaml"), fine.as_bytes()).unwrap();
        assert_eq!(lint(&doc, Some(&mut Picky), None), vec![]);
    }

    #[test]
    fn a_component_under_the_root_must_be_pinned() {
        let dir = tempfile::tempdir().unwrap();
        let text = GOOD.replace("std/file-exists }", "./v.wasm }");
        let doc = parse(&dir.path().join("c.yaml"), text.as_bytes()).unwrap();
        let problems = lint(&doc, Some(&mut Picky), None);
        assert_eq!(codes(&problems), vec![Code::UnpinnedValidator]);
        assert!(problems[0].is_error());
        assert!(problems[0].help.as_deref().unwrap().contains("blake3:01"));
        // Checked against another root, it is only a warning.
        let elsewhere = dir.path().join("out");
        let problems = lint(&doc, Some(&mut Picky), Some(&elsewhere));
        assert_eq!(codes(&problems), vec![Code::UnpinnedValidator]);
        assert!(!problems[0].is_error());
        // `..` back into the root is still the root.
        let sneaky = GOOD.replace("std/file-exists }", "../out/v.wasm }");
        let doc = parse(&dir.path().join("ci/c.yaml"), sneaky.as_bytes()).unwrap();
        let problems = lint(&doc, Some(&mut Picky), Some(&elsewhere));
        assert!(problems[0].is_error(), "{problems:?}");
        // Pinned, nothing to say.
        let pinned = GOOD.replace(
            "std/file-exists }",
            &format!("./v.wasm, digest: \"blake3:{}\" }}", "0".repeat(64)),
        );
        let doc = parse(&dir.path().join("c.yaml"), pinned.as_bytes()).unwrap();
        assert_eq!(lint(&doc, Some(&mut Picky), None), vec![]);
    }

    #[test]
    fn a_must_on_an_unloadable_validator_is_unverifiable() {
        let doc = parse(Path::new("c.yaml"), GOOD.as_bytes()).unwrap();
        let mut catalog = FakeCatalog(Err(
            "exports vcc:validator@0.2.0; this host supports 0.1.x".into()
        ));
        let problems = lint(&doc, Some(&mut catalog), None);
        assert_eq!(codes(&problems), vec![Code::UnverifiableMust]);
        assert!(problems[0].message.contains("0.2.0"));
        let should = GOOD
            .replace("severity: must", "severity: should")
            .replace("id: t\n", "id: t\nadvisory: true\n");
        let doc = parse(Path::new("c.yaml"), should.as_bytes()).unwrap();
        let problems = lint(&doc, Some(&mut catalog), None);
        assert_eq!(codes(&problems), vec![Code::UnverifiableCriterion]);
        assert!(!problems[0].is_error());
    }

    #[test]
    fn params_are_checked_against_the_validator_schema() {
        let text = GOOD.replace(
            "targets: [a, b] }",
            "targets: [a, b], params: { min: -1, colour: red } }",
        );
        let doc = parse(Path::new("c.yaml"), text.as_bytes()).unwrap();
        let schema = serde_json::json!({
            "type": "object", "additionalProperties": false,
            "properties": { "min": { "type": "integer", "minimum": 0 } }
        });
        let mut catalog = FakeCatalog(Ok(ValidatorInfo {
            judge: false,
            params_schema: schema,
            digest: "blake3:00".into(),
        }));
        let problems = lint(&doc, Some(&mut catalog), None);
        assert_eq!(
            codes(&problems),
            vec![Code::InvalidParams, Code::InvalidParams]
        );
        let fields: Vec<_> = problems.iter().map(|p| p.field.clone().unwrap()).collect();
        assert!(
            fields.contains(&"criteria[0].params.min".to_string()),
            "{fields:?}"
        );
    }
}
