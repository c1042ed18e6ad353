//! The integrity pass over validators: bindings, bundles and versions,
//! the components a catalog loads (pins, params, judges), and the files
//! and deliverables params name.

use super::*;

impl<'a> Lint<'a> {
    /// `{ $file: PATH }` left in params (a contract that was not read from
    /// a file, like a bundle's, cannot name files), and files the
    /// producer of the deliverables could edit.
    pub(super) fn contract_files(&mut self) {
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
    pub(super) fn unchecked_deliverables(&mut self) {
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
    pub(super) fn deliverable_refs(
        &mut self,
        at: &FieldPath,
        info: &ValidatorInfo,
        params: &Value,
    ) {
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
    pub(super) fn root_files(&mut self, at: &FieldPath, info: &ValidatorInfo, params: &Value) {
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

    /// Params naming a file the producer writes (`"x-vcc-pinned-by":
    /// PIN` in the validator's parameter schema) without the pin beside
    /// them: whoever writes the deliverables can replace the file — a
    /// schema, say — and with it what the criterion checks.
    pub(super) fn unpinned_files(&mut self, at: &FieldPath, info: &ValidatorInfo, params: &Value) {
        let Some(props) = info
            .params_schema
            .get("properties")
            .and_then(Value::as_object)
        else {
            return;
        };
        for (name, schema) in props {
            let Some(pin) = schema.get(PINNED_BY_KEYWORD).and_then(Value::as_str) else {
                continue;
            };
            let Some(path) = params.get(name).and_then(Value::as_str) else {
                continue;
            };
            if params.get(pin).is_some() {
                continue;
            }
            let mut p = self.problem(
                Code::ContractFileInRoot,
                Level::Warning,
                &at.key("params").key(name),
                format!(
                    "`{name}: {path}` is written by whoever writes the deliverables: they can replace it, and with it what this criterion checks"
                ),
            );
            // The digest of the file as it is now, when it is a file of the
            // root: the pin to write if that is the file the author meant.
            let in_root = schema.get(ROOT_FILE_KEYWORD) == Some(&Value::Bool(true));
            let now = match paths::check(path) {
                Ok(paths::PathSpec::Literal(p)) if in_root => std::fs::read(self.root.join(p))
                    .map(|bytes| {
                        format!(
                            " (the file now: `{pin}: \"blake3:{}\"`)",
                            blake3::hash(&bytes).to_hex()
                        )
                    })
                    .unwrap_or_default(),
                _ => String::new(),
            };
            p.help = Some(format!(
                "pin it: `{pin}: \"blake3:<64 hex digits>\"` beside `{name}`{now}, or keep the file outside the deliverable root and write it inline with `{{ $file: PATH }}`"
            ));
            self.problems.push(p);
        }
    }

    pub(super) fn validators(&mut self) {
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
    pub(super) fn bundle_binding(
        &mut self,
        at: &FieldPath,
        name: &str,
        bundle: &str,
        v: &ValidatorRef,
    ) {
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

    pub(super) fn version_requirement(&mut self, at: &FieldPath, version: &str) {
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

    /// Load every validator a criterion uses; check params against its schema.
    pub(super) fn bound_validators(&mut self, catalog: &mut dyn Catalog) {
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
                        self.unpinned_files(&at, info, &params);
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
                        // After the params errors (the first problem stays
                        // the contract's bug), and only on params that hold.
                        self.unpinned_files(&at, info, &params);
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
    pub(super) fn judge_grant(&mut self, at: &FieldPath, c: &Criterion, info: &ValidatorInfo) {
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
    pub(super) fn unpinned(&mut self, loaded: &BTreeMap<&str, Result<ValidatorInfo, String>>) {
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
