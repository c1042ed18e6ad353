//! Text from validators, file names and contracts, made safe for a
//! terminal. JSON needs nothing here: serde_json escapes every control
//! character itself.

use std::borrow::Cow;
use std::fmt::Write as _;

fn bad(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

/// Escape what must not reach a terminal raw: C0/C1 controls (including
/// ESC), DEL, and the bidi controls that reorder what a reader sees. The
/// escapes are JSON's (`\n`, `\t`, `\u001b`), the same a reader sees in
/// the JSON report, never Rust's `\u{a}`.
pub fn clean(text: &str) -> Cow<'_, str> {
    if !text.chars().any(bad) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push_escaped(&mut out, c);
    }
    Cow::Owned(out)
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if bad(c) => {
            let _ = write!(out, "\\u{:04x}", c as u32);
        }
        c => out.push(c),
    }
}

/// A message that may span lines (a test failure, a stack trace), for a
/// terminal: each line escaped as [`clean`] does, continuation lines
/// indented by `indent`, tabs as spaces, a trailing newline dropped.
pub fn clean_block(text: &str, indent: &str) -> String {
    let text = text.trim_end_matches(['\n', '\r']);
    let mut out = String::with_capacity(text.len() + 8);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(indent);
        }
        for c in line.strip_suffix('\r').unwrap_or(line).chars() {
            if c == '\t' {
                out.push_str("    ");
            } else {
                push_escaped(&mut out, c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_output_has_no_control_characters_left() {
        let all: String = (0u32..0x3000).filter_map(char::from_u32).collect();
        assert!(!clean(&all).chars().any(|c| c.is_control()));
    }

    #[test]
    fn terminal_escapes_are_neutralised() {
        assert_eq!(clean("plain text"), "plain text");
        assert_eq!(clean("\x1b[2Jgone"), "\\u001b[2Jgone");
        assert_eq!(clean("a\nb\rc\td"), "a\\nb\\rc\\td");
        assert_eq!(clean("safe\u{202e}txt.exe"), "safe\\u202etxt.exe");
        assert_eq!(clean("\u{9b}31m"), "\\u009b31m");
    }

    #[test]
    fn blocks_keep_their_lines_indented() {
        assert_eq!(
            clean_block("assert not True\n +  where True = f()\n\x1b[31m\n", "    "),
            "assert not True\n     +  where True = f()\n    \\u001b[31m"
        );
    }
}
