//! Python definitions as pytest collects them: the names bound at module
//! level when the module has been imported (a `def` nested in a function,
//! or under `if`, `if __name__ == "__main__":`, `for`, `try`…, is not
//! there; a name later deleted, assigned, imported over or rebound in a
//! block is not the function any more), and the methods a class body
//! binds. Read on the masked code of `defs.rs` (comments and strings
//! blanked); a file whose brackets do not balance, or whose strings do not
//! close, does not parse, and pytest collects an error from it, no test.

use std::collections::BTreeMap;

use vcc_plugin_common::regex;

use crate::py_config::Names;

#[derive(Clone, Debug, PartialEq)]
pub enum Binding {
    Func,
    Class(Class),
    /// Bound to something else (a value, an import, a nested class).
    Other,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Class {
    pub members: BTreeMap<String, Binding>,
    /// `__init__` or `__new__`: pytest does not collect the class.
    pub has_init: bool,
    /// A `unittest.TestCase` subclass (by its bases' names): unittest and
    /// pytest collect it whatever its name.
    pub unittest: bool,
}

#[derive(Debug, PartialEq)]
enum Scope {
    Def,
    /// A class body; its name when the class is bound at module level.
    Class(Option<String>),
    Block,
}

/// The module's bindings at the end of its import.
pub fn read(code: &str) -> Result<BTreeMap<String, Binding>, String> {
    let mut module: BTreeMap<String, Binding> = BTreeMap::new();
    let mut stack: Vec<(usize, Scope)> = Vec::new();
    for (_, indent, line) in logical_lines(code)? {
        while stack.last().is_some_and(|(i, _)| *i >= indent) {
            stack.pop();
        }
        let in_def = stack.iter().any(|(_, s)| *s == Scope::Def);
        let class = match &stack[..] {
            [(_, Scope::Class(name))] => Some(name.clone()),
            _ => None,
        };
        let at_module = !in_def && class.is_none() && stack.iter().all(|(_, s)| *s == Scope::Block);
        let conditional = !stack.is_empty();
        let head = line.trim_start_matches('@');
        let words: Vec<&str> = head
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        let first = words.first().copied().unwrap_or_default();
        let (def, name) = match (first, words.get(1), words.get(2)) {
            ("def", Some(n), _) => (Some(Scope::Def), Some(*n)),
            ("async", Some(&"def"), Some(n)) => (Some(Scope::Def), Some(*n)),
            ("class", Some(n), _) => (Some(Scope::Class(None)), Some(*n)),
            _ => (None, None),
        };
        if line.starts_with('@') {
            continue;
        }
        if let (Some(kind), Some(name)) = (def, name) {
            let is_class = matches!(kind, Scope::Class(_));
            let binding = if is_class {
                // A `TestCase` base, or a class of the module that is one.
                let unittest = words.iter().skip(2).any(|w| {
                    ["TestCase", "IsolatedAsyncioTestCase"].contains(w)
                        || matches!(module.get(*w), Some(Binding::Class(c)) if c.unittest)
                });
                Binding::Class(Class {
                    unittest,
                    ..Class::default()
                })
            } else {
                Binding::Func
            };
            if at_module && !conditional {
                module.insert(name.to_string(), binding);
            } else if at_module {
                // Defined only if a condition holds: not decided here.
                module.insert(name.to_string(), Binding::Other);
            } else if let Some(Some(c)) = &class
                && let Some(Binding::Class(cls)) = module.get_mut(c)
            {
                if name == "__init__" || name == "__new__" {
                    cls.has_init = true;
                }
                let b = if is_class { Binding::Other } else { binding };
                cls.members.insert(name.to_string(), b);
            }
            let scope = match kind {
                Scope::Class(_) if at_module && !conditional => {
                    Scope::Class(Some(name.to_string()))
                }
                k => k,
            };
            stack.push((indent, scope));
            continue;
        }
        // Any other statement: names it binds are rebound.
        let killed = bound_names(&line);
        if at_module {
            for n in killed {
                module.insert(n, Binding::Other);
            }
        } else if let Some(Some(c)) = &class
            && let Some(Binding::Class(cls)) = module.get_mut(c)
        {
            for n in killed {
                cls.members.insert(n, Binding::Other);
            }
        }
        if line.trim_end().ends_with(':') && COMPOUND.contains(&first) {
            stack.push((indent, Scope::Block));
        }
    }
    Ok(module)
}

const COMPOUND: &[&str] = &[
    "if", "elif", "else", "for", "while", "try", "except", "finally", "with", "match", "case",
    "async",
];

/// Names a statement binds: assignment targets (`a = b = …`, `a: T = …`,
/// `a += …`, `(a := …)`), `del` targets, imports, `for` targets and `as`
/// names. Over-reading (a name in a subscript target) only refuses more.
fn bound_names(line: &str) -> Vec<String> {
    let mut targets = String::new();
    let trimmed = line.trim();
    if let Some(rest) = trimmed.strip_prefix("del ") {
        targets.push_str(rest);
    }
    if let Some(rest) = trimmed.strip_prefix("import ") {
        for part in rest.split(',') {
            let part = part.trim();
            match part.split_once(" as ") {
                Some((_, alias)) => targets.push_str(&format!(" {alias}")),
                None => targets.push_str(&format!(" {}", part.split('.').next().unwrap_or(""))),
            }
        }
    }
    if trimmed.starts_with("from ")
        && let Some((_, names)) = trimmed.split_once(" import ")
    {
        for part in names
            .trim_matches(|c| c == '(' || c == ')' || c == ' ')
            .split(',')
        {
            let part = part.trim();
            targets.push_str(&format!(
                " {}",
                part.split_once(" as ").map_or(part, |(_, a)| a)
            ));
        }
    }
    // Top-level `=` that is not a comparison: what precedes it is targets.
    let b = line.as_bytes();
    let mut depth = 0i32;
    let mut last = 0;
    for i in 0..b.len() {
        match b[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'=' if depth == 0 => {
                let prev = if i > 0 { b[i - 1] } else { b' ' };
                let next = b.get(i + 1).copied().unwrap_or(b' ');
                if next != b'=' && !b"=!<>".contains(&prev) {
                    targets.push(' ');
                    targets.push_str(&line[last..i]);
                    last = i + 1;
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    // Walrus targets, `for x in`, `as x`: constant patterns.
    for p in [
        r"([A-Za-z_][A-Za-z0-9_]*)\s*:=",
        r"\bfor\s+(.+?)\s+in\b",
        r"\bas\s+([A-Za-z_][A-Za-z0-9_]*)",
    ] {
        if let Ok(re) = regex(p, false) {
            for c in re.captures_iter(line) {
                if let Some(g) = c.get(1) {
                    targets.push(' ');
                    targets.push_str(g.as_str());
                }
            }
        }
    }
    if let Ok(re) = regex(r"(^|[^.\w])([A-Za-z_][A-Za-z0-9_]*)", false) {
        out.extend(
            re.captures_iter(&targets)
                .filter_map(|c| c.get(2))
                .map(|g| g.as_str().to_string()),
        );
    }
    out
}

/// Logical lines (brackets and `\` join physical lines) with their first
/// physical line's number and indentation in columns; blank lines left out.
pub(crate) fn logical_lines(code: &str) -> Result<Vec<(u32, usize, String)>, String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut current: Option<(u32, usize, String)> = None;
    for (n, line) in code.lines().enumerate() {
        if current.is_none() {
            if line.trim().is_empty() {
                continue;
            }
            let indent = line
                .chars()
                .take_while(|c| c.is_whitespace())
                .fold(
                    0,
                    |col, c| if c == '\t' { col / 8 * 8 + 8 } else { col + 1 },
                );
            current = Some((n as u32 + 1, indent, String::new()));
        }
        for c in line.chars() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                _ => {}
            }
            if depth < 0 {
                return Err(format!(
                    "line {}: a closing bracket that nothing opened",
                    n + 1
                ));
            }
        }
        if let Some((_, _, text)) = current.as_mut() {
            text.push(' ');
            text.push_str(line.trim());
        }
        if depth == 0
            && !line.trim_end().ends_with('\\')
            && let Some((at, indent, text)) = current.take()
        {
            out.push((at, indent, text.trim().to_string()));
        }
    }
    if depth != 0 {
        return Err("a bracket never closed".into());
    }
    out.extend(current);
    Ok(out)
}

/// Whether `name` (`f`, `C`, `C::m`; a pytest parameter suffix already
/// dropped) resolves in the module; `test`: as pytest collects a test.
#[cfg(test)]
pub fn resolve(
    module: &BTreeMap<String, Binding>,
    segments: &[&str],
    test: bool,
) -> Result<(), String> {
    resolve_with(module, segments, test, &Names::default())
}

/// `resolve` with the test names pytest's configuration collects
/// (`python_functions`, `python_classes`; see `py_collect.rs`).
pub fn resolve_with(
    module: &BTreeMap<String, Binding>,
    segments: &[&str],
    test: bool,
    names: &Names,
) -> Result<(), String> {
    let collected = "pytest collects `test*` functions and `Test*` classes (or the names `python_functions`/`python_classes` of its configuration set; without `__init__`) or `unittest.TestCase` subclasses bound at module level when the module is imported, and their `test*` methods";
    let first = segments.first().copied().unwrap_or_default();
    let not_there = || {
        format!(
            "`{first}` is not bound at module level once the module is imported (nested in a function or a block, deleted or rebound); {collected}"
        )
    };
    let collects = |name: &str, c: &Class| c.unittest || (names.class(name) && !c.has_init);
    // unittest's loader runs `test*` methods of a `TestCase`, whatever
    // pytest's `python_functions` says.
    let method = |c: &Class, m: &str| {
        if c.unittest {
            m.starts_with("test")
        } else {
            names.function(m)
        }
    };
    match (module.get(first), segments.len()) {
        // A bare test name that is no module-level function: a `test*`
        // method of a class its runner collects (unittest's own layout,
        // `tests/test_x.py::test_y` for `class XTests(TestCase)`), if
        // exactly one such class has it.
        (None | Some(Binding::Other), 1)
            if module
                .iter()
                .filter(|(n, b)| match b {
                    Binding::Class(c) => {
                        collects(n, c)
                            && method(c, first)
                            && c.members.get(first) == Some(&Binding::Func)
                    }
                    _ => false,
                })
                .count()
                == 1 =>
        {
            Ok(())
        }
        (Some(Binding::Func), 1) => {
            if test && !names.function(first) {
                return Err(format!("`{first}` is no test: {collected}"));
            }
            Ok(())
        }
        (Some(Binding::Class(c)), n @ (1 | 2)) => {
            if test && !collects(first, c) {
                return Err(format!(
                    "`{first}` is no test class (its name, or an `__init__`/`__new__`): {collected}"
                ));
            }
            if n == 1 {
                return Ok(());
            }
            let m = segments[1];
            match c.members.get(m) {
                Some(Binding::Func) if !test || method(c, m) => Ok(()),
                Some(Binding::Func) => Err(format!("`{m}` is no test method: {collected}")),
                _ => Err(format!(
                    "`{m}` is not a method of class `{first}` (methods of other or base classes do not count)"
                )),
            }
        }
        (Some(Binding::Class(_)), _) => {
            Err("names deeper than `Class::method` are not read: cite the class or the file".into())
        }
        _ => Err(not_there()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(src: &str, name: &str, test: bool) -> bool {
        let m = read(src).unwrap();
        let segs: Vec<&str> = name.split("::").collect();
        resolve(&m, &segs, test).is_ok()
    }

    #[test]
    fn module_level_bindings_as_pytest_collects() {
        let src = "import pytest\n\nclass TestPages:\n    @pytest.mark.x\n    def test_size(self, n):\n        def test_inner():\n            pass\n\n\nasync def test_last(\n    a=1,\n):\n    pass\n\ndef helper():\n    class TestNested:\n        def test_n(self): pass\n    def test_nested(): pass\n";
        assert!(ok(src, "TestPages::test_size", true));
        assert!(ok(src, "test_last", true));
        assert!(ok(src, "helper", false));
        assert!(!ok(src, "helper", true), "not a test name");
        for absent in [
            "test_inner",
            "TestNested",
            "TestNested::test_n",
            "test_nested",
            "TestPages::test_inner",
        ] {
            assert!(!ok(src, absent, true), "{absent}");
        }
    }

    #[test]
    fn blocks_deletions_and_rebinding_undefine() {
        for src in [
            "if False:\n    def test_size(): pass\n",
            "if __name__ == '__main__':\n    def test_size(): pass\n",
            "def test_size(): pass\ndel test_size, x\n",
            "def test_size(): pass\ntest_size = other = None\n",
            "def test_size(): pass\nif x:\n    test_size = None\n",
            "def test_size(): pass\nfrom m import a as test_size\n",
            "def test_size(): pass\nfor test_size in []: pass\n",
            "def _later():\n    def test_size(): pass\n",
        ] {
            assert!(!ok(src, "test_size", true), "{src:?}");
        }
        assert!(ok(
            "def test_size(): pass\nx = test_size\nif a == b: pass\n",
            "test_size",
            true
        ));
    }

    #[test]
    fn unittest_classes_and_their_methods_by_bare_name() {
        let m = read("import unittest\n\nclass PageTests(unittest.TestCase):\n    def test_size(self): pass\n\nclass Helper:\n    def test_other(self): pass\n").unwrap();
        assert!(resolve(&m, &["PageTests", "test_size"], true).is_ok());
        assert!(resolve(&m, &["test_size"], true).is_ok());
        // A method of a class no runner collects is no test.
        assert!(resolve(&m, &["test_other"], true).is_err());
        let two = read("from unittest import TestCase\n\nclass A(TestCase):\n    def test_x(self): pass\n\nclass TestB:\n    def test_x(self): pass\n").unwrap();
        assert!(resolve(&two, &["test_x"], true).is_err(), "ambiguous");
    }

    #[test]
    fn classes_as_pytest_collects_them() {
        let with_init =
            "class TestPages:\n    def __init__(self): pass\n    def test_size(self): pass\n";
        assert!(!ok(with_init, "TestPages::test_size", true));
        assert!(
            ok(with_init, "TestPages::test_size", false),
            "a method, not a test"
        );
        let other =
            "class TestPages:\n    pass\n\nclass TestOther:\n    def test_size(self): pass\n";
        assert!(!ok(other, "TestPages::test_size", true));
        assert!(ok(other, "TestOther::test_size", true));
        assert!(
            read("def test_size(): pass\n)(\n").is_err(),
            "does not parse"
        );
        assert!(read("x = (1,\n").is_err());
    }
}
