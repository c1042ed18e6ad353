//! The integrity pass over AI judges: the contract's `judges`, the grants
//! criteria make, and the per-run judge limits.
//!
//! What an endpoint may serve is the verifier's configuration, not the
//! contract's, so it is checked where that configuration is read (the
//! runtime); here is what the contract alone can get wrong.

use crate::document::Document;
use crate::model::{Contract, Judge, Limits, Provider};
use crate::problem::{Code, FieldPath, Level, Problem, closest};

/// The longest one judge call may be given.
const MAX_DEADLINE: std::time::Duration = std::time::Duration::from_secs(3600);

pub(crate) fn lint(doc: &Document, problems: &mut Vec<Problem>) {
    let c = &doc.contract;
    let root = FieldPath::root();
    for (name, judge) in &c.judges {
        define(doc, &root.key("judges").key(name), name, judge, problems);
    }
    grants(doc, c, problems);
    if let Some(limits) = &c.limits {
        run_limits(doc, &root.key("limits"), limits, problems);
    }
    for (i, criterion) in c.criteria.iter().enumerate() {
        if criterion
            .limits
            .as_ref()
            .is_some_and(Limits::has_judge_limits)
        {
            let mut p = doc.problem(
                Code::InvalidValue,
                Level::Error,
                &root.key("criteria").index(i).key("limits"),
                format!(
                    "criterion `{}` sets judge limits, which are per run",
                    criterion.id
                ),
            );
            p.help = Some(
                "set `judge_calls`, `judge_tokens`, `judge_cost` and `judge_deadline` on the contract's `limits`".into(),
            );
            problems.push(p);
        }
    }
}

/// One judge: a model, and sampling parameters its API takes.
fn define(doc: &Document, at: &FieldPath, name: &str, j: &Judge, problems: &mut Vec<Problem>) {
    let mut bad = |field: FieldPath, message: String, help: &str| {
        let mut p = doc.problem(Code::InvalidValue, Level::Error, &field, message);
        p.help = Some(help.to_string());
        problems.push(p);
    };
    if j.model.trim().is_empty() {
        bad(
            at.key("model"),
            format!("judge `{name}` names no model"),
            "name the model as the provider does, e.g. `model: gpt-4.1-mini`",
        );
    }
    let params = at.key("params");
    if let Some(t) = j.params.temperature
        && !(0.0..=2.0).contains(&t)
    {
        bad(
            params.key("temperature"),
            format!("judge `{name}`: temperature {t} is outside 0..2"),
            "a temperature from 0 (most repeatable) to 2",
        );
    }
    if let Some(p) = j.params.top_p
        && !(p > 0.0 && p <= 1.0)
    {
        bad(
            params.key("top_p"),
            format!("judge `{name}`: top_p {p} is outside (0, 1]"),
            "a share of the probability mass, above 0 and at most 1",
        );
    }
    if j.params.max_tokens == Some(0) {
        bad(
            params.key("max_tokens"),
            format!("judge `{name}`: max_tokens 0 leaves no room for an answer"),
            "give the answer room, e.g. `max_tokens: 1024`",
        );
    }
    match j.provider {
        Provider::Anthropic if j.params.seed.is_some() => bad(
            params.key("seed"),
            format!("judge `{name}`: the Anthropic Messages API takes no seed"),
            "remove `seed`; repeat samples from an Anthropic judge differ by sampling alone",
        ),
        Provider::OpenaiCompatible if j.params.top_k.is_some() => bad(
            params.key("top_k"),
            format!("judge `{name}`: chat completions take no top_k"),
            "remove `top_k`, or use `top_p`",
        ),
        _ => {}
    }
}

/// Criteria grant judges the contract defines; every judge is granted.
fn grants(doc: &Document, c: &Contract, problems: &mut Vec<Problem>) {
    let names: Vec<&str> = c.judges.keys().map(String::as_str).collect();
    let criteria = FieldPath::root().key("criteria");
    for (i, criterion) in c.criteria.iter().enumerate() {
        for (k, name) in criterion.judges.iter().enumerate() {
            let at = criteria.index(i).key("judges").index(k);
            if criterion.judges[..k].contains(name) {
                problems.push(doc.problem(
                    Code::DuplicateId,
                    Level::Error,
                    &at,
                    format!("criterion `{}` grants judge `{name}` twice", criterion.id),
                ));
            } else if !c.judges.contains_key(name) {
                let mut p = doc.problem(
                    Code::UnknownJudge,
                    Level::Error,
                    &at,
                    format!(
                        "criterion `{}` grants judge `{name}`, which the contract does not define",
                        criterion.id
                    ),
                );
                p.help = Some(match closest(name, names.iter().copied()) {
                    Some(near) => format!("did you mean `{near}`?"),
                    None if names.is_empty() => {
                        "define it under `judges:` (provider, model, params)".into()
                    }
                    None => format!("the contract defines: {}", names.join(", ")),
                });
                problems.push(p);
            }
        }
    }
    for name in c.judges.keys() {
        if !c.criteria.iter().any(|cr| cr.judges.contains(name)) {
            let mut p = doc.problem(
                Code::UnusedJudge,
                Level::Warning,
                &FieldPath::root().key("judges").key(name),
                format!("judge `{name}` is not granted to any criterion"),
            );
            p.help = Some("grant it with `judges: [NAME]` on a criterion, or remove it".into());
            problems.push(p);
        }
    }
}

fn run_limits(doc: &Document, at: &FieldPath, l: &Limits, problems: &mut Vec<Problem>) {
    let mut out_of_range = |field: &str, message: String| {
        problems.push(doc.problem(Code::LimitOutOfRange, Level::Error, &at.key(field), message));
    };
    if l.judge_calls == Some(0) {
        out_of_range("judge_calls", "judge_calls 0 allows no judge call".into());
    }
    if l.judge_tokens == Some(0) {
        out_of_range("judge_tokens", "judge_tokens 0 allows no judge call".into());
    }
    if let Some(cost) = l.judge_cost
        && !(cost.is_finite() && cost >= 0.0)
    {
        out_of_range(
            "judge_cost",
            format!("judge_cost {cost} is not a number of 0 or more"),
        );
    }
    if let Some(d) = l.judge_deadline
        && (d.0.is_zero() || d.0 > MAX_DEADLINE)
    {
        out_of_range(
            "judge_deadline",
            format!("judge_deadline {d} is outside 1ms..1h"),
        );
    }
}
