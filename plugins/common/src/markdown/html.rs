//! What a browser hides in the raw HTML of a Markdown document: the text
//! inside `<style>`, `<script>` and `<template>`, inside any element with
//! the `hidden` attribute or an inline style that hides it
//! (`display:none`, `visibility:hidden`, `opacity:0`, `font-size:0`), inside
//! the elements the HTML rendering spec does not show as text (see
//! `UA_HIDDEN`, `RAW_TEXT`), and inside comments. The state runs across the
//! whole document, as in the rendered page: `<div hidden>`, a blank line,
//! a paragraph, `</div>` hides the paragraph.

mod css;
mod elements;
mod headings;

pub use elements::element_text;

pub use css::StyleScan;
mod hidden;
mod style;

pub use hidden::{Hidden, hidden, hidden_ranges, layout_hides};

use std::borrow::Cow;

/// Elements without content: a `hidden` one hides nothing after it.
const VOID: [&str; 14] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr", "keygen",
];

/// Elements whose content is raw text up to their closing tag, none of it
/// shown as text: `script`, `style`; `noscript`, `noembed`, `noframes`
/// and `iframe` (raw text in a browser with scripting and plugins; never
/// rendered); `title` (the tab's title, not the page) and `textarea` (a
/// form control's value, not prose: strictest reading).
const RAW_TEXT: [&str; 8] = [
    "script", "style", "noscript", "noembed", "noframes", "iframe", "title", "textarea",
];

/// Elements the rendering spec's UA style sheet gives `display: none`, or
/// whose content is only fallback a browser does not show when it can
/// play the element (`video`, `audio`, `object`, `canvas`), or that are
/// metadata (`svg` `desc`, `metadata`). `dialog` and `details` without
/// `open` are here too (checked in `Hider::tag`): a closed `details` shows
/// only its `summary`, and hiding that too is the stricter reading (its
/// words do not count; a heading in it is still forbidden). `rp` is the
/// parenthesis a browser that shows ruby does not show.
/// `select` (a closed one shows only its selected option: none of its
/// text is read, the stricter reading), `progress` and `meter` (drawn as
/// a bar: their content is fallback no browser shows) and MathML's
/// `annotation`/`annotation-xml` (`<semantics>` renders only its first
/// child) are here too.
const UA_HIDDEN: [&str; 17] = [
    "template",
    "datalist",
    "dialog",
    "details",
    "video",
    "audio",
    "object",
    "canvas",
    "desc",
    "metadata",
    "head",
    "rp",
    "select",
    "progress",
    "meter",
    "annotation",
    "annotation-xml",
];

/// Attributes that style an element as CSS does (SVG presentation
/// attributes, `width`/`height`, `<font color>`): `<svg display="none">`,
/// `<svg width="0" height="0">` hide like the style they spell.
const PRESENTATION: [&str; 12] = [
    "display",
    "visibility",
    "opacity",
    "fill-opacity",
    "font-size",
    "fill",
    "color",
    "transform",
    "width",
    "height",
    "filter",
    "mask",
];

/// The style of an element: its presentation attributes (`PRESENTATION`)
/// as declarations, then its `style` attribute, which wins over them.
pub(super) fn element_style(attrs: &str) -> Option<String> {
    let mut style = String::new();
    for name in PRESENTATION {
        if let Some(Some(value)) = attr(attrs, name) {
            style.push_str(&format!("{name}:{value};"));
        }
    }
    if let Some(Some(inline)) = attr(attrs, "style") {
        style.push_str(&inline);
    }
    (!style.is_empty()).then_some(style)
}

/// Elements whose text is shown but is not prose (no claims).
const NOT_PROSE: [&str; 5] = ["pre", "code", "table", "kbd", "samp"];

#[derive(Default)]
pub struct Hider {
    /// The element hiding everything now, and how deeply elements of that
    /// name are nested inside it.
    hiding: Option<(String, usize)>,
    /// The target of the visible link (`<a href>`) open now.
    link: Option<String>,
    /// How many elements that are not prose are open now.
    not_prose: usize,
    /// An HTML heading (`<h1>`–`<h6>`) open now.
    heading: Option<HtmlHeading>,
    /// How many parts of the open heading were taken out (`split_heading`).
    heading_parts: usize,
    /// How deeply SVG or MathML (foreign content) is open now: a CDATA
    /// section there is text.
    foreign: usize,
    /// A style sheet seen so far may hide content by selector (a `<style>`
    /// rule with a hiding declaration, `@import`, `<link rel=stylesheet>`):
    /// what a reader sees can no longer be told from the markup.
    pub hiding_css: bool,
}

/// A heading written in HTML (`<h2>TODO</h2>`): a heading in every
/// renderer.
#[derive(Debug, Default, PartialEq)]
pub struct HtmlHeading {
    pub level: u8,
    /// Its text as shown (hidden parts left out unless all of it is).
    pub title: String,
    /// Inside an element a browser hides.
    pub hidden: bool,
    /// Holds a bidi override (`<bdo>`, `dir="rtl"`): shown otherwise than
    /// its bytes.
    pub bidi: bool,
    /// Its title with the text a browser may also show in it (an image's
    /// `alt`, a form control's value, fallback content, a frame's
    /// `srcdoc`: `elements.rs`), for forbidden titles.
    pub maybe: String,
}

/// What a reader sees of a piece of HTML.
#[derive(Debug, Default, PartialEq)]
pub struct Shown {
    /// All the visible text.
    pub text: String,
    /// The visible prose, with links as Markdown links (`[text](href)`) so
    /// a citation pattern sees them; text in `<pre>`, `<code>`, `<table>`
    /// left out.
    pub prose: String,
    /// The HTML headings closed in this piece.
    pub headings: Vec<HtmlHeading>,
    /// Text a browser may show in this piece besides `text` (an image's
    /// `alt`, a form control's value, a frame's `srcdoc`: `elements.rs`).
    pub maybe: String,
}

impl Hider {
    /// Whether text at this point of the document is hidden.
    pub fn hidden(&self) -> bool {
        self.hiding.is_some()
    }

    /// Read a piece of raw HTML (an HTML block, or one inline tag or
    /// comment) and return what a reader sees of it. An unclosed tag or
    /// comment hides the rest of the piece.
    pub fn feed(&mut self, html: &str) -> Shown {
        let mut out = Shown::default();
        let mut rest = html;
        loop {
            if let Some((name, _)) = &self.hiding
                && RAW_TEXT.contains(&name.as_str())
            {
                // Nothing inside is markup until the closing tag.
                let close = format!("</{name}");
                let found = find_ascii_ci(rest, &close);
                let inside = &rest[..found.unwrap_or(rest.len())];
                if elements::FALLBACK.contains(&name.as_str())
                    && let Some(h) = self.heading.as_mut()
                {
                    // `<h2><textarea>TODO</textarea></h2>` shows TODO.
                    h.maybe.push_str(inside);
                }
                if name == "style" && css_may_hide(&rest[..found.unwrap_or(rest.len())]) {
                    self.hiding_css = true;
                }
                match found {
                    Some(i) => {
                        self.hiding = None;
                        rest = &rest[i..];
                    }
                    None => return out,
                }
            }
            let (text, tail) = match markup_at(rest) {
                Some(i) => (&rest[..i], Some(&rest[i..])),
                None => (rest, None),
            };
            let hidden = self.hidden();
            let fallback = self.fallback();
            if let Some(h) = self.heading.as_mut() {
                if h.hidden || !hidden {
                    h.title.push_str(text);
                    h.maybe.push_str(text);
                } else if fallback {
                    h.maybe.push_str(text);
                }
            }
            if !self.hidden() {
                out.text.push_str(text);
                if self.not_prose == 0 {
                    out.prose.push_str(text);
                }
            }
            let Some(tail) = tail else { return out };
            if self.foreign > 0
                && let Some(cdata) = tail.strip_prefix("<![CDATA[")
            {
                // In SVG or MathML a CDATA section is text a browser shows: read
                // as `maybe` text (`shown_text`).
                let end = cdata.find("]]>").unwrap_or(cdata.len());
                self.shown_text(&cdata[..end], &mut out);
                rest = cdata.get(end + 3..).unwrap_or("");
                continue;
            }
            // An inline tag joins the text around it (`Ri<b>s</b>ks` is
            // one word); a block or a line break separates it.
            if breaks_words(tail) || tail.starts_with("<!") || tail.starts_with("<?") {
                out.text.push(' ');
                out.prose.push(' ');
            }
            let end = if tail.starts_with("<!--") {
                tail.find("-->").map(|e| e + 3)
            } else {
                tag_end(tail)
            };
            let Some(end) = end else { return out };
            self.track_heading(&tail[..end], &mut out);
            self.track_element(&tail[..end], &mut out);
            if let Some(mark) = self.tag(&tail[..end]) {
                // `[text](href)`, as a citation pattern expects it.
                let kept = out.prose.trim_end().len();
                if mark.starts_with(']') {
                    out.prose.truncate(kept);
                }
                out.prose.push_str(&mark);
            }
            rest = &tail[end..];
        }
    }

    /// Track one tag (`<…>`): open or close what hides; the Markdown for a
    /// visible link's start (`[`) or end (`](href)`).
    fn tag(&mut self, tag: &str) -> Option<String> {
        let (closing, name, attrs) = parse_tag(tag)?;
        match &mut self.hiding {
            Some((hiding, depth)) => {
                if *hiding == name {
                    if closing {
                        *depth -= 1;
                        if *depth == 0 {
                            self.hiding = None;
                        }
                    } else {
                        *depth += 1;
                    }
                }
                None
            }
            None => {
                if name == "link"
                    && attr(attrs, "rel")
                        .flatten()
                        .is_some_and(|r| r.to_ascii_lowercase().contains("stylesheet"))
                {
                    self.hiding_css = true;
                }
                let void = VOID.contains(&name.as_str());
                let hides = RAW_TEXT.contains(&name.as_str())
                    || (UA_HIDDEN.contains(&name.as_str())
                        && !(matches!(name.as_str(), "dialog" | "details")
                            && attr(attrs, "open").is_some()))
                    || (!void && attr(attrs, "hidden").is_some())
                    || (!void && element_style(attrs).is_some_and(|s| style_hides(&s)));
                if !closing
                    && matches!(name.as_str(), "col" | "colgroup")
                    && element_style(attrs).is_some_and(|s| style_hides(&s))
                {
                    // A column's style hides its cells
                    // (`visibility:collapse`): the whole table is read as
                    // hidden, the stricter reading.
                    self.hiding = Some(("table".to_string(), 1));
                    return None;
                }
                if !closing && hides {
                    self.hiding = Some((name, 1));
                    return None;
                }
                if NOT_PROSE.contains(&name.as_str()) {
                    self.not_prose = if closing {
                        self.not_prose.saturating_sub(1)
                    } else {
                        self.not_prose + 1
                    };
                }
                if name != "a" {
                    None
                } else if closing {
                    self.link.take().map(|href| format!("]({href})"))
                } else {
                    let href = attr(attrs, "href").flatten()?;
                    let href = href.as_ref();
                    self.link = Some(href.replace(char::is_whitespace, ""));
                    Some("[".to_string())
                }
            }
        }
    }
}

/// Whether an inline style hides the element's text, surely or in some
/// layout (`style::seen`): `display:none`, `visibility:hidden|collapse`,
/// a faint `opacity`, a tiny `font-size`, a transparent `color`, a zero
/// size, a clip, a mask, a filter, a negative offset, a transform, or any
/// property or value vcc does not know as shown (any case, spaces,
/// `!important`). A later declaration of the same property wins, as in
/// CSS.
pub fn style_hides(style: &str) -> bool {
    if style.contains('\\') || style.contains('&') {
        // An escape (`n\6f ne`) may spell any value: refused as hiding. So
        // may a character reference left undecoded (`&colon;`, `&#58` with
        // no `;`: a browser knows more of them than `decode_entities`).
        return true;
    }
    style_effects(style)
        .values()
        .any(|s| *s != style::Seen::Shown)
}

/// What each property of an inline style does (the last declaration of
/// a property wins).
fn style_effects(style: &str) -> std::collections::BTreeMap<String, style::Seen> {
    let style = style::without_comments(style);
    let mut effects = std::collections::BTreeMap::new();
    for decl in style.split(';') {
        let Some((name, value)) = decl.split_once(':') else {
            continue;
        };
        let name = name.trim().to_ascii_lowercase();
        let value = value.to_ascii_lowercase().replace("!important", "");
        let value = value.split_whitespace().collect::<Vec<_>>().join(" ");
        let seen = style::seen(&name, &value);
        effects.insert(name, seen);
    }
    effects
}

/// Whether a style sheet may hide content: a rule whose declarations
/// hide (`style_hides`), or an `@import` of rules not seen.
pub fn css_may_hide(css: &str) -> bool {
    css.to_ascii_lowercase().contains("@import")
        || css
            .split('{')
            .skip(1)
            .any(|body| style_hides(body.split('}').next().unwrap_or("")))
}

/// Whether a tag overrides or changes the direction of its text, so a
/// browser shows other letters, or another order, than the bytes: `<bdo>`,
/// `dir="rtl"` (or `auto`), or a style with `direction` or `unicode-bidi`.
pub fn is_bidi_tag(tag: &str) -> bool {
    let Some((closing, name, attrs)) = parse_tag(tag) else {
        return false;
    };
    if closing {
        return false;
    }
    let dir = attr(attrs, "dir")
        .flatten()
        .is_some_and(|d| !d.trim().eq_ignore_ascii_case("ltr"));
    let style = attr(attrs, "style").flatten().is_some_and(|s| {
        let s = s.to_ascii_lowercase();
        s.contains("unicode-bidi") || s.contains("direction")
    });
    name == "bdo" || dir || style
}

/// Every tag (`<…>`) in `html` that is a bidi override (`is_bidi_tag`),
/// by offset.
pub fn bidi_tags(html: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(i) = html[at..].find('<') {
        let start = at + i;
        match tag_end(&html[start..]) {
            Some(end) => {
                if is_bidi_tag(&html[start..start + end]) {
                    out.push(start);
                }
                at = start + end;
            }
            None => at = start + 1,
        }
    }
    out
}

/// Whether an inline tag separates the words around it: a line break or
/// an element a browser shows as a block.
pub fn breaks_words(tag: &str) -> bool {
    const BREAKS: [&str; 14] = [
        "br",
        "p",
        "div",
        "li",
        "ul",
        "ol",
        "table",
        "tr",
        "td",
        "th",
        "hr",
        "pre",
        "blockquote",
        "section",
    ];
    let end = tag_end(tag).unwrap_or(tag.len());
    parse_tag(&tag[..end]).is_some_and(|(_, name, _)| {
        BREAKS.contains(&name.as_str()) || name.as_bytes().first() == Some(&b'h') && name.len() == 2
    })
}

/// Where the first markup in `s` starts: a `<` a browser reads as the
/// start of a tag (`<a`, `</a`) or of a comment, declaration or processing
/// instruction (`<!`, `<?`). Any other `<` (`a < b`, `<3`) is text, shown
/// as written: read as markup, it would hide the text after it.
fn markup_at(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    s.match_indices('<')
        .map(|(i, _)| i)
        .find(|&i| match bytes.get(i + 1) {
            Some(c) if c.is_ascii_alphabetic() || *c == b'!' || *c == b'?' => true,
            Some(b'/') => bytes.get(i + 2).is_some_and(u8::is_ascii_alphabetic),
            _ => false,
        })
}

/// Where the tag that `s` starts with ends (after its `>`), quotes
/// respected.
fn tag_end(s: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    for (i, c) in s.char_indices().skip(1) {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '>' => return Some(i + 1),
            None => {}
        }
    }
    None
}

/// (closing, lower-case name, attributes) of `<name …>` or `</name>`;
/// `None` for anything else (`<!DOCTYPE>`, `<?…?>`, a stray `<`).
fn parse_tag(tag: &str) -> Option<(bool, String, &str)> {
    let inner = tag.strip_prefix('<')?.strip_suffix('>')?;
    let (closing, inner) = match inner.strip_prefix('/') {
        Some(rest) => (true, rest),
        None => (false, inner),
    };
    let len = inner
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(inner.len());
    let name = &inner[..len];
    if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    Some((closing, name.to_ascii_lowercase(), &inner[len..]))
}

/// An attribute of a tag: `None` if absent, `Some(None)` without a
/// value, `Some(Some(value))` with one (quotes removed, character
/// references decoded: a browser decodes `display&#58;none` before CSS
/// reads it, so every reader of an attribute sees the decoded value).
fn attr<'a>(attrs: &'a str, wanted: &str) -> Option<Option<Cow<'a, str>>> {
    raw_attr(attrs, wanted).map(|v| {
        v.map(|v| {
            if v.contains('&') {
                Cow::Owned(decode_entities(v))
            } else {
                Cow::Borrowed(v)
            }
        })
    })
}

/// An attribute's value as written (see `attr`).
fn raw_attr<'a>(attrs: &'a str, wanted: &str) -> Option<Option<&'a str>> {
    let mut rest = attrs;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '/');
        if rest.is_empty() {
            return None;
        }
        let len = rest
            .find(|c: char| c.is_whitespace() || c == '=' || c == '/' || c == '>')
            .unwrap_or(rest.len())
            .max(1);
        let name = &rest[..len];
        rest = rest[len..].trim_start();
        let mut value = None;
        if let Some(after) = rest.strip_prefix('=') {
            let after = after.trim_start();
            let (v, next) = match after.chars().next() {
                Some(q @ ('"' | '\'')) => match after[1..].find(q) {
                    Some(e) => (&after[1..e + 1], &after[e + 2..]),
                    None => (&after[1..], ""),
                },
                _ => {
                    let e = after.find(char::is_whitespace).unwrap_or(after.len());
                    (&after[..e], &after[e..])
                }
            };
            value = Some(v);
            rest = next;
        }
        if name.eq_ignore_ascii_case(wanted) {
            return Some(value);
        }
    }
}

/// The text of HTML with its character references decoded, as a browser
/// shows it: `&nbsp;` is a space and `&#8203;` a zero-width space, not
/// words. Named references beyond the common ones stay as written.
pub fn decode_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let end = tail[1..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '#'))
            .map(|e| e + 1);
        let decoded = match end {
            Some(e) if tail[e..].starts_with(';') => entity(&tail[1..e]).map(|c| (c, e + 1)),
            _ => None,
        };
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &tail[len..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn entity(name: &str) -> Option<char> {
    if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse().ok()?,
        };
        return Some(char::from_u32(code).unwrap_or('\u{fffd}'));
    }
    Some(match name {
        "nbsp" => '\u{a0}',
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "copy" => '©',
        "reg" => '®',
        "hellip" => '…',
        "mdash" => '—',
        "ndash" => '–',
        "shy" => '\u{ad}',
        "zwsp" => '\u{200b}',
        "zwj" => '\u{200d}',
        "zwnj" => '\u{200c}',
        _ => return None,
    })
}

fn find_ascii_ci(haystack: &str, needle: &str) -> Option<usize> {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    (0..=h.len().checked_sub(n.len())?).find(|&i| h[i..i + n.len()].eq_ignore_ascii_case(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn visible(pieces: &[&str]) -> String {
        let mut h = Hider::default();
        let text: Vec<String> = pieces.iter().map(|p| h.feed(p).text).collect();
        text.join("|")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn style_script_template_and_hidden_hide_their_text() {
        assert_eq!(visible(&["<style>p { a b c }</style>shown"]), "shown");
        assert_eq!(visible(&["<script>if (a < b) { x() }</script> ok"]), "ok");
        assert_eq!(
            visible(&["<template><p>in</p><p>ert</p></template>out"]),
            "out"
        );
        assert_eq!(
            visible(&["<div hidden><div>deep</div>still</div>after"]),
            "after"
        );
        assert_eq!(
            visible(&["<p data-x=\"hidden\" title='a > b'>seen</p>"]),
            "seen"
        );
        assert_eq!(
            visible(&["<input hidden> next"]),
            "next",
            "a void element hides nothing"
        );
        assert_eq!(visible(&["<SPAN HIDDEN=until-found>x</span>y"]), "y");
        assert_eq!(visible(&["a <!-- b --> c"]), "a c");
        assert_eq!(visible(&["a <div unclosed"]), "a");
        assert_eq!(
            visible(&["<p>Latency < 5 ms, 2 </ 3 <3 in every region.</p>"]),
            "Latency < 5 ms, 2 </ 3 <3 in every region.",
            "a `<` that starts no markup is text"
        );
    }

    #[test]
    fn prose_keeps_links_and_leaves_out_code_and_tables() {
        let mut h = Hider::default();
        let shown = h.feed("<p>Latency fell <a href=\"https://x.org/a\">[1]</a>.</p><pre>code here</pre><table><td>cell</td></table>");
        let prose = shown.prose.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(prose, "Latency fell [[1]](https://x.org/a).");
        assert!(shown.text.contains("code here") && shown.text.contains("cell"));
    }

    #[test]
    fn character_references_are_what_they_show() {
        assert_eq!(
            decode_entities("a&nbsp;b &#8203; &#x41;&amp;&lt; &eacute; & x"),
            "a\u{a0}b \u{200b} A&< &eacute; & x"
        );
    }

    #[test]
    fn hiding_runs_across_pieces() {
        let mut h = Hider::default();
        assert_eq!(h.feed("<div hidden>").text.trim(), "");
        assert!(h.hidden());
        assert_eq!(h.feed("<b>").text.trim(), "");
        h.feed("</b>");
        assert!(h.hidden());
        h.feed("</div>");
        assert!(!h.hidden());
    }

    #[test]
    fn style_attributes_are_read_with_their_character_references_decoded() {
        // A browser decodes the attribute before CSS reads it.
        for style in ["display&#58;none", "display&#x3A;none", "&#100;isplay:none"] {
            let html = format!("<span style=\"{style}\">a</span>b");
            assert_eq!(visible(&[&html]), "b", "{style}");
        }
        // A reference `decode_entities` does not know may spell anything.
        for style in ["display&colon;none", "display&#58none"] {
            let html = format!("<span style=\"{style}\">a</span>b");
            assert_eq!(visible(&[&html]), "b", "{style}");
        }
        assert_eq!(visible(&["<span style=\"color&#58;red\">a</span>b"]), "ab");
    }

    #[test]
    fn inline_styles_and_ua_hidden_elements_hide_their_text() {
        assert_eq!(visible(&["<div style=\"display:none\">a</div>b"]), "b");
        assert_eq!(
            visible(&["<p STYLE='color: red; Visibility : Hidden !important'>a</p>b"]),
            "b"
        );
        assert_eq!(
            visible(&["<span style=\"opacity:0\">a</span><span style=\"opacity:0.5\">b</span>"]),
            "b"
        );
        assert_eq!(visible(&["<span style=\"font-size:0px\">a</span>b"]), "b");
        for style in [
            "color: transparent",
            "color: rgba(0, 0, 0, 0)",
            "position:absolute; left:-9999px",
            "clip-path: inset(50%)",
            "height:0; overflow:hidden",
            "text-indent: -100em",
            "transform: scale(0)",
        ] {
            assert_eq!(
                visible(&[&format!("<span style=\"{style}\">a</span>b")]),
                "b",
                "{style}"
            );
        }
        assert_eq!(
            visible(&["<span style=\"color: red; height: 2em\">a</span>"]),
            "a"
        );
        assert_eq!(
            visible(&["<span style=\"display:none;display:inline\">a</span>"]),
            "a",
            "the later declaration wins"
        );
        for el in [
            "dialog", "details", "datalist", "noembed", "noframes", "noscript", "title",
            "textarea", "iframe", "video", "audio", "object", "canvas", "desc", "metadata", "rp",
        ] {
            assert_eq!(
                visible(&[&format!("<{el}>a <b>c</b></{el}>b")]),
                "b",
                "{el}"
            );
        }
        assert_eq!(visible(&["<dialog open>a</dialog>"]), "a");
        assert_eq!(visible(&["<details><summary>s</summary>a</details>b"]), "b");
        assert_eq!(
            visible(&["<details open><summary>s</summary>a</details>"]),
            "sa"
        );
    }

    #[test]
    fn style_sheets_that_may_hide_are_noticed() {
        let mut h = Hider::default();
        h.feed("<style>.x { color: red }</style>");
        assert!(!h.hiding_css);
        h.feed("<style>\n.x { display : none }\n</style>");
        assert!(h.hiding_css);
        let mut h = Hider::default();
        h.feed("<link rel=\"stylesheet\" href=\"a.css\">");
        assert!(h.hiding_css);
        assert!(css_may_hide("@import url(x.css);"));
    }

    #[test]
    fn inline_tags_join_words_and_blocks_separate_them() {
        let words = |html: &str| crate::text::visible_words(&Hider::default().feed(html).text);
        assert_eq!(words("<p>Ri<b>s</b>ks <span>x</span></p>"), 2);
        assert_eq!(words("<td>a</td><td>b</td>a<br>b"), 4);
        let prose = Hider::default()
            .feed("<p>T<span style=\"display:none\">x</span>ODO</p>")
            .prose;
        assert_eq!(prose.trim(), "TODO");
    }

    #[test]
    fn html_headings_and_bidi_overrides() {
        let mut h = Hider::default();
        let shown = h.feed("<h2>TO<span style=\"display:none\">x</span>DO</h2><div hidden><h3>Risks</h3></div><h4><bdo dir=\"rtl\">ODOT</bdo></h4>");
        let got: Vec<(u8, &str, bool, bool)> = shown
            .headings
            .iter()
            .map(|h| (h.level, h.title.as_str(), h.hidden, h.bidi))
            .collect();
        assert_eq!(
            got,
            vec![
                (2, "TODO", false, false),
                (3, "Risks", true, false),
                (4, "ODOT", false, true)
            ]
        );
        assert!(
            is_bidi_tag("<span dir=RTL>")
                && is_bidi_tag("<p style=\"unicode-bidi: bidi-override\">")
        );
        assert!(!is_bidi_tag("<p dir=\"ltr\">") && !is_bidi_tag("</bdo>"));
        assert_eq!(bidi_tags("a <bdo dir=rtl>x</bdo> <b>"), vec![2]);
    }
}
