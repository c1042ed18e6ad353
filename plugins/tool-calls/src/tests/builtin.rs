//! Red team 34: built-in `*_call` items and shell commands chained after
//! a `cd`.

use super::*;

fn shell_max0(t: &Transcript, re: &str) -> Vec<&'static str> {
    problems(
        &t.calls,
        j!({"required": [{"name": "shell", "min": 0, "max": 0, "args": {"command": {"matches": re}}}]}),
    )
}

#[test]
fn a_codex_local_shell_call_is_the_shell_tool() {
    let rollout = r#"{"timestamp":"t","type":"response_item","payload":{"type":"local_shell_call","call_id":"c2","status":"completed","action":{"type":"exec","command":["git","push","--force"]}}}
{"timestamp":"t","type":"response_item","payload":{"type":"local_shell_call_output","call_id":"c2","output":"ok"}}
"#;
    let t = read(rollout).unwrap();
    assert_eq!(t.calls.len(), 1);
    assert_eq!(t.calls[0].name, "shell");
    assert_eq!(shell_max0(&t, "^git push"), vec!["max-calls"]);
    // The item's own fields are still there.
    let at = problems(
        &t.calls,
        j!({"required": [{"name": "shell", "args": {"action.type": "exec"}}]}),
    );
    assert!(at.is_empty(), "{at:?}");
}

#[test]
fn responses_shell_and_apply_patch_calls_are_their_tools() {
    let response = r#"{"object":"response","output":[
 {"type":"shell_call","id":"sh","call_id":"c1","status":"completed","action":{"commands":["ls","git push --force"]}},
 {"type":"apply_patch_call","id":"ap","call_id":"c2","status":"completed","operation":{"type":"update_file","path":"src/a.py","diff":"-"}},
 {"type":"shell_call_output","call_id":"c1","output":[]},
 {"type":"some_new_tool_call","id":"n","status":"completed"}
]}"#;
    let t = read(response).unwrap();
    let names: Vec<&str> = t.calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["shell", "apply_patch", "some_new_tool"]);
    assert_eq!(shell_max0(&t, "^git push"), vec!["max-calls"]);
    let forbidden = problems(&t.calls, j!({"forbidden": ["shell", "apply_patch"]}));
    assert_eq!(forbidden, ["forbidden-call", "forbidden-call"]);
    let path = problems(
        &t.calls,
        j!({"required": [{"name": "apply_patch", "args": {"operation.path": "src/a.py"}}]}),
    );
    assert!(path.is_empty(), "{path:?}");
}

#[test]
fn a_command_chained_after_cd_counts_for_a_limit() {
    let codex = r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"cd /w && git push --force\"]}","call_id":"c1"}}
"#;
    let t = read(codex).unwrap();
    // The book's pattern, and the anchored one it once gave.
    for re in [r"\bgit\s+push\b", "^git push"] {
        assert_eq!(shell_max0(&t, re), vec!["max-calls"], "{re}");
    }
    for chained in [
        "a; git push",
        "a | git push",
        "x=$(git push)",
        "a\ngit push",
        "a || git push",
    ] {
        let line = j!({"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments": j!({"command": ["bash", "-lc", chained]}).to_string()}});
        let t = read(&format!("{line}\n")).unwrap();
        assert_eq!(shell_max0(&t, "^git push"), vec!["max-calls"], "{chained}");
    }
    // A required command is still the one that ran, not a piece of it.
    let need = problems(
        &t.calls,
        j!({"required": [{"name": "shell", "args": {"command": {"matches": "^git push"}}}]}),
    );
    assert_eq!(need, vec!["required-call"]);
}

#[test]
fn a_shell_string_chaining_a_command_counts_for_a_limit() {
    let claude = r#"{"parentUuid":"u1","sessionId":"s1","type":"assistant","uuid":"u2","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cd /w && git push --force"}}]}}
"#;
    let t = read(claude).unwrap();
    let rule = |re: &str, max: Value| {
        problems(
            &t.calls,
            j!({"required": [{"name": "Bash", "min": 0, "max": max, "args": {"command": {"matches": re}}}]}),
        )
    };
    assert_eq!(rule("^git push", j!(0)), vec!["max-calls"]);
    assert!(rule("^npm publish", j!(0)).is_empty());
    // Only for `max`: a required command is the whole string.
    let need = problems(
        &t.calls,
        j!({"required": [{"name": "Bash", "args": {"command": {"matches": "^git push"}}}]}),
    );
    assert_eq!(need, vec!["required-call"]);
}
