//! What a run returned, checked against every cap (`accept`), or why it
//! did not return: a trap, a timeout, a limit, an exit (`classify`).

use super::*;
use crate::sandbox::host::snapshot_key;

/// Check the validator's answer against the caps, and convert it.
pub(super) fn accept(outcome: wit::Outcome) -> RunOutput {
    let returned = Returned {
        status: match outcome.status {
            wit::Status::Pass => Status::Pass,
            wit::Status::Fail => Status::Fail,
            wit::Status::Skip => Status::Skip,
        },
        summary: outcome.summary,
        findings: outcome
            .findings
            .into_iter()
            .map(|f| Finding {
                message: f.message,
                path: f.path,
                line: f.line,
                column: f.column,
                rule: f.rule,
            })
            .collect(),
        evidence: outcome
            .evidence
            .into_iter()
            .map(|e| Evidence {
                name: e.name,
                media_type: e.media_type,
                bytes: e.bytes,
            })
            .collect(),
    };
    match returned.check() {
        Ok(ok) => RunOutput {
            status: ok.status,
            reason: Reason::Validator,
            summary: ok.summary,
            findings: ok
                .findings
                .into_iter()
                .map(|f| Finding {
                    path: f.path.map(|p| snapshot_key(&p).unwrap_or(p)),
                    ..f
                })
                .collect(),
            evidence: ok.evidence,
            files_read: Vec::new(),
            saw_change: false,
            judge_calls: Vec::new(),
        },
        Err(refused) => RunOutput::error(refused.reason, refused.summary),
    }
}

/// Turn a failed call into a reason and words.
pub(super) fn classify(
    err: &wasmtime::Error,
    store: &Store<RunState>,
    pipes: &Pipes,
) -> (Reason, String) {
    if let Some(exit) = err.downcast_ref::<I32Exit>() {
        return (
            Reason::Exit,
            format!(
                "the validator called exit({}) instead of returning a result",
                exit.0
            ),
        );
    }
    match store.data().limiter.hit {
        Some("memory") => {
            let cap = store.data().limiter.memory;
            return (
                Reason::MemoryLimit,
                format!(
                    "the validator exceeded its memory limit ({} MiB)",
                    cap >> 20
                ),
            );
        }
        Some(what) => {
            return (
                Reason::MemoryLimit,
                format!("the validator exceeded its {what} limit"),
            );
        }
        None => {}
    }
    if let Some(trap) = err.downcast_ref::<Trap>() {
        return match trap {
            Trap::Interrupt => (
                Reason::Timeout,
                "the validator ran out of its wall-clock budget".into(),
            ),
            Trap::StackOverflow => (
                Reason::StackOverflow,
                "the validator overflowed its stack".into(),
            ),
            other => (Reason::Trap, format!("the validator trapped: {other}")),
        };
    }
    // A write larger than the space left traps inside the pipe.
    if let Some(name) = pipes.overflowed().or_else(|| {
        format!("{err:#}")
            .contains("beyond capacity")
            .then_some("stdout or stderr")
    }) {
        return (
            Reason::OutputLimit,
            format!(
                "the validator wrote more than {} KiB to {name}",
                STDIO_CAP >> 10
            ),
        );
    }
    let message = format!("{err:#}");
    // wasmtime refuses, with a plain error, a returned value that breaks the
    // canonical ABI; these words are from its lifting code.
    const LIFT_ERRORS: [&str; 5] = [
        "discriminant",
        "out of bounds of memory",
        "not aligned",
        "utf-8",
        "byte length too large",
    ];
    if LIFT_ERRORS
        .iter()
        .any(|words| message.to_lowercase().contains(words))
    {
        return (
            Reason::MalformedOutput,
            format!(
                "the validator returned a value the interface does not allow: {}",
                clip(&message, 2000)
            ),
        );
    }
    (
        Reason::Trap,
        format!("the validator failed: {}", clip(&message, 2000)),
    )
}

/// For errors outside a validate run (describe, instantiate).
pub(super) fn explain(err: &wasmtime::Error, store: &Store<RunState>) -> String {
    let empty = Pipes(MemoryOutputPipe::new(1), MemoryOutputPipe::new(1));
    classify(err, store, &empty).1
}

pub(super) fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}
