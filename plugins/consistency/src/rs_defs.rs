//! Rust items as the compiler and the test harness see them: each `fn`,
//! type and `mod` with the path of named scopes around it (`mod`, `impl`
//! and `trait` blocks), whether it sits in a function body, and its
//! attributes with those of every scope around it (and the file's inner
//! `#![…]`). Read on the masked code of `defs.rs` (comments, strings and
//! macro arguments blanked).
//!
//! `tests::size` names the `fn size` inside `mod tests` of the file cited,
//! exactly that path. A test is a `#[test]` (or `#[tokio::test]`, any
//! `…::test`) fn, not `#[ignore]`d, outside function bodies, and compiled
//! under `cargo test`: every `cfg` on it or around it must be `cfg(test)`;
//! any other (`cfg(any())`, `cfg(FALSE)`, a feature) or a `cfg_attr` is one
//! vcc does not decide, and it refuses.

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Fn,
    Type,
    Mod,
}

#[derive(Debug)]
pub struct Item {
    name: String,
    kind: Kind,
    path: Vec<String>,
    in_fn: bool,
    /// Its own outer attributes (whitespace removed).
    attrs: Vec<String>,
    /// Attributes of the scopes around it and of the file.
    outer: Vec<String>,
}

struct Scope {
    /// A `mod`, `impl` or `trait` name; `None` for other braces.
    name: Option<String>,
    is_fn: bool,
    attrs: Vec<String>,
}

/// Every item of the file.
pub fn read(code: &str) -> Vec<Item> {
    let b = code.as_bytes();
    let mut items = Vec::new();
    let mut file_attrs: Vec<String> = Vec::new();
    let mut stack: Vec<Scope> = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    // What the next `{` opens: (name, is a fn, attributes that apply to
    // all it holds).
    let mut opens: Option<(Option<String>, bool, Vec<String>)> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'#' {
            let inner = b.get(i + 1) == Some(&b'!');
            let open = i + 1 + usize::from(inner);
            if b.get(open) == Some(&b'[')
                && let Some(end) = matching(b, open)
            {
                let attr: String = code[open + 1..end]
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect();
                if inner {
                    match stack.last_mut() {
                        Some(s) => s.attrs.push(attr),
                        None => file_attrs.push(attr),
                    }
                } else {
                    pending.push(attr);
                }
                i = end + 1;
                continue;
            }
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            if start > 0 && (b[start - 1] == b':' || b[start - 1] == b'.') {
                continue;
            }
            let word = &code[start..i];
            let kind = match word {
                "fn" => Some(Kind::Fn),
                "mod" => Some(Kind::Mod),
                "struct" | "enum" | "union" | "trait" | "type" => Some(Kind::Type),
                _ => None,
            };
            if word == "impl" {
                let end = next_brace(b, i).unwrap_or(b.len());
                opens = Some((
                    impl_name(&code[i..end]),
                    false,
                    std::mem::take(&mut pending),
                ));
                i = end;
                continue;
            }
            if let Some(kind) = kind {
                let name = ident_after(code, i);
                if let Some(name) = name {
                    let attrs = std::mem::take(&mut pending);
                    let outer: Vec<String> = file_attrs
                        .iter()
                        .chain(stack.iter().flat_map(|s| s.attrs.iter()))
                        .cloned()
                        .collect();
                    items.push(Item {
                        name: name.clone(),
                        kind: kind.clone(),
                        path: stack.iter().filter_map(|s| s.name.clone()).collect(),
                        in_fn: stack.iter().any(|s| s.is_fn),
                        attrs: attrs.clone(),
                        outer,
                    });
                    let names_scope = kind == Kind::Mod || word == "trait";
                    opens = Some((names_scope.then_some(name), kind == Kind::Fn, attrs));
                }
            }
            continue;
        }
        match c {
            b'{' => {
                // Attributes of a `mod`, `impl` or `fn` apply to all it holds.
                let (name, is_fn, attrs) = opens.take().unwrap_or((None, false, Vec::new()));
                stack.push(Scope { name, is_fn, attrs });
                pending.clear();
            }
            b'}' => {
                stack.pop();
                opens = None;
            }
            b';' => {
                pending.clear();
                opens = None;
            }
            _ => {}
        }
        i += 1;
    }
    items
}

/// The `]` matching the `[` at `open`.
fn matching(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0;
    for (k, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'[' => depth += 1,
            b']' => {
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

/// The next `{` (or `;`) outside parentheses and brackets.
fn next_brace(b: &[u8], from: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (k, &c) in b.iter().enumerate().skip(from) {
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'{' | b';' if depth <= 0 => return Some(k),
            _ => {}
        }
    }
    None
}

fn ident_after(code: &str, from: usize) -> Option<String> {
    let rest = code[from..].trim_start();
    let rest = rest.strip_prefix("r#").unwrap_or(rest);
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit())).then_some(name)
}

/// The type an `impl` block is for: `impl<T> Trait for Pages<T>` → `Pages`.
fn impl_name(head: &str) -> Option<String> {
    let mut depth = 0;
    let flat: String = head
        .chars()
        .filter(|c| {
            match c {
                '<' => depth += 1,
                '>' => depth -= 1,
                _ => return depth == 0,
            }
            false
        })
        .collect();
    let ty = flat.rsplit_once(" for ").map_or(flat.as_str(), |(_, t)| t);
    let ty = ty.split(" where ").next().unwrap_or(ty).trim();
    let last = ty
        .rsplit("::")
        .next()
        .unwrap_or(ty)
        .trim_start_matches(['&', '*']);
    ident_after(last, 0)
}

fn attr_head(attr: &str) -> &str {
    attr.split('(')
        .next()
        .unwrap_or(attr)
        .split('=')
        .next()
        .unwrap_or(attr)
}

/// Whether `segments` (`tests::size`) names an item at exactly that path;
/// `test`: a test the harness runs under `cargo test`.
pub fn resolve(items: &[Item], segments: &[&str], test: bool) -> Result<(), String> {
    let Some((name, prefix)) = segments.split_last() else {
        return Err("names nothing".into());
    };
    let at: Vec<&Item> = items
        .iter()
        .filter(|it| {
            it.name == *name
                && !it.in_fn
                && it
                    .path
                    .iter()
                    .map(String::as_str)
                    .eq(prefix.iter().copied())
        })
        .collect();
    if at.is_empty() {
        return Err("no item at that path (`a::b` must be inside `mod a`, `impl a` or `trait a` of this file, outside function bodies)".to_string());
    }
    if !test {
        return Ok(());
    }
    let mut why = String::from("no test");
    for it in at.iter().filter(|it| it.kind == Kind::Fn) {
        let is_test = it.attrs.iter().any(|a| {
            let h = attr_head(a);
            h == "test" || h.ends_with("::test")
        });
        // `#[should_panic]` passes only when the body fails: the Rust
        // expected failure, refused as Python's xfail is.
        let ignored = it
            .attrs
            .iter()
            .any(|a| attr_head(a) == "ignore" || attr_head(a) == "should_panic");
        let undecided = it.attrs.iter().chain(&it.outer).find(|a| {
            let h = attr_head(a);
            h == "cfg_attr" || (h == "cfg" && a.as_str() != "cfg(test)")
        });
        match (is_test, ignored, undecided) {
            (true, false, None) => return Ok(()),
            (false, ..) => why = "a fn without `#[test]`: the test harness does not run it".into(),
            (_, true, _) => why = "`#[ignore]`d (`cargo test` does not run it) or `#[should_panic]` (it passes when its body fails)".into(),
            (_, _, Some(a)) => {
                why = format!(
                    "under `#[{a}]`, which vcc does not decide (only `cfg(test)` is): it may never be compiled"
                )
            }
        }
    }
    Err(why)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(src: &str, name: &str, test: bool) -> bool {
        let segs: Vec<&str> = name.split("::").collect();
        resolve(&read(src), &segs, test).is_ok()
    }

    #[test]
    fn paths_tests_and_cfgs() {
        let src = "pub struct Cursor(String);\nimpl<T: X> std::fmt::Display for Cursor {\n    fn fmt(&self) {}\n}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn size() { fn inner() {} }\n    #[tokio::test(flavor = \"x\")]\n    async fn later() {}\n    #[test]\n    #[ignore]\n    fn slow() {}\n    fn helper() {}\n}\n#[cfg(any())]\nmod never {\n    #[test]\n    fn gone() {}\n}\nmod empty {}\n#[test]\nfn top() {}\n";
        assert!(ok(src, "Cursor", false));
        assert!(ok(src, "Cursor::fmt", false));
        assert!(ok(src, "tests::size", true));
        assert!(ok(src, "tests::later", true));
        assert!(ok(src, "top", true));
        assert!(ok(src, "tests::helper", false));
        for (name, test) in [
            ("size", true),
            ("tests::inner", false),
            ("tests::slow", true),
            ("tests::helper", true),
            ("never::gone", true),
            ("empty::top", true),
            ("fmt", false),
        ] {
            assert!(!ok(src, name, test), "{name}");
        }
        assert!(
            !ok("#![cfg(FALSE)]\n#[test]\nfn t() {}\n", "t", true),
            "a file-wide cfg"
        );
        assert!(!ok("fn test_size() {}\n", "test_size", true));
    }
}
