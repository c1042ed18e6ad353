//! std/tool-calls' transcript reader (Claude Code, Codex, OpenAI and
//! Anthropic chat formats, JSON lines or one document), natively: hostile
//! transcripts never panic, never run away, and findings name lines of
//! the file.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    let params = match which % 2 {
        0 => r#"{"required": ["Bash"], "forbidden": ["WebFetch"]}"#,
        _ => {
            r#"{"required": [{"tool": "Edit", "args": {"file_path": {"matches": "\\.rs$"}}}], "order": ["Read", "Edit"]}"#
        }
    };
    let outcome = vcc_fuzz::judge::<tool_calls::ToolCalls>("transcript.jsonl", bytes, params);
    vcc_fuzz::lines_within(&outcome, "transcript.jsonl", bytes);
});
