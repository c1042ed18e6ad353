//! Plain scalars a YAML 1.1 reader reads differently (red team 34).
//!
//! vcc reads YAML 1.2 (serde_yaml). PyYAML, go-yaml v2 and Ruby's Psych —
//! the readers most tools that consume a YAML config use — read YAML 1.1:
//! `country: NO` is `false` there (the Norway problem), `timeout: 1:30`
//! the base-60 integer 90, `mode: 0755` the octal 493, `date: 2024-01-01`
//! a date, and a `<<` key merges another mapping into this one. A file
//! whose meaning depends on the reader is refused where it differs (the
//! line, the scalar and both readings), never judged by one reading: the
//! producer can quote the scalar (`"NO"`) or write the mapping out.
//!
//! The scan is by lines and conservative: it looks at the plain (unquoted,
//! untagged) keys and values of block mappings, sequence items and flow
//! collections; block scalars (`|`, `>`) are skipped.

/// One scalar read differently: its 1-based line, the scalar, and why.
pub struct Difference {
    pub line: u32,
    pub message: String,
}

/// Every plain scalar or `<<` key of `text` whose YAML 1.1 and 1.2
/// readings differ.
pub fn differences(text: &str) -> Vec<Difference> {
    let mut out = Vec::new();
    // The indentation of a block scalar's header line while its body runs.
    let mut block: Option<usize> = None;
    for (i, line) in text.lines().enumerate() {
        let lineno = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let indent = line.len() - line.trim_start_matches(' ').len();
        let body = line.trim();
        if let Some(header) = block {
            if body.is_empty() || indent > header {
                continue;
            }
            block = None;
        }
        if body.is_empty()
            || body.starts_with('#')
            || body.starts_with('%')
            || body == "---"
            || body == "..."
        {
            continue;
        }
        let content = strip_comment(body);
        let content = content
            .strip_prefix("--- ")
            .map(str::trim_start)
            .unwrap_or(content);
        let mut scalars = Vec::new();
        if entry(content, &mut scalars) {
            block = Some(indent);
        }
        for (scalar, key) in scalars {
            if key && scalar == "<<" {
                out.push(Difference {
                    line: lineno,
                    message: "a `<<` merge key: YAML 1.1 readers (PyYAML, go-yaml, Psych) merge the mapping it names into this one, YAML 1.2 reads a key `<<`; write the merged keys out".into(),
                });
                continue;
            }
            if let Some((old, new)) = differ(scalar) {
                out.push(Difference {
                    line: lineno,
                    message: format!(
                        "the plain scalar `{scalar}` reads as {old} in YAML 1.1 (PyYAML, go-yaml v2, Psych) and as {new} in YAML 1.2; quote it or write it so both agree"
                    ),
                });
            }
        }
    }
    out
}

/// The text of a line before an unquoted ` #` comment.
fn strip_comment(s: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut prev = ' ';
    for (i, c) in s.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '#' && prev.is_whitespace() => return s[..i].trim_end(),
            None if (c == '"' || c == '\'') && (prev.is_whitespace() || "[{,:-".contains(prev)) => {
                quote = Some(c);
            }
            None => {}
        }
        prev = c;
    }
    s
}

/// Collect the plain scalars of one line's content (`key: value`, `- item`,
/// flow collections), each with whether it is a key; true when the line
/// opens a block scalar.
fn entry<'a>(mut s: &'a str, out: &mut Vec<(&'a str, bool)>) -> bool {
    // Sequence entries, possibly nested on one line (`- - a`).
    while let Some(rest) = s
        .strip_prefix('-')
        .filter(|r| r.is_empty() || r.starts_with(' '))
    {
        s = rest.trim_start();
    }
    if s.is_empty() {
        return false;
    }
    if s.starts_with('[') || s.starts_with('{') {
        flow(s, out);
        return false;
    }
    match split_key(s) {
        Some((key, value)) => {
            plain(key, true, out);
            value_of(value, out)
        }
        None => value_of(s, out),
    }
}

/// A value: a plain scalar, a flow collection, or a block scalar header.
fn value_of<'a>(s: &'a str, out: &mut Vec<(&'a str, bool)>) -> bool {
    let mut s = s.trim();
    // An anchor stands before the value (`&b 100`, `base: &b`).
    while s.starts_with('&') {
        s = s.split_once(' ').map_or("", |(_, r)| r.trim_start());
    }
    if s.starts_with('|') || s.starts_with('>') {
        return true;
    }
    if s.starts_with('[') || s.starts_with('{') {
        flow(s, out);
        return false;
    }
    plain(s, false, out);
    false
}

/// Where a block mapping key ends: the first unquoted `: ` (or `:` at the
/// end), the key before it and the value after.
fn split_key(s: &str) -> Option<(&str, &str)> {
    if s.starts_with('"') || s.starts_with('\'') {
        // A quoted key: skip to its closing quote.
        let q = s.chars().next()?;
        let close = s[1..].find(q)? + 1;
        let rest = s[close + 1..].trim_start();
        return rest
            .strip_prefix(':')
            .filter(|r| r.is_empty() || r.starts_with(' '))
            .map(|r| (&s[..=close], r));
    }
    let bytes = s.as_bytes();
    (0..bytes.len())
        .find(|&i| bytes[i] == b':' && bytes.get(i + 1).is_none_or(|b| *b == b' '))
        .map(|i| (s[..i].trim_end(), &s[i + 1..]))
}

/// The plain scalars of a flow collection (`[NO, yes]`, `{a: off}`), split
/// at its indicators; quoted ones are not plain.
fn flow<'a>(s: &'a str, out: &mut Vec<(&'a str, bool)>) {
    let mut start = 0;
    let mut quote: Option<char> = None;
    let bytes = s.as_bytes();
    for (i, c) in s.char_indices() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        let key_end = c == ':' && bytes.get(i + 1).is_none_or(|b| b" ,]}".contains(b));
        if c == '"' || c == '\'' {
            quote = Some(c);
        } else if matches!(c, '[' | ']' | '{' | '}' | ',') || key_end {
            plain(s[start..i].trim(), key_end, out);
            start = i + 1;
        }
    }
    plain(s[start..].trim(), false, out);
}

/// Keep a scalar if it is plain: not quoted, not a tag, alias or anchor.
fn plain<'a>(s: &'a str, key: bool, out: &mut Vec<(&'a str, bool)>) {
    let s = s.trim();
    if s.is_empty() || s.starts_with(['"', '\'', '!', '*', '&', '?', '|', '>']) {
        return;
    }
    out.push((s, key));
}

/// The YAML 1.1 and 1.2 readings of a plain scalar, when they differ.
fn differ(s: &str) -> Option<(String, String)> {
    let old = yaml11(s);
    let new = yaml12(s);
    (old != new).then(|| (old.describe(), new.describe()))
}

/// What a plain scalar resolves to.
#[derive(PartialEq, Debug)]
enum Reading {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Timestamp,
    Str,
}

impl Reading {
    fn describe(&self) -> String {
        match self {
            Reading::Null => "null".into(),
            Reading::Bool(b) => format!("the boolean {b}"),
            Reading::Int(i) => format!("the integer {i}"),
            Reading::Float(f) => format!("the number {f}"),
            Reading::Timestamp => "a date/time".into(),
            Reading::Str => "a string".into(),
        }
    }
}

/// The YAML 1.2 reading, as vcc's reader (serde_yaml) resolves it.
fn yaml12(s: &str) -> Reading {
    match serde_yaml::from_str::<serde_yaml::Value>(s) {
        Ok(serde_yaml::Value::Null) => Reading::Null,
        Ok(serde_yaml::Value::Bool(b)) => Reading::Bool(b),
        Ok(serde_yaml::Value::Number(n)) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => Reading::Int(i128::from(i)),
            (_, Some(u), _) => Reading::Int(i128::from(u)),
            (_, _, Some(f)) => Reading::Float(f),
            _ => Reading::Str,
        },
        _ => Reading::Str,
    }
}

/// The YAML 1.1 reading (the 1.1 type repository: bool, int, float, null,
/// timestamp), as PyYAML and go-yaml v2 resolve a plain scalar.
fn yaml11(s: &str) -> Reading {
    if matches!(s, "~" | "null" | "Null" | "NULL") {
        return Reading::Null;
    }
    if matches!(
        s,
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON"
    ) {
        return Reading::Bool(true);
    }
    if matches!(
        s,
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF"
    ) {
        return Reading::Bool(false);
    }
    if let Some(i) = int11(s) {
        return Reading::Int(i);
    }
    if let Some(f) = float11(s) {
        return Reading::Float(f);
    }
    if timestamp11(s) {
        return Reading::Timestamp;
    }
    Reading::Str
}

/// A YAML 1.1 integer: `_` allowed between digits, `0b`, `0x`, a leading
/// `0` for octal, and base 60 (`1:30`).
fn int11(s: &str) -> Option<i128> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let digits = |t: &str, radix: u32| -> Option<i128> {
        let t: String = t.chars().filter(|c| *c != '_').collect();
        if t.is_empty() || !t.chars().all(|c| c.is_digit(radix)) {
            return None;
        }
        i128::from_str_radix(&t, radix).ok()
    };
    let value = if let Some(b) = body.strip_prefix("0b") {
        digits(b, 2)?
    } else if let Some(x) = body.strip_prefix("0x") {
        digits(x, 16)?
    } else if body == "0" {
        0
    } else if let Some(o) = body.strip_prefix('0') {
        digits(o, 8)?
    } else if body.contains(':') {
        // Base 60: [1-9][0-9_]*(:[0-5]?[0-9])+
        let mut parts = body.split(':');
        let mut v = digits(parts.next()?, 10)?;
        if body.starts_with('0') {
            return None;
        }
        for p in parts {
            if p.is_empty() || p.len() > 2 || !p.chars().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let d = digits(p, 10)?;
            if d > 59 {
                return None;
            }
            v = v.checked_mul(60)?.checked_add(d)?;
        }
        v
    } else if body.starts_with(|c: char| c.is_ascii_digit()) {
        digits(body, 10)?
    } else {
        return None;
    };
    Some(if neg { -value } else { value })
}

/// A YAML 1.1 float: `[-+]?([0-9][0-9_]*)?\.[0-9.]*([eE][-+][0-9]+)?`,
/// base 60 with a fraction, `.inf`, `.nan`.
fn float11(s: &str) -> Option<f64> {
    match s {
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => return Some(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => return Some(f64::NEG_INFINITY),
        // NaN is never equal to itself: any number stands for it here.
        ".nan" | ".NaN" | ".NAN" => return Some(f64::MAX),
        _ => {}
    }
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(e) => (&body[..e], Some(&body[e + 1..])),
        None => (body, None),
    };
    if let Some(exp) = exponent {
        let digits = exp.strip_prefix(['-', '+'])?;
        if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
    }
    let value = if mantissa.contains(':') {
        // Base 60 with a fraction: [0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*
        let (whole, frac) = mantissa.rsplit_once('.')?;
        let int = int11(whole)?;
        let frac: String = frac.chars().filter(|c| *c != '_').collect();
        int as f64 + format!("0.{frac}0").parse::<f64>().ok()?
    } else {
        let (whole, frac) = mantissa.split_once('.')?;
        // The whole part is empty or digits (first a digit) and `_`.
        let whole_ok = whole.is_empty()
            || (whole.starts_with(|c: char| c.is_ascii_digit())
                && whole.chars().all(|c| c.is_ascii_digit() || c == '_'));
        if !whole_ok {
            return None;
        }
        if !frac
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '_')
        {
            return None;
        }
        let text: String = format!("0{whole}.{frac}0")
            .chars()
            .filter(|c| *c != '_')
            .collect();
        let text = match exponent {
            Some(e) => format!("{text}e{e}"),
            None => text,
        };
        // `1.2.3` is a 1.1 float PyYAML cannot convert: not a number
        // either reader agrees on.
        text.parse::<f64>().unwrap_or(f64::MIN)
    };
    Some(if neg { -value } else { value })
}

/// A YAML 1.1 timestamp: `YYYY-MM-DD`, optionally followed by a time.
fn timestamp11(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 8
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && s[5..]
            .split(['-', 'T', 't', ' '])
            .take(2)
            .all(|p| !p.is_empty() && p.len() <= 2 && p.chars().all(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<u32> {
        differences(text).iter().map(|d| d.line).collect()
    }

    #[test]
    fn yaml11_booleans_numbers_and_dates_are_refused() {
        assert_eq!(lines("country: NO\nname: Oslo office\n"), vec![1]);
        assert_eq!(lines("debug: off\nx: [a, yes]\n- y\n"), vec![1, 2, 3]);
        assert_eq!(lines("timeout: 1:30\n"), vec![1]);
        assert_eq!(lines("mode: 0755\nk: 1_000\ne: 1e3\n"), vec![1, 2, 3]);
        // A key too: `n` is false to go-yaml v2.
        assert_eq!(lines("n: 1\n"), vec![1]);
        assert_eq!(lines("when: 2024-01-01\n"), vec![1]);
        assert_eq!(lines("on: push\n"), vec![1]);
        let d = differences("country: NO\n");
        assert!(d[0].message.contains("boolean false"), "{}", d[0].message);
    }

    #[test]
    fn merge_keys_are_refused() {
        let text = "base: &b\n  replicas: 100\nservice:\n  <<: *b\n  name: api\n";
        assert_eq!(lines(text), vec![4]);
        assert_eq!(lines("s: {<<: *b, name: api}\n"), vec![1]);
    }

    #[test]
    fn what_both_read_alike_is_not_refused() {
        let text = "a: \"NO\"\nb: 'off'\nc: true\nd: 12\ne: 1.5\nf: null\ng: ~\nh: text with: colon\n\
                    i: !!str yes\nj: |\n  NO\n  off\nk: >-\n  yes\nl: 0x1F\nm: -3\no: 0\nbb: 0b11\n# NO: yes\np: x # off\n\
                    - item\n- 'NO'\nq: 1.0e+3\nr: [1, two, 'NO']\n";
        assert_eq!(lines(text), Vec::<u32>::new());
    }
}
