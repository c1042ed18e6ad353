//! Contracts built on a base: `extends` (a base contract carried by a
//! signed bundle) and `vcc check --policy` (a base given from outside the
//! workspace). The contract a check evaluates holds every base's
//! deliverables and criteria, with the project's on top.
//!
//! A project may add deliverables, validators, judges, criteria and gates,
//! raise a base criterion's severity, make an optional base deliverable
//! required, and tighten limits. It may not weaken a base (`WEAKENS_BASE`,
//! naming what it weakens), and everything a base's criteria see or are
//! judged by is such a thing: move the deliverable root (`root`); lower a
//! criterion's severity; change its validator (by binding another one, or
//! rebinding the validator's name; `not_evaluated` unbinds it), its params,
//! targets, judges or limits; make a required deliverable optional or move
//! its path; redefine a base's judge or gate; rename its provenance policy
//! or drop a requirement of it; declare the contract advisory; exclude
//! files the base does not exclude (`exclude`, `gitignore`). The base's
//! root, excludes, gates and provenance policy apply to the composed
//! contract; its limits and the budget of `vcc converge` are the lower of
//! the two, limit by limit. Dropping `extends` altogether is caught against
//! `vcc.lock`, which records it, and a gate that would hide the approvals
//! folder from a base's criteria against the root (see the CLI's `gate`).

use std::collections::{BTreeSet, HashMap};
use std::path::{Component, Path};
use std::sync::Arc;

pub use crate::document::Based;
use crate::document::{Document, Inherited};
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

/// A `root:` as the folders it names: `.` parts dropped, so `./`, `.` and
/// no root at all are alike the folder of the contract built on the base.
fn root_parts(root: Option<&str>) -> Vec<Component<'_>> {
    Path::new(root.unwrap_or("."))
        .components()
        .filter(|c| *c != Component::CurDir)
        .collect()
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
    // What is taken from the base as it wrote it, for problems about it.
    let from_base = Arc::new(base.doc.clone());
    let mut taken_parts: Vec<(FieldPath, FieldPath)> = Vec::new();

    // The root: the base's criteria judge the folder the base names
    // (relative to the contract built on it, like the project's own
    // `root:`; none: that contract's folder). Moving it would have them
    // judge a decoy while the real files are never read. A contract that
    // says nothing takes the base's, and then an earlier base's binds.
    let stated = project.contract.root.is_some()
        || project.inherited.iter().any(|p| p.at == root.key("root"));
    if !stated {
        project.contract.root = b.root.clone();
        taken_parts.push((root.key("root"), root.key("root")));
    } else if root_parts(project.contract.root.as_deref()) != root_parts(b.root.as_deref()) {
        let theirs = b.root.as_deref().unwrap_or(".");
        let mine = project.contract.root.as_deref().unwrap_or(".");
        let mut p = weakens(
            project,
            &root.key("root"),
            format!(
                "the deliverable root is `{theirs}` in {label}; it cannot be moved to `{mine}`: the criteria of {label} would judge the files there instead"
            ),
        );
        p.help = Some(if b.root.is_none() {
            format!(
                "remove `root:` (the criteria of {label} judge the contract's folder), or give the folder on the command line (--dir)"
            )
        } else {
            format!(
                "write `root: {theirs}`, as {label} does, or give the folder on the command line (--dir)"
            )
        });
        problems.push(p);
    }

    if project.contract.advisory && !b.advisory {
        problems.push(weakens(
            project,
            &root.key("advisory"),
            format!("the contract is declared advisory, so it could never be rejected; its base {label} is not advisory"),
        ));
    }

    // Deliverables: the project's, then the base's it does not redeclare.
    let mut extra = Vec::new();
    for (j, bd) in b.deliverables.iter().enumerate() {
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
            None => {
                let list = root.key("deliverables");
                taken_parts.push((
                    list.index(project.contract.deliverables.len() + extra.len()),
                    list.index(j),
                ));
                extra.push(bd.clone());
            }
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
        if !project.contract.validators.contains_key(name) {
            project.contract.validators.insert(name.clone(), v.clone());
            let at = root.key("validators").key(name);
            taken_parts.push((at.clone(), at));
        }
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
                let at = root.key("judges").key(name);
                taken_parts.push((at.clone(), at));
            }
        }
    }

    // Criteria: the project's (an override by id is checked against the
    // base's), then the base's it does not redeclare.
    let mut inherited = Vec::new();
    let mut taken = Vec::new();
    for (j, bc) in b.criteria.iter().enumerate() {
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
            let list = root.key("criteria");
            taken_parts.push((
                list.index(project.contract.criteria.len() + taken.len()),
                list.index(j),
            ));
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
        // Limits decide whether the validator finishes; a base's may not
        // be traded for others on its own criterion.
        if pc.limits != bc.limits {
            problems.push(weakens(
                project,
                &at.key("limits"),
                format!(
                    "criterion `{}` of {label} runs with other limits; they cannot be changed",
                    bc.id
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
    // The list now starts with the base's patterns, in the base's order.
    let excludes = root.key("exclude");
    project
        .inherited
        .retain(|p| !p.at.0.starts_with(&excludes.0));
    for i in 0..b.exclude.len() {
        taken_parts.push((excludes.index(i), excludes.index(i)));
    }

    // A base's limits bind its criteria (and the verifier's judge
    // spending it allows): the lower limit of each holds.
    if project.contract.limits.is_none() && b.limits.is_some() {
        taken_parts.push((root.key("limits"), root.key("limits")));
    }
    let limits = project.contract.limits.take();
    project.contract.limits = crate::model::Limits::tightest(limits, b.limits.as_ref());
    // A base's budget binds the loop too: the lower limit of each holds.
    let budget = project.contract.budget.take();
    project.contract.budget = crate::model::Budget::tightest(budget, b.budget.as_ref());
    // A base's gates and provenance policy hold too; a project may not
    // redefine them (that could drop an approval the base needs).
    for (j, g) in b.gates.iter().enumerate() {
        if let Some(i) = project.contract.gates.iter().position(|p| p.id == g.id) {
            problems.push(weakens(
                project,
                &root.key("gates").index(i),
                format!(
                    "gate `{}` is the base's ({label}); the contract may not redefine it",
                    g.id
                ),
            ));
        } else {
            taken_parts.push((
                root.key("gates").index(project.contract.gates.len()),
                root.key("gates").index(j),
            ));
            project.contract.gates.push(g.clone());
        }
    }
    match (&project.contract.provenance, &b.provenance) {
        (None, Some(p)) => {
            project.contract.provenance = Some(p.clone());
            taken_parts.push((root.key("provenance"), root.key("provenance")));
        }
        (Some(mine), Some(theirs))
            if mine.id != theirs.id || theirs.require.iter().any(|r| !mine.require.contains(r)) =>
        {
            problems.push(weakens(
                project,
                &root.key("provenance"),
                format!(
                    "the provenance policy `{}` of {label} requires {}; a contract on it keeps that id and every requirement",
                    theirs.id,
                    theirs.require.join(", ")
                ),
            ));
        }
        _ => {}
    }
    project
        .inherited
        .extend(taken_parts.into_iter().map(|(at, from)| Inherited {
            at,
            from,
            base: from_base.clone(),
        }));
    project.bases.push(Based {
        label: label.clone(),
        digest: base.doc.digest.clone(),
        criteria: inherited,
    });
    problems
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn doc(path: &str, text: &str) -> Document {
        crate::parse(Path::new(path), text.as_bytes()).expect("a contract")
    }

    const BASE: &str = "vcc: 1\nid: base\ndeliverables:\n  - { id: notes, path: NOTES.md }\nvalidators:\n  e: { component: std/file-exists }\ncriteria:\n  - { id: notes, severity: must, validator: e, targets: [notes] }\n";

    fn weakened(project: &str, bases: &[(&str, &str)]) -> Vec<Problem> {
        let bases: Vec<Document> = bases.iter().map(|(p, t)| doc(p, t)).collect();
        let bases: Vec<Base> = bases
            .iter()
            .map(|d| Base {
                label: d.path.display().to_string(),
                doc: d,
            })
            .collect();
        compose(doc("team/contract.yaml", project), &bases)
            .notes
            .into_iter()
            .filter(|p| p.code == Code::WeakensBase)
            .collect()
    }

    #[test]
    fn a_root_written_otherwise_is_the_same_root() {
        let team = "vcc: 1\nid: team\nroot: ./site/\n";
        let base = BASE.replace("id: base\n", "id: base\nroot: site\n");
        assert!(weakened(team, &[("base.yaml", &base)]).is_empty());
        assert!(weakened("vcc: 1\nid: team\nroot: .\n", &[("base.yaml", BASE)]).is_empty());
        let moved = weakened("vcc: 1\nid: team\nroot: ..\n", &[("base.yaml", BASE)]);
        assert_eq!(moved.len(), 1, "{moved:?}");
        assert_eq!(moved[0].field.as_deref(), Some("root"));
        assert_eq!(moved[0].line, Some(3));
    }

    /// A contract that states no root takes the first base's, and a second
    /// base may not move it either.
    #[test]
    fn two_bases_must_agree_on_the_root() {
        let site = BASE.replace("id: base\n", "id: base\nroot: site\n");
        let composed = {
            let (a, b) = (doc("a.yaml", BASE), doc("b.yaml", &site));
            compose(
                doc("team/contract.yaml", "vcc: 1\nid: team\n"),
                &[
                    Base {
                        label: "a".into(),
                        doc: &a,
                    },
                    Base {
                        label: "b".into(),
                        doc: &b,
                    },
                ],
            )
        };
        let problem = composed
            .notes
            .iter()
            .find(|p| p.code == Code::WeakensBase)
            .expect("the second base moves the first one's root");
        assert!(problem.message.contains("`site` in b"), "{problem:?}");
        // It is about the root the first base gave: its file.
        assert_eq!(problem.file, "a.yaml");
    }

    #[test]
    fn problems_about_taken_parts_name_the_base_and_its_line() {
        let composed = {
            let base = doc("ci/policy.yaml", BASE);
            compose(
                doc("team/contract.yaml", "vcc: 1\nid: team\n"),
                &[Base {
                    label: "policy".into(),
                    doc: &base,
                }],
            )
        };
        let at = FieldPath::root()
            .key("criteria")
            .index(0)
            .key("targets")
            .index(0);
        let p = composed.problem(Code::UnknownTarget, Level::Error, &at, "x".into());
        assert_eq!(p.file, "ci/policy.yaml");
        assert_eq!(p.line, Some(8));
        assert_eq!(p.field.as_deref(), Some("criteria[0].targets[0]"));
        let own = composed.problem(
            Code::InvalidId,
            Level::Error,
            &FieldPath::root().key("id"),
            "x".into(),
        );
        assert_eq!(own.file, "team/contract.yaml");
    }

    #[test]
    fn limits_are_the_lower_of_the_two() {
        let base = BASE.replace(
            "id: base\n",
            "id: base\nlimits: { timeout: 300ms, judge_calls: 4 }\n",
        );
        let (base, team) = (
            doc("base.yaml", &base),
            doc(
                "team/contract.yaml",
                "vcc: 1\nid: team\nlimits: { timeout: 5s, memory: 64MiB, judge_calls: 100 }\n",
            ),
        );
        let limits = compose(
            team,
            &[Base {
                label: "base".into(),
                doc: &base,
            }],
        )
        .contract
        .limits
        .expect("limits");
        assert_eq!(
            limits.timeout.map(|t| t.0),
            Some(std::time::Duration::from_millis(300))
        );
        assert_eq!(limits.memory.map(|m| m.0), Some(64 << 20));
        assert_eq!(limits.judge_calls, Some(4));
    }
}
