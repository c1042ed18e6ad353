//! What pytest reads around a Python test file, besides its
//! configuration: the `conftest.py` files above it (`collect_ignore`,
//! hooks, skipping code) and the local modules the test module or a
//! conftest imports fixtures from. See `py_collect.rs`.

use vcc_plugin_common::regex;
use vcc_sdk::{MOUNT, relative};

use crate::defs::{Lang, mask};
use crate::py_collect::{Line, close_of, prefix, scan, text_lines};
use crate::py_config::glob;

/// A `conftest.py` in `dir` above the test file `rel`.
pub fn conftest(dir: &str, text: &str, rel: &str) -> Result<(), String> {
    let shown = format!("{}conftest.py", prefix(dir));
    let masked = mask(Lang::Python, text);
    let lines = text_lines(&masked.code).map_err(|e| format!("{shown}: {e}"))?;
    let (Ok(assign), Ok(any)) = (
        regex(r"(?m)^(collect_ignore(?:_glob)?)[ \t]*=[ \t]*", false),
        regex(r"\bcollect_ignore(?:_glob)?\b", false),
    ) else {
        return Err("internal: a pattern does not compile".into());
    };
    let mut evaluated = 0;
    for c in assign.captures_iter(&masked.code) {
        let (Some(all), Some(name)) = (c.get(0), c.get(1)) else {
            continue;
        };
        let start = all.end();
        let b = masked.code.as_bytes();
        let end = match b.get(start) {
            Some(b'[' | b'(') => close_of(b, start),
            _ => start,
        };
        let value = &masked.code[start..end];
        let residue: String = value
            .chars()
            .filter(|c| !(c.is_whitespace() || "[](),\"'rRuU".contains(*c)))
            .collect();
        let line = masked.code[..start].matches('\n').count() + 1;
        if end == start || !residue.is_empty() {
            return Err(format!(
                "{shown} line {line}: `{}` is not a list of plain strings, so vcc cannot tell which files pytest ignores",
                name.as_str()
            ));
        }
        evaluated += 1;
        for (_, entry) in masked
            .strings
            .iter()
            .filter(|(at, _)| (start..end).contains(at))
        {
            if entry.starts_with('/') {
                return Err(format!(
                    "{shown} line {line}: `{}` holds the absolute path `{entry}`, which vcc cannot place",
                    name.as_str()
                ));
            }
            // Relative to the conftest's folder, `.` and `..` resolved (a
            // path above the root cannot be the test file).
            let joined = format!("{}{entry}", prefix(dir));
            let mut parts: Vec<&str> = Vec::new();
            for part in joined.split('/') {
                match part {
                    "" | "." => {}
                    ".." => {
                        parts.pop();
                    }
                    p => parts.push(p),
                }
            }
            let path = parts.join("/");
            let hit = if name.as_str() == "collect_ignore" {
                path.is_empty() || rel == path || rel.starts_with(&format!("{path}/"))
            } else {
                glob(&path, rel)
            };
            if hit {
                return Err(format!(
                    "{shown} line {line}: `{}` holds `{entry}`: pytest does not collect the file",
                    name.as_str()
                ));
            }
        }
    }
    if any.find_iter(&masked.code).count() != evaluated {
        return Err(format!(
            "{shown} changes `collect_ignore` in a way vcc does not evaluate (only `collect_ignore = [\"…\"]` at the top is read)"
        ));
    }
    // What is left must not skip, exit or hook.
    let no_assign: Vec<Line> = lines
        .into_iter()
        .filter(|(_, indent, t)| !(*indent == 0 && t.starts_with("collect_ignore")))
        .collect();
    scan(&shown, no_assign.iter())
}

/// `from a.b import x` in the test module: a local module (found next to
/// the test, or in a folder above it or its `src/`) that defines fixtures
/// or hooks may hand the test an autouse or requested fixture that skips
/// it; vcc does not follow fixtures into another module, so it refuses.
/// A module not found in the deliverables is a library's.
pub fn imports(path: &str, code: &str) -> Result<(), String> {
    let rel = relative(path);
    let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
    let Ok(from) = regex(
        r"(?m)^[ \t]*from[ \t]+(\.*)([A-Za-z_][\w.]*)?[ \t]+import\b",
        false,
    ) else {
        return Err("internal: a pattern does not compile".into());
    };
    let Ok(defines) = regex(r"\b(fixture|yield_fixture|pytest_\w+|pytestmark)\b", false) else {
        return Err("internal: a pattern does not compile".into());
    };
    for c in from.captures_iter(code) {
        let dots = c.get(1).map_or(0, |m| m.as_str().len());
        let module = c.get(2).map_or("", |m| m.as_str()).replace('.', "/");
        let line = code[..c.get(0).map_or(0, |m| m.start())]
            .matches('\n')
            .count()
            + 1;
        // Folders the module may be found under.
        let mut roots: Vec<String> = Vec::new();
        if dots > 0 {
            let mut d: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
            for _ in 1..dots {
                d.pop();
            }
            roots.push(d.join("/"));
        } else {
            let parts: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
            for k in (0..=parts.len()).rev() {
                let d = parts[..k].join("/");
                roots.push(format!("{}src", prefix(&d)));
                roots.push(d);
            }
        }
        for root in roots {
            let base = format!("{}{module}", prefix(&root));
            let base = base.trim_end_matches('/');
            for candidate in [format!("{base}.py"), format!("{base}/__init__.py")] {
                let full = format!("{MOUNT}/{candidate}");
                if vcc_sdk::stat(&full).is_err() {
                    continue;
                }
                let text = vcc_sdk::read_to_string(&full).map_err(|e| {
                    format!("{candidate}: {e}: the test imports it, vcc cannot read it")
                })?;
                let masked = mask(Lang::Python, &text);
                if let Some(m) = defines.find(&masked.code) {
                    let at = masked.code[..m.start()].matches('\n').count() + 1;
                    return Err(format!(
                        "{rel} line {line} imports from {candidate}, which names `{}` (line {at}): a fixture or hook there may skip the test, and vcc does not follow fixtures into another module",
                        m.as_str()
                    ));
                }
            }
        }
    }
    Ok(())
}

/// A Python test file cited whole in the test column: pytest must collect
/// it, and every test it collects from it must run (one skipped test in
/// a file cited whole is a test that does not run), with at least one.
pub fn whole_file(path: &str, text: &str) -> Result<(), String> {
    let masked = mask(Lang::Python, text);
    if masked.broken {
        return Err("the file does not parse (a string never closed)".into());
    }
    let module = crate::py_defs::read(&masked.code)
        .map_err(|e| format!("the file does not parse ({e}): pytest collects an error from it"))?;
    let ctx = crate::py_collect::gather(path)?;
    let config = crate::py_config::Config::new(&ctx.configs)?;
    let tests: Vec<&String> = module
        .keys()
        .filter(|n| {
            crate::py_defs::resolve_with(&module, &[n.as_str()], true, &config.names).is_ok()
        })
        .collect();
    if tests.is_empty() {
        return Err("it holds no test function or class pytest collects".into());
    }
    for name in tests {
        crate::py_collect::runs(
            &ctx,
            &config,
            relative(path),
            &masked.code,
            &[name.as_str()],
        )?;
    }
    imports(path, &masked.code)?;
    for (dir, text) in &ctx.conftests {
        imports(
            &format!("{MOUNT}/{}conftest.py", prefix(dir)),
            &mask(Lang::Python, text).code,
        )?;
    }
    Ok(())
}
