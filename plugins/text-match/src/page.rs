//! The text a browser shows of the HTML in a file (a `.html` page, the raw
//! HTML of a Markdown file), read apart from the shared Markdown reading
//! (plugins/common `markdown`), for must_not_match (issue 34, red team D):
//!
//! - character references decoded (`T&#79;DO`, numeric ones without `;`
//!   too, as browsers decode them);
//! - what attributes put on the page: `alt` (an image that does not load
//!   shows it), `value`, `placeholder` and `label` (form controls,
//!   `<option label>`), `title` (a tooltip), read in place;
//! - `<textarea>` text, decoded (the box shows it);
//! - a CDATA section as text (inside `<svg>` and `<math>` it is drawn);
//! - ruby annotations (`<rt>`, `<rp>`) left out: `<ruby>T<rt>x</rt></ruby>ODO`
//!   shows `TODO` on the line (the shared reading keeps the annotation in
//!   line; both readings are tried);
//! - in Markdown, an autolink's text percent-decoded, as markdown-it shows
//!   `<https://example.com/T%4FDO>`;
//! - inline tags joined, other tags a line break; `<script>`, `<style>`,
//!   `<template>` and comments left out.
//!
//! It could move to plugins/common `markdown` (owned apart this round).

/// Tags that do not break the line: the text around them joins (those
/// that show nothing, `<script>`, break nothing either).
const INLINE: [&str; 48] = [
    "a", "abbr", "b", "bdi", "bdo", "big", "button", "cite", "code", "data", "del", "dfn", "em",
    "font", "i", "img", "input", "ins", "kbd", "label", "mark", "meter", "output", "progress", "q",
    "rb", "rp", "rt", "ruby", "s", "samp", "script", "style", "template", "select", "small",
    "span", "strike", "strong", "sub", "sup", "svg", "text", "textarea", "time", "tspan", "tt",
    "u",
];

/// Elements whose content is not shown as text.
const NOT_SHOWN: [&str; 5] = ["script", "style", "template", "rt", "rp"];

/// Attributes whose value a reader may be shown.
const SHOWN_ATTRS: [&str; 5] = ["alt", "value", "placeholder", "label", "title"];

/// How far (in characters) a tag may run.
const TAG_WINDOW: usize = 4096;

/// The text as built, each character with its offset in the source.
#[derive(Default)]
pub struct Mapped {
    chars: Vec<(usize, char)>,
}

impl Mapped {
    pub fn push(&mut self, at: usize, c: char) {
        self.chars.push((at, c));
    }

    fn push_str(&mut self, at: usize, s: &str) {
        self.chars.extend(s.chars().map(|c| (at, c)));
    }

    /// The lines, each with the source offset of its first character,
    /// blanks collapsed; empty lines dropped.
    pub fn lines(self) -> Vec<(usize, String)> {
        let mut out = Vec::new();
        for part in self.chars.split(|(_, c)| *c == '\n') {
            let line: String = part.iter().map(|(_, c)| *c).collect();
            let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
            if let Some((at, _)) = part.first()
                && !line.is_empty()
            {
                out.push((*at, line));
            }
        }
        out
    }
}

/// The lines a browser shows of `text`; `markdown` reads autolinks.
pub fn lines(text: &str, markdown: bool) -> Vec<(usize, String)> {
    let mut out = Mapped::default();
    // The element whose content is not shown, until its end tag.
    let mut skip: Option<String> = None;
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        if rest.starts_with("<!--") {
            i += rest.find("-->").map_or(rest.len(), |e| e + 3);
            continue;
        }
        if rest.starts_with("<![CDATA[") {
            let end = rest.find("]]>").unwrap_or(rest.len());
            if skip.is_none() {
                out.push_str(i, &rest[9..end.max(9)]);
            }
            i += (end + 3).min(rest.len());
            continue;
        }
        if markdown
            && skip.is_none()
            && let Some(len) = autolink(rest)
        {
            out.push_str(i, &percent_decoded(&rest[1..len - 1]));
            i += len;
            continue;
        }
        if let Some((len, closing, name, attrs)) = tag(rest) {
            i += len;
            if let Some(open) = &skip {
                if closing && *open == name {
                    skip = None;
                }
                continue;
            }
            if !closing && NOT_SHOWN.contains(&name.as_str()) && !attrs.trim_end().ends_with('/') {
                skip = Some(name.clone());
            }
            if !INLINE.contains(&name.as_str()) {
                out.push(i - len, '\n');
            }
            if !closing {
                for a in SHOWN_ATTRS {
                    if let Some(v) = attr(&attrs, a) {
                        decode_into(&mut out, i - len, &v);
                    }
                }
            }
            continue;
        }
        let Some(c) = rest.chars().next() else { break };
        if skip.is_some() {
            i += c.len_utf8();
            continue;
        }
        if c == '&'
            && let Some((d, len)) = reference(rest)
        {
            out.push(i, d);
            i += len;
            continue;
        }
        // Text in a `<textarea>` too: decoded, shown in the box.
        out.push(i, c);
        i += c.len_utf8();
    }
    out.lines()
}

/// The length of a CommonMark autolink `<scheme:…>` at the start of `s`.
fn autolink(s: &str) -> Option<usize> {
    let body = s.strip_prefix('<')?;
    // A scheme is at most 32 characters: look no further for its colon.
    let colon = body.char_indices().take(34).find(|(_, c)| *c == ':')?.0;
    let scheme = &body[..colon];
    let ok = (2..=32).contains(&scheme.len())
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c));
    if !ok {
        return None;
    }
    let end = body.find(|c: char| c == '>' || c == '<' || c.is_whitespace() || c.is_control())?;
    body[end..].starts_with('>').then_some(end + 2)
}

/// `%XX` sequences decoded where they make UTF-8 (markdown-it's
/// normalizeLinkText); others stay as written.
pub fn percent_decoded(s: &str) -> String {
    let b = s.as_bytes();
    let mut bytes = Vec::with_capacity(b.len());
    let mut k = 0;
    while k < b.len() {
        if b[k] == b'%'
            && let Some(v) = s
                .get(k + 1..k + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            bytes.push(v);
            k += 3;
            continue;
        }
        bytes.push(b[k]);
        k += 1;
    }
    String::from_utf8(bytes).unwrap_or_else(|_| s.to_string())
}

/// A tag at the start of `s`: (length, closing, lower-case name, the
/// attribute text).
fn tag(s: &str) -> Option<(usize, bool, String, String)> {
    let body = s.strip_prefix('<')?;
    let (closing, body) = match body.strip_prefix('/') {
        Some(b) => (true, b),
        None => (false, body),
    };
    if !body.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let name_len = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == ':'))
        .unwrap_or(body.len());
    let name = body[..name_len].to_ascii_lowercase();
    let mut quote = None;
    // A window is enough for a tag: scanning the whole rest at every `<`
    // of a file without `>` would be quadratic.
    for (k, c) in body[name_len..].char_indices().take(TAG_WINDOW) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, '>') => {
                let attrs = body[name_len..name_len + k].to_string();
                let len = s.len() - body.len() + name_len + k + 1;
                return Some((len, closing, name, attrs));
            }
            _ => {}
        }
    }
    None
}

/// The value of attribute `name` (case-insensitive), as written.
fn attr(attrs: &str, name: &str) -> Option<String> {
    let mut rest = attrs;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '/');
        if rest.is_empty() {
            return None;
        }
        let n = rest
            .find(|c: char| c.is_whitespace() || c == '=' || c == '/')
            .unwrap_or(rest.len());
        let key = &rest[..n];
        rest = rest[n..].trim_start();
        let value = if let Some(v) = rest.strip_prefix('=') {
            let v = v.trim_start();
            let (value, len) = match v.chars().next() {
                Some(q @ ('"' | '\'')) => {
                    let end = v[1..].find(q).map_or(v.len(), |e| e + 1);
                    (&v[1..end], (end + 1).min(v.len()))
                }
                _ => {
                    let end = v.find(char::is_whitespace).unwrap_or(v.len());
                    (&v[..end], end)
                }
            };
            rest = &v[len..];
            value
        } else {
            ""
        };
        if key.eq_ignore_ascii_case(name) {
            return Some(value.to_string());
        }
    }
}

/// `s` with its character references decoded, pushed at `at`.
fn decode_into(out: &mut Mapped, at: usize, s: &str) {
    let mut k = 0;
    while let Some(c) = s[k..].chars().next() {
        if c == '&'
            && let Some((d, len)) = reference(&s[k..])
        {
            out.push(at, d);
            k += len;
        } else {
            out.push(at, c);
            k += c.len_utf8();
        }
    }
}

/// A character reference at the start of `s`: (character, length).
/// Numeric ones are decoded without their `;` too, as browsers do.
pub fn reference(s: &str) -> Option<(char, usize)> {
    let body = s.strip_prefix('&')?;
    if let Some(num) = body.strip_prefix('#') {
        let (hex, digits) = match num.strip_prefix(['x', 'X']) {
            Some(h) => (true, h),
            None => (false, num),
        };
        let n = digits
            .find(|c: char| {
                !(if hex {
                    c.is_ascii_hexdigit()
                } else {
                    c.is_ascii_digit()
                })
            })
            .unwrap_or(digits.len());
        if n == 0 {
            return None;
        }
        let v = u32::from_str_radix(&digits[..n], if hex { 16 } else { 10 }).ok()?;
        let c = char::from_u32(v).unwrap_or('\u{fffd}');
        let semi = usize::from(digits[n..].starts_with(';'));
        return Some((c, 1 + 1 + usize::from(hex) + n + semi));
    }
    let n = body
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(body.len());
    if !body[n..].starts_with(';') {
        return None;
    }
    let c = match &body[..n] {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" | "ensp" | "emsp" | "thinsp" => ' ',
        "colon" => ':',
        "period" => '.',
        "comma" => ',',
        "lpar" => '(',
        "rpar" => ')',
        "lowbar" => '_',
        "hyphen" | "dash" => '-',
        "Tab" => '\t',
        "NewLine" => '\n',
        "zwsp" | "ZeroWidthSpace" | "zwj" | "zwnj" | "shy" => '\u{200b}',
        _ => return None,
    };
    Some((c, n + 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(text: &str, markdown: bool) -> Vec<String> {
        lines(text, markdown).into_iter().map(|(_, l)| l).collect()
    }

    #[test]
    fn what_a_browser_shows_is_read() {
        let t = texts("Done. <img src=\"m.png\" alt=\"T&#79;DO: x\">", true);
        assert_eq!(t, vec!["Done. TODO: x"]);
        let t = texts(
            "<input value=\"T&#79;DO\"> <input placeholder='T&#x4f;DO'>",
            true,
        );
        assert_eq!(t, vec!["TODO TODO"]);
        assert_eq!(texts("<textarea>T&#79;DO</textarea>", true), vec!["TODO"]);
        let t = texts("<svg><text><![CDATA[T]]>ODO</text></svg>", true);
        assert_eq!(t, vec!["TODO"]);
        assert_eq!(texts("<ruby>T<rt>x</rt></ruby>ODO", true), vec!["TODO"]);
        assert_eq!(
            texts("<ruby>T<rp>(</rp><rt>x</rt><rp>)</rp></ruby>ODO", true),
            vec!["TODO"]
        );
        assert_eq!(
            texts("<p>Done.</p><p>T&#79DO</p>", false),
            vec!["Done.", "TODO"]
        );
        assert_eq!(
            texts("<https://e.com/T%4FDO>", true),
            vec!["https://e.com/TODO"]
        );
        assert_eq!(texts("<https://e.com/T%4FDO>", false), Vec::<String>::new());
        let t = texts("a<script>T&#79;DO</script>b<!-- T&#79;DO -->c", true);
        assert_eq!(t, vec!["abc"]);
        // Many `<` without `>` read in linear time.
        let long = "<a ".repeat(200_000);
        assert_eq!(lines(&long, true).len(), 1);
    }

    #[test]
    fn lines_point_at_their_source() {
        let doc = "one\n<p>T&#79;DO</p>\n";
        let l = lines(doc, false);
        assert_eq!(l.last().map(|(at, t)| (*at, t.as_str())), Some((7, "TODO")));
        assert_eq!(reference("&#79"), Some(('O', 4)));
        assert_eq!(reference("&amp;"), Some(('&', 5)));
        assert_eq!(reference("&bogus;"), None);
        assert_eq!(percent_decoded("%E2%9C%93 %zz"), "\u{2713} %zz");
    }
}
