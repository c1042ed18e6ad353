//! reStructuredText that vcc does not render. A `.rst` document is read
//! as plain text, but docutils renders two inline constructs as other
//! text than their bytes: a substitution reference (`must |nt| log` with
//! `.. |nt| replace:: not` reads `must not log`) and a backslash escape
//! (`must n\ ot log`: an escaped space is removed, `n\ ot` reads `not`).
//! vcc does not expand either, so a line holding one outside a literal
//! block is refused (rule `rst-unrendered`): the statement or scope item
//! a reader sees cannot be told from the bytes.

use crate::shown::Unshown;

const UNRENDERED: &str = "a reStructuredText substitution reference (`|name|`) or backslash escape (`n\\ ot`): docutils renders other text than the bytes (a substitution's replacement, an escaped space removed) and vcc does not expand them, so the statements a reader sees cannot be told; write the text out";

/// The first line of a `.rst` document holding a construct vcc does not
/// render, outside literal blocks (the indented lines after a line
/// ending in `::`, or after a directive such as `.. code-block::`).
pub fn unrendered(path: &str, text: &str) -> Option<Unshown> {
    if !path.to_lowercase().ends_with(".rst") {
        return None;
    }
    // The indentation of the paragraph that opened a literal block.
    let mut literal: Option<usize> = None;
    for (i, line) in text.lines().enumerate() {
        let indent = line.len() - line.trim_start().len();
        let blank = line.trim().is_empty();
        if let Some(at) = literal {
            if blank || indent > at {
                continue;
            }
            literal = None;
        }
        let trimmed = line.trim();
        if trimmed.ends_with("::") {
            literal = Some(indent);
        }
        // `.. |nt| replace:: not` defines a substitution; the
        // definition is no text, its use is refused.
        let definition = trimmed.starts_with(".. |");
        if !definition && (line.contains('\\') || substitution(line)) {
            return Some(Unshown {
                line: (i + 1) as u32,
                rule: "rst-unrendered",
                message: UNRENDERED,
            });
        }
    }
    None
}

/// Whether a line holds `|name|`: a bar, a non-space, and a closing bar
/// after a non-space (a grid table's `| cell |` has spaces inside).
fn substitution(line: &str) -> bool {
    let b = line.as_bytes();
    (0..b.len()).any(|i| {
        let opens = b[i] == b'|'
            && b.get(i + 1)
                .is_some_and(|c| !c.is_ascii_whitespace() && *c != b'|');
        // The closing bar, after a non-space.
        opens
            && line[i + 1..]
                .find('|')
                .is_some_and(|len| !b[i + len].is_ascii_whitespace())
    })
}
