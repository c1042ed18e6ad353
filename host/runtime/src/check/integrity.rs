//! The integrity pass of a check: lint with the validators loaded, and
//! what a partial run (`--only`, `--gate`) leaves out of it.

use super::*;

/// The integrity pass, loading the validators; `Err` when it found errors
/// (they are in the report's problems).
pub(super) fn integrity<'a>(
    loader: &'a Loader,
    doc: &Document,
    root: &Path,
    report: &mut Report,
    partial: bool,
    judging: &vcc_judge::Setup,
) -> Result<ContractValidators<'a>, String> {
    let (mut problems, validators) = lint_with_validators(loader, doc, Some(root));
    problems.extend(judging.problems(doc));
    // A partial run (`--only`, `--gate`) may keep host rows alone: the
    // whole contract has its MUSTs, and a partial run is judged on what it
    // kept. What the rows left out would use (validators, deliverables) is
    // not unused: lint speaks about the whole contract (`vcc lint`), a
    // partial run only about its own rows.
    if partial {
        use vcc_contract::Code;
        problems.retain(|p| {
            let left_out = p.code == Code::UnknownTarget
                && p.field.as_deref().is_some_and(|f| f.starts_with("gates["));
            let of_the_whole = matches!(
                p.code,
                Code::NoMust | Code::UnusedValidator | Code::UncheckedDeliverable
            );
            !of_the_whole && !left_out
        });
    }
    let errors = problems.iter().filter(|p| p.is_error()).count();
    report.problems = problems;
    if errors > 0 {
        return Err(format!(
            "the contract has {errors} integrity error(s); no validator was run"
        ));
    }
    Ok(validators)
}
