//! What a harness sends `vcc hook` on stdin (Claude Code, Codex, Cursor,
//! Gemini CLI): any bytes never panic, a stop that reads has a session
//! (and no empty transcript path),
//! and every answer — including the refusal of unreadable input — is one
//! the harness reads as a block when the decision is a block.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vcc_report::harness::{Decision, Harness};

fuzz_target!(|data: &[u8]| {
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    let harness = Harness::ALL[usize::from(which) % Harness::ALL.len()];
    match harness.parse(bytes) {
        Ok(stop) => {
            assert!(!stop.session.is_empty());
            // An empty path is no transcript: the hook keeps the path
            // reserved instead of reading one.
            assert!(!stop.transcript.is_some_and(|p| p.as_os_str().is_empty()));
            let text = String::from_utf8_lossy(bytes).into_owned();
            let (stdout, stderr, code) = harness.answer(&Decision::Block(text));
            assert_eq!(code, 0);
            assert!(stdout.is_some() || stderr.is_some());
        }
        Err(why) => {
            let (stdout, stderr, code) = harness.refuse(&why);
            // A refusal blocks: exit 2 with a reason, or Cursor's follow-up.
            assert!(code == 2 && stderr.is_some_and(|s| !s.is_empty()) || stdout.is_some());
        }
    }
});
