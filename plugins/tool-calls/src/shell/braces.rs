//! Brace expansion as bash does it before anything else reads a word:
//! `{git,push}` is the two words `git push`, `{g..g}it` is `git`
//! (red team 34). Quotes are not looked at: expanding a quoted brace only
//! finds more candidates, the strict side for `max`.

/// How many words one word may expand to (a bound on work).
const LIMIT: usize = 64;

/// A piece with every word that holds a brace expression replaced by
/// the words it expands to, joined by spaces.
pub fn expand_words(piece: &str) -> String {
    if !piece.contains('{') {
        return piece.to_string();
    }
    piece
        .split(' ')
        .map(|w| {
            let mut out = Vec::new();
            expand(w, &mut out);
            out.join(" ")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The words one word expands to (itself when it holds no brace
/// expression), at most `LIMIT`.
fn expand(word: &str, out: &mut Vec<String>) {
    if out.len() >= LIMIT {
        return;
    }
    let Some((open, close, alternatives)) = first_expression(word) else {
        out.push(word.to_string());
        return;
    };
    for alt in alternatives {
        if out.len() >= LIMIT {
            return;
        }
        expand(
            &format!("{}{}{}", &word[..open], alt, &word[close + 1..]),
            out,
        );
    }
}

/// The first `{…}` that is a brace expression (a `,` at its own depth, or
/// a `x..y` sequence of letters or integers): where it opens and closes,
/// and its alternatives.
fn first_expression(word: &str) -> Option<(usize, usize, Vec<String>)> {
    let bytes = word.as_bytes();
    for open in (0..bytes.len()).filter(|&i| bytes[i] == b'{') {
        // `${x}` is a parameter, not a brace expression.
        if open > 0 && bytes[open - 1] == b'$' {
            continue;
        }
        let mut depth = 0;
        let mut commas = Vec::new();
        let mut close = None;
        for (i, &b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(i);
                        break;
                    }
                }
                b',' if depth == 1 => commas.push(i),
                _ => {}
            }
        }
        let Some(close) = close else { continue };
        let inner = &word[open + 1..close];
        if !commas.is_empty() {
            let mut alts = Vec::new();
            let mut from = open + 1;
            for c in commas {
                alts.push(word[from..c].to_string());
                from = c + 1;
            }
            alts.push(word[from..close].to_string());
            return Some((open, close, alts));
        }
        if let Some(alts) = sequence(inner) {
            return Some((open, close, alts));
        }
    }
    None
}

/// `a..e` or `1..3` (an optional `..step` ignored: every value between is
/// a superset), at most `LIMIT` values.
fn sequence(inner: &str) -> Option<Vec<String>> {
    let mut parts = inner.split("..");
    let (a, b) = (parts.next()?, parts.next()?);
    if let (Ok(x), Ok(y)) = (a.parse::<i64>(), b.parse::<i64>()) {
        let (lo, hi) = (x.min(y), x.max(y));
        return Some((lo..=hi).take(LIMIT).map(|n| n.to_string()).collect());
    }
    let (mut x, mut y) = (a.chars(), b.chars());
    let (Some(x), None, Some(y), None) = (x.next(), x.next(), y.next(), y.next()) else {
        return None;
    };
    let (lo, hi) = (x.min(y), x.max(y));
    Some((lo..=hi).take(LIMIT).map(String::from).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn braces_expand_to_words() {
        assert_eq!(expand_words("{git,push} --force"), "git push --force");
        assert_eq!(expand_words("{g..g}it push"), "git push");
        assert_eq!(expand_words("git pu{s,}h"), "git push puh");
        assert_eq!(expand_words("echo ${x} {}"), "echo ${x} {}");
        assert_eq!(expand_words("a{1..3}"), "a1 a2 a3");
    }
}
