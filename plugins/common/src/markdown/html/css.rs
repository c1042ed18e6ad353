//! CSS that changes the text a reader is shown without changing the
//! markup: generated content (`h2::before { content: "\54 ODO" }` shows
//! `TODO` in an empty `<h2>`), quotes, string list markers, counter
//! styles, web fonts (which may draw any glyph for any letter), direction
//! rules in a style sheet (`unicode-bidi: bidi-override` reorders letters
//! by selector), and case changes (`text-transform: uppercase` shows
//! `todo` as `TODO`); and style sheets that may hide by selector. Found in
//! every `<style>` element and `style` attribute of the raw HTML, hidden
//! or not (a style sheet applies wherever it is), with CSS comments
//! removed and CSS escapes decoded (`\63 ontent` is `content`), as a
//! browser tokenises it.

use super::{attr, css_may_hide, find_ascii_ci, parse_tag, tag_end};

/// Scans the raw HTML of a document, piece by piece, for CSS that puts
/// text on the page or changes its case.
#[derive(Default)]
pub struct StyleScan {
    /// Inside a `<style>` element: its CSS so far and where it starts.
    style: Option<(String, usize)>,
    /// Where the first CSS that generates text is.
    pub generated: Option<usize>,
    /// Where the first CSS that changes the case of text is.
    pub case: Option<usize>,
    /// Where the first style sheet is that may hide content by selector,
    /// escapes decoded, wherever it is (inside a hidden element too).
    pub hiding: Option<usize>,
    /// Where the first CSS is that may show boxes in another order than
    /// the markup (`order`, a reversed `flex-direction`, grid placement:
    /// `moves_boxes`).
    pub reorder: Option<usize>,
}

impl StyleScan {
    /// A piece of raw HTML (a whole HTML block, an inline tag) at `at`.
    /// A tag still open at its end runs, in the browser, into the
    /// Markdown rendered after it (`<div title='`, a blank line, then
    /// `' style=text-transform:uppercase>`): its attributes cannot be
    /// read from the markup, so it counts as generating text (refused).
    pub fn html(&mut self, piece: &str, at: usize) {
        let mut i = 0;
        loop {
            let rest = &piece[i..];
            if let Some((css, _)) = self.style.as_mut() {
                match find_ascii_ci(rest, "</style") {
                    Some(e) => {
                        css.push_str(&rest[..e]);
                        i += e;
                        self.end_style();
                        continue;
                    }
                    None => {
                        css.push_str(rest);
                        return;
                    }
                }
            }
            let Some(lt) = rest.find('<') else { return };
            i += lt;
            let rest = &piece[i..];
            let end = if rest.starts_with("<!--") {
                // An open comment hides (the hider's matter), shows nothing.
                Some(rest.find("-->").map_or(rest.len(), |e| e + 3))
            } else {
                tag_end(rest)
            };
            match end {
                Some(end) => {
                    self.tag(&rest[..end], at + i);
                    i += end;
                }
                None => {
                    if parse_tag(&format!("{rest}>")).is_some() {
                        self.generated.get_or_insert(at + i);
                    }
                    return;
                }
            }
        }
    }

    /// Markdown text at `at` (inside an inline `<style>` it is CSS).
    pub fn text(&mut self, text: &str) {
        if let Some((css, _)) = self.style.as_mut() {
            css.push_str(text);
        }
    }

    /// The end of the document: an unclosed `<style>` runs to it.
    pub fn finish(&mut self) {
        self.end_style();
    }

    fn end_style(&mut self) {
        if let Some((css, at)) = self.style.take() {
            let css = plain(&css);
            // In a style sheet a direction rule reaches elements by
            // selector (`h2 { unicode-bidi: bidi-override; direction:
            // rtl }` shows `<h2>ODOT</h2>` as `TODO`): no tag says so.
            if generates_text(&css) || reorders_text(&css) {
                self.generated.get_or_insert(at);
            }
            if css_may_hide(&css) {
                self.hiding.get_or_insert(at);
            }
            if moves_boxes(&css) {
                self.reorder.get_or_insert(at);
            }
            if changes_case(&css) {
                self.case.get_or_insert(at);
            }
        }
    }

    fn tag(&mut self, tag: &str, at: usize) {
        let Some((closing, name, attrs)) = parse_tag(tag) else {
            return;
        };
        if closing {
            return;
        }
        if name == "style" {
            self.style = Some((String::new(), at));
        }
        if let Some(Some(style)) = attr(attrs, "style") {
            // `attr` has decoded the attribute's character references.
            let css = plain(&style);
            if generates_text(&css) {
                self.generated.get_or_insert(at);
            }
            if changes_case(&css) {
                self.case.get_or_insert(at);
            }
            if moves_boxes(&css) {
                self.reorder.get_or_insert(at);
            }
        }
    }
}

/// CSS as a browser tokenises it, for reading declarations: comments
/// removed, escapes decoded (`\54 ODO` is `TODO`, `\63 ontent` is
/// `content`, an escaped newline is nothing), in lower case.
fn plain(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut chars = css.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            '\\' => {
                let mut hex = String::new();
                while hex.len() < 6
                    && let Some(h) = chars.peek().filter(|h| h.is_ascii_hexdigit())
                {
                    hex.push(*h);
                    chars.next();
                }
                if hex.is_empty() {
                    // `\"` is `"`; `\` and a newline is nothing.
                    match chars.next() {
                        Some('\n') | None => {}
                        Some(other) => out.push(other),
                    }
                } else {
                    // One white space after a hex escape is part of it.
                    if chars.peek().is_some_and(|w| w.is_whitespace()) {
                        chars.next();
                    }
                    let code = u32::from_str_radix(&hex, 16).unwrap_or(0xfffd);
                    out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                }
            }
            _ => out.push(c),
        }
    }
    out.to_lowercase()
}

/// Every `name: value` in CSS (`plain`), whatever rule it is in, with
/// `!important` dropped and white space collapsed.
fn declarations(css: &str) -> impl Iterator<Item = (String, String)> + '_ {
    css.split(['{', '}', ';']).filter_map(|decl| {
        let (name, value) = decl.split_once(':')?;
        let value = value.replace("!important", "");
        let value = value.split_whitespace().collect::<Vec<_>>().join(" ");
        Some((name.trim().to_string(), value))
    })
}

/// Whether CSS (`plain`) puts text on the page that the markup does not
/// hold: a `content` other than `none`, `normal` or an empty string
/// (`::before`, `::after`, `::marker`, or an element's own), `quotes`
/// other than `none`/`auto` (shown by `<q>`), a list marker or a
/// `text-overflow` that is a string, `@counter-style` (markers of any
/// text), `@font-face` (a web font may draw any glyph for any letter).
pub fn generates_text(css: &str) -> bool {
    if css.contains("@counter-style") || css.contains("@font-face") {
        return true;
    }
    declarations(css).any(|(name, value)| {
        let string = value.contains(['"', '\'']);
        match name.as_str() {
            "content" => !matches!(value.as_str(), "none" | "normal" | "\"\"" | "''" | ""),
            "quotes" => !matches!(value.as_str(), "none" | "auto" | ""),
            "list-style" | "list-style-type" | "text-overflow" => {
                string || value.contains("symbols(")
            }
            _ => false,
        }
    })
}

/// Whether CSS (`plain`) may show letters in another order than written:
/// a `unicode-bidi` other than `normal`, a `direction` other than `ltr`.
pub fn reorders_text(css: &str) -> bool {
    declarations(css).any(|(name, value)| match name.as_str() {
        "unicode-bidi" => value != "normal" && !value.is_empty(),
        "direction" => value != "ltr" && !value.is_empty(),
        _ => false,
    })
}

/// Whether CSS (`plain`) may show boxes in another order than the markup
/// (round 4: two sections in a flex column with `order:2`/`order:1`): an
/// `order`, a reversed `flex-direction`/`flex-flow`, a grid placement
/// (`grid-row`, `grid-column`, `grid-area`), `float: right`.
pub fn moves_boxes(css: &str) -> bool {
    declarations(css).any(|(name, value)| match name.as_str() {
        "order" => !value.parse::<f64>().is_ok_and(|n| n == 0.0),
        "flex-direction" | "flex-flow" | "box-direction" | "-webkit-box-direction" => {
            value.contains("reverse")
        }
        "grid-row" | "grid-column" | "grid-area" | "grid-row-start" | "grid-row-end"
        | "grid-column-start" | "grid-column-end" => value != "auto",
        "float" => value == "right" || value == "inline-end",
        _ => false,
    })
}

/// Whether CSS (`plain`) may show letters in another case than written:
/// a `text-transform` other than `none`, small or other capitals
/// (`font-variant`, the `font` shorthand, `font-feature-settings`).
pub fn changes_case(css: &str) -> bool {
    declarations(css).any(|(name, value)| match name.as_str() {
        "text-transform" => value != "none" && !value.is_empty(),
        "font" | "font-variant" | "font-variant-caps" => {
            value.contains("caps") || value.contains("unicase")
        }
        "font-feature-settings" => ["smcp", "c2sc", "pcap", "c2pc", "unic"]
            .iter()
            .any(|f| value.contains(f)),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(pieces: &[&str]) -> (Option<usize>, Option<usize>) {
        let mut s = StyleScan::default();
        for (i, p) in pieces.iter().enumerate() {
            s.html(p, i * 100);
        }
        s.finish();
        (s.generated, s.case)
    }

    #[test]
    fn generated_content_is_found_escaped_or_not() {
        assert_eq!(
            scan(&["<style>h2.n::before { content: \"\\54 ODO\" }</style>"]),
            (Some(0), None)
        );
        assert!(generates_text(&plain("p::after{\\63 ontent:'x'}")));
        assert!(generates_text(&plain("p::after{content/**/:attr(title)}")));
        assert!(generates_text(&plain("q { quotes: '\\54 ODO' '' }")));
        assert!(generates_text(&plain("li { list-style-type: 'TODO ' }")));
        assert!(generates_text(&plain("@font-face { src: url(x.woff) }")));
        assert!(!generates_text(&plain(
            "p::before { content: none } a::after { content: \"\" } ul { list-style: disc }"
        )));
        assert!(!generates_text(&plain("p { color: red }")));
    }

    #[test]
    fn box_order_is_found_in_sheets_and_attributes() {
        let mut s = StyleScan::default();
        s.html("<section style=\"order:2\">", 7);
        assert_eq!(s.reorder, Some(7));
        for css in [
            ".a { flex-direction: column-reverse }",
            "x{flex-flow:row-reverse wrap}",
            "x { grid-row: 1 }",
        ] {
            assert!(moves_boxes(&plain(css)), "{css}");
        }
        for css in [
            "x { order: 0 }",
            "x { flex-direction: column }",
            "x { float: left }",
        ] {
            assert!(!moves_boxes(&plain(css)), "{css}");
        }
    }

    #[test]
    fn case_changes_are_found_in_sheets_and_attributes() {
        assert_eq!(
            scan(&["x", "<span style=\"text-transform:uppercase\">"]),
            (None, Some(100))
        );
        assert_eq!(
            scan(&["<b style=\"te&#120;t-transform: capitalize\">"]),
            (None, Some(0))
        );
        assert!(changes_case(&plain("h2 { font-variant: small-caps }")));
        assert!(changes_case(&plain("h2 { font: small-caps 1em serif }")));
        assert!(!changes_case(&plain("h2 { text-transform: none }")));
    }

    #[test]
    fn a_style_over_several_pieces_and_comments() {
        assert_eq!(
            scan(&["<style>", "h2::before {", " content: 'x' }", "</style>"]),
            (Some(0), None)
        );
        assert_eq!(
            scan(&["ok\n<style>\np::after { content: 'x' }\n</style>"]),
            (Some(3), None),
            "at the `<style>` tag"
        );
        assert_eq!(
            scan(&["<span\n style='text-transform: lowercase'>"]),
            (None, Some(0))
        );
        assert_eq!(
            scan(&["<div title='", "' style=text-transform:uppercase>"]),
            (Some(0), None),
            "a tag left open at a block's end is refused"
        );
        assert_eq!(scan(&["a < b, <!-- open"]), (None, None));
        let mut s = StyleScan::default();
        s.html("<style>", 0);
        s.text("p::before { content: 'x' }");
        s.html("</style>", 40);
        assert_eq!(
            s.generated,
            Some(0),
            "an inline style's CSS is Markdown text"
        );
        assert_eq!(scan(&["<style>p::after{content:'x'}"]), (Some(0), None));
    }

    #[test]
    fn sheets_that_reorder_or_hide_are_found_escaped_or_hidden() {
        let sheet = "<style>h2 { unicode-bidi: bidi-override; direction: rtl }</style>";
        assert_eq!(scan(&[sheet]), (Some(0), None));
        assert_eq!(scan(&["<style>p { direction: ltr }</style>"]), (None, None));
        let mut s = StyleScan::default();
        s.html("<div hidden>", 0);
        s.html("<style>h2 { \\64 isplay: none }</style>", 10);
        s.finish();
        assert_eq!(s.hiding, Some(10));
    }
}
