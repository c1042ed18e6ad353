//! The source ranges of a Markdown document a browser hides, by the one
//! reading of what is hidden (`Hider`): for validators that need offsets
//! (which characters of a paragraph a reader sees), not only the text.
//! Each piece of raw HTML is fed to a `Hider` one unit at a time (a run of
//! text, a tag, a comment), and a unit is hidden when it opens, closes or
//! lies inside a hidden element, or is markup that shows nothing and is
//! no tag (a comment, `<?…>`, `<!…>`, an unclosed `<`).
//!
//! Some inline styles hide text only in some layouts (`left:-9999px` does
//! nothing to a `position: static` span, `width:0` nothing to an inline
//! one, `clip-path: inset(0)` clips nothing): those elements are hidden
//! here too, and where each starts is kept (`Hidden::by_layout`), so a
//! validator for which hiding is the lenient reading can refuse them.

use std::ops::Range;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use super::style::Seen;
use super::{Hider, RAW_TEXT, element_style, find_ascii_ci, markup_at, parse_tag, tag_end};

/// What a browser hides of a Markdown document.
#[derive(Debug, Default, PartialEq)]
pub struct Hidden {
    /// The source ranges no reader sees, sorted and merged: hidden
    /// elements (across blank lines and paragraphs, as in the rendered
    /// page), comments and other markup that shows nothing. An element
    /// still open at the end hides to the end of the document.
    pub ranges: Vec<Range<usize>>,
    /// Where each element starts that is hidden only by an inline style
    /// whose effect depends on the layout (`layout_hides`).
    pub by_layout: Vec<usize>,
}

/// Whether an inline style hides (`style_hides`) only through properties
/// whose effect depends on the layout (`left:-9999px`, `width:0`,
/// `clip-path`, `transform: scale(0)`, …): a reader may see the text.
pub fn layout_hides(style: &str) -> bool {
    if style.contains('\\') {
        // An escape may spell any value: whether it hides is in doubt.
        return true;
    }
    let effects = super::style_effects(style);
    let any = |s: Seen| effects.values().any(|e| *e == s);
    any(Seen::Layout) && !any(Seen::Hidden)
}

/// The source ranges of `text` no reader sees (`Hidden::ranges`).
pub fn hidden_ranges(text: &str) -> Vec<Range<usize>> {
    hidden(text).ranges
}

/// What a browser hides of `text`, and where hiding depends on layout.
pub fn hidden(text: &str) -> Hidden {
    let mut walk = Walk::default();
    // An HTML block is read whole, as `read` reads it (a comment runs over
    // its lines): its text, and where each line's text starts in it and
    // in the source.
    let mut block: Option<(String, Vec<(usize, usize)>)> = None;
    for (event, range) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
        // A block's line in a list or quote lost its container prefix:
        // the text ends where the range ends.
        let base = |t: &str| range.end.saturating_sub(t.len()).max(range.start);
        match event {
            Event::Start(Tag::HtmlBlock) => block = Some((String::new(), Vec::new())),
            Event::End(TagEnd::HtmlBlock) => {
                if let Some((html, starts)) = block.take() {
                    walk.piece(&html, &starts);
                }
            }
            Event::Html(t) => match block.as_mut() {
                Some((html, starts)) => {
                    starts.push((html.len(), base(&t)));
                    html.push_str(&t);
                }
                None => walk.piece(&t, &[(0, base(&t))]),
            },
            Event::InlineHtml(t) => walk.piece(&t, &[(0, base(&t))]),
            _ => {}
        }
    }
    if let Some(from) = walk.from.take() {
        walk.out.push(from..text.len());
    }
    Hidden {
        ranges: merge(walk.out),
        by_layout: walk.by_layout,
    }
}

/// The source offset of offset `at` of a piece whose lines start at
/// `starts` (offset in the piece, offset in the source).
fn source_at(starts: &[(usize, usize)], at: usize) -> usize {
    let i = starts.partition_point(|(p, _)| *p <= at).max(1) - 1;
    starts.get(i).map_or(at, |(p, s)| s + (at - p))
}

#[derive(Default)]
struct Walk {
    hider: Hider,
    /// Where the hidden element open now starts.
    from: Option<usize>,
    out: Vec<Range<usize>>,
    by_layout: Vec<usize>,
}

impl Walk {
    /// One piece of raw HTML whose lines start at `starts` (offset in the
    /// piece, offset in the document).
    fn piece(&mut self, html: &str, starts: &[(usize, usize)]) {
        let mut at = 0;
        while at < html.len() {
            let len = self.unit(&html[at..]);
            let unit = &html[at..at + len];
            let was = self.hider.hidden();
            self.hider.feed(unit);
            let now = self.hider.hidden();
            let start = source_at(starts, at);
            // The end of the unit's last character, not the start of the
            // next line's text (a container prefix may lie between).
            let end = source_at(starts, at + len - 1) + 1;
            match (was, now) {
                (false, true) => {
                    self.from = Some(start);
                    let style = parse_tag(unit).and_then(|(_, _, attrs)| element_style(attrs));
                    if style.is_some_and(|s| layout_hides(&s)) {
                        self.by_layout.push(start);
                    }
                }
                (true, false) => {
                    let from = self.from.take().unwrap_or(start);
                    self.out.push(from..end);
                }
                (true, true) => {}
                (false, false) => {
                    // Markup that is no tag shows nothing.
                    if unit.starts_with('<') && parse_tag(unit).is_none() {
                        self.out.push(start..end);
                    }
                }
            }
            at += len;
        }
    }

    /// How long the unit `rest` starts with is: inside a raw-text element
    /// (`<script>`) all up to its closing tag; else a comment, a tag (to
    /// its `>`), markup with no end (the rest), or a run of text.
    fn unit(&self, rest: &str) -> usize {
        if let Some((name, _)) = &self.hider.hiding
            && RAW_TEXT.contains(&name.as_str())
        {
            match find_ascii_ci(rest, &format!("</{name}")) {
                Some(0) => {}
                Some(i) => return i,
                None => return rest.len(),
            }
        }
        match markup_at(rest) {
            Some(0) => {}
            Some(i) => return i,
            None => return rest.len(),
        }
        let end = if rest.starts_with("<!--") {
            rest.find("-->").map(|e| e + 3)
        } else {
            tag_end(rest)
        };
        end.unwrap_or(rest.len()).max(1)
    }
}

fn merge(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match merged.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text left when the hidden ranges are cut out.
    fn shown(text: &str) -> String {
        let hidden = hidden_ranges(text);
        text.char_indices()
            .filter(|(i, _)| !hidden.iter().any(|r| r.contains(i)))
            .map(|(_, c)| c)
            .collect()
    }

    #[test]
    fn hidden_elements_styles_and_fallback_are_cut() {
        for hiding in [
            "<span hidden>",
            "<span style=\"color:transparent\">",
            "<span style=\"position:absolute;left:-9999px\">",
            "<span style=\"display:inline-block;transform:scale(0)\">",
            "<span style=\"position:absolute;clip-path:inset(50%)\">",
            "<span style=\"display:inline-block;width:0;height:0;overflow:hidden\">",
        ] {
            let text = format!("A claim{hiding} [1]</span> here.\n");
            assert_eq!(shown(&text), "A claim here.\n", "{hiding}");
        }
        for el in ["details", "noscript", "video", "iframe", "audio", "object"] {
            let text = format!("A claim<{el}><summary></summary> [1]</{el}> here.\n");
            assert_eq!(shown(&text), "A claim here.\n", "{el}");
        }
        assert_eq!(
            shown("A <details open><summary>s</summary>b</details>.\n"),
            "A <details open><summary>s</summary>b</details>.\n",
            "an open details shows, its tags left to the reader of the text"
        );
    }

    #[test]
    fn hiding_runs_across_blocks_and_to_the_end() {
        let text = "<div hidden>\n\n## References\n\n[1]: https://x.org\n\n</div>\n\nShown.\n";
        let hidden = hidden_ranges(text);
        assert!(hidden.iter().any(|r| r.contains(&text.find('#').unwrap())));
        assert!(!hidden.iter().any(|r| r.contains(&text.find('S').unwrap())));
        let open = "Shown.\n\n<div style=\"display:none\">\n\nnever closed\n";
        assert_eq!(shown(open), "Shown.\n\n");
    }

    #[test]
    fn hiding_that_depends_on_layout_is_told_apart() {
        for style in [
            "position:absolute;left:-9999px",
            "display:inline-block;transform:scale(0)",
            "position:absolute;clip-path:inset(50%)",
            "display:inline-block;width:0;height:0;overflow:hidden",
            "text-indent:-100em",
            "margin-top: -1px",
            "position:absolute;right:9999px",
            "transform: rotateX(90deg)",
            "display: n\\6f ne",
        ] {
            assert!(layout_hides(style), "{style}");
            let text = format!("A <span style=\"{style}\">b</span> c\n");
            assert_eq!(hidden(&text).by_layout, vec![2], "{style}");
        }
        for style in [
            "display:none",
            "color:transparent",
            "opacity:0",
            "font-size:0",
            "left:-9999px; visibility:hidden",
            "display:/**/none",
            "color:red",
        ] {
            assert!(!layout_hides(style), "{style}");
        }
        assert_eq!(
            hidden("A <span hidden>b</span> c\n").by_layout,
            Vec::<usize>::new()
        );
    }

    #[test]
    fn comments_and_markup_that_is_no_tag_show_nothing() {
        assert_eq!(shown("a <!-- [1] --> b\n"), "a  b\n");
        assert_eq!(shown("a <?php [1] ?> b\n"), "a  b\n");
        let lt = "<p>Latency < 5 ms in every region we measured.</p>\n";
        assert_eq!(shown(lt), lt, "a `<` that starts no markup is text");
        assert_eq!(
            shown("<script>if (a < b) { x() }</script>\nafter\n"),
            "\nafter\n"
        );
        assert_eq!(
            shown("a <b>bold</b> <a href=\"x\">link</a>\n"),
            "a <b>bold</b> <a href=\"x\">link</a>\n",
            "visible tags stay for the caller"
        );
    }
}
