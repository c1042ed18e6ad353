//! `agentActions.logged`, a requirement of the contract's provenance
//! policy: the agent's actions are logged only by its transcript, attached
//! from outside the root (the hook, `--attach .vcc/transcript.jsonl=FILE`),
//! and only when std/tool-calls reads it and finds at least one action in
//! it. A file that is merely attached — empty, a user message alone, or in
//! no format an agent writes — logs nothing.

use super::*;
use crate::host_rows::Actions;

/// Where the agent's transcript is attached (where the hook attaches it).
const TRANSCRIPT: &str = ".vcc/transcript.jsonl";

/// The requirement this module judges.
const REQUIREMENT: &str = "agentActions.logged";

/// What the attached transcript shows of the agent's actions, when the
/// run judges the provenance policy and it requires them (`None`
/// otherwise).
pub(super) fn agent_actions(
    loader: &Loader,
    contract: &Contract,
    snapshot: &Arc<Snapshot>,
    options: &CheckOptions,
    wanted: &dyn Fn(&str) -> bool,
) -> Option<Actions> {
    let policy = contract.provenance.as_ref()?;
    let id = vcc_contract::model::provenance_id(&policy.id);
    if !wanted(&id) || !policy.require.iter().any(|r| r == REQUIREMENT) {
        return None;
    }
    let Some(transcript) = options.attached.iter().find(|a| a.path == TRANSCRIPT) else {
        let elsewhere: Vec<String> = options
            .attached
            .iter()
            .map(|a| format!("`{}`", a.path))
            .collect();
        let elsewhere = if elsewhere.is_empty() {
            String::new()
        } else {
            format!(" (files were attached at {} only)", elsewhere.join(", "))
        };
        return Some(Actions::Missing(format!(
            "no agent transcript was attached at `{TRANSCRIPT}`{elsewhere}: the agent's actions are logged only by the transcript the harness gives (`vcc check --attach {TRANSCRIPT}=FILE`, or the agent hook)"
        )));
    };
    let source = &transcript.source;
    let binding = ValidatorRef {
        component: "std/tool-calls".into(),
        ..ValidatorRef::default()
    };
    let loaded = match loader.load(&binding, Path::new(".")) {
        Ok(loaded) => loaded,
        Err(why) => {
            return Some(Actions::Unknown(format!(
                "std/tool-calls, which reads the transcript, cannot be used: {why}"
            )));
        }
    };
    // The transcript is the one target; no rule but "at least one call"
    // (std/tool-calls: no call is `skip`, a format it does not read an
    // error).
    let target = "agent-transcript".to_string();
    let files = vec![TRANSCRIPT.to_string()];
    let request = Request {
        criterion_id: id,
        params: r#"{"forbidden": []}"#.into(),
        targets: vec![(target.clone(), files.clone())],
        snapshot: snapshot.clone(),
        deliverables: Arc::new(HashMap::from([(target.clone(), files)])),
        order: vec![target],
        tree: Arc::new(OnceLock::new()),
        limits: RunLimits {
            timeout: DEFAULT_TIMEOUT,
            memory: DEFAULT_MEMORY,
        },
        signers: None,
        judge: None,
        reuse: None,
        consulted: None,
    };
    let sandbox = loader.sandbox().clone();
    let pre = loaded.pre.clone();
    let Ok(out) = guarded(c"vcc-actions", DEFAULT_TIMEOUT, move || {
        sandbox.validate(&pre, request)
    }) else {
        return Some(Actions::Unknown(format!(
            "std/tool-calls did not finish reading the transcript attached from {source} within {DEFAULT_TIMEOUT:?}"
        )));
    };
    Some(match (out.status, out.reason) {
        (Status::Pass, _) => Actions::Logged(format!(
            "std/tool-calls ({}) read the transcript attached from {source}: {}",
            loaded.digest, out.summary
        )),
        (Status::Skip, _) => Actions::Missing(format!(
            "std/tool-calls found no action (no tool call) in the transcript attached from {source}"
        )),
        // The transcript is not one std/tool-calls reads: nothing in it is
        // an action.
        (Status::Fail, _) | (Status::Error, Reason::ValidatorError) => Actions::Missing(format!(
            "std/tool-calls read no action in the file attached from {source}: {}",
            out.summary
        )),
        (Status::Error, _) => Actions::Unknown(format!(
            "std/tool-calls could not judge the transcript attached from {source}: {}",
            out.summary
        )),
    })
}
