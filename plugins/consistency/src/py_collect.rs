//! Python tests as pytest collects *and runs* them. A test a trace matrix
//! names counts only if a plain `pytest` run would collect it and run it;
//! `py_defs.rs` decides that the name is bound, this module everything
//! else, and refuses (naming the file, the line and why) a test that:
//! - sits in a file pytest does not collect: its name matches no
//!   `python_files` pattern, a folder on its way is a `norecursedirs` one
//!   or a virtualenv, it is outside `testpaths`, or a `conftest.py` above
//!   it lists it (or a folder of it) in `collect_ignore` /
//!   `collect_ignore_glob` (see `py_config.rs` for the configuration);
//! - is marked to be skipped or to be allowed to fail: `pytest.mark.skip`,
//!   `skipif`, `xfail` (even with `run=True`: an xfail test may fail and
//!   the run still passes), `unittest.skip*`, `expectedFailure` — on the
//!   function, its class, a base class, or the module (`pytestmark`);
//! - is decorated by anything but a mark or `mock.patch` (pytest collects
//!   what the decorator returns, which vcc cannot tell), or is
//!   parametrised by values vcc cannot count (an empty list skips it);
//! - is in a class pytest does not collect: `__test__ = False`, a
//!   constructor inherited from a base in the file, or a base vcc cannot
//!   read (`dict`, an imported class: it may have a constructor);
//! - may be skipped or never reached at run time: `skip`, `importorskip`,
//!   `SkipTest`, `skipTest`, `exit`, `_exit` in its own body, in fixtures
//!   and helpers of its file, in its classes, in module-level code, in a
//!   `conftest.py` or a package `__init__.py` above it; a `conftest.py`
//!   above it naming a hook (`pytest_…`, defined or imported) or
//!   `pytest_plugins` (or a test module naming a hook such as
//!   `pytest_generate_tests`); `from x import *` in any of them.
//!
//! Reading is on masked code (comments and strings blanked, `defs.rs`):
//! a word in a string or comment changes nothing.

use std::collections::BTreeSet;

use vcc_plugin_common::regex;
use vcc_sdk::{MOUNT, relative};

use crate::defs::{Lang, mask};
use crate::py_around;
use crate::py_config::{self, CONFIG_FILES, Config, Found};
use crate::py_defs::logical_lines;

/// What pytest reads around a test file: the configuration files and
/// `conftest.py`/`__init__.py` of the folders above it, and the folders
/// that are virtualenvs. Paths relative to the root.
#[derive(Default)]
pub struct Context {
    pub configs: Vec<Found>,
    /// (folder, text) of each `conftest.py` above the file.
    pub conftests: Vec<(String, String)>,
    /// (folder, text) of each `__init__.py` above the file.
    pub inits: Vec<(String, String)>,
    pub venvs: Vec<String>,
}

/// The context of the file at the guest path `path`. A file that exists
/// but cannot be read is refused.
pub fn gather(path: &str) -> Result<Context, String> {
    let rel = relative(path);
    let mut ctx = Context::default();
    let mut dir = String::new();
    let folders: Vec<&str> = rel.split('/').collect();
    for k in 0..folders.len() {
        if k > 0 {
            if !dir.is_empty() {
                dir.push('/');
            }
            dir.push_str(folders[k - 1]);
        }
        let at = |name: &str| {
            if dir.is_empty() {
                format!("{MOUNT}/{name}")
            } else {
                format!("{MOUNT}/{dir}/{name}")
            }
        };
        let read = |name: &str| -> Result<Option<String>, String> {
            let full = at(name);
            if vcc_sdk::stat(&full).is_err() {
                return Ok(None);
            }
            vcc_sdk::read_to_string(&full)
                .map(Some)
                .map_err(|e| format!("{}: {e}: pytest reads it, vcc cannot", relative(&full)))
        };
        for name in CONFIG_FILES {
            if let Some(text) = read(name)? {
                let s = py_config::settings(name, &text)
                    .map_err(|e| format!("{}: {e}", relative(&at(name))))?;
                if let Some(s) = s {
                    ctx.configs.push((dir.clone(), name.to_string(), s));
                }
            }
        }
        if let Some(text) = read("conftest.py")? {
            ctx.conftests.push((dir.clone(), text));
        }
        if k > 0
            && let Some(text) = read("__init__.py")?
        {
            ctx.inits.push((dir.clone(), text));
        }
        // pytest's `_in_venv` also takes a folder holding
        // `conda-meta/history` for an environment it does not enter.
        if vcc_sdk::stat(&at("pyvenv.cfg")).is_ok()
            || vcc_sdk::stat(&at("conda-meta/history")).is_ok()
        {
            ctx.venvs.push(dir.clone());
        }
    }
    Ok(ctx)
}

/// Words that skip a test, let it fail, or end the run before it — and
/// dynamic code that could do so unseen (`getattr(pytest, "sk" + "ip")`,
/// `eval`, `importlib`): where they are code (not strings or comments)
/// around a test, vcc cannot tell the test runs.
const SKIPPING: &str = r"\b(skip|skipif|skipIf|skipUnless|skipTest|SkipTest|Skipped|xfail|XFailed|importorskip|expectedFailure|__unittest_skip__|__unittest_expecting_failure__|__test__|exit|_exit|_pytest|outcomes|pytest_plugins|getattr|setattr|eval|exec|compile|globals|__import__|importlib|__dict__|__builtins__|__getattr__|__getattribute__|vars|locals|SystemExit|global)\b";

/// Bases a test class may have without vcc reading them.
const KNOWN_BASES: &[&str] = &[
    "object",
    "TestCase",
    "unittest.TestCase",
    "IsolatedAsyncioTestCase",
    "unittest.IsolatedAsyncioTestCase",
];

/// Whether the file at `rel` (relative to the root) is collected, and
/// the test `segments` names in it (already resolved by `py_defs`) runs.
pub fn runs(
    ctx: &Context,
    config: &Config,
    rel: &str,
    code: &str,
    segments: &[&str],
) -> Result<(), String> {
    config.collects_file(rel)?;
    // pytest never collects inside `__pycache__`, whatever the settings.
    if rel.split('/').rev().skip(1).any(|d| d == "__pycache__") {
        return Err("in a `__pycache__` folder, which pytest never looks into".into());
    }
    crate::not_run::python(code).map_err(|e| format!("{rel} {e}"))?;
    config
        .unregistered_mark(code)
        .map_err(|e| format!("{rel} {e}"))?;
    if let Some(v) = ctx
        .venvs
        .iter()
        .find(|v| v.is_empty() || rel.starts_with(&format!("{v}/")))
    {
        return Err(format!(
            "the file is in a virtualenv or conda environment (`{v}/pyvenv.cfg` or `{v}/conda-meta/history`), which pytest does not look into"
        ));
    }
    for (dir, text) in &ctx.conftests {
        py_around::conftest(dir, text, rel)?;
    }
    for (dir, text) in &ctx.inits {
        let shown = format!("{}__init__.py", prefix(dir));
        scan(&shown, text_lines(&mask(Lang::Python, text).code)?.iter())?;
    }
    let lines = text_lines(code)?;
    let module = block(&lines, 0, lines.len());
    test_in_module(config, rel, &lines, &module, segments)
}

pub(crate) fn prefix(dir: &str) -> String {
    if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    }
}

pub(crate) type Line = (u32, usize, String);

pub(crate) fn text_lines(code: &str) -> Result<Vec<Line>, String> {
    logical_lines(code).map_err(|e| format!("the file does not parse ({e})"))
}

/// Refuse the first line holding a word of `SKIPPING`, or a hook.
pub(crate) fn scan<'a>(shown: &str, lines: impl Iterator<Item = &'a Line>) -> Result<(), String> {
    scan_with(shown, SKIPPING, lines)
}

/// `scan` with the words of `pattern`.
fn scan_with<'a>(
    shown: &str,
    pattern: &str,
    lines: impl Iterator<Item = &'a Line>,
) -> Result<(), String> {
    let (Ok(words), Ok(hook)) = (regex(pattern, false), regex(r"\b(pytest_\w+)\b", false)) else {
        return Err("internal: a pattern does not compile".into());
    };
    for (at, _, text) in lines {
        // `from x import *` binds names vcc does not see: a fixture, a
        // hook, `pytestmark`, or the test's own name.
        if text.starts_with("from ") && text.trim_end().ends_with("import *") {
            return Err(format!(
                "{shown} line {at} imports `*`, which may bind a fixture, a hook, `pytestmark` or the test's name: vcc cannot tell the test runs"
            ));
        }
        // `re.compile`, `df.eval`: a method of that name is not the
        // builtin that runs code.
        let builtin_only = ["compile", "eval", "exec"];
        if let Some(m) = words.find_iter(text).find(|m| {
            !(builtin_only.contains(&m.as_str()) && text[..m.start()].trim_end().ends_with('.'))
        }) {
            return Err(format!(
                "{shown} line {at} holds `{}`, which may skip the test, let it fail, keep pytest from collecting it, or end the run before it: vcc cannot tell the test runs",
                m.as_str()
            ));
        }
        // A hook in a conftest, or one pytest calls in a test module
        // (`pytest_generate_tests` may parametrise the test with nothing).
        if let Some(c) = hook.captures(text)
            && let Some(m) = c.get(1)
        {
            return Err(format!(
                "{shown} line {at} names `{}`, a hook or plugin list, which may deselect, skip or rewrite tests: vcc does not evaluate pytest hooks and plugins",
                m.as_str()
            ));
        }
    }
    Ok(())
}

/// The end (after the closing bracket) of the bracket opened at `open`.
pub(crate) fn close_of(b: &[u8], open: usize) -> usize {
    let mut depth = 0;
    for (k, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return k + 1;
                }
            }
            _ => {}
        }
    }
    b.len()
}

/// A `def` or `class` with its decorators, and the lines it spans.
#[derive(Debug)]
struct Item {
    name: String,
    class: bool,
    /// Index of its `def`/`class` line.
    head: usize,
    decorators: Vec<usize>,
    /// Lines `[from, to)`, decorators included.
    span: (usize, usize),
    members: Vec<Item>,
}

/// The items and the other statements (line indices) of the block
/// `lines[from..to]`, whose first line sets its indentation.
struct Block {
    items: Vec<Item>,
}

fn block(lines: &[Line], from: usize, to: usize) -> Block {
    let mut items = Vec::new();
    let Some(base) = lines.get(from).map(|l| l.1) else {
        return Block { items };
    };
    let mut pending: Vec<usize> = Vec::new();
    let mut i = from;
    while i < to {
        let (_, indent, text) = &lines[i];
        // The end of what this line opens: the next line at or left of it.
        let mut end = i + 1;
        while end < to && lines[end].1 > base {
            end += 1;
        }
        if *indent != base {
            i = end;
            continue;
        }
        if text.starts_with('@') {
            pending.push(i);
            i += 1;
            continue;
        }
        let words: Vec<&str> = text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        let def = match (words.first(), words.get(1), words.get(2)) {
            (Some(&"def"), Some(n), _) | (Some(&"async"), Some(&"def"), Some(n)) => {
                Some((n.to_string(), false))
            }
            (Some(&"class"), Some(n), _) => Some((n.to_string(), true)),
            _ => None,
        };
        if let Some((name, class)) = def {
            let members = if class && i + 1 < end {
                block(lines, i + 1, end).items
            } else {
                Vec::new()
            };
            let first = pending.first().copied().unwrap_or(i);
            items.push(Item {
                name,
                class,
                head: i,
                decorators: std::mem::take(&mut pending),
                span: (first, end),
                members,
            });
        } else {
            pending.clear();
        }
        i = end;
    }
    Block { items }
}

/// The test `segments` names, in the module read as `module`.
fn test_in_module(
    config: &Config,
    rel: &str,
    lines: &[Line],
    module: &Block,
    segments: &[&str],
) -> Result<(), String> {
    let find = |name: &str| module.items.iter().rev().find(|i| i.name == name);
    // The class and the method (or neither) the name resolves to; a bare
    // method name: every class that has it (each must run it).
    let pairs: Vec<(Option<&Item>, Option<&Item>)> = match segments {
        [one] => match find(one) {
            Some(i) if !i.class => vec![(None, Some(i))],
            Some(c) => vec![(Some(c), None)],
            None => module
                .items
                .iter()
                .filter(|c| c.class)
                .filter_map(|c| method(c, one).map(|m| (Some(c), Some(m))))
                .collect(),
        },
        [c, m] => {
            let c = find(c);
            vec![(c, c.and_then(|c| method(c, m)))]
        }
        _ => Vec::new(),
    };
    for (class, target) in pairs {
        one_test(config, rel, lines, module, class, target)?;
    }
    Ok(())
}

/// Whether the decorators of another test only mark it (a skip or xfail
/// mark there concerns that test alone); a `@pytest.fixture(autouse=…)`
/// or any other decorator may act on this one.
fn inert(lines: &[Line], item: &Item) -> bool {
    item.decorators.iter().all(|&d| {
        let text = lines[d].2.trim_start_matches('@');
        let head = text.split('(').next().unwrap_or_default();
        let name: String = head.chars().filter(|c| !c.is_whitespace()).collect();
        let last = name.rsplit('.').next().unwrap_or_default();
        ((name.starts_with("pytest.mark.") || name.starts_with("mark.")) && !last.starts_with('_'))
            || [
                "unittest.skip",
                "unittest.skipIf",
                "unittest.skipUnless",
                "unittest.expectedFailure",
            ]
            .contains(&name.as_str())
    })
}

/// The last method (or member) `m` of class `c`.
fn method<'a>(c: &'a Item, m: &str) -> Option<&'a Item> {
    c.members.iter().rev().find(|i| i.name == m)
}

/// How much of a line is read: all of `SKIPPING`; only what acts at
/// import (`AT_IMPORT`: the decorators, signature and class body of
/// another test); nothing (another test's body).
#[derive(Clone, Copy, PartialEq)]
enum Read {
    All,
    AtImport,
    Nothing,
}

/// Words that act on the whole module when the file is imported: ending
/// the run, dynamic code, hooks.
const AT_IMPORT: &str = r"\b(exit|_exit|_pytest|outcomes|pytest_plugins|getattr|setattr|eval|exec|compile|globals|__import__|importlib|__dict__|__builtins__|__getattr__|__getattribute__|vars|locals|SystemExit|global)\b";

fn one_test(
    config: &Config,
    rel: &str,
    lines: &[Line],
    module: &Block,
    class: Option<&Item>,
    target: Option<&Item>,
) -> Result<(), String> {
    let names = &config.names;
    let is_unittest = |c: &Item| {
        lines[c.head]
            .2
            .split(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
            .any(|w| w == "TestCase" || w == "IsolatedAsyncioTestCase")
    };
    let test_class = |c: &Item| c.class && (is_unittest(c) || names.class(&c.name));
    // Classes whose body counts: the class and its bases, checked.
    let mut chain: Vec<&Item> = Vec::new();
    if let Some(c) = class {
        bases(rel, lines, module, c, &mut chain)?;
    }
    for c in &chain {
        decorators(rel, lines, c)?;
    }
    if let Some(t) = target {
        decorators(rel, lines, t)?;
        // pytest runs no `async def` test itself (pytest 9 fails it,
        // older ones skip it); a plugin may, and vcc does not read which
        // is installed. unittest's IsolatedAsyncioTestCase runs its own.
        if lines[t.head].2.starts_with("async ") && !class.is_some_and(is_unittest) {
            return Err(format!(
                "{rel} line {}: an `async def` test, which pytest runs only through a plugin (pytest-asyncio, anyio…): vcc cannot tell one is installed and configured",
                lines[t.head].0
            ));
        }
        if let Some((at, _, _)) = lines[t.head..t.span.1].iter().find(|(_, _, text)| {
            text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == "yield")
        }) {
            return Err(format!(
                "{rel} line {at}: the test yields: pytest does not run a generator as a test"
            ));
        }
    }
    // A name used anywhere but its own definition (a decorator, a base,
    // a call) is no mere other test: read all of it.
    let used_elsewhere = |name: &str| {
        lines
            .iter()
            .flat_map(|(_, _, t)| t.split(|c: char| !(c.is_alphanumeric() || c == '_')))
            .filter(|w| *w == name)
            .count()
            > 1
    };
    // Everything counts but other tests: their bodies do not run with
    // this one, and of them only what acts at import is read.
    let chain_names: BTreeSet<&str> = chain.iter().map(|c| c.name.as_str()).collect();
    let mut read = vec![Read::All; lines.len()];
    let mut set = |from: usize, to: usize, r: Read| read[from..to].iter_mut().for_each(|x| *x = r);
    let other_fn = |f: &Item| {
        !f.class && names.function(&f.name) && !used_elsewhere(&f.name) && inert(lines, f)
    };
    for item in &module.items {
        let ours = |f: &Item| target.is_some_and(|t| std::ptr::eq(t, f));
        if item.class {
            let in_chain = chain_names.contains(item.name.as_str());
            if !in_chain && test_class(item) && !used_elsewhere(&item.name) && inert(lines, item) {
                set(item.span.0, item.span.1, Read::AtImport);
            }
            if !in_chain && !test_class(item) {
                continue;
            }
            for m in &item.members {
                // Citing a class whole: all of its tests must run.
                if (!in_chain || target.is_some()) && !ours(m) && other_fn(m) {
                    set(m.span.0, m.span.1, Read::AtImport);
                    set(m.head + 1, m.span.1, Read::Nothing);
                }
            }
        } else if !ours(item) && other_fn(item) {
            set(item.span.0, item.span.1, Read::AtImport);
            set(item.head + 1, item.span.1, Read::Nothing);
        }
    }
    let all: Vec<bool> = read.iter().map(|r| *r != Read::All).collect();
    pytestmarks(rel, lines, &all)?;
    scan(
        rel,
        lines
            .iter()
            .zip(&read)
            .filter(|(_, r)| **r == Read::All)
            .map(|(l, _)| l),
    )?;
    scan_with(
        rel,
        AT_IMPORT,
        lines
            .iter()
            .zip(&read)
            .filter(|(_, r)| **r == Read::AtImport)
            .map(|(l, _)| l),
    )
}

/// The class `c` and the bases it inherits from in the file, into
/// `chain`; a base vcc cannot read, or a constructor, is refused.
fn bases<'a>(
    rel: &str,
    lines: &[Line],
    module: &'a Block,
    c: &'a Item,
    chain: &mut Vec<&'a Item>,
) -> Result<(), String> {
    if chain.iter().any(|k| std::ptr::eq(*k, c)) {
        return Ok(());
    }
    chain.push(c);
    let (at, _, head) = &lines[c.head];
    if chain.len() > 1
        && let Some(m) = c
            .members
            .iter()
            .find(|m| m.name == "__init__" || m.name == "__new__")
    {
        return Err(format!(
            "{rel} line {}: the test class inherits `{}` from `{}`: pytest does not collect a class with a constructor",
            lines[m.head].0, m.name, c.name
        ));
    }
    let Some(open) = head.find('(') else {
        return Ok(());
    };
    let args = &head[open + 1..head.rfind(')').unwrap_or(head.len())];
    for base in split_top(args) {
        let base: String = base.chars().filter(|c| !c.is_whitespace()).collect();
        if base.is_empty() || KNOWN_BASES.contains(&base.as_str()) {
            continue;
        }
        // The base as bound when the class statement runs: the last
        // class of that name before it, not rebound in between.
        let found = module
            .items
            .iter()
            .rev()
            .find(|i| i.name == base && i.head < c.head)
            .filter(|b| b.class);
        let rebound = |b: &Item| {
            lines[b.span.1..c.head].iter().any(|(_, indent, t)| {
                *indent == 0
                    && t.split(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
                        .any(|w| w == base)
            })
        };
        match found {
            Some(b) if !rebound(b) => bases(rel, lines, module, b, chain)?,
            _ => {
                return Err(format!(
                    "{rel} line {at}: `{}` derives from `{base}`, which vcc cannot read (a class of the file, `object` or `unittest.TestCase`): it may have a constructor, marks or `__test__`, and pytest would not run the test",
                    c.name
                ));
            }
        }
    }
    Ok(())
}

/// Arguments split on the commas outside brackets.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut last = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[last..i]);
                last = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[last..]);
    out.into_iter().filter(|a| !a.trim().is_empty()).collect()
}

/// The decorators of a test function or class: marks (not skip, skipif,
/// xfail) and `mock.patch` return the test; anything else vcc cannot
/// tell.
fn decorators(rel: &str, lines: &[Line], item: &Item) -> Result<(), String> {
    for &d in &item.decorators {
        let (at, _, text) = &lines[d];
        let text = text.trim_start_matches('@').trim();
        let (head, args) = match text.find('(') {
            Some(p) => (&text[..p], Some(&text[p..])),
            None => (text, None),
        };
        let name: String = head.chars().filter(|c| !c.is_whitespace()).collect();
        let last = name.rsplit('.').next().unwrap_or_default();
        // A mark is `pytest.mark.name` with a plain name: a dunder
        // (`pytest.mark.__getattr__("skip")`) makes any mark.
        let mark = (name.starts_with("pytest.mark.") || name.starts_with("mark."))
            && !last.starts_with('_');
        let why = match last {
            "skip" | "skipif" | "skipIf" | "skipUnless" => {
                Some("pytest collects the test and skips it, never runs it")
            }
            "xfail" | "expectedFailure" => {
                Some("an expected failure may fail, or never run, and the run still passes")
            }
            "parametrize" if mark => match args.map(parameters) {
                Some(Ok(())) => None,
                Some(Err(why)) => return Err(format!("{rel} line {at}: `@{name}`: {why}")),
                None => Some("a `parametrize` without arguments"),
            },
            _ if mark && name.matches('.').count() == name.starts_with("pytest.") as usize + 1 => {
                None
            }
            _ if ["patch", "mock.patch", "unittest.mock.patch"]
                .iter()
                .any(|p| {
                    name == *p
                        || name
                            .strip_prefix(p)
                            .is_some_and(|r| [".object", ".dict", ".multiple"].contains(&r))
                }) =>
            {
                None
            }
            _ => Some(
                "pytest collects what the decorator returns, and vcc cannot tell it returns the test (only marks and `mock.patch` are read)",
            ),
        };
        if let Some(why) = why {
            return Err(format!(
                "{rel} line {at}: `@{name}` on `{}`: {why}",
                item.name
            ));
        }
    }
    Ok(())
}

/// The arguments of `parametrize(…)`: the values must be a literal list
/// or tuple with at least one element (an empty set skips the test).
fn parameters(args: &str) -> Result<(), String> {
    let inner = args
        .trim()
        .strip_prefix('(')
        .and_then(|a| a.strip_suffix(')'))
        .unwrap_or_default();
    let all = split_top(inner);
    let values = all
        .iter()
        .find_map(|a| {
            a.trim()
                .strip_prefix("argvalues")
                .and_then(|r| r.trim().strip_prefix('='))
        })
        .or_else(|| all.iter().filter(|a| !is_keyword(a)).nth(1).copied())
        .map(str::trim)
        .unwrap_or_default();
    let body = values
        .strip_prefix('[')
        .and_then(|v| v.strip_suffix(']'))
        .or_else(|| values.strip_prefix('(').and_then(|v| v.strip_suffix(')')));
    let words = |s: &str| {
        s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == "for")
    };
    match body {
        Some(b) if !b.trim().is_empty() && !b.contains('*') && !words(b) => Ok(()),
        _ => Err(
            "its values are not a literal list vcc can count (an empty parameter set skips the test)"
                .into(),
        ),
    }
}

fn is_keyword(arg: &str) -> bool {
    let a = arg.trim();
    let name_end = a
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(a.len());
    name_end > 0
        && a[name_end..].trim_start().starts_with('=')
        && !a[name_end..].trim_start().starts_with("==")
}

/// `pytestmark = …` in the lines that count: only marks vcc reads
/// (skip and xfail ones are refused by `scan`).
fn pytestmarks(rel: &str, lines: &[Line], skip: &[bool]) -> Result<(), String> {
    let Ok(mark) = regex(r"^(?:pytest\s*\.\s*)?mark\s*\.\s*[A-Za-z]\w*", false) else {
        return Err("internal: a pattern does not compile".into());
    };
    for ((at, _, text), _) in lines.iter().zip(skip).filter(|(_, s)| !**s) {
        if !text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == "pytestmark")
        {
            continue;
        }
        let refuse = || {
            Err(format!(
                "{rel} line {at}: `pytestmark` set to something vcc cannot read (only `pytestmark = pytest.mark.x` or a list of marks)"
            ))
        };
        let Some(value) = text
            .strip_prefix("pytestmark")
            .and_then(|r| r.trim_start().strip_prefix('='))
        else {
            return refuse();
        };
        let mut rest = value.trim();
        loop {
            rest = rest.trim_start_matches(|c: char| c.is_whitespace() || "[](),".contains(c));
            if rest.is_empty() {
                break;
            }
            let Some(m) = mark.find(rest) else {
                return refuse();
            };
            rest = &rest[m.end()..];
            if rest.trim_start().starts_with('(') {
                let t = rest.trim_start();
                let end = close_of(t.as_bytes(), 0);
                rest = &t[end..];
            }
        }
    }
    Ok(())
}
