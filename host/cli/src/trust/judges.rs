//! What a check's AI judges are answered from: the judge configuration
//! (`--judges`, `$VCC_JUDGES`, the trust policy's `judges:`, or
//! `~/.config/vcc/judges.yaml`), a session to replay or record, and the
//! command line's limits. The configuration and a replayed session bind
//! what a judge says, as the trust policy binds keys: neither may lie in
//! the deliverable root, where whoever writes the deliverables could
//! point a judge at a server that always says yes, or write its answers.

use std::path::Path;

use vcc_contract::Code;
use vcc_judge::{Config, RunLimits, Session, Setup};
use vcc_trust::Refusal;
use vcc_trust::policy::Policy;

use crate::args::JudgeArgs;

/// The judge setup of a check of the deliverables under `root`.
pub fn setup(args: &JudgeArgs, policy: Option<&Policy>, root: &Path) -> Result<Setup, Refusal> {
    let section = policy.and_then(|p| p.judges.as_ref().map(|j| (p.path.as_path(), j)));
    let config = Config::locate(args.config.as_deref(), section)
        .map_err(|why| Refusal::new(Code::MalformedPolicy, why))?;
    if let Some(c) = &config {
        refuse_in_root(
            &c.path,
            root,
            "the judge configuration",
            "point a judge at a server that always says yes",
        )?;
    }
    let replay = match &args.judge_replay {
        Some(path) => {
            refuse_in_root(
                path,
                root,
                "the replayed judge session",
                "write the judges' answers",
            )?;
            Some(Session::read(path).map_err(|why| Refusal::new(Code::InvalidValue, why))?)
        }
        None => None,
    };
    if let Some(path) = &args.judge_record {
        refuse_in_root(
            path,
            root,
            "the recorded judge session",
            "edit the judges' answers before they are replayed",
        )?;
    }
    if let Some(cost) = args.judge_cost
        && !(cost.is_finite() && cost >= 0.0)
    {
        return Err(Refusal::new(
            Code::InvalidValue,
            format!("--judge-cost {cost}: a number of 0 or more"),
        ));
    }
    Ok(Setup {
        config,
        replay,
        record: args.judge_record.clone(),
        flags: RunLimits {
            calls: args.judge_calls,
            tokens: args.judge_tokens,
            cost: args.judge_cost,
            deadline: args.judge_deadline,
        },
    })
}

fn refuse_in_root(path: &Path, root: &Path, what: &str, could: &str) -> Result<(), Refusal> {
    // Also through a link in the root, and for a file not written yet.
    if crate::paths::inside(path, root) {
        return Err(Refusal::new(
            Code::TrustInRoot,
            format!(
                "{what} {} lies in the deliverable root {}: whoever writes the deliverables could {could}; keep it where they cannot",
                path.display(),
                root.display()
            ),
        ));
    }
    Ok(())
}
