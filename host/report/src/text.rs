//! Text from validators, file names and contracts, made safe for a
//! terminal. JSON needs nothing here: serde_json escapes every control
//! character itself.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Escape what must not reach a terminal raw: C0/C1 controls (including
/// ESC), DEL, and the bidi controls that reorder what a reader sees.
pub fn clean(text: &str) -> Cow<'_, str> {
    let bad = |c: char| {
        c.is_control()
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
    };
    if !text.chars().any(bad) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if bad(c) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
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
        assert_eq!(clean("\x1b[2Jgone"), "\\u{1b}[2Jgone");
        assert_eq!(clean("a\nb\rc"), "a\\u{a}b\\u{d}c");
        assert_eq!(clean("safe\u{202e}txt.exe"), "safe\\u{202e}txt.exe");
        assert_eq!(clean("\u{9b}31m"), "\\u{9b}31m");
    }
}
