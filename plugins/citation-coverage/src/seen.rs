//! What a reader sees of a Markdown document, for citations (issue 34):
//! the source ranges a browser hides (the shared reading,
//! plugins/common `markdown::hidden_ranges`: the same rules the other
//! Markdown validators read by), images, the link reference definitions
//! CommonMark makes outside them, and the visible text of a paragraph: tags
//! left out (an attribute's URL is no citation), an `<a href>` with text a
//! Markdown link, a link with no visible text left out, character
//! references decoded, blank characters made spaces.

use std::ops::Range;
use std::sync::OnceLock;

use pulldown_cmark::{Event, Options, Parser, Tag};
use vcc_plugin_common::markdown::hidden;
use vcc_plugin_common::text::is_default_ignorable;
use vcc_plugin_common::{Regex, regex};

/// Elements whose text is shown but is not prose (no claims) in an
/// HTML block.
const NOT_PROSE: [&str; 5] = ["pre", "code", "table", "kbd", "samp"];

/// How far (in characters) a tag may run.
const TAG_WINDOW: usize = 4096;

/// How many characters from a `<` to the first `>` outside quotes, that
/// included (to the window's end if there is none).
fn tag_len(chars: &[(usize, char)]) -> usize {
    let mut quote = None;
    for (k, &(_, c)) in chars.iter().enumerate().take(TAG_WINDOW) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, '>') => return k + 1,
            _ => {}
        }
    }
    chars.len().min(TAG_WINDOW)
}

/// Inline elements: leaving their tags out joins the text around them.
const INLINE: [&str; 18] = [
    "a", "abbr", "b", "cite", "code", "em", "font", "i", "kbd", "mark", "q", "s", "small", "span",
    "strong", "sub", "sup", "u",
];

/// A line as a reader sees it: each kept character with its offset.
pub type SeenLine = Vec<(usize, char)>;

/// The document as CommonMark reads it, for what is hidden.
pub struct Seen {
    /// Source ranges no reader sees, sorted by start.
    pub hidden: Vec<Range<usize>>,
    /// Link reference definitions outside hidden ranges: (label, offset).
    pub definitions: Vec<(String, usize)>,
    /// The source range of each HTML block.
    pub blocks: Vec<Range<usize>>,
    /// Where each element starts that an inline style hides only in some
    /// layouts (`left:-9999px`, `width:0`, `clip-path`, `scale(0)`).
    pub by_layout: Vec<usize>,
}

impl Seen {
    pub fn read(text: &str) -> Seen {
        let shared = hidden(text);
        let by_layout = shared.by_layout;
        let mut hidden = shared.ranges;
        let mut blocks = Vec::new();
        let mut events = Parser::new_ext(text, Options::empty()).into_offset_iter();
        for (event, range) in events.by_ref() {
            match event {
                // An image is not text a reader reads, nor a citation.
                Event::Start(Tag::Image { .. }) => hidden.push(range),
                Event::Start(Tag::HtmlBlock) => blocks.push(range),
                _ => {}
            }
        }
        hidden.sort_by_key(|r| r.start);
        // Merged, so a binary search finds the one range that may hold an
        // offset (a large document has many).
        let mut merged: Vec<Range<usize>> = Vec::with_capacity(hidden.len());
        for r in hidden {
            match merged.last_mut() {
                Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
                _ => merged.push(r),
            }
        }
        let hidden = merged;
        let mut definitions = Vec::new();
        let seen = Seen {
            hidden,
            definitions: Vec::new(),
            blocks,
            by_layout,
        };
        for (label, def) in events.reference_definitions().iter() {
            if !seen.is_hidden(def.span.start) {
                definitions.push((label.to_string(), def.span.start));
            }
        }
        Seen {
            definitions,
            ..seen
        }
    }

    pub fn is_hidden(&self, at: usize) -> bool {
        let i = self.hidden.partition_point(|r| r.start <= at);
        i > 0 && self.hidden[i - 1].contains(&at)
    }

    /// The lines of `range` with hidden ranges cut out, each trimmed of
    /// indentation and block-quote markers, with the source offset of
    /// each kept character; blank lines dropped.
    pub fn lines(&self, text: &str, range: Range<usize>) -> Vec<SeenLine> {
        let mut out = Vec::new();
        let mut at = range.start;
        for line in text[range].split_inclusive('\n') {
            let start = at;
            at += line.len();
            let kept: Vec<(usize, char)> = line
                .char_indices()
                .map(|(i, c)| (start + i, c))
                .filter(|(pos, _)| !self.is_hidden(*pos))
                .collect();
            let lead = kept
                .iter()
                .take_while(|(_, c)| c.is_whitespace() || *c == '>')
                .count();
            let mut kept = kept[lead..].to_vec();
            while kept.last().is_some_and(|(_, c)| c.is_whitespace()) {
                kept.pop();
            }
            if !kept.is_empty() {
                out.push(kept);
            }
        }
        out
    }
}

/// Whether a GFM table starts at some line of a paragraph: a header row
/// followed by a delimiter row with as many cells (`| a | b |` then
/// `|---|:-:|`). Lines only starting with `|` are no table.
pub fn table_start(lines: &[String]) -> Option<usize> {
    (1..lines.len()).find_map(|i| {
        let header = &lines[i - 1];
        let delim = &lines[i];
        let cells = delimiter_cells(delim)?;
        let piped = header.contains('|') || delim.contains('|');
        (piped && row_cells(header) == cells).then_some(i - 1)
    })
}

fn strip_pipes(row: &str) -> &str {
    let row = row.trim();
    let row = row.strip_prefix('|').unwrap_or(row);
    row.strip_suffix('|').unwrap_or(row)
}

fn row_cells(row: &str) -> usize {
    // Escaped pipes (`\|`) do not split cells.
    strip_pipes(row).replace("\\|", "").split('|').count()
}

fn delimiter_cells(row: &str) -> Option<usize> {
    let cells: Vec<&str> = strip_pipes(row).split('|').map(str::trim).collect();
    cells
        .iter()
        .all(|c| {
            let c = c.strip_prefix(':').unwrap_or(c);
            let c = c.strip_suffix(':').unwrap_or(c);
            !c.is_empty() && c.chars().all(|ch| ch == '-')
        })
        .then_some(cells.len())
}

/// Characters that show as blank: they separate words like a space.
/// Unicode White_Space, the Braille blank and the Hangul fillers.
pub fn is_blank(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '\u{2800}' | '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}'
        )
}

/// Words a reader sees: runs between blank characters holding a letter or
/// digit.
pub fn words(text: &str) -> usize {
    text.split(is_blank)
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .count()
}

/// The visible text of a paragraph's source (hidden ranges already cut),
/// and for each byte of it the index in `chars` it comes from. In an HTML
/// `block`, the text of `<pre>`, `<code>`, `<table>` … is left out: shown,
/// but no prose.
pub fn visible(chars: &[(usize, char)], block: bool) -> (String, Vec<usize>) {
    let mut out = Out::default();
    // How many elements that are not prose are open now.
    let mut not_prose = 0usize;
    // Inside a `<caption>` of a table (not prose around it).
    let mut caption = false;
    // An open `<a href>`: where its text starts in `out`, and its target.
    let mut anchor: Option<(usize, String)> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i].1;
        let escaped = i > 0 && chars[i - 1].1 == '\\';
        if c == '<' && !escaped {
            // A window is enough for a tag; building the whole rest at
            // every `<` would be quadratic.
            let rest: String = chars[i..i + tag_len(&chars[i..])]
                .iter()
                .map(|(_, c)| *c)
                .collect();
            if let Some((len, closing, name, attrs)) = parse_tag(&rest) {
                if block && NOT_PROSE.contains(&name.as_str()) {
                    not_prose = if closing {
                        not_prose.saturating_sub(1)
                    } else {
                        not_prose + 1
                    };
                }
                // A `<caption>` is a sentence shown above its table: prose.
                if block && name == "caption" {
                    if !closing && !caption && not_prose > 0 {
                        not_prose -= 1;
                        caption = true;
                    } else if closing && caption {
                        not_prose += 1;
                        caption = false;
                    }
                }
                // An image that does not load shows its `alt` text, a form
                // control its `value` or `placeholder`: text a reader
                // reads, in place, so its words are a claim's. Never a
                // citation (the image may load, the text is no link):
                // brackets and colons in it are read as blanks.
                if !closing && not_prose == 0 && ["img", "input", "area"].contains(&name.as_str()) {
                    for a in ["alt", "value", "placeholder"] {
                        if let Some(v) = attr(&attrs, a) {
                            out.push(' ', i);
                            let shown: Vec<(usize, char)> = v.chars().map(|c| (i, c)).collect();
                            let mut k = 0;
                            while k < shown.len() {
                                match entity(&shown[k..]) {
                                    Some((d, len)) if shown[k].1 == '&' => {
                                        out.push_char(no_citing(d), i);
                                        k += len;
                                    }
                                    _ => {
                                        out.push_char(no_citing(shown[k].1), i);
                                        k += 1;
                                    }
                                }
                            }
                            out.push(' ', i);
                        }
                    }
                }
                if name == "a"
                    && !closing
                    && let Some(href) = attr(&attrs, "href")
                {
                    anchor = Some((out.text.len(), href));
                    out.push('[', i);
                } else if name == "a"
                    && closing
                    && let Some((from, href)) = anchor.take()
                {
                    // Only a link with visible text cites: `[text](href)`.
                    if out.text[from + 1..].chars().all(|c| c.is_whitespace()) {
                        out.truncate(from);
                    } else {
                        out.push_str(&format!("]({href})"), i);
                    }
                } else if !INLINE.contains(&name.as_str()) {
                    out.push(' ', i);
                }
                i += rest[..len].chars().count();
                continue;
            }
        }
        if not_prose > 0 {
            i += 1;
            continue;
        }
        if c == '&'
            && let Some((decoded, len)) = entity(&chars[i..])
        {
            out.push_char(decoded, i);
            i += len;
            continue;
        }
        out.push_char(c, i);
        i += 1;
    }
    drop_blank_links(out.text, out.map)
}

/// A character of shown attribute text, made unable to form a citation.
fn no_citing(c: char) -> char {
    if "[]():<>".contains(c) { ' ' } else { c }
}

#[derive(Default)]
struct Out {
    text: String,
    map: Vec<usize>,
}

impl Out {
    fn push(&mut self, c: char, from: usize) {
        self.text.push(c);
        self.map.extend(std::iter::repeat_n(from, c.len_utf8()));
    }

    /// A character as seen: blanks become a space, characters that show
    /// nothing (zero-width, bidi controls) are left out.
    fn push_char(&mut self, c: char, from: usize) {
        if is_blank(c) {
            self.push(' ', from);
        } else if !is_default_ignorable(c) {
            self.push(c, from);
        }
    }

    fn push_str(&mut self, s: &str, from: usize) {
        for c in s.chars() {
            self.push(c, from);
        }
    }

    fn truncate(&mut self, at: usize) {
        self.text.truncate(at);
        self.map.truncate(at);
    }
}

/// Leave out Markdown links whose text shows nothing (`[ ](url)`,
/// `[&nbsp;](url)`, `[<!-- -->](url)`, `[](url)`): nothing to read or
/// click, so no citation, and their URL is no bare URL either.
fn drop_blank_links(text: String, map: Vec<usize>) -> (String, Vec<usize>) {
    let Some(re) = blank_link() else {
        return (text, map);
    };
    let mut out = String::new();
    let mut out_map = Vec::new();
    let mut last = 0;
    for m in re.find_iter(&text) {
        out.push_str(&text[last..m.start()]);
        out_map.extend_from_slice(&map[last..m.start()]);
        last = m.end();
    }
    out.push_str(&text[last..]);
    out_map.extend_from_slice(&map[last..]);
    (out, out_map)
}

/// Compiled once: a document has thousands of paragraphs.
fn blank_link() -> Option<&'static Regex> {
    static BLANK_LINK: OnceLock<Option<Regex>> = OnceLock::new();
    BLANK_LINK
        .get_or_init(|| regex(r"!?\[\s*\]\([^()]*\)", false).ok())
        .as_ref()
}

/// `<name attrs>` or `</name>`: its length in bytes, whether closing, the
/// lower-case name and the attributes' source. `None` if it is no tag
/// (`<https://…>` is an autolink, `a < b` text).
fn parse_tag(s: &str) -> Option<(usize, bool, String, String)> {
    let body = s.strip_prefix('<')?;
    let (closing, body) = match body.strip_prefix('/') {
        Some(b) => (true, b),
        None => (false, body),
    };
    let name_len = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(body.len());
    let name = &body[..name_len];
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let after = &body[name_len..];
    if !after.starts_with(|c: char| c.is_whitespace() || c == '/' || c == '>') {
        return None;
    }
    // The closing `>`, outside quoted attribute values.
    let mut quote = None;
    for (i, c) in after.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, '>') => {
                let len = s.len() - after.len() + i + 1;
                return Some((
                    len,
                    closing,
                    name.to_ascii_lowercase(),
                    after[..i].to_string(),
                ));
            }
            _ => {}
        }
    }
    None
}

/// An attribute's value (`""` for one without a value), by name.
fn attr(attrs: &str, name: &str) -> Option<String> {
    let mut rest = attrs.trim_start_matches('/');
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '/');
        if rest.is_empty() {
            return None;
        }
        let end = rest
            .find(|c: char| c.is_whitespace() || c == '=' || c == '/')
            .unwrap_or(rest.len());
        let key = rest[..end].to_ascii_lowercase();
        rest = rest[end..].trim_start();
        let mut value = String::new();
        if let Some(v) = rest.strip_prefix('=') {
            let v = v.trim_start();
            let (val, tail) = match v.chars().next() {
                Some(q @ ('"' | '\'')) => {
                    let inner = &v[1..];
                    let close = inner.find(q).unwrap_or(inner.len());
                    (&inner[..close], inner.get(close + 1..).unwrap_or(""))
                }
                _ => {
                    let close = v.find(char::is_whitespace).unwrap_or(v.len());
                    (&v[..close], &v[close..])
                }
            };
            value = val.to_string();
            rest = tail;
        }
        if key == name {
            return Some(value);
        }
    }
}

/// A character reference at the start of `chars` (`&#32;`, `&#x20;`,
/// `&nbsp;`): the character and how many chars it spans.
fn entity(chars: &[(usize, char)]) -> Option<(char, usize)> {
    let s: String = chars.iter().take(40).map(|(_, c)| *c).collect();
    let end = s.find(';')?;
    let body = &s[1..end];
    let c = if let Some(num) = body.strip_prefix('#') {
        let n = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse().ok()?,
        };
        // CommonMark: an invalid code point is U+FFFD.
        char::from_u32(n)
            .filter(|c| *c != '\0')
            .unwrap_or('\u{FFFD}')
    } else {
        named(body)?
    };
    Some((c, s[..=end].chars().count()))
}

/// The named references that matter here: markup and the blanks.
fn named(name: &str) -> Option<char> {
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" | "NonBreakingSpace" => '\u{A0}',
        "ensp" => '\u{2002}',
        "emsp" => '\u{2003}',
        "emsp13" => '\u{2004}',
        "emsp14" => '\u{2005}',
        "numsp" => '\u{2007}',
        "puncsp" => '\u{2008}',
        "thinsp" | "ThinSpace" => '\u{2009}',
        "hairsp" | "VeryThinSpace" => '\u{200A}',
        "MediumSpace" => '\u{205F}',
        "ZeroWidthSpace"
        | "NegativeThinSpace"
        | "NegativeMediumSpace"
        | "NegativeThickSpace"
        | "NegativeVeryThinSpace" => '\u{200B}',
        "zwnj" => '\u{200C}',
        "zwj" => '\u{200D}',
        "NoBreak" => '\u{2060}',
        "Tab" => '\t',
        "NewLine" => '\n',
        "shy" => '\u{AD}',
        "lsqb" | "lbrack" => '[',
        "rsqb" | "rbrack" => ']',
        "lpar" => '(',
        "rpar" => ')',
        "colon" => ':',
        "sol" => '/',
        "period" => '.',
        "num" => '#',
        "Hat" => '^',
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
