//! JSON with positions: serde_json parses (and is the authority on what the
//! text means); a second, shallow scan records where each value starts, so
//! a finding about `/items/3/name` can carry a line and column.

use std::cell::OnceCell;
use std::collections::HashMap;

use vcc_sdk::serde_json::{self, Value};

use crate::LineIndex;

/// A parsed JSON document and the position of each of its values, found
/// when first asked for: most documents are valid and never need one, and
/// the scan cost as much as the parse (bench W1).
pub struct Located<'a> {
    pub value: Value,
    text: &'a str,
    positions: OnceCell<HashMap<String, (u32, u32)>>,
}

/// Why a text is not JSON, and where.
#[derive(Debug)]
pub struct ParseError {
    pub message: String,
    pub line: u32,
    pub column: u32,
}

/// Parse JSON text, keeping positions.
pub fn parse(text: &str) -> Result<Located<'_>, ParseError> {
    let value: Value = serde_json::from_str(text).map_err(|e| ParseError {
        message: e.to_string(),
        line: e.line() as u32,
        column: e.column() as u32,
    })?;
    Ok(Located {
        value,
        text,
        positions: OnceCell::new(),
    })
}

impl Located<'_> {
    /// (line, column) of the value at a JSON pointer, or of its nearest
    /// ancestor that has one. Members point at their key.
    pub fn position(&self, pointer: &str) -> Option<(u32, u32)> {
        let positions = self.positions.get_or_init(|| scan(self.text));
        let mut p = pointer;
        loop {
            if let Some(at) = positions.get(p) {
                return Some(*at);
            }
            let cut = p.rfind('/')?;
            p = &p[..cut];
        }
    }
}

struct Container {
    pointer: String,
    is_object: bool,
    next_index: usize,
    key: Option<String>,
    expect_key: bool,
}

/// Record where each value starts. Only called on text serde_json accepted,
/// so the scan can be shallow; it never recurses (serde_json bounds depth).
fn scan(text: &str) -> HashMap<String, (u32, u32)> {
    let bytes = text.as_bytes();
    let lines = LineIndex::new(text);
    let mut positions = HashMap::new();
    let mut stack: Vec<Container> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b' ' | b'\t' | b'\n' | b'\r' | b',' | b':' => {
                if b == b','
                    && let Some(top) = stack.last_mut()
                {
                    top.expect_key = top.is_object;
                }
                i += 1;
            }
            b'}' | b']' => {
                stack.pop();
                i += 1;
            }
            b'"' => {
                let end = string_end(bytes, i);
                let is_key = stack.last().is_some_and(|t| t.is_object && t.expect_key);
                if is_key {
                    let key: String = serde_json::from_str(&text[i..end]).unwrap_or_default();
                    if let Some(top) = stack.last_mut() {
                        let pointer = format!("{}/{}", top.pointer, escape(&key));
                        positions.entry(pointer).or_insert(lines.line_col(i));
                        top.key = Some(key);
                        top.expect_key = false;
                    }
                } else {
                    let pointer = value_pointer(&mut stack);
                    positions.entry(pointer).or_insert(lines.line_col(i));
                }
                i = end;
            }
            b'{' | b'[' => {
                let pointer = value_pointer(&mut stack);
                positions
                    .entry(pointer.clone())
                    .or_insert(lines.line_col(i));
                stack.push(Container {
                    pointer,
                    is_object: b == b'{',
                    next_index: 0,
                    key: None,
                    expect_key: b == b'{',
                });
                i += 1;
            }
            _ => {
                // A number or a literal: runs to the next delimiter.
                let pointer = value_pointer(&mut stack);
                positions.entry(pointer).or_insert(lines.line_col(i));
                while i < bytes.len()
                    && !matches!(bytes[i], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                {
                    i += 1;
                }
            }
        }
    }
    positions
}

/// The pointer of a value starting now, in its container.
fn value_pointer(stack: &mut [Container]) -> String {
    match stack.last_mut() {
        None => String::new(),
        Some(top) if top.is_object => {
            let key = top.key.take().unwrap_or_default();
            format!("{}/{}", top.pointer, escape(&key))
        }
        Some(top) => {
            let pointer = format!("{}/{}", top.pointer, top.next_index);
            top.next_index += 1;
            pointer
        }
    }
}

/// Index just past the closing quote of the string starting at `start`.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_have_positions() {
        let text = "{\n  \"name\": \"x\",\n  \"items\": [\n    {\"id\": 1},\n    {\"id\": \"two\", \"a/b\": true}\n  ]\n}\n";
        let doc = parse(text).unwrap();
        assert_eq!(doc.position(""), Some((1, 1)));
        assert_eq!(doc.position("/name"), Some((2, 3)));
        assert_eq!(doc.position("/items/1"), Some((5, 5)));
        assert_eq!(doc.position("/items/1/id"), Some((5, 6)));
        assert_eq!(doc.position("/items/1/a~1b"), Some((5, 19)));
        // Unknown children fall back to the nearest ancestor.
        assert_eq!(doc.position("/items/1/missing"), Some((5, 5)));
    }

    #[test]
    fn strings_with_escapes_and_brackets_do_not_confuse_the_scan() {
        let text = r#"{"a": "x\"}]{[,", "b": [1, "]", {"c": null}]}"#;
        let doc = parse(text).unwrap();
        assert_eq!(doc.position("/b/2/c"), Some((1, 34)));
    }

    #[test]
    fn parse_errors_have_lines() {
        let err = parse("{\n  \"a\": 1,\n}").err().unwrap();
        assert_eq!(err.line, 3);
    }
}
