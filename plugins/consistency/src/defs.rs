//! Definitions in code: what a trace-matrix entry `path::name` may resolve
//! to. A name counts only where the language defines it — a function, a
//! test, a class — outside comments and strings: a test named only in a
//! comment (`# test_size will come later`) or in a string is not a test.
//!
//! Each language is read by a small lexer that blanks comments and string
//! contents (keeping every byte offset and newline), then the definitions
//! are matched on what is left:
//! - Python: `def`, `async def`, `class`.
//! - Rust: `fn` (any qualifiers; `#[test]` fns are fns), and for the
//!   leading segments of `tests::name`: `mod`, `struct`, `enum`, `trait`,
//!   `impl`.
//! - JavaScript/TypeScript: `function`, `class`, `const|let|var x = (…) =>`
//!   (or `= function`, `= async`), and `test('name', …)` / `it('name', …)`
//!   / `describe('name', …)` whose first argument is a plain string.
//! - Go: `func Name(` and methods `func (r T) Name(`; `type Name`.
//!
//! Another language is not read: its entries are refused, never resolved
//! by a substring.

use vcc_plugin_common::regex;

use vcc_sdk::relative;

use crate::py_config::{Config, Names};
use crate::{js_reg, py_around, py_collect, py_defs, rs_defs, runners};

#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Lang {
    Python,
    Rust,
    Js,
    Go,
}

impl Lang {
    pub fn of(path: &str) -> Option<Lang> {
        let ext = path.rsplit_once('.')?.1.to_lowercase();
        Some(match ext.as_str() {
            "py" | "pyi" => Lang::Python,
            "rs" => Lang::Rust,
            "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" => Lang::Js,
            "go" => Lang::Go,
            _ => return None,
        })
    }
}

/// Code with comments and string contents blanked (same byte offsets), and
/// each string literal's (offset of its opening quote, contents).
pub(crate) struct Masked {
    pub(crate) code: String,
    pub(crate) strings: Vec<(usize, String)>,
    /// A string or block comment never closed: not code its compiler
    /// reads, so it defines nothing.
    pub(crate) broken: bool,
}

/// Whether `name` is defined in `text` (see `resolve`), as anything.
#[cfg(test)]
pub fn defines(lang: Lang, text: &str, name: &str) -> bool {
    resolve(lang, "", text, name, false).is_ok()
}

/// Whether `name` resolves in the file at `path`: segments
/// (`TestPages::test_size`, `tests::size`) name scopes of that language
/// (a Python class's method, a Rust `mod`/`impl` path), a pytest parameter
/// suffix (`test_size[3]`) names the function. With `test`, the name must
/// be a test its runner collects and runs (`py_defs.rs`, `rs_defs.rs`,
/// `runners.rs`). `Err` says why not.
pub fn resolve(lang: Lang, path: &str, text: &str, name: &str, test: bool) -> Result<(), String> {
    let masked = mask(lang, text);
    if masked.broken {
        return Err(
            "the file does not parse (a string or comment never closed), so it defines nothing"
                .into(),
        );
    }
    let segments: Vec<&str> = name
        .split("::")
        .map(str::trim)
        .map(|s| match (lang, s.split_once('[')) {
            (Lang::Python, Some((base, rest))) if rest.ends_with(']') => base,
            _ => s,
        })
        .collect();
    if segments.iter().any(|s| s.is_empty()) {
        return Err("an empty name".into());
    }
    match lang {
        Lang::Python => {
            let module = py_defs::read(&masked.code).map_err(|e| {
                format!("the file does not parse ({e}): pytest collects an error from it, no test")
            })?;
            if !test {
                return py_defs::resolve_with(&module, &segments, test, &Names::default());
            }
            // A test: as a plain `pytest` run collects and runs it, with
            // the configuration and conftest files above it.
            let ctx = py_collect::gather(path)?;
            let config = Config::new(&ctx.configs)?;
            py_defs::resolve_with(&module, &segments, test, &config.names).map_err(|why| {
                // Collected under pytest's default names: say which
                // configuration changed them.
                let default = py_defs::resolve_with(&module, &segments, test, &Names::default());
                if default.is_ok() && !config.name_settings.is_empty() {
                    format!("{why} ({})", config.name_settings.join("; "))
                } else {
                    why
                }
            })?;
            py_collect::runs(&ctx, &config, relative(path), &masked.code, &segments)?;
            py_around::imports(path, &masked.code)?;
            // A conftest's imports hand fixtures to the test the same way.
            for (dir, text) in &ctx.conftests {
                let conftest = if dir.is_empty() {
                    format!("{}/conftest.py", vcc_sdk::MOUNT)
                } else {
                    format!("{}/{dir}/conftest.py", vcc_sdk::MOUNT)
                };
                py_around::imports(&conftest, &mask(Lang::Python, text).code)?;
            }
            Ok(())
        }
        Lang::Rust => rs_defs::resolve(&rs_defs::read(&masked.code), &segments, test),
        Lang::Go if test => match segments[..] {
            [one] => runners::go_test(path, text, &masked.code, one),
            _ => Err("a Go test is one name (`TestX`)".into()),
        },
        Lang::Go | Lang::Js => {
            let names = definitions(lang, &masked);
            if segments.iter().all(|s| names.iter().any(|n| n == s)) {
                Ok(())
            } else {
                Err("no definition of that name outside comments, strings and skipped tests (a test under `if`, in a loop, an expression or a function that is not a `describe` callback is one vcc cannot tell is registered)".into())
            }
        }
    }
}

/// Every name the code defines.
fn definitions(lang: Lang, m: &Masked) -> Vec<String> {
    let patterns: &[&str] = match lang {
        Lang::Python => {
            &[r"(?m)^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_][A-Za-z0-9_]*)"]
        }
        Lang::Rust => &[
            r"\bfn\s+(?:r#)?([A-Za-z_][A-Za-z0-9_]*)",
            r"\b(?:mod|struct|enum|trait|union)\s+([A-Za-z_][A-Za-z0-9_]*)",
            r"\bimpl(?:\s*<[^>{]*>)?\s+(?:[A-Za-z_][A-Za-z0-9_:<>, ]*\s+for\s+)?([A-Za-z_][A-Za-z0-9_]*)",
        ],
        Lang::Js => &[
            r"\bfunction\s*\*?\s*([A-Za-z_$][A-Za-z0-9_$]*)",
            r"\bclass\s+([A-Za-z_$][A-Za-z0-9_$]*)",
            r"\b(?:const|let|var)\s+([A-Za-z_$][A-Za-z0-9_$]*)\s*(?::[^=;]+)?=\s*(?:async\b\s*)?(?:\(|function\b|[A-Za-z_$][A-Za-z0-9_$]*\s*=>)",
        ],
        Lang::Go => &[
            r"(?m)^func\s+(?:\([^)]*\)\s*)?([A-Za-z_][A-Za-z0-9_]*)\s*[\[(]",
            r"(?m)^type\s+([A-Za-z_][A-Za-z0-9_]*)",
        ],
    };
    let mut out = Vec::new();
    for p in patterns {
        // The patterns are constants: one that does not compile is a bug
        // caught by the unit tests, and here it only finds nothing.
        if let Ok(re) = regex(p, false) {
            out.extend(
                re.captures_iter(&m.code)
                    .filter_map(|c| c.get(1))
                    .map(|g| g.as_str().to_string()),
            );
        }
    }
    if lang == Lang::Js {
        // `test('name', …)`: the first argument is the string right after
        // the parenthesis (its quote survives masking; its text is kept).
        // Tests in `describe.skip(…)` and the like do not run; with
        // `.only(…)` in the file, only what it holds runs.
        let (skipped, only) = runners::js_ranges(&m.code);
        let within = |at: usize, ranges: &[(usize, usize)]| {
            ranges.iter().any(|(a, b)| (*a..*b).contains(&at))
        };
        if let Ok(re) = regex(r#"\b(?:test|it|describe)\s*\(\s*(['"`])"#, false) {
            for c in re.captures_iter(&m.code) {
                if let Some(q) = c.get(1)
                    && c.get(0)
                        .is_some_and(|call| js_reg::registered(&m.code, call.start()).is_ok())
                    && !within(q.start(), &skipped)
                    && only.as_ref().is_none_or(|o| within(q.start(), o))
                    && let Some((_, s)) = m.strings.iter().find(|(at, _)| *at == q.start())
                    && !(m.code.as_bytes()[q.start()] == b'`' && s.contains("${"))
                {
                    out.push(s.clone());
                }
            }
        }
    }
    out
}

/// The code of `text` with comments and string contents blanked (same
/// byte offsets); `None` when a string or comment never closes.
pub fn masked_code(lang: Lang, text: &str) -> Option<String> {
    let m = mask(lang, text);
    (!m.broken).then_some(m.code)
}

/// Blank comments and string contents. Unterminated comments and strings
/// run to the end: what follows is not code.
pub(crate) fn mask(lang: Lang, text: &str) -> Masked {
    let b = text.as_bytes();
    let mut code = Vec::with_capacity(b.len());
    let mut strings = Vec::new();
    let mut broken = false;
    let mut i = 0;
    // Blank `b[from..to]`, keeping newlines.
    let blank = |code: &mut Vec<u8>, from: usize, to: usize| {
        code.extend(
            b[from..to]
                .iter()
                .map(|&c| if c == b'\n' { b'\n' } else { b' ' }),
        );
    };
    while i < b.len() {
        let rest = &b[i..];
        let line_comment = match lang {
            Lang::Python => rest.starts_with(b"#"),
            _ => rest.starts_with(b"//"),
        };
        if line_comment {
            let end = find(b, i, b"\n").unwrap_or(b.len());
            blank(&mut code, i, end);
            i = end;
            continue;
        }
        if lang != Lang::Python && rest.starts_with(b"/*") {
            let end = block_comment_end(b, i, lang == Lang::Rust);
            broken |= !b[..end].ends_with(b"*/");
            blank(&mut code, i, end);
            i = end;
            continue;
        }
        if lang == Lang::Js
            && b[i] == b'/'
            && regex_may_start(&code)
            && let Some(end) = regex_end(b, i)
        {
            // A regex literal (`/"/`, /`/): its quotes open no string.
            code.push(b'/');
            blank(&mut code, i + 1, end);
            i = end;
            continue;
        }
        if let Some((open, close, escapes, multiline)) = string_start(lang, text, i) {
            let body = i + open;
            let (end, content_end, closed) = if lang == Lang::Python && is_fstring(b, i) {
                fstring_end(text, body, &close, multiline)
            } else {
                string_end(b, body, &close, escapes, multiline)
            };
            broken |= !closed;
            code.extend_from_slice(&b[i..body]);
            blank(&mut code, body, content_end);
            code.extend_from_slice(&b[content_end..end]);
            let quote = body - 1;
            strings.push((
                quote,
                String::from_utf8_lossy(&b[body..content_end]).into_owned(),
            ));
            i = end;
            continue;
        }
        code.push(b[i]);
        i += 1;
    }
    if lang == Lang::Rust {
        blank_macro_calls(&mut code);
    }
    Masked {
        code: String::from_utf8_lossy(&code).into_owned(),
        strings,
        broken,
    }
}

/// Whether a `/` after this code starts a regex literal rather than a
/// division: after an operator, a bracket, a comma, or a keyword like
/// `return`, or at the start.
fn regex_may_start(code: &[u8]) -> bool {
    let before = code.trim_ascii_end();
    let Some(&last) = before.last() else {
        return true;
    };
    if b"(,=:[!&|?{};+-*%<>~^".contains(&last) {
        return true;
    }
    let word_start = before
        .iter()
        .rposition(|c| !(c.is_ascii_alphanumeric() || *c == b'_' || *c == b'$'))
        .map_or(0, |p| p + 1);
    matches!(
        &before[word_start..],
        b"return"
            | b"typeof"
            | b"case"
            | b"do"
            | b"else"
            | b"in"
            | b"of"
            | b"new"
            | b"delete"
            | b"void"
            | b"throw"
            | b"yield"
            | b"await"
    )
}

/// The end of a regex literal whose `/` is at `start` (after its closing
/// `/`), if it closes on this line; `[...]` classes may hold `/`.
fn regex_end(b: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    let mut class = false;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'\n' => return None,
            b'[' => class = true,
            b']' => class = false,
            b'/' if !class => return Some(i + 1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// Whether the Python string whose quote is at `quote` is an f-string (or
/// a t-string): its prefix letters hold `f` or `t`.
fn is_fstring(b: &[u8], quote: usize) -> bool {
    let prefix: Vec<u8> = b[..quote]
        .iter()
        .rev()
        .take_while(|c| c.is_ascii_alphabetic())
        .map(u8::to_ascii_lowercase)
        .collect();
    (1..=2).contains(&prefix.len())
        && prefix.iter().all(|c| b"rbuft".contains(c))
        && prefix.iter().any(|c| b"ft".contains(c))
}

/// `string_end` for a Python f-string: a replacement field (`{…}`, not
/// `{{`) is code that may hold strings of any quote, even the f-string's
/// own (Python 3.12, PEP 701), so `f"{"""`, a `def` line and `"""}"` are
/// one literal, not a definition.
fn fstring_end(text: &str, body: usize, close: &[u8], multiline: bool) -> (usize, usize, bool) {
    let b = text.as_bytes();
    let mut i = body;
    while i < b.len() {
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        if b[i..].starts_with(close) {
            return (i + close.len(), i, true);
        }
        if b[i] == b'{' {
            if b.get(i + 1) == Some(&b'{') {
                i += 2;
                continue;
            }
            match field_end(text, i + 1, close[0]) {
                Some(end) => i = end,
                None => return (b.len(), b.len(), false),
            }
            continue;
        }
        if b[i] == b'\n' && !multiline {
            return (i, i, false);
        }
        i += 1;
    }
    (b.len(), b.len(), false)
}

/// The end (after its `}`) of an f-string replacement field starting at
/// `start`: brackets nest, strings (f-strings too) are skipped whole, `#`
/// comments run to the line's end. A string in the field opened by the
/// f-string's own quote is refused (`None`): Python before 3.12 cannot
/// read the file, and the strictest common reader decides.
fn field_end(text: &str, start: usize, quote: u8) -> Option<usize> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = start;
    while i < b.len() {
        if let Some((open, close, escapes, multiline)) = string_start(Lang::Python, text, i) {
            if close[0] == quote {
                return None;
            }
            let body = i + open;
            let (end, _, closed) = if is_fstring(b, i) {
                fstring_end(text, body, &close, multiline)
            } else {
                string_end(b, body, &close, escapes, multiline)
            };
            if !closed {
                return None;
            }
            i = end;
            continue;
        }
        match b[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b'}' if depth == 0 => return Some(i + 1),
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'#' => {
                i = find(b, i, b"\n").unwrap_or(b.len());
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Blank the arguments of Rust macro calls (`m!(…)`, `m! {…}`,
/// `macro_rules! m {…}`): what a macro makes of its tokens is the macro's
/// business, so a `fn` inside is no definition vcc can vouch for.
fn blank_macro_calls(code: &mut [u8]) {
    let mut i = 0;
    while i < code.len() {
        if code[i] == b'!' && i > 0 && (code[i - 1].is_ascii_alphanumeric() || code[i - 1] == b'_')
        {
            // `!` after an identifier; skip `macro_rules! name`.
            let mut j = i + 1;
            while j < code.len() && code[j].is_ascii_whitespace() {
                j += 1;
            }
            while j < code.len() && (code[j].is_ascii_alphanumeric() || code[j] == b'_') {
                j += 1;
            }
            while j < code.len() && code[j].is_ascii_whitespace() {
                j += 1;
            }
            if let Some(&open @ (b'(' | b'[' | b'{')) = code.get(j) {
                let close = match open {
                    b'(' => b')',
                    b'[' => b']',
                    _ => b'}',
                };
                let mut depth = 0;
                let mut k = j;
                while k < code.len() {
                    if code[k] == open {
                        depth += 1;
                    } else if code[k] == close {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    if k > j && code[k] != b'\n' {
                        code[k] = b' ';
                    }
                    k += 1;
                }
                i = k;
                continue;
            }
        }
        i += 1;
    }
}

fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    b[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

/// The end of a `/* … */` comment at `start` (Rust's nest).
fn block_comment_end(b: &[u8], start: usize, nested: bool) -> usize {
    let mut depth = 0;
    let mut i = start;
    while i + 1 < b.len() {
        if &b[i..i + 2] == b"/*" && (nested || depth == 0) {
            depth += 1;
            i += 2;
        } else if &b[i..i + 2] == b"*/" {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    b.len()
}

/// A string literal starting at `i`: (length of its opening, the closing
/// delimiter, whether `\` escapes). Prefixes (`r`, `b`, `f`, `u`, `r#`)
/// count as the opening so the contents start after the quote.
fn string_start(lang: Lang, text: &str, i: usize) -> Option<(usize, Vec<u8>, bool, bool)> {
    let b = text.as_bytes();
    let rest = &b[i..];
    let prev_ident = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
    match lang {
        Lang::Python => {
            for q in [&b"\"\"\""[..], b"'''"] {
                if rest.starts_with(q) {
                    return Some((3, q.to_vec(), true, true));
                }
            }
            match rest.first() {
                Some(&q @ (b'"' | b'\'')) => Some((1, vec![q], true, false)),
                _ => None,
            }
        }
        Lang::Rust => {
            if !prev_ident {
                // r"…", r#"…"#, br#"…"#: raw, no escapes.
                let after_b = usize::from(rest.first() == Some(&b'b'));
                if rest.get(after_b) == Some(&b'r') {
                    let hashes = rest[after_b + 1..]
                        .iter()
                        .take_while(|&&c| c == b'#')
                        .count();
                    if rest.get(after_b + 1 + hashes) == Some(&b'"') {
                        let mut close = vec![b'"'];
                        close.extend(std::iter::repeat_n(b'#', hashes));
                        return Some((after_b + 2 + hashes, close, false, true));
                    }
                }
                if rest.starts_with(b"b\"") {
                    return Some((2, vec![b'"'], true, true));
                }
            }
            match rest.first() {
                Some(b'"') => Some((1, vec![b'"'], true, true)),
                // A char literal ('a', '\n', '\u{1F600}'), not a lifetime
                // ('a in `&'a str`): one character, then the quote.
                Some(b'\'') => {
                    let is_char = if rest.get(1) == Some(&b'\\') {
                        true
                    } else {
                        text.get(i + 1..)
                            .and_then(|t| t.chars().next())
                            .is_some_and(|c| rest.get(1 + c.len_utf8()) == Some(&b'\''))
                    };
                    is_char.then(|| (1, vec![b'\''], true, false))
                }
                _ => None,
            }
        }
        Lang::Js => match rest.first() {
            Some(b'`') => Some((1, vec![b'`'], true, true)),
            Some(&q @ (b'"' | b'\'')) => Some((1, vec![q], true, false)),
            _ => None,
        },
        Lang::Go => match rest.first() {
            Some(b'`') => Some((1, vec![b'`'], false, true)),
            Some(&q @ (b'"' | b'\'')) => Some((1, vec![q], true, false)),
            _ => None,
        },
    }
}

/// (end of the literal, end of its contents, whether it was closed) for a
/// string whose contents start at `body`. A one-line string ends at a
/// newline (unclosed: the file is not valid code); Python's triple quotes,
/// Rust strings, JS templates and Go raw strings span lines.
fn string_end(
    b: &[u8],
    body: usize,
    close: &[u8],
    escapes: bool,
    multiline: bool,
) -> (usize, usize, bool) {
    let mut i = body;
    while i < b.len() {
        if escapes && b[i] == b'\\' {
            i += 2;
            continue;
        }
        if b[i..].starts_with(close) {
            return (i + close.len(), i, true);
        }
        if b[i] == b'\n' && !multiline {
            return (i, i, false);
        }
        i += 1;
    }
    (b.len(), b.len(), false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_definitions_outside_comments_and_strings() {
        let src = "# def test_in_comment(): pass\n\"\"\"\ndef test_in_docstring():\n\"\"\"\nclass TestPages:\n    async def test_async(self):\n        s = 'def test_in_string(): pass'\n\ndef test_size():\n    pass\n";
        assert!(defines(Lang::Python, src, "TestPages"));
        // A bare method name resolves when exactly one class its runner
        // collects has it (unittest's layout: `file::test_x`).
        assert!(defines(Lang::Python, src, "test_async"));
        assert!(!defines(Lang::Python, src, "test_in_string"));
        assert!(defines(Lang::Python, src, "TestPages::test_async"));
        assert!(defines(Lang::Python, src, "test_size[3-4]"));
        for absent in [
            "test_in_comment",
            "test_in_docstring",
            "test_in_string",
            "Test",
        ] {
            assert!(!defines(Lang::Python, src, absent), "{absent}");
        }
    }

    #[test]
    fn python_f_strings_and_unclosed_strings() {
        // An f-string's field holds strings: of another quote, read; of its
        // own quote (Python 3.12 only), the file is refused.
        let src = "x = f\"{'''\ndef in_fstring(): pass\n'''}\"\nx = f'{{'\ndef after(): pass\n";
        assert!(!defines(Lang::Python, src, "in_fstring"));
        assert!(defines(Lang::Python, src, "after"));
        let src =
            "x = f\"{\"\"\"\ndef in_fstring(): pass\n\"\"\"}\"\n# \"\"\"\ndef after(): pass\n";
        assert!(!defines(Lang::Python, src, "in_fstring"));
        assert!(!defines(Lang::Python, src, "after"));
        // A string never closed (`r'\'`): Python cannot read the file.
        let src = "def test_real():\n    pass\nx = r'\\'\n";
        assert!(!defines(Lang::Python, src, "test_real"));
    }

    #[test]
    fn rust_definitions() {
        let src = "// fn in_comment() {}\n/* /* nested */ fn in_block() {} */\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn size<'a>(x: &'a str) -> char { let _ = \"fn in_string()\"; let _ = r#\"fn in_raw()\"#; '\"' }\n    pub async fn later() {}\n}\n";
        assert!(!defines(Lang::Rust, src, "size"), "inside `mod tests`");
        assert!(defines(Lang::Rust, src, "tests::size"));
        assert!(defines(Lang::Rust, src, "tests::later"));
        for absent in ["in_comment", "in_block", "in_string", "in_raw", "nested"] {
            assert!(!defines(Lang::Rust, src, absent), "{absent}");
        }
        // A string spans lines; a macro's tokens are the macro's.
        let src = "const S: &str = \"a\nfn in_string() {}\n\";\nm!(fn in_macro() {});\nmacro_rules! n { () => { fn in_rules() {} } }\nfn after() {}\n";
        assert!(defines(Lang::Rust, src, "after"));
        for absent in ["in_string", "in_macro", "in_rules"] {
            assert!(!defines(Lang::Rust, src, absent), "{absent}");
        }
    }

    #[test]
    fn js_and_ts_definitions() {
        let src = "// test('in comment', () => {})\nfunction helper() {}\nclass Pages {}\nconst size = (n: number) => n;\nexport const total = async () => 1;\nlet notAFunction = 3;\ntest('pages hold 100 records', () => {});\nit(\"last page\", async () => {});\nconst s = \"test('in string')\";\n/* it('in block') */\n";
        for present in [
            "helper",
            "Pages",
            "size",
            "total",
            "pages hold 100 records",
            "last page",
        ] {
            assert!(defines(Lang::Js, src, present), "{present}");
        }
        for absent in ["in comment", "in string", "in block", "notAFunction"] {
            assert!(!defines(Lang::Js, src, absent), "{absent}");
        }
        // A quote in a regex literal opens no string; a division is not a
        // regex.
        let src = "const re = /`/;\nconst s = `\nfunction fake() {}\n`;\nconst half = total / 2; function real() {}\n";
        assert!(!defines(Lang::Js, src, "fake"));
        assert!(defines(Lang::Js, src, "real"));
    }

    #[test]
    fn go_definitions() {
        let src = "package p\n// func TestInComment(t *testing.T) {}\nfunc TestSize(t *testing.T) {}\nfunc (p *Pages) Next() {}\ntype Pages struct{}\nvar s = `\nfunc TestInRaw(t *testing.T) {}\n`\n";
        assert!(defines(Lang::Go, src, "TestSize"));
        assert!(defines(Lang::Go, src, "Next"));
        assert!(defines(Lang::Go, src, "Pages"));
        assert!(!defines(Lang::Go, src, "TestInComment"));
        assert!(!defines(Lang::Go, src, "TestInRaw"));
    }

    #[test]
    fn languages_by_extension() {
        assert_eq!(Lang::of("a/b.py"), Some(Lang::Python));
        assert_eq!(Lang::of("x.test.TSX"), Some(Lang::Js));
        assert_eq!(Lang::of("Main.java"), None);
        assert_eq!(Lang::of("Makefile"), None);
    }
}
