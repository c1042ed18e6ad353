//! Whether Jest or Vitest registers a `test(…)` / `it(…)` call: when its
//! file is loaded, a call at the top level, or directly in the callback of
//! a `describe(…)` at the top level (or in another such callback), runs
//! and registers the test. A call under `if (…)`, in a loop, after `&&`,
//! or in any other function body runs only if that code does: vcc cannot
//! tell, and refuses it.
//!
//! Read on the masked code of `defs.rs` (comments, strings, regex literals
//! blanked; brackets in them cannot miscount).

/// Callees whose callback's body is a place tests register from.
const DESCRIBE: &[&str] = &[
    "describe",
    "context",
    "suite",
    "fdescribe",
    "describe.only",
    "describe.concurrent",
    "describe.sequential",
    "describe.shuffle",
    "context.only",
];

/// A declaration of a name the runner provides.
const SHADOWED: &str =
    r"\b(?:function\s*\*?|class|const|let|var|as)\s+(?:test|it|describe|context|suite|specify)\b";

/// Words before a parenthesis that make it a condition or a loop head.
const CONTROL: &[&str] = &["if", "while", "for", "with", "switch", "catch"];

/// An open bracket: the byte and, for `(`, the callee right before it;
/// for `{`, whether it opens a function body (after `=>` or `)`).
struct Frame {
    open: u8,
    callee: String,
    body: bool,
}

/// `Ok` when the call starting at `at` (the callee's first byte) is
/// registered when the file loads.
pub fn registered(code: &str, at: usize) -> Result<(), String> {
    // A file that declares its own `test`, `it` or `describe` (`function
    // test() {}`, `const describe = …`, `import { x as it }`) calls that,
    // not the runner's: nothing in it is known to register.
    // Declarations only at the top level (`for (const it of xs)` in a test
    // body is a loop variable, not the runner's `it`); an import's `as`
    // sits in braces.
    if let Ok(re) = vcc_plugin_common::regex(SHADOWED, false)
        && let Some(m) = re
            .find_iter(code)
            .find(|m| m.as_str().starts_with("as") || depth(code, m.start()) == 0)
    {
        return Err(format!(
            "the file declares its own `{}`: its calls may register nothing with the runner",
            m.as_str().split_whitespace().last().unwrap_or("test")
        ));
    }
    let b = code.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    for (k, &c) in b.iter().enumerate().take(at) {
        match c {
            b'(' | b'[' => stack.push(Frame {
                open: c,
                callee: callee_before(code, k),
                body: false,
            }),
            b'{' => {
                let before = code[..k].trim_end();
                stack.push(Frame {
                    open: c,
                    callee: String::new(),
                    body: before.ends_with("=>") || before.ends_with(')'),
                })
            }
            b')' | b']' | b'}' => {
                stack.pop();
            }
            _ => {}
        }
    }
    // Frames pair up: `describe(` then the `{` of its callback's body.
    let nested = stack.chunks(2).all(|pair| match pair {
        [call, body] => {
            call.open == b'('
                && DESCRIBE.contains(&call.callee.as_str())
                && body.open == b'{'
                && body.body
        }
        _ => false,
    });
    if !nested {
        return Err(
            "the call is inside a block, a function or an expression that is not the top level or a `describe` callback: vcc cannot tell that the runner registers it"
                .into(),
        );
    }
    statement_start(code, at)
}

/// The callee before the `(` at `open`: `describe`, `describe.only`, `if`
/// (empty when it is no name, e.g. `f(x)(`).
fn callee_before(code: &str, open: usize) -> String {
    let before = code[..open].trim_end();
    let start = before
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.'))
        .map_or(0, |p| p + 1);
    before[start..]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// The call must start a statement: at the file's start or after `;`,
/// `{`, `}` or a call's `)`, never after an operator, `else`, or the head
/// of `if (…)`, `while (…)`, `for (…)`.
fn statement_start(code: &str, at: usize) -> Result<(), String> {
    let before = code[..at].trim_end();
    let refuse = |what: &str| {
        Err(format!(
            "the call follows {what}: it runs only when that code decides, so vcc cannot tell that the runner registers it"
        ))
    };
    let Some(last) = before.chars().last() else {
        return Ok(());
    };
    match last {
        ';' | '{' | '}' => Ok(()),
        ')' => {
            let Some(open) = matching_open(before.as_bytes(), before.len() - 1) else {
                return refuse("an unbalanced `)`");
            };
            let word = callee_before(code, open);
            if CONTROL.contains(&word.as_str()) {
                refuse(&format!("`{word} (…)`"))
            } else {
                Ok(())
            }
        }
        c if c.is_ascii_alphanumeric() || c == '_' || c == '$' => {
            refuse(&format!("`{}`", callee_before(code, before.len())))
        }
        c => refuse(&format!("`{c}`")),
    }
}

/// How many brackets are open at `at`.
fn depth(code: &str, at: usize) -> usize {
    code.as_bytes()[..at].iter().fold(0usize, |d, c| match c {
        b'(' | b'[' | b'{' => d + 1,
        b')' | b']' | b'}' => d.saturating_sub(1),
        _ => d,
    })
}

/// The `(` matching the `)` at `close`.
fn matching_open(b: &[u8], close: usize) -> Option<usize> {
    let mut depth = 0;
    for k in (0..=close).rev() {
        match b[k] {
            b')' | b']' | b'}' => depth += 1,
            b'(' | b'[' | b'{' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}
