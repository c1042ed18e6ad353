//! `std/tool-calls`: an agent transcript contains the required tool calls
//! (by name, with optional argument conditions, counts and order) and none
//! of the forbidden ones.
//!
//! A transcript is read in one of the formats agents write, and the
//! evidence says which one was recognised:
//!
//! - Claude Code JSONL: one event per line, calls are `tool_use` blocks in
//!   `message.content` of `assistant` events, and a subagent's calls in
//!   the `progress` events that carry its turns
//!   (`data.message.message.content`);
//! - OpenAI Chat Completions: `messages` (or a response's `choices`), calls
//!   in `tool_calls[].function` (and the older `function_call`);
//! - OpenAI Responses: items (a response's `input` and `output`) of type
//!   `function_call`, `custom_tool_call`, `mcp_call` and every other
//!   `*_call` item, a built-in tool's (`web_search_call` is the tool
//!   `web_search`; `local_shell_call` and `shell_call` are `shell`, their
//!   argv or commands at `command`, as are Codex's `shell_command` and
//!   `exec_command` (its `cmd`); `apply_patch_call` is `apply_patch`);
//! - Anthropic Messages: `messages` (or one response), calls are
//!   `tool_use`, `server_tool_use` and `mcp_tool_use` content blocks;
//! - a generic list of `{name, arguments}` (or `tool`/`tool_name`, and
//!   `args`/`input`/`parameters`), as an array or under `calls`/`tool_calls`.
//!
//! Anything else is not judged: an unrecognised document is an error that
//! names these formats, and a transcript with no call at all is `skip`
//! unless the contract says `allow_empty: true`. A call in any of these
//! shapes counts wherever it appears, so a forbidden call cannot hide in a
//! second format inside the same file. String arguments holding JSON are
//! parsed. An argument that is an argv (Codex's `shell` records
//! `{"command": ["bash", "-lc", "git push --force"]}`) matches a rule as
//! the array or as its strings joined by spaces; for `max` it also
//! matches if any one of its strings does, or any command one of them
//! chains (`cd /w && git push`), read from its command word as bash reads
//! it (shell.rs: `{ git push; }`, `if …; then git push; fi`, `! git
//! push`, `sudo git push`, `bash -c 'git push'`), so `max: 0` forbids a
//! command wherever it hides in the argv.

mod shell;

use std::collections::BTreeMap;

use vcc_plugin_common::bounded::{self, Findings};
use vcc_plugin_common::{
    CompiledRule, Rule, allow_empty_schema, json, nothing, parse_params, select, short,
};
use vcc_sdk::serde::{Deserialize, Deserializer};
use vcc_sdk::serde_json::{self, Map, Value, json as j};
use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator, invalid_params, relative};

pub struct ToolCalls;

/// The formats this validator reads, for messages.
const FORMATS: &str = "Claude Code JSONL, Codex rollout JSONL, Cursor agent transcripts, Gemini CLI sessions, OpenAI Chat Completions, OpenAI Responses, Anthropic Messages, or a generic list of {name, arguments}";

#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde", deny_unknown_fields)]
struct Params {
    #[serde(default)]
    required: Vec<Required>,
    #[serde(default)]
    forbidden: Vec<String>,
    #[serde(default)]
    order: Vec<String>,
    #[serde(default)]
    allow_empty: bool,
}

#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde", untagged)]
enum Required {
    Name(String),
    Spec {
        name: String,
        #[serde(default = "one")]
        min: usize,
        max: Option<usize>,
        #[serde(default)]
        args: BTreeMap<String, Condition>,
    },
}

fn one() -> usize {
    1
}

/// An argument condition: an object is a rule (never a value to equal, so
/// a misspelt operator is an error); anything else is a value to equal.
struct Condition(Rule);

impl<'de> Deserialize<'de> for Condition {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(de)?;
        if value.is_object() {
            serde_json::from_value(value)
                .map(Condition)
                .map_err(vcc_sdk::serde::de::Error::custom)
        } else {
            Ok(Condition(Rule::equal_to(value)))
        }
    }
}

/// A required call with its argument rules compiled.
struct Want {
    name: String,
    min: usize,
    max: Option<usize>,
    args: Vec<(String, CompiledRule)>,
}

/// The params ready to check, or each problem with its JSON pointer.
fn compile(params: &Params) -> Result<Vec<Want>, Vec<Finding>> {
    let mut wants = Vec::new();
    let mut problems = Vec::new();
    for (i, req) in params.required.iter().enumerate() {
        let (name, min, max, args) = match req {
            Required::Name(n) => (n.clone(), 1, None, None),
            Required::Spec {
                name,
                min,
                max,
                args,
            } => (name.clone(), *min, *max, Some(args)),
        };
        if let Some(max) = max
            && max < min
        {
            problems.push(
                Finding::new(format!("max ({max}) is below min ({min})"))
                    .param(&format!("/required/{i}/max")),
            );
        }
        let mut compiled = Vec::new();
        for (path, Condition(rule)) in args.into_iter().flatten() {
            let at = format!(
                "/required/{i}/args/{}",
                path.replace('~', "~0").replace('/', "~1")
            );
            if let Err(e) = select(&Value::Null, path) {
                problems.push(Finding::new(e).param(&at));
            }
            match rule.compile() {
                Ok(rule) => compiled.push((path.clone(), rule)),
                Err(e) => problems.push(Finding::new(e).param(&format!("{at}/matches"))),
            }
        }
        wants.push(Want {
            name,
            min,
            max,
            args: compiled,
        });
    }
    if problems.is_empty() {
        Ok(wants)
    } else {
        Err(problems)
    }
}

/// One tool call found in a transcript.
#[derive(Debug, Clone, PartialEq)]
struct Call {
    name: String,
    args: Value,
    line: Option<u32>,
}

/// The formats an item can be in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Format {
    ClaudeCode,
    Codex,
    Cursor,
    Gemini,
    OpenAiChat,
    OpenAiResponses,
    Anthropic,
    /// Chat messages without a call: OpenAI and Anthropic look alike.
    Chat,
    Generic,
}

impl Format {
    fn name(self) -> &'static str {
        match self {
            Format::ClaudeCode => "Claude Code JSONL",
            Format::Codex => "Codex rollout JSONL",
            Format::Cursor => "Cursor agent transcript JSONL",
            Format::Gemini => "Gemini CLI session",
            Format::OpenAiChat => "OpenAI Chat Completions",
            Format::OpenAiResponses => "OpenAI Responses",
            Format::Anthropic => "Anthropic Messages",
            Format::Chat => "chat messages (OpenAI Chat Completions or Anthropic Messages)",
            Format::Generic => "generic {name, arguments} list",
        }
    }
}

/// What one transcript holds.
struct Transcript {
    format: String,
    calls: Vec<Call>,
    /// Items that are in no format this validator reads (ignored).
    ignored: usize,
}

impl Validator for ToolCalls {
    fn describe() -> Description {
        let rule = Rule::schema_properties();
        Description::new(
            "std/tool-calls",
            env!("CARGO_PKG_VERSION"),
            "an agent transcript (Claude Code, OpenAI, Anthropic, generic) has the required tool calls and no forbidden ones",
        )
        .params_schema(j!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "required": {
                    "type": "array",
                    "description": "tools that must be called: a name, or {name, min, max, args}",
                    "items": {
                        "oneOf": [
                            { "type": "string", "minLength": 1 },
                            {
                                "type": "object", "additionalProperties": false, "required": ["name"],
                                "properties": {
                                    "name": { "type": "string", "minLength": 1 },
                                    "min": { "type": "integer", "minimum": 0, "default": 1 },
                                    "max": { "type": "integer", "minimum": 0 },
                                    "args": {
                                        "type": "object",
                                        "description": "argument path → a value to equal (not an object), or a rule {expect, equals, matches, gte, lte, gt, lt, one_of}",
                                        "additionalProperties": {
                                            "oneOf": [
                                                { "type": ["string", "number", "boolean", "null", "array"] },
                                                { "type": "object", "additionalProperties": false, "properties": rule }
                                            ]
                                        }
                                    }
                                }
                            }
                        ]
                    }
                },
                "forbidden": { "type": "array", "items": { "type": "string", "minLength": 1 }, "description": "tools that must not be called" },
                "order": { "type": "array", "items": { "type": "string", "minLength": 1 }, "description": "tools whose first calls must come in this order" },
                "allow_empty": allow_empty_schema("no tool call in the transcripts")
            },
            "anyOf": [{ "required": ["required"] }, { "required": ["forbidden"] }, { "required": ["order"] }]
        }))
    }

    fn check_params(params: &str) -> Result<(), Vec<Finding>> {
        let params: Params = parse_params(params)?;
        compile(&params).map(|_| ())
    }

    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params: Params = criterion.params()?;
        let wants = compile(&params).map_err(|problems| {
            let words: Vec<String> = problems.iter().map(|f| f.message.clone()).collect();
            invalid_params(words.join("; "))
        })?;
        let paths: Vec<&str> = criterion.paths().collect();
        if paths.is_empty() {
            return Ok(nothing(params.allow_empty, "no transcript"));
        }
        let mut findings = Findings::default();
        let mut summary = Vec::new();
        let mut total = 0;
        for path in &paths {
            let text = vcc_sdk::read_to_string(path)?;
            let transcript = read(&text).map_err(|why| {
                format!("{}: {why}; std/tool-calls reads {FORMATS}", relative(path))
            })?;
            total += transcript.calls.len();
            for p in check(&transcript.calls, &wants, &params) {
                let mut f = Finding::new(p.message).path(path).rule(p.rule);
                if let Some(line) = p.line {
                    f = f.line(line);
                }
                findings.push(f);
            }
            let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
            for c in &transcript.calls {
                *counts.entry(&c.name).or_default() += 1;
            }
            summary.push(j!({
                "file": relative(path),
                "format": transcript.format,
                "calls": transcript.calls.len(),
                "by_tool": counts,
                "ignored_items": transcript.ignored,
            }));
        }
        let evidence = bounded::evidence(j!({}), &summary);
        if total == 0 {
            let outcome = nothing(params.allow_empty, "no tool call in the transcript(s)");
            return Ok(outcome.evidence("tool-calls.json", "application/json", evidence));
        }
        let outcome = if findings.is_empty() {
            Outcome::pass(format!(
                "{} transcript(s), {total} call(s), meet every tool-call rule",
                paths.len()
            ))
        } else {
            Outcome::fail(format!("{} tool-call problem(s)", findings.len()))
                .findings(findings.into_vec())
        };
        Ok(outcome.evidence("tool-calls.json", "application/json", evidence))
    }
}

struct Problem {
    message: String,
    line: Option<u32>,
    rule: &'static str,
}

fn check(calls: &[Call], wants: &[Want], params: &Params) -> Vec<Problem> {
    let mut problems = Vec::new();
    for want in wants {
        let name = want.name.as_str();
        let matching: Vec<&Call> = calls
            .iter()
            .filter(|c| c.name == name)
            .filter(|c| args_hold(&c.args, &want.args, Argv::Joined).is_ok())
            .collect();
        // A limit counts every call any reading of its argv could match.
        let counted: Vec<&Call> = calls
            .iter()
            .filter(|c| c.name == name)
            .filter(|c| args_hold(&c.args, &want.args, Argv::AnyString).is_ok())
            .collect();
        let with = if want.args.is_empty() {
            String::new()
        } else {
            let rules: Vec<String> = want
                .args
                .iter()
                .map(|(k, r)| format!("{k} {}", r.describe()))
                .collect();
            format!(" with {}", rules.join(", "))
        };
        if matching.len() < want.min {
            // Say why the calls that exist did not count.
            let (reason, line) = calls
                .iter()
                .filter(|c| c.name == name)
                .find_map(|c| {
                    args_hold(&c.args, &want.args, Argv::Joined)
                        .err()
                        .map(|e| (format!(" (the call with {}: {e})", short(&c.args)), c.line))
                })
                .unwrap_or_default();
            problems.push(Problem {
                message: format!(
                    "`{name}`{with} was called {} time(s); at least {} required{reason}",
                    matching.len(),
                    want.min
                ),
                line,
                rule: "required-call",
            });
        }
        if let Some(max) = want.max
            && counted.len() > max
        {
            // Each call past the limit, with what it was called with.
            for c in &counted[max..] {
                problems.push(Problem {
                    message: format!(
                        "`{name}`{with} was called {} time(s); at most {max} allowed: this call has {}",
                        counted.len(),
                        short(&c.args)
                    ),
                    line: c.line,
                    rule: "max-calls",
                });
            }
        }
    }
    for name in &params.forbidden {
        for c in calls.iter().filter(|c| &c.name == name) {
            problems.push(Problem {
                message: format!("forbidden tool `{name}` was called with {}", short(&c.args)),
                line: c.line,
                rule: "forbidden-call",
            });
        }
    }
    let firsts: Vec<(usize, &str)> = params
        .order
        .iter()
        .filter_map(|n| {
            calls
                .iter()
                .position(|c| &c.name == n)
                .map(|i| (i, n.as_str()))
        })
        .collect();
    for name in params
        .order
        .iter()
        .filter(|n| !calls.iter().any(|c| &c.name == *n))
    {
        problems.push(Problem {
            message: format!("`{name}` is in the required order but was never called"),
            line: None,
            rule: "order",
        });
    }
    for pair in firsts.windows(2) {
        if pair[1].0 < pair[0].0 {
            problems.push(Problem {
                message: format!(
                    "`{}` was first called before `{}`; the required order puts it after",
                    pair[1].1, pair[0].1
                ),
                line: calls[pair[1].0].line,
                rule: "order",
            });
        }
    }
    problems
}

/// How an argument that is an argv (an array of strings, as Codex's
/// `shell` records `["bash", "-lc", "git push --force"]`) is matched.
#[derive(Clone, Copy)]
enum Argv {
    /// As the array, or as its strings joined by spaces: what the call ran
    /// (for `min`: a required call must be the command asked for).
    Joined,
    /// Also as any one of its strings (for `max`, so `max: 0` forbids a
    /// command wherever in the argv it hides).
    AnyString,
}

fn args_hold(
    args: &Value,
    conditions: &[(String, CompiledRule)],
    argv: Argv,
) -> Result<(), String> {
    for (path, rule) in conditions {
        // Paths were checked by `compile`.
        let found = select(args, path).unwrap_or_default();
        let result = if found.is_empty() {
            rule.check(None)
        } else {
            found
                .iter()
                .try_for_each(|(_, v)| check_value(rule, v, argv))
        };
        result.map_err(|e| format!("argument `{path}` {e}"))?;
    }
    Ok(())
}

/// A rule on one argument value, an argv read as `argv` says.
fn check_value(rule: &CompiledRule, value: &Value, argv: Argv) -> Result<(), String> {
    let direct = rule.check(Some(value));
    // A shell string (Claude Code's `Bash` command) for `max`: also each
    // command it chains, as for an argv's strings below.
    if let Some(text) = value.as_str() {
        // A command bash only knows when it runs (`$cmd push`, `git $(…)`)
        // may be the one `max` forbids: it counts (shell::cannot_tell).
        let chained = matches!(argv, Argv::AnyString)
            && (shell::cannot_tell(text)
                || shell::commands(text)
                    .into_iter()
                    .any(|c| rule.check(Some(&Value::from(c))).is_ok()));
        return if chained { Ok(()) } else { direct };
    }
    let Some(strings) = value.as_array().and_then(|a| {
        a.iter()
            .map(Value::as_str)
            .collect::<Option<Vec<&str>>>()
            .filter(|s| !s.is_empty())
    }) else {
        return direct;
    };
    if direct.is_ok() || rule.check(Some(&Value::from(strings.join(" ")))).is_ok() {
        return Ok(());
    }
    if matches!(argv, Argv::AnyString)
        && strings.iter().any(|s| {
            shell::cannot_tell(s)
                || std::iter::once(s.to_string())
                    .chain(shell::commands(s))
                    .any(|s| rule.check(Some(&Value::from(s))).is_ok())
        })
    {
        return Ok(());
    }
    direct
}

/// Read a transcript: its items (with the line each starts on), then the
/// calls in them. `Err` when the text is in no format this validator reads.
fn read(text: &str) -> Result<Transcript, String> {
    let items = items(text)?;
    let mut formats: BTreeMap<Format, usize> = BTreeMap::new();
    let mut calls = Vec::new();
    let mut ignored = 0;
    for (item, line) in &items {
        match classify(item, *line) {
            Some((format, found)) => {
                *formats.entry(format).or_default() += 1;
                calls.extend(found);
            }
            None => ignored += 1,
        }
    }
    if !items.is_empty() && formats.is_empty() {
        return Err(format!(
            "not a transcript: none of its {} item(s) is in a format this validator reads",
            items.len()
        ));
    }
    // Calls decide between the chat formats; messages alone cannot.
    let specific: Vec<Format> = formats
        .keys()
        .copied()
        .filter(|f| !(*f == Format::Chat && formats.len() > 1))
        .collect();
    let format = match specific.as_slice() {
        [] => "empty (no item)".to_string(),
        [one] => one.name().to_string(),
        several => format!(
            "mixed: {}",
            several
                .iter()
                .map(|f| f.name())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Ok(Transcript {
        format,
        calls,
        ignored,
    })
}

/// The items of a transcript document, each with its line.
fn items(text: &str) -> Result<Vec<(Value, Option<u32>)>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    // One JSON document, whatever the file is called: a session attached
    // as `.vcc/transcript.jsonl` may be a harness's JSON document (Gemini
    // CLI's). Several lines of JSON never parse as one document.
    if let Ok(doc) = json::parse(text) {
        let at = |pointer: &str| doc.position(pointer).map(|p| p.0);
        let list = |key: &str| -> Vec<(Value, Option<u32>)> {
            doc.value
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
                .map(|(i, v)| (v.clone(), at(&format!("/{key}/{i}"))))
                .collect()
        };
        return match &doc.value {
            Value::Array(all) => Ok(all
                .iter()
                .enumerate()
                .map(|(i, v)| (v.clone(), at(&format!("/{i}"))))
                .collect()),
            Value::Object(map) => {
                let has = |k: &str| map.get(k).is_some_and(Value::is_array);
                if has("messages") {
                    Ok(list("messages"))
                } else if has("choices") {
                    // A Chat Completions response: each choice's message.
                    Ok(list("choices")
                        .into_iter()
                        .filter_map(|(c, line)| c.get("message").cloned().map(|m| (m, line)))
                        .collect())
                } else if has("output") || has("input") {
                    // A Responses request or response: input, then output.
                    let mut all = list("input");
                    all.extend(list("output"));
                    Ok(all)
                } else if let Some(key) = ["calls", "tool_calls", "events"]
                    .into_iter()
                    .find(|k| has(k))
                {
                    Ok(list(key))
                } else if classify(&doc.value, Some(1)).is_some() {
                    // One message, one event or one call.
                    Ok(vec![(doc.value.clone(), Some(1))])
                } else {
                    Err("a JSON object with no messages, choices, output, calls or events".into())
                }
            }
            _ => Err("JSON that is neither an array nor an object".into()),
        };
    }
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let event: Value = serde_json::from_str(line)
            .map_err(|e| format!("line {} is not JSON ({e}), so it cannot be read", n + 1))?;
        out.push((event, Some(n as u32 + 1)));
    }
    Ok(out)
}

/// The format one item is in and the calls it holds; `None` when it is in
/// no format this validator reads.
fn classify(item: &Value, line: Option<u32>) -> Option<(Format, Vec<Call>)> {
    let obj = item.as_object()?;
    let text = |key: &str| obj.get(key).and_then(Value::as_str);
    let call = |name: &str, args: Option<&Value>| Call {
        name: name.to_string(),
        args: parse_args(args.cloned().unwrap_or(Value::Null)),
        line,
    };
    // Claude Code: every line carries a session and a uuid, and
    // conversation turns carry the API message.
    let claude = obj.contains_key("sessionId")
        || obj.contains_key("leafUuid")
        || (obj.contains_key("uuid") && obj.contains_key("type"));
    if claude {
        let mut calls = obj
            .get("message")
            .map(|m| blocks(m.get("content"), line))
            .unwrap_or_default();
        // A subagent's turns arrive in the parent session as `progress`
        // events, the subagent's event in `data.message` (its API message
        // in `data.message.message`).
        if let Some(inner) = obj.get("data").and_then(|d| d.get("message")) {
            calls.extend(blocks(inner.get("content"), line));
            if let Some(api) = inner.get("message") {
                calls.extend(blocks(api.get("content"), line));
            }
        }
        return Some((Format::ClaudeCode, calls));
    }
    // Codex: every rollout line is `{timestamp, type, payload}`; the calls
    // are Responses items in `response_item` payloads. Its `event_msg`
    // events (exec_command_begin…) are in no call shape, so a call is not
    // counted twice; a call-shaped payload counts wherever it is.
    if let (Some(kind), Some(payload)) = (text("type"), obj.get("payload"))
        && matches!(
            kind,
            "session_meta" | "response_item" | "compacted" | "turn_context" | "event_msg"
        )
    {
        let mut calls = classify(payload, line).map(|(_, c)| c).unwrap_or_default();
        // Codex's `shell_command` tool (`{"command": "git push"}`, the
        // shell of current models) and unified exec's `exec_command`
        // (`{"cmd": …}`) run a shell string: both are the tool `shell`,
        // the string at `command`, so one rule on `shell` sees them.
        for call in &mut calls {
            if matches!(call.name.as_str(), "shell_command" | "exec_command") {
                call.name = "shell".into();
                if let Some(args) = call.args.as_object_mut()
                    && !args.contains_key("command")
                    && let Some(cmd) = args.remove("cmd")
                {
                    args.insert("command".into(), cmd);
                }
            }
        }
        return Some((Format::Codex, calls));
    }
    // Gemini CLI: a session's messages are `{id, timestamp, type: user |
    // gemini | info | error | warning, content}`, with `toolCalls` of
    // `{name, args}` on the model's.
    if obj.contains_key("id")
        && obj.contains_key("timestamp")
        && matches!(
            text("type"),
            Some("user" | "gemini" | "info" | "error" | "warning")
        )
    {
        let calls = obj
            .get("toolCalls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|c| Some(call(c.get("name")?.as_str()?, c.get("args"))))
            .collect();
        return Some((Format::Gemini, calls));
    }
    // Cursor: `{role, message: {content: [...]}}` lines, with Anthropic
    // content blocks (tool_use) in the message.
    if text("role").is_some()
        && let Some(message) = obj.get("message").filter(|m| m.is_object())
    {
        return Some((Format::Cursor, blocks(message.get("content"), line)));
    }
    if let Some(kind) = text("type") {
        match kind {
            "function_call" | "mcp_call" => {
                let name = text("name")?;
                return Some((
                    Format::OpenAiResponses,
                    vec![call(name, obj.get("arguments"))],
                ));
            }
            "custom_tool_call" => {
                let name = text("name")?;
                return Some((Format::OpenAiResponses, vec![call(name, obj.get("input"))]));
            }
            // Every other `*_call` item is a built-in tool's call, the
            // tool of that name (`web_search_call` is `web_search`), so a
            // tool the list below does not know yet still counts.
            kind if kind.ends_with("_call") => {
                let (name, args) = builtin(kind, obj);
                return Some((Format::OpenAiResponses, vec![call(name, Some(&args))]));
            }
            "function_call_output"
            | "custom_tool_call_output"
            | "computer_call_output"
            | "local_shell_call_output"
            | "reasoning"
            | "mcp_list_tools"
            | "mcp_approval_request"
            | "mcp_approval_response" => {
                return Some((Format::OpenAiResponses, Vec::new()));
            }
            // A Responses message has input_text/output_text parts; an
            // Anthropic response is a message with content blocks.
            "message" => {
                let parts = obj.get("content").and_then(Value::as_array);
                let responses = parts.is_some_and(|p| {
                    p.iter().any(|b| {
                        matches!(
                            b.get("type").and_then(Value::as_str),
                            Some("input_text" | "output_text" | "refusal")
                        )
                    })
                });
                if responses {
                    return Some((Format::OpenAiResponses, Vec::new()));
                }
                if parts.is_some() {
                    return Some((Format::Anthropic, blocks(obj.get("content"), line)));
                }
            }
            _ => {}
        }
    }
    if text("role").is_some() {
        if let Some(list) = obj.get("tool_calls").and_then(Value::as_array) {
            let calls = list
                .iter()
                .filter_map(|c| {
                    let f = c.get("function")?;
                    Some(call(f.get("name")?.as_str()?, f.get("arguments")))
                })
                .collect();
            return Some((Format::OpenAiChat, calls));
        }
        if let Some(f) = obj.get("function_call").filter(|f| f.is_object()) {
            let name = f.get("name").and_then(Value::as_str)?;
            return Some((Format::OpenAiChat, vec![call(name, f.get("arguments"))]));
        }
        let calls = blocks(obj.get("content"), line);
        if !calls.is_empty() {
            return Some((Format::Anthropic, calls));
        }
        return Some((Format::Chat, Vec::new()));
    }
    // A generic call names its tool and its arguments: an object that
    // only has a `name` is not taken for a call.
    let name = text("name")
        .or_else(|| text("tool"))
        .or_else(|| text("tool_name"));
    let args = ["arguments", "args", "input", "parameters"]
        .iter()
        .find_map(|k| obj.get(*k));
    if let (Some(name), Some(args)) = (name, args) {
        return Some((Format::Generic, vec![call(name, Some(args))]));
    }
    None
}

/// The tool a built-in `*_call` item is a call of, and its arguments: the
/// item but its `type`, `id` and `status`. Codex runs a `local_shell_call`
/// (argv at `action.command`) as its shell tool, and a Responses
/// `shell_call` (`action.commands`) is the same shell: both are the tool
/// `shell`, with the argv or the commands lifted to `command`, as Codex's
/// `shell` function records it, so one rule on `shell` sees every shell
/// call. `apply_patch_call` is `apply_patch`, as Codex's custom tool is.
fn builtin<'a>(kind: &'a str, obj: &Map<String, Value>) -> (&'a str, Value) {
    let mut args = obj
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "type" | "id" | "status"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect::<Map<_, _>>();
    let action = obj.get("action");
    let command = match kind {
        "local_shell_call" => action.and_then(|a| a.get("command")),
        "shell_call" => action.and_then(|a| a.get("commands")),
        _ => None,
    };
    let name = match kind {
        "local_shell_call" | "shell_call" => "shell",
        other => other.trim_end_matches("_call"),
    };
    if let Some(command) = command {
        args.insert("command".into(), command.clone());
    }
    (name, Value::Object(args))
}

/// Calls among Anthropic-style content blocks.
fn blocks(content: Option<&Value>, line: Option<u32>) -> Vec<Call> {
    content
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|b| {
            matches!(
                b.get("type").and_then(Value::as_str),
                Some("tool_use" | "server_tool_use" | "mcp_tool_use")
            )
        })
        .filter_map(|b| {
            Some(Call {
                name: b.get("name")?.as_str()?.to_string(),
                args: parse_args(b.get("input").cloned().unwrap_or(Value::Null)),
                line,
            })
        })
        .collect()
}

/// Arguments given as a JSON string are parsed.
fn parse_args(args: Value) -> Value {
    match args {
        Value::String(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
        other => other,
    }
}

vcc_sdk::export_validator!(ToolCalls);

#[cfg(test)]
mod tests {
    use super::*;

    mod builtin;

    const CLAUDE: &str = r#"{"type":"summary","summary":"Fix tests","leafUuid":"u0"}
{"parentUuid":null,"isSidechain":false,"sessionId":"s1","type":"user","uuid":"u1","message":{"role":"user","content":"run the tests"}}
{"parentUuid":"u1","sessionId":"s1","type":"assistant","uuid":"u2","message":{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cargo test"}}]}}
{"parentUuid":"u2","sessionId":"s1","type":"user","uuid":"u3","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}
"#;

    fn params(v: Value) -> Params {
        serde_json::from_value(v).unwrap()
    }

    fn problems(calls: &[Call], v: Value) -> Vec<&'static str> {
        let p = params(v);
        let wants = compile(&p).ok().unwrap();
        check(calls, &wants, &p).iter().map(|p| p.rule).collect()
    }

    #[test]
    fn claude_code_calls_are_in_message_content() {
        let t = read(CLAUDE).unwrap();
        assert_eq!(t.format, "Claude Code JSONL");
        assert_eq!(t.calls.len(), 1);
        assert_eq!(t.calls[0].name, "Bash");
        assert_eq!(t.calls[0].line, Some(3));
        assert_eq!(
            problems(&t.calls, j!({"forbidden": ["Bash"]})),
            vec!["forbidden-call"]
        );
    }

    #[test]
    fn codex_cursor_and_gemini_transcripts() {
        let codex = r#"{"timestamp":"2026-11-20T10:00:00.000Z","type":"session_meta","payload":{"id":"s1","cwd":"/w","cli_version":"0.80.0"}}
{"timestamp":"2026-11-20T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"run the tests"}]}}
{"timestamp":"2026-11-20T10:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"cargo test\"]}","call_id":"c1"}}
{"timestamp":"2026-11-20T10:00:02.100Z","type":"event_msg","payload":{"type":"exec_command_begin","call_id":"c1","command":["bash","-lc","cargo test"]}}
{"timestamp":"2026-11-20T10:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"ok"}}
"#;
        let t = read(codex).unwrap();
        assert_eq!(t.format, "Codex rollout JSONL");
        assert_eq!(
            t.calls.len(),
            1,
            "the event repeats the call, it is not a second one"
        );
        assert_eq!(
            (t.calls[0].name.as_str(), t.calls[0].line),
            ("shell", Some(3))
        );
        assert_eq!(t.calls[0].args["command"][2], "cargo test");

        let cursor = r#"{"role":"user","message":{"content":[{"type":"text","text":"fix it"}]}}
{"role":"assistant","message":{"content":[{"type":"text","text":"ok"},{"type":"tool_use","name":"Shell","input":{"command":"npm test"}}]}}
"#;
        let t = read(cursor).unwrap();
        assert_eq!(t.format, "Cursor agent transcript JSONL");
        assert_eq!(
            (t.calls[0].name.as_str(), t.calls[0].line),
            ("Shell", Some(2))
        );

        let gemini = r#"{"sessionId":"g1","projectHash":"h","startTime":"2026-11-20T10:00:00.000Z","lastUpdated":"2026-11-20T10:01:00.000Z","messages":[
 {"id":"m1","timestamp":"2026-11-20T10:00:00.000Z","type":"user","content":"run the tests"},
 {"id":"m2","timestamp":"2026-11-20T10:00:05.000Z","type":"gemini","content":"","toolCalls":[{"id":"t1","name":"run_shell_command","args":{"command":"go test ./..."},"status":"success","timestamp":"2026-11-20T10:00:06.000Z"}]}]}"#;
        let t = read(gemini).unwrap();
        assert_eq!(t.format, "Gemini CLI session");
        assert_eq!(t.calls[0].name, "run_shell_command");
        assert_eq!(t.calls[0].line, Some(3));
        assert_eq!(t.calls[0].args["command"], "go test ./...");
        // Attached as `.vcc/transcript.jsonl`, on one line or several, it
        // is still the document.
        let one_line = gemini.replace('\n', "");
        assert_eq!(read(&one_line).unwrap().calls.len(), 1);
    }

    #[test]
    fn openai_chat_responses_and_anthropic() {
        let chat = r#"{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "1", "type": "function", "function": {"name": "search", "arguments": "{\"query\": \"x\", \"limit\": 5}"}}]}]}"#;
        let t = read(chat).unwrap();
        assert_eq!(t.format, "OpenAI Chat Completions");
        assert_eq!(t.calls[0].args["limit"], 5, "string arguments are parsed");
        let responses = r#"{"object": "response", "output": [{"type": "reasoning", "id": "r"}, {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c"}, {"type": "web_search_call", "id": "w", "status": "completed", "action": {"query": "q"}}]}"#;
        let t = read(responses).unwrap();
        assert_eq!(t.format, "OpenAI Responses");
        let names: Vec<&str> = t.calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["shell", "web_search"]);
        let anthropic = r#"{"model": "m", "messages": [{"role": "user", "content": "go"}, {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "bash", "input": {"command": "ls"}}]}]}"#;
        let t = read(anthropic).unwrap();
        assert_eq!(t.format, "Anthropic Messages");
        assert_eq!(t.calls[0].name, "bash");
    }

    #[test]
    fn unknown_documents_are_not_transcripts_and_empty_ones_hold_no_call() {
        assert!(read(r#"{"not": "a transcript"}"#).is_err());
        assert!(read("[1, 2]").is_err());
        assert!(
            read(r#"[{"name": "Alice"}]"#).is_err(),
            "a name alone is no call"
        );
        assert!(read("not json\n").is_err());
        let t = read("[]").unwrap();
        assert!(t.calls.is_empty());
        let t = read(r#"{"messages": [{"role": "user", "content": "hi"}]}"#).unwrap();
        assert!(t.calls.is_empty());
        assert!(t.format.starts_with("chat messages"), "{}", t.format);
    }

    #[test]
    fn generic_lists_and_rules() {
        let generic = r#"[{"name": "plan", "arguments": {"steps": 3}}, {"tool": "search", "args": {"query": "pagination"}}, {"tool_name": "write_report", "input": {}}]"#;
        let t = read(generic).unwrap();
        assert_eq!(t.format, "generic {name, arguments} list");
        let calls = &t.calls;
        assert!(
            problems(
                calls,
                j!({"required": ["plan", "search"], "order": ["plan", "search", "write_report"]})
            )
            .is_empty()
        );
        assert_eq!(
            problems(
                calls,
                j!({"required": [{"name": "search", "args": {"query": {"matches": "^latency"}}}]})
            ),
            vec!["required-call"]
        );
        assert_eq!(
            problems(
                calls,
                j!({"required": [{"name": "search", "max": 0, "min": 0}], "forbidden": ["write_report"]})
            ),
            vec!["max-calls", "forbidden-call"]
        );
        assert_eq!(
            problems(calls, j!({"order": ["search", "plan", "deploy"]})),
            vec!["order", "order"]
        );
    }

    #[test]
    fn params_are_checked_before_any_run() {
        let bad =
            r#"{"required": [{"name": "fetch", "args": {"url": {"matches": "^https://("}}}]}"#;
        let problems = ToolCalls::check_params(bad).unwrap_err();
        assert_eq!(
            problems[0].path.as_deref(),
            Some("/required/0/args/url/matches")
        );
        // An object condition is a rule: a misspelt operator is an error,
        // not a literal object to compare with.
        let typo = r#"{"required": [{"name": "fetch", "args": {"url": {"expect": "missing"}}}]}"#;
        assert!(ToolCalls::check_params(typo).is_err());
        assert!(ToolCalls::check_params(r#"{"forbidden": ["Bash"]}"#).is_ok());
    }

    #[test]
    fn an_argv_matches_as_any_of_its_strings_for_a_limit() {
        // Issue 34: Codex's `shell` with an argv under `max: 0`.
        let codex = r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"git push --force\"]}","call_id":"c1"}}
"#;
        let t = read(codex).unwrap();
        let limit = |re: &str| {
            problems(
                &t.calls,
                j!({"required": [{"name": "shell", "min": 0, "max": 0, "args": {"command": {"matches": re}}}]}),
            )
        };
        assert_eq!(limit("^git push"), vec!["max-calls"], "one of its strings");
        assert_eq!(limit("-lc git push"), vec!["max-calls"], "the joined argv");
        assert!(limit("^npm publish").is_empty());
        // A required call must be the command asked for, joined.
        let need = |re: &str| {
            problems(
                &t.calls,
                j!({"required": [{"name": "shell", "args": {"command": {"matches": re}}}]}),
            )
        };
        assert!(need("^bash -lc git push --force$").is_empty());
        assert_eq!(need("^git push"), vec!["required-call"]);
    }

    #[test]
    fn subagent_calls_in_progress_events_are_read() {
        let progress = r#"{"parentUuid":"u2","isSidechain":false,"sessionId":"s1","type":"progress","uuid":"u3","toolUseID":"t0","data":{"type":"agent_progress","message":{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t9","name":"Bash","input":{"command":"rm -rf build"}}]}}}}
"#;
        let t = read(progress).unwrap();
        assert_eq!(t.format, "Claude Code JSONL");
        assert_eq!(t.calls.len(), 1);
        assert_eq!(t.calls[0].args["command"], "rm -rf build");
        assert_eq!(
            problems(&t.calls, j!({"forbidden": ["Bash"]})),
            vec!["forbidden-call"]
        );
    }
}
