//! Code that keeps a runner from running a test it has collected, read
//! statically (a trace matrix's test column). Where a form may keep the
//! test from running and vcc does not evaluate it, vcc refuses: it cannot
//! tell the test runs.
//!
//! - Go: `t.Skip…` anywhere in the file (a helper may call it); a
//!   `TestMain` that never calls `Run`, or an `os.Exit` other than
//!   `os.Exit(m.Run())` (in `init` it ends the binary before any test);
//!   cgo (`import "C"`), which `go test` refuses in a test file.
//! - Rust: `#![test_runner]` / `custom_test_frameworks` (the harness is
//!   replaced); a `test` name bound by `use … as test`, `use …::test` or
//!   `macro_rules! test` (it shadows the prelude's `#[test]`); a `#[test]`
//!   fn that is `async`, generic or takes arguments (rustc refuses it, and
//!   the crate holding it runs no test).
//! - Python: names Python reads other than as written (a non-ASCII
//!   identifier: Python NFKC-normalises it, so `test_ｓize` rebinds
//!   `test_size`); `match` (a capture pattern binds any name); writes
//!   through `sys.modules`, `__globals__`, `f_globals`/`f_locals`; and
//!   `KeyboardInterrupt`, `SystemExit`, `os.abort`, `os._exit`, `exit`
//!   anywhere in the module (one test ends the whole session).
//! - JavaScript: an `async` `describe` callback (Jest refuses a describe
//!   returning a Promise; tests after an `await` are never registered).

use vcc_plugin_common::regex;

fn find(pattern: &str, code: &str) -> Option<(usize, String)> {
    let re = regex(pattern, false).ok()?;
    re.find(code).map(|m| {
        (
            code[..m.start()].matches('\n').count() + 1,
            m.as_str().trim().to_string(),
        )
    })
}

/// Refuse the first match of `pattern` in `code` with `why`.
fn refuse(pattern: &str, code: &str, why: &str) -> Result<(), String> {
    match regex(pattern, false) {
        Err(e) => Err(format!("internal: {e}")),
        Ok(_) => match find(pattern, code) {
            Some((line, found)) => Err(format!("line {line} holds `{found}`: {why}")),
            None => Ok(()),
        },
    }
}

/// A Go test file (`text` as written, `code` masked).
pub fn go(text: &str, code: &str) -> Result<(), String> {
    refuse(
        r"\.\s*(Skip|SkipNow|Skipf)\s*\(",
        code,
        "a skip `go test` reports as ok without running the test body; vcc cannot tell which test it skips",
    )?;
    // `import "C"` alone or inside an import block; read on the text as
    // written because the masked code blanks the string.
    refuse(
        r#"(?m)^\s*(import\s*)?"C"\s*$|\bimport\s*\(\s*"C"\s*\)"#,
        text,
        "cgo in a test file: `go test` refuses it and runs no test of the package",
    )?;
    if let Some((line, _)) = find(r"\bfunc\s+TestMain\s*\(", code)
        && find(r"\.\s*Run\s*\(\s*\)", code).is_none()
    {
        return Err(format!(
            "line {line}: a `TestMain` that never calls `m.Run()`: `go test` runs no test"
        ));
    }
    let exits = regex(
        r"\b(os\s*\.\s*Exit|runtime\s*\.\s*Goexit|syscall\s*\.\s*Exit)\s*\(",
        false,
    )
    .map_err(|e| format!("internal: {e}"))?;
    let run_exit = regex(
        r"^os\s*\.\s*Exit\s*\(\s*\w+\s*\.\s*Run\s*\(\s*\)\s*\)",
        false,
    )
    .map_err(|e| format!("internal: {e}"))?;
    if let Some(m) = exits
        .find_iter(code)
        .find(|m| !run_exit.is_match(&code[m.start()..]))
    {
        let line = code[..m.start()].matches('\n').count() + 1;
        return Err(format!(
            "line {line} holds `{}`: an exit other than `os.Exit(m.Run())` may end the test binary before the test runs; vcc cannot tell",
            m.as_str().trim_end_matches('(')
        ));
    }
    Ok(())
}

/// A Rust file of the crate (masked code).
pub fn rust(code: &str) -> Result<(), String> {
    refuse(
        r"#!\s*\[\s*(test_runner\b|feature\s*\([^\]]*\bcustom_test_frameworks\b)",
        code,
        "a custom test framework: the harness hands tests to another runner (or the crate does not compile on stable); vcc cannot tell they run",
    )?;
    refuse(
        r"\bas\s+test\s*[;,}]|\buse\s+[\w:]*::test\s*;|\bmacro_rules!\s*test\b|\b(pub\s+)?use\s+[^;]*::\{[^}]*\btest\s*[,}]",
        code,
        "it binds the name `test`, which shadows the prelude's `#[test]` attribute: the fns marked `#[test]` may be no libtest tests",
    )?;
    // Whitespace-free: `#[test]` then `async fn`, or a `fn name<` / a
    // `fn name(arg` right after a bare `#[test]`.
    refuse(
        r"#\s*\[\s*test\s*\]\s*(#\s*\[[^\]]*\]\s*)*(pub(\([^)]*\))?\s*)?(const\s+|unsafe\s+)*(async\s+(unsafe\s+)?fn\b|fn\s+\w+\s*(<|\(\s*[^)\s]))",
        code,
        "a `#[test]` fn that is async, generic or takes arguments: rustc refuses it, so `cargo test` runs no test of the crate",
    )
}

/// A Python test module (masked code).
pub fn python(code: &str) -> Result<(), String> {
    if let Some((k, c)) = code
        .char_indices()
        .find(|(_, c)| !c.is_ascii() && (c.is_alphanumeric() || *c == '_'))
    {
        let line = code[..k].matches('\n').count() + 1;
        return Err(format!(
            "line {line} holds the identifier character `{c}`: Python NFKC-normalises identifiers (`test_ｓize` is `test_size`), which vcc does not; it cannot tell which function a name binds"
        ));
    }
    refuse(
        r"(?m)^[ \t]*match\b[^\n=]*:[ \t]*$",
        code,
        "a `match` statement, whose capture patterns bind names (a test's among them): vcc cannot tell the test runs",
    )?;
    refuse(
        r"\bsys\s*\.\s*modules\b|\b__globals__\b|\bf_globals\b|\bf_locals\b|\bcurrentframe\b|\b_getframe\b",
        code,
        "a write to a module's namespace may rebind the test's name: vcc cannot tell the test runs",
    )?;
    refuse(
        r"\b(KeyboardInterrupt|SystemExit|abort|_exit|exit|quit|kill|killpg)\b",
        code,
        "any test of the module that reaches it ends pytest's session before the other tests run: vcc cannot tell the test runs",
    )
}

/// A JavaScript/TypeScript test file (masked code).
pub fn js(code: &str) -> Result<(), String> {
    refuse(
        r"\b(describe|context|suite)\s*(\.\s*\w+\s*)*\(\s*[^,()]*,\s*async\b",
        code,
        "an `async` describe callback: Jest refuses a describe that returns a Promise and does not register the tests after an `await`",
    )?;
    // An `await` directly in a describe callback's body (not in a nested
    // block or function: a test's own async callback may await).
    let head = regex(
        r"\b(describe|context|suite)\s*(\.\s*\w+\s*)*\(\s*[^,()]*,\s*(function\s*\w*\s*)?\([^)]*\)\s*(=>)?\s*\{",
        false,
    )
    .map_err(|e| format!("internal: {e}"))?;
    let word = regex(r"\bawait\b", false).map_err(|e| format!("internal: {e}"))?;
    for m in head.find_iter(code) {
        let mut depth = 0usize;
        for (k, c) in code[m.end() - 1..].char_indices() {
            match c {
                '{' | '(' | '[' => depth += 1,
                '}' | ')' | ']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                'a' if depth == 1 => {
                    let at = m.end() - 1 + k;
                    if word.find_at(code, at).is_some_and(|w| w.start() == at) {
                        let line = code[..at].matches('\n').count() + 1;
                        return Err(format!(
                            "line {line} holds `await` in a describe callback: the tests after it are never registered"
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}
