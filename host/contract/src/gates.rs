//! The integrity of gates and of the provenance policy: what they refer
//! to exists, what they require is something vcc can check.

use std::collections::HashSet;

use crate::document::Document;
use crate::model::{PROVENANCE_REQUIREMENTS, provenance_id};
use crate::problem::{Code, FieldPath, Level, Problem, closest};

pub(crate) fn lint(doc: &Document, problems: &mut Vec<Problem>) {
    let c = &doc.contract;
    let root = FieldPath::root();
    let mut push = |code, field: &FieldPath, message: String, help: Option<String>| {
        let mut p = doc.problem(code, Level::Error, field, message);
        p.help = help;
        problems.push(p);
    };
    if let Some(p) = &c.provenance {
        for (i, r) in p.require.iter().enumerate() {
            if !PROVENANCE_REQUIREMENTS.contains(&r.as_str()) {
                let guess = closest(r, PROVENANCE_REQUIREMENTS.iter().copied())
                    .map(|g| format!("did you mean `{g}`? "))
                    .unwrap_or_default();
                push(
                    Code::InvalidValue,
                    &root.key("provenance").key("require").index(i),
                    format!("provenance requirement `{r}` is not one vcc knows"),
                    Some(format!(
                        "{guess}known: {}",
                        PROVENANCE_REQUIREMENTS.join(", ")
                    )),
                );
            }
        }
    }
    let mut ids = HashSet::new();
    let criteria: Vec<&str> = c.criteria.iter().map(|c| c.id.as_str()).collect();
    for (g, gate) in c.gates.iter().enumerate() {
        let at = root.key("gates").index(g);
        if !ids.insert(gate.id.as_str()) {
            push(
                Code::DuplicateId,
                &at.key("id"),
                format!("gate id `{}` is used twice", gate.id),
                None,
            );
        }
        for (j, id) in gate.criteria.iter().enumerate() {
            let host_row = c.provenance.as_ref().map(|p| provenance_id(&p.id));
            if criteria.contains(&id.as_str()) || host_row.as_deref() == Some(id.as_str()) {
                continue;
            }
            let guess =
                closest(id, criteria.iter().copied()).map(|g| format!("did you mean `{g}`?"));
            push(
                Code::UnknownTarget,
                &at.key("criteria").index(j),
                format!(
                    "gate `{}` requires `{id}`, which is not a criterion of the contract",
                    gate.id
                ),
                guess,
            );
        }
        for (j, a) in gate.approvals.iter().enumerate() {
            if a.role.trim().is_empty() {
                push(
                    Code::MissingField,
                    &at.key("approvals").index(j).key("role"),
                    format!("an approval of gate `{}` names no role", gate.id),
                    Some("name the role whose keys the trust policy lists under `roles:`".into()),
                );
            }
            if let Some(judge) = &a.judged_by {
                let field = at.key("approvals").index(j).key("judged_by");
                if a.by != crate::model::ApprovalKind::Ai {
                    push(
                        Code::InvalidValue,
                        &field,
                        format!(
                            "an approval of gate `{}` is judged by `{judge}`, but is not `by: ai`",
                            gate.id
                        ),
                        Some("a criterion's judgment stands in for an AI's approval only: set `by: ai`".into()),
                    );
                } else if !criteria.contains(&judge.as_str()) {
                    push(
                        Code::UnknownTarget,
                        &field,
                        format!(
                            "an approval of gate `{}` is judged by `{judge}`, which is not a criterion of the contract",
                            gate.id
                        ),
                        closest(judge, criteria.iter().copied())
                            .map(|g| format!("did you mean `{g}`?")),
                    );
                }
            }
            if a.min_score.is_some_and(|s| !s.is_finite()) {
                push(
                    Code::InvalidValue,
                    &at.key("approvals").index(j).key("min_score"),
                    "min_score is not a number".into(),
                    None,
                );
            }
        }
        if gate.criteria.is_empty() && gate.approvals.is_empty() {
            push(
                Code::InvalidValue,
                &at,
                format!(
                    "gate `{}` requires nothing, so it could not hold anything back",
                    gate.id
                ),
                Some("add the criteria it requires or the approvals it needs".into()),
            );
        }
    }
}
