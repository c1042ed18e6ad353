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

use crate::document::Document;
use crate::exclude::Excludes;
use crate::model::{
    BUILTIN_PREFIX, Budget, Criterion, FailAction, Limits, OnFail, Severity, ValidatorRef,
};
use crate::paths;
use crate::problem::{Code, FieldPath, Level, Problem, Seg};

mod params;
mod validators;

use params::{ParamsChecker, closest, compile_params_schema, params_errors};

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
            .and_then(|o| o.blame_code(self.doc.criterion_in_file(i)))
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
            // A person's judgment (VCC v1 `evidenceType: human`) is no
            // validator's to give: binding one is not the fix.
            let human = self
                .doc
                .origin
                .as_ref()
                .and_then(|o| {
                    o.blame
                        .get(self.doc.criterion_in_file(i))
                        .cloned()
                        .flatten()
                })
                .is_some_and(|(field, _)| field.0.last() == Some(&Seg::Key("evidenceType".into())));
            p.help = Some(if human {
                "ask the person in a gate's `human` approval (a statement they sign with `vcc approve`, from a key the trust policy lists for the role), and set `evidenceType: auto` on what a validator checks; or lower the severity (a SHOULD or MAY is reported as a `skip` row)".into()
            } else if self.doc.format == "vcc: 1" {
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

/// A parameter-schema keyword on a param that names a file the producer
/// of the deliverables writes (a file in the root, a deliverable): its
/// value is the name of the param that pins that file's bytes by digest
/// (`"x-vcc-pinned-by": "digest"`). Unpinned, lint warns
/// `CONTRACT_FILE_IN_ROOT`; the validator checks the pin where it reads
/// the bytes, so a changed file is an error, never a pass.
pub const PINNED_BY_KEYWORD: &str = "x-vcc-pinned-by";

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
mod tests;
