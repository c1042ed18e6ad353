//! Whether TAP::Parser (3.44) can read a YAML block: a port of
//! `TAP::Parser::YAMLish::Reader`, the subset of YAML it reads. A block it
//! cannot read is a parse error to TAP::Parser (`prove` reports a
//! problem), so vcc refuses it too; only whether the block reads is ported,
//! not the values. Where the Perl reader would read on past the block's
//! `...` (a `|` scalar at the block's own indent) or loop for ever at the
//! end of the input, this port stops and refuses: stricter, never quieter.

/// Check a block: its lines with the block's indent removed, from the
/// `---` line through the `...` line. `Err` says what TAP::Parser says.
pub fn check(lines: &[&str]) -> Result<(), String> {
    let mut r = Reader { lines, at: 0 };
    r.read_document()?;
    match r.peek_raw() {
        Some(l) if is_end(l) => Ok(()),
        _ => Err("Missing '...' at end of YAMLish".into()),
    }
}

struct Reader<'a> {
    lines: &'a [&'a str],
    at: usize,
}

/// Perl's `\s` (ASCII): what `_peek` counts as indent.
fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

/// `^ \.\.\. \s* $`
fn is_end(l: &str) -> bool {
    l.strip_prefix("...")
        .is_some_and(|rest| rest.chars().all(is_space))
}

/// `^ [\w\'\"]`
fn is_hash_key(l: &str) -> bool {
    l.chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '\'' || c == '"')
}

/// `" (?:\\. | [^"])* "` at the start of `s`: its length.
fn qq_len(s: &str) -> Option<usize> {
    let mut chars = s.char_indices();
    if chars.next()?.1 != '"' {
        return None;
    }
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next()?;
            }
            '"' => return Some(i + 1),
            _ => {}
        }
    }
    None
}

/// `^ ($QQ_STRING|\S+) \s* : \s* (?: (.+?) \s* )? $`: the key and the
/// value, if any. Perl backtracks: `\S+` may end at any `:` that has
/// only spaces (or the value) after it, the last one that lets the rest
/// match; with `\S+` greedy that is the last `:` of the first word that
/// is followed by a space, the end, or more text.
fn hash_line(l: &str) -> Option<(&str, Option<&str>)> {
    let key_end = match qq_len(l) {
        // A quoted key must be followed by `\s*:` — else Perl tries `\S+`.
        Some(n) if l[n..].trim_start_matches(is_space).starts_with(':') => Some(n),
        _ => None,
    };
    let (key, after) = match key_end {
        Some(n) => (&l[..n], &l[n..]),
        None => {
            // The first word; the key is all of it up to its last `:`
            // (greedy `\S+`, then backtracking to a `:`), or the whole
            // word when a `:` follows after spaces.
            let word_end = l.find(is_space).unwrap_or(l.len());
            let word = &l[..word_end];
            if word.is_empty() {
                return None;
            }
            if l[word_end..].trim_start_matches(is_space).starts_with(':') {
                (word, &l[word_end..])
            } else {
                let colon = word[1..].rfind(':')? + 1;
                (&l[..colon], &l[colon..])
            }
        }
    };
    let after = after.trim_start_matches(is_space).strip_prefix(':')?;
    let value = after.trim_matches(is_space);
    Some((key, (!value.is_empty()).then_some(value)))
}

impl<'a> Reader<'a> {
    /// The next line as it is (`_peek` in scalar context).
    fn peek_raw(&self) -> Option<&'a str> {
        self.lines.get(self.at).copied()
    }

    /// The next line without its indent, and the indent (`_peek` in list
    /// context: past the end, Perl reads `("", 0)`).
    fn peek(&self) -> (&'a str, usize) {
        let l = self.peek_raw().unwrap_or("");
        let body = l.trim_start_matches(is_space);
        (body, l.len() - body.len())
    }

    fn next(&mut self) {
        self.at += 1;
    }

    fn past_end(&self) -> bool {
        self.at >= self.lines.len()
    }

    fn read_document(&mut self) -> Result<(), String> {
        let first = self.peek_raw().unwrap_or("");
        let Some(rest) = first.strip_prefix("---") else {
            return Err("YAMLish document header not found".into());
        };
        // `^ --- (?: \s* (.+?)? \s* )? $`: anything after the dashes is an
        // inline scalar (TAP::Parser opens a block at any indented `---…`).
        let inline = rest.trim_matches(is_space);
        self.next();
        if !inline.is_empty() {
            return self.read_scalar(inline);
        }
        let (next, indent) = self.peek();
        // `/^ - /x`: with /x the space is no part of the pattern.
        if next.starts_with('-') {
            self.read_array(indent)
        } else if is_hash_key(next) {
            self.read_hash(next, indent)
        } else if is_end(next) {
            Err("Premature end of YAMLish".into())
        } else {
            Err(format!("Unsupported YAMLish syntax: '{next}'"))
        }
    }

    fn read_scalar(&mut self, s: &str) -> Result<(), String> {
        if matches!(s, "~" | "{}" | "[]") {
            return Ok(());
        }
        if s == ">" || s == "|" {
            let (_, indent) = self.peek();
            loop {
                // Perl would read on past the input, for ever when the
                // scalar sits at indent 0: the port stops.
                if self.past_end() {
                    return Ok(());
                }
                self.next();
                if self.past_end() {
                    return Ok(());
                }
                let (_, ind) = self.peek();
                if ind < indent {
                    return Ok(());
                }
            }
        }
        if s.len() >= 2 && s.starts_with('\'') && s.ends_with('\'') {
            return Ok(());
        }
        if qq_len(s) == Some(s.len()) {
            return Ok(());
        }
        if s.starts_with(['\'', '"']) {
            return Err(
                "TAP::Parser::YAMLish::Reader does not support multi-line quoted scalars".into(),
            );
        }
        Ok(())
    }

    fn read_nested(&mut self) -> Result<(), String> {
        let (line, indent) = self.peek();
        if line.starts_with('-') {
            self.read_array(indent)
        } else if is_hash_key(line) {
            self.read_hash(line, indent)
        } else {
            Err(format!("Unsupported YAMLish syntax: '{line}'"))
        }
    }

    fn read_array(&mut self, limit: usize) -> Result<(), String> {
        loop {
            let (line, indent) = self.peek();
            if indent < limit || self.past_end() || is_end(line) {
                return Ok(());
            }
            if indent > limit {
                return Err("Array line over-indented".into());
            }
            if let Some(dashed) = line.strip_prefix('-') {
                let after_dash = dashed.trim_start_matches(is_space);
                let dash_pad = line.len() - after_dash.len();
                if dash_pad > 1 && starts_hash_entry(after_dash) {
                    self.read_hash(after_dash, indent + dash_pad)?;
                } else if !after_dash.is_empty() {
                    if line.starts_with("---") {
                        return Err("Unexpected start of YAMLish".into());
                    }
                    self.next();
                    self.read_scalar(after_dash.trim_end_matches(is_space))?;
                } else {
                    self.next();
                    self.read_nested()?;
                }
            } else if is_hash_key(line) {
                // Perl moves past this line before reading the hash that
                // starts on it, and the hash reader moves again: the line
                // after it is never read. Ported as it is.
                self.next();
                self.read_hash(line, indent)?;
            } else {
                return Err(format!("Unsupported YAMLish syntax: '{line}'"));
            }
        }
    }

    fn read_hash(&mut self, first: &'a str, limit: usize) -> Result<(), String> {
        let mut line = first;
        loop {
            let Some((key, value)) = hash_line(line) else {
                return Err(format!("Badly formed hash line: '{line}'"));
            };
            self.read_scalar(key)?;
            self.next();
            let (next_line, next_indent) = self.peek();
            let array_next = next_line.starts_with('-')
                && !next_line[1..].trim_start_matches(is_space).is_empty();
            match value {
                Some(v) => self.read_scalar(v)?,
                None if next_indent <= limit && !array_next => {}
                None => self.read_nested()?,
            }
            let (next, indent) = self.peek();
            if indent < limit || self.past_end() || is_end(next) {
                return Ok(());
            }
            line = next;
        }
    }
}

/// `^ (- \s+) \S+ \s* : (?: \s+ | $ )` after the dash and its spaces:
/// a word, then a `:` that ends the line or has a space after it.
fn starts_hash_entry(s: &str) -> bool {
    let word_end = s.find(is_space).unwrap_or(s.len());
    let word = &s[..word_end];
    if word.is_empty() {
        return false;
    }
    // `\S+ \s* :` — the colon may end the word (backtracking) or follow
    // spaces; then a space or the end.
    let colon_ends = |rest: &str| rest.is_empty() || rest.starts_with(is_space);
    let after_spaces = s[word_end..].trim_start_matches(is_space);
    if let Some(rest) = after_spaces.strip_prefix(':')
        && colon_ends(rest)
    {
        return true;
    }
    word.char_indices()
        .skip(1)
        .any(|(i, c)| c == ':' && colon_ends(&s[i + 1..]))
}

#[cfg(test)]
mod tests {
    use super::check;

    fn block(text: &str) -> Result<(), String> {
        let lines: Vec<&str> = text.lines().collect();
        check(&lines)
    }

    #[test]
    fn node_tap_diagnostics_read() {
        block("---\nmessage: 'failed'\nseverity: fail\nat:\n  line: 3\n  file: t.js\nstack: |\n  a\n  b\ndata:\n  - 1\n  - got: 2\n    want: 3\n...").unwrap();
    }

    #[test]
    fn a_line_deeper_than_the_block_with_no_key_above_is_refused() {
        assert_eq!(
            block("---\nmessage: x\n  - y\n...").unwrap_err(),
            "Badly formed hash line: '- y'"
        );
        assert!(block("---\n  - a\n - b\n...").is_err());
    }

    #[test]
    fn empty_and_unterminated_blocks_are_refused() {
        assert_eq!(block("---\n...").unwrap_err(), "Premature end of YAMLish");
        assert!(block("---\nkey: v").is_err());
        assert!(block("---\n%x\n...").is_err());
    }

    #[test]
    fn an_inline_scalar_then_the_end_reads() {
        block("--- hello\n...").unwrap();
        assert!(block("--- hello\nmore\n...").is_err());
    }

    #[test]
    fn quoted_scalars_must_close() {
        block("---\nkey: \"a \\\" b\"\n...").unwrap();
        assert!(block("---\nkey: \"open\n...").is_err());
    }
}
