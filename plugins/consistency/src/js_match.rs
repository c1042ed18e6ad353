//! Whether Jest or Vitest would run a JavaScript/TypeScript file as a test
//! file. Defaults: Jest's `testMatch` (`**/__tests__/**/*.[jt]s?(x)`,
//! `**/?(*.)+(spec|test).[jt]s?(x)`), Vitest's `include`
//! (`**/*.{test,spec}.?(c|m)[jt]s?(x)`); both skip `node_modules`, and
//! Vitest `dist` and `cypress` (vcc also refuses hidden folders).
//!
//! The nearest folder above the file holding a runner's configuration
//! (`jest.config.*`, `vitest.config.*`, `vite.config.*`, `package.json`
//! with a `"jest"` key) decides which runner: the file must match that
//! runner's patterns, or both runners' when neither or both are
//! configured (the strictest common reading). A configuration's
//! `testMatch` / `include` is read when it is a plain array of string
//! literals; any other form, or a key that moves the tests (`testRegex`,
//! `roots`, `projects`, `testPathIgnorePatterns`, `rootDir`, `exclude`,
//! `dir`, `root`, `workspace`), code or a runner chosen out of sight
//! (`setupFiles`, `setupFilesAfterEnv`, `globalSetup`, `preset`,
//! `modulePathIgnorePatterns`, `testRunner`, `runner`, `testNamePattern`)
//! or a `vitest.workspace.*` / `vitest.projects.*` file, is refused: vcc
//! does not decide it.

use vcc_plugin_common::regex;

use crate::discovery::{Fs, dir_of};

const JEST: &[&str] = &[
    "**/__tests__/**/*.[jt]s?(x)",
    "**/?(*.)+(spec|test).[jt]s?(x)",
];
const VITEST: &[&str] = &["**/*.{test,spec}.?(c|m)[jt]s?(x)"];
const SKIPPED: &[&str] = &["node_modules", "dist", "cypress"];
const UNDECIDED: &[&str] = &[
    "testRegex",
    "roots",
    "projects",
    "testPathIgnorePatterns",
    "rootDir",
    "exclude",
    "dir",
    "root",
    "workspace",
    // Code run before the tests (it may redefine `test`), a preset (its
    // own testMatch), a replaced runner, a name filter, and Jest's
    // module-path ignore (its haste map drops the files) decide what
    // runs out of vcc's sight.
    "setupFiles",
    "setupFilesAfterEnv",
    "globalSetup",
    "preset",
    "modulePathIgnorePatterns",
    "testRunner",
    "runner",
    "testNamePattern",
];
/// Files beside a Vitest configuration that choose its projects.
const WORKSPACE_FILES: &[&str] = &["vitest.workspace.", "vitest.projects."];

/// One runner's configuration: where it is, and its test patterns.
struct Runner {
    name: &'static str,
    dir: String,
    patterns: Vec<String>,
}

/// `Ok` when the runner (or runners) configured for `full` run it.
pub fn matched(full: &str, fs: &dyn Fs) -> Result<(), String> {
    let rel = full.trim_start_matches('/');
    // The cited file is among the deliverables (the entry resolved in
    // it): read its describe callbacks.
    if fs.exists(full)
        && let Some(code) = crate::defs::masked_code(crate::defs::Lang::Js, &fs.read(full)?)
    {
        crate::not_run::js(&code).map_err(|e| format!("{} {e}", vcc_sdk::relative(full)))?;
    }
    if let Some(d) = rel
        .split('/')
        .rev()
        .skip(1)
        .find(|d| SKIPPED.contains(d) || d.starts_with('.'))
    {
        return Err(format!(
            "in the folder `{d}`, which Jest and Vitest do not search for tests"
        ));
    }
    let mut runners = configured(full, fs)?;
    if runners.is_empty() {
        runners = vec![
            Runner {
                name: "Jest's default testMatch",
                dir: String::new(),
                patterns: JEST.iter().map(|p| p.to_string()).collect(),
            },
            Runner {
                name: "Vitest's default include",
                dir: String::new(),
                patterns: VITEST.iter().map(|p| p.to_string()).collect(),
            },
        ];
    }
    for r in &runners {
        let under = if r.dir.is_empty() {
            rel
        } else {
            full.strip_prefix(&format!("{}/", r.dir)).unwrap_or(rel)
        };
        let mut any = false;
        for p in &r.patterns {
            let p = p.trim_start_matches("<rootDir>/").trim_start_matches("./");
            let Some(re) = glob_regex(p) else {
                return Err(format!(
                    "{} has the pattern `{p}`, which vcc does not read",
                    r.name
                ));
            };
            any |= regex(&re, false).is_ok_and(|re| re.is_match(under));
        }
        if !any {
            return Err(format!(
                "not a test file: it matches none of {} ({})",
                r.name,
                r.patterns.join(", ")
            ));
        }
    }
    Ok(())
}

/// The runners configured in the nearest folder above `full` that
/// configures one.
fn configured(full: &str, fs: &dyn Fs) -> Result<Vec<Runner>, String> {
    let mut dir = dir_of(full);
    loop {
        let mut found = Vec::new();
        let prefix = format!("{}/", dir);
        for f in fs.files() {
            let Some(name) = f.strip_prefix(&prefix).filter(|n| !n.contains('/')) else {
                continue;
            };
            if WORKSPACE_FILES.iter().any(|w| name.starts_with(w)) {
                return Err(format!(
                    "{} chooses the projects Vitest runs, which vcc does not evaluate: it cannot tell whether Vitest runs this file",
                    vcc_sdk::relative(f)
                ));
            }
            let (runner, key, defaults) = if name.starts_with("jest.config.") {
                ("Jest", "testMatch", JEST)
            } else if name.starts_with("vitest.config.") || name.starts_with("vite.config.") {
                ("Vitest", "include", VITEST)
            } else if name == "package.json" {
                let text = fs.read(f)?;
                if !text.contains("\"jest\"") {
                    continue;
                }
                ("Jest", "testMatch", JEST)
            } else {
                continue;
            };
            let text = fs.read(f)?;
            let shown = vcc_sdk::relative(f);
            if let Some(k) = UNDECIDED.iter().find(|k| has_key(&text, k)) {
                return Err(format!(
                    "{shown} sets `{k}`, which vcc does not decide: it cannot tell whether {runner} runs this file"
                ));
            }
            let patterns = if has_key(&text, key) {
                string_array(&text, key).ok_or_else(|| {
                    format!("{shown} sets `{key}` in a form vcc does not read (only an array of plain strings)")
                })?
            } else {
                defaults.iter().map(|p| p.to_string()).collect()
            };
            found.push(Runner {
                name: if key == "testMatch" {
                    "the testMatch of Jest's configuration"
                } else {
                    "the include of Vitest's configuration"
                },
                dir: dir.to_string(),
                patterns,
            });
        }
        if !found.is_empty() {
            return Ok(found);
        }
        match dir.rsplit_once('/') {
            Some((d, _)) if !d.is_empty() => dir = d,
            _ => return Ok(Vec::new()),
        }
    }
}

/// Whether `key` appears as an object key (`key:`, `"key":`).
fn has_key(text: &str, key: &str) -> bool {
    regex(
        &format!(r#"(?:^|[^A-Za-z0-9_$])['"]?{key}['"]?\s*:"#),
        false,
    )
    .is_ok_and(|re| re.is_match(text))
}

/// `key: ['a', "b"]` → `[a, b]`; `None` for any other value.
fn string_array(text: &str, key: &str) -> Option<Vec<String>> {
    let re = regex(
        &format!(r#"(?:^|[^A-Za-z0-9_$])['"]?{key}['"]?\s*:\s*\["#),
        false,
    )
    .ok()?;
    let m = re.find(text)?;
    let mut rest = &text[m.end()..];
    let mut out = Vec::new();
    loop {
        rest = rest.trim_start();
        if rest.starts_with(']') {
            return Some(out);
        }
        let q = rest.chars().next()?;
        if !matches!(q, '\'' | '"' | '`') {
            return None;
        }
        let end = rest[1..].find(q)?;
        let s = &rest[1..1 + end];
        if s.contains('\\') || s.contains("${") {
            return None;
        }
        out.push(s.to_string());
        rest = rest[end + 2..].trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest);
    }
}

/// A micromatch glob as an anchored regex: `**/`, `*`, `?`, `[…]`,
/// `{a,b}`, and the extglobs `?(…)`, `+(…)`, `*(…)`, `@(…)`. `None` for
/// what vcc does not read (`!(…)`, an unclosed group).
pub fn glob_regex(glob: &str) -> Option<String> {
    let c: Vec<char> = glob.chars().collect();
    let mut out = String::from("^");
    // Open groups: the quantifier an extglob closes with, or `,` for a
    // brace group.
    let mut stack: Vec<char> = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        match c[i] {
            '*' if next == Some('*') => {
                if c.get(i + 2) == Some(&'/') {
                    out.push_str("(?:[^/]*/)*");
                    i += 3;
                } else {
                    out.push_str(".*");
                    i += 2;
                }
                continue;
            }
            q @ ('?' | '+' | '*' | '@') if next == Some('(') => {
                stack.push(q);
                out.push_str("(?:");
                i += 2;
                continue;
            }
            '!' if next == Some('(') => return None,
            '*' => out.push_str("[^/]*"),
            '?' => out.push_str("[^/]"),
            '[' => {
                let end = c[i..].iter().position(|&x| x == ']')? + i;
                let class: String = c[i + 1..end].iter().collect();
                out.push('[');
                out.push_str(&class.replace('\\', "\\\\").replacen('!', "^", 1));
                out.push(']');
                i = end + 1;
                continue;
            }
            '{' => {
                stack.push(',');
                out.push_str("(?:");
            }
            ',' if stack.last() == Some(&',') => out.push('|'),
            '}' if stack.last() == Some(&',') => {
                stack.pop();
                out.push(')');
            }
            '|' if stack.last().is_some_and(|&s| s != ',') => out.push('|'),
            ')' if stack.last().is_some_and(|&s| s != ',') => {
                let q = stack.pop()?;
                out.push(')');
                match q {
                    '?' | '+' | '*' => out.push(q),
                    _ => {}
                }
            }
            ch => {
                if "\\.+*?()|[]{}^$#&-~".contains(ch) {
                    out.push('\\');
                }
                out.push(ch);
            }
        }
        i += 1;
    }
    if !stack.is_empty() {
        return None;
    }
    out.push('$');
    Some(out)
}
