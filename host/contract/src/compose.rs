//! Contracts built on a base: `extends` (a base contract carried by a
//! signed bundle) and `vcc check --policy` (a base given from outside the
//! workspace). The contract a check evaluates holds every base's
//! deliverables and criteria, with the project's on top.
//!
//! A project may add deliverables, validators and criteria, raise a base
//! criterion's severity, and make an optional base deliverable required.
//! It may not weaken a base (`WEAKENS_BASE`, naming what it weakens):
//! lower a criterion's severity; change its validator (by binding another
//! one, or rebinding the validator's name), its params or its targets;
//! make a required deliverable optional or move its path; declare the
//! contract advisory; exclude files the base does not exclude (`exclude`,
//! `gitignore`). The base's excludes apply to the composed contract. The budget of `vcc converge` is the lower of the
//! two, limit by limit. Dropping `extends` altogether is caught against
//! `vcc.lock`, which records it (see the CLI).

use std::collections::{BTreeSet, HashMap};

pub use crate::document::Based;
use crate::document::Document;
use crate::model::ValidatorRef;
use crate::problem::{Code, FieldPath, Level, Problem};

/// A base contract, and what to call it in problems and reports.
pub struct Base<'a> {
    /// `acme/security:baseline@1.3.0`, or the path of a `--policy` file.
    pub label: String,
    pub doc: &'a Document,
}

/// What a binding runs, for comparing a base's with a project's: the
/// component, its digest pin, and for a bundle validator the exact version
/// it was resolved to (the CLI pins `version: =X.Y.Z` before composing).
fn identity(v: &ValidatorRef) -> (String, Option<String>, Option<String>) {
    let version = v.bundle.as_ref().and(v.version.clone());
    (v.shown(), v.digest.clone(), version)
}

/// The contract `project` and `bases` make together. Problems (errors:
/// `WEAKENS_BASE`) are added to the document's notes, so lint reports
/// them and a check with any is `invalid`.
pub fn compose(mut project: Document, bases: &[Base]) -> Document {
    for base in bases {
        let problems = merge(&mut project, base);
        project.notes.extend(problems);
    }
    project
}

fn merge(project: &mut Document, base: &Base) -> Vec<Problem> {
    let mut problems = Vec::new();
    let root = FieldPath::root();
    let b = &base.doc.contract;
    let label = &base.label;
    let weakens = |project: &Document, field: &FieldPath, message: String| {
        let mut p = project.problem(Code::WeakensBase, Level::Error, field, message);
        p.help = Some(format!(
            "a contract may add criteria and raise severities of its base ({label}), never weaken it"
        ));
        p
    };

    if project.contract.advisory && !b.advisory {
        problems.push(weakens(
            project,
            &root.key("advisory"),
            format!("the contract is declared advisory, so it could never be rejected; its base {label} is not advisory"),
        ));
    }

    // Deliverables: the project's, then the base's it does not redeclare.
    let mut extra = Vec::new();
    for bd in &b.deliverables {
        match project
            .contract
            .deliverables
            .iter()
            .position(|d| d.id == bd.id)
        {
            Some(i) => {
                let pd = &project.contract.deliverables[i];
                let at = root.key("deliverables").index(i);
                if bd.required && !pd.required {
                    problems.push(weakens(
                        project,
                        &at.key("required"),
                        format!(
                            "deliverable `{}` is required by {label}; it cannot be made optional",
                            bd.id
                        ),
                    ));
                }
                if pd.path != bd.path {
                    problems.push(weakens(
                        project,
                        &at.key("path"),
                        format!(
                            "deliverable `{}` is `{}` in {label}; it cannot be moved to `{}`",
                            bd.id, bd.path, pd.path
                        ),
                    ));
                }
            }
            None => extra.push(bd.clone()),
        }
    }
    project.contract.deliverables.extend(extra);

    // Validators: the base's names keep the base's bindings; a component
    // path is the base's, relative to the base's folder, not the project's.
    let base_dir =
        std::fs::canonicalize(base.doc.dir()).unwrap_or_else(|_| base.doc.dir().to_path_buf());
    let base_validators: std::collections::BTreeMap<String, ValidatorRef> = b
        .validators
        .iter()
        .map(|(name, v)| {
            let mut v = v.clone();
            if v.bundle.is_none() && v.builtin().is_none() && !v.component.is_empty() {
                v.component = base_dir.join(&v.component).display().to_string();
            }
            (name.clone(), v)
        })
        .collect();
    let base_validators = &base_validators;
    let rebound: HashMap<&str, bool> = base_validators
        .iter()
        .map(|(name, v)| {
            let differs = project
                .contract
                .validators
                .get(name)
                .is_some_and(|p| identity(p) != identity(v));
            (name.as_str(), differs)
        })
        .collect();
    for (name, v) in base_validators {
        project
            .contract
            .validators
            .entry(name.clone())
            .or_insert_with(|| v.clone());
    }
    // Judges: the base's names keep the base's model and sampling; a
    // project may add judges, never change one the base defines.
    for (name, j) in &b.judges {
        match project.contract.judges.get(name) {
            Some(mine) if mine != j => problems.push(weakens(
                project,
                &root.key("judges").key(name),
                format!(
                    "judge `{name}` is {} `{}` in {label}; it cannot be redefined",
                    j.provider.as_str(),
                    j.model
                ),
            )),
            Some(_) => {}
            None => {
                project.contract.judges.insert(name.clone(), j.clone());
            }
        }
    }

    // Criteria: the project's (an override by id is checked against the
    // base's), then the base's it does not redeclare.
    let mut inherited = Vec::new();
    let mut taken = Vec::new();
    for bc in &b.criteria {
        let Some(i) = project.contract.criteria.iter().position(|c| c.id == bc.id) else {
            if rebound.get(bc.validator.as_str()) == Some(&true) {
                problems.push(weakens(
                    project,
                    &root.key("validators").key(&bc.validator),
                    format!(
                        "validator `{}` is rebound here, which changes the validator of criterion `{}` of {label}",
                        bc.validator, bc.id
                    ),
                ));
            }
            inherited.push(bc.id.clone());
            taken.push(bc.clone());
            continue;
        };
        let pc = &project.contract.criteria[i];
        let at = root.key("criteria").index(i);
        if pc.severity > bc.severity {
            problems.push(weakens(
                project,
                &at.key("severity"),
                format!(
                    "criterion `{}` is {} in {label}; it cannot be lowered to {}",
                    bc.id,
                    bc.severity.as_str().to_uppercase(),
                    pc.severity.as_str().to_uppercase()
                ),
            ));
        }
        let base_binding = base_validators.get(&bc.validator).map(identity);
        let project_binding = project.contract.validators.get(&pc.validator).map(identity);
        if base_binding != project_binding {
            problems.push(weakens(
                project,
                &at.key("validator"),
                format!(
                    "criterion `{}` of {label} is judged by `{}`; it cannot be changed to `{}`",
                    bc.id,
                    base_binding.map(|b| b.0).unwrap_or_default(),
                    project_binding.map(|b| b.0).unwrap_or_default()
                ),
            ));
        }
        if pc.params != bc.params {
            problems.push(weakens(
                project,
                &at.key("params"),
                format!(
                    "criterion `{}` of {label} has other params; they cannot be changed",
                    bc.id
                ),
            ));
        }
        if pc.judges != bc.judges {
            problems.push(weakens(
                project,
                &at.key("judges"),
                format!(
                    "criterion `{}` of {label} is judged by judges {:?}; they cannot be changed",
                    bc.id, bc.judges
                ),
            ));
        }
        let (pt, bt): (BTreeSet<&String>, BTreeSet<&String>) =
            (pc.targets.iter().collect(), bc.targets.iter().collect());
        if pt != bt {
            problems.push(weakens(
                project,
                &at.key("targets"),
                format!(
                    "criterion `{}` of {label} judges {:?}; its targets cannot be changed",
                    bc.id, bc.targets
                ),
            ));
        }
    }
    project.contract.criteria.extend(taken);

    // Excluding hides files from the base's criteria: the project may
    // repeat the base's excludes, never add its own.
    for (i, pattern) in project.contract.exclude.iter().enumerate() {
        if !b.exclude.contains(pattern) {
            problems.push(weakens(
                project,
                &root.key("exclude").index(i),
                format!("`{pattern}` would hide files from the criteria of {label}, which does not exclude it"),
            ));
        }
    }
    if project.contract.gitignore && !b.gitignore {
        problems.push(weakens(
            project,
            &root.key("gitignore"),
            format!("`gitignore: true` would let ignore files in the root hide files from the criteria of {label}, which does not set it"),
        ));
    }
    let mut exclude = b.exclude.clone();
    exclude.extend(
        project
            .contract
            .exclude
            .iter()
            .filter(|p| !b.exclude.contains(p))
            .cloned(),
    );
    project.contract.exclude = exclude;
    project.contract.gitignore |= b.gitignore;

    if project.contract.limits.is_none() {
        project.contract.limits = b.limits.clone();
    }
    // A base's budget binds the loop too: the lower limit of each holds.
    let budget = project.contract.budget.take();
    project.contract.budget = crate::model::Budget::tightest(budget, b.budget.as_ref());
    // A base's gates and provenance policy hold too; a project may not
    // redefine them (that could drop an approval the base needs).
    for g in &b.gates {
        if project.contract.gates.iter().any(|p| p.id == g.id) {
            problems.push(weakens(
                project,
                &root.key("gates"),
                format!(
                    "gate `{}` is the base's ({label}); the contract may not redefine it",
                    g.id
                ),
            ));
        } else {
            project.contract.gates.push(g.clone());
        }
    }
    match (&project.contract.provenance, &b.provenance) {
        (None, Some(p)) => project.contract.provenance = Some(p.clone()),
        (Some(mine), Some(theirs)) if theirs.require.iter().any(|r| !mine.require.contains(r)) => {
            problems.push(weakens(
                project,
                &root.key("provenance"),
                format!("the provenance policy drops requirements of the base's ({label})"),
            ));
        }
        _ => {}
    }
    project.bases.push(Based {
        label: label.clone(),
        digest: base.doc.digest.clone(),
        criteria: inherited,
    });
    problems
}
