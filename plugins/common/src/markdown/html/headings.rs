//! HTML headings (`<h1>`–`<h6>`) as a browser's parser builds them, wherever
//! the HTML is: an HTML block, or an inline tag in a paragraph, a link's
//! text or a table row (`Done here. <h2>TODO</h2>`: the parser closes the
//! `<p>` at `<h2>` and the reader sees a level-2 heading). The text of an
//! inline heading comes from the Markdown around the tags (`heading_text`),
//! not from the tags. A heading start tag ends the heading open before it
//! (the parser pops it), and any heading end tag ends the one open. An
//! unclosed heading runs on over the blocks after it, each shown in the
//! heading's style: each block's part of its text is a heading of its own
//! (`split_heading`), so `<h2>TODO` and a paragraph after it is a heading
//! `TODO` (and one more), never one title `TODO more words`.

use super::{Hider, HtmlHeading, Shown, decode_entities, is_bidi_tag, parse_tag};

impl Hider {
    /// Open or close an HTML heading with this tag; mark an open one that
    /// holds a bidi override.
    pub(super) fn track_heading(&mut self, tag: &str, out: &mut Shown) {
        let Some((closing, name, _)) = parse_tag(tag) else {
            return;
        };
        let level = match name.as_bytes() {
            [b'h', d @ b'1'..=b'6'] => Some(d - b'0'),
            _ => None,
        };
        match level {
            Some(level) if !closing => {
                // `<h3>Notes<h2>TODO</h2>`: the parser closes the h3 at
                // the h2, so the reader sees two headings.
                if let Some(h) = self.end_heading() {
                    out.headings.push(h);
                }
                self.heading = Some(HtmlHeading {
                    level,
                    title: String::new(),
                    hidden: self.hidden(),
                    bidi: is_bidi_tag(tag),
                    maybe: String::new(),
                });
                self.heading_parts = 0;
            }
            Some(_) => {
                if let Some(h) = self.end_heading() {
                    out.headings.push(h);
                }
            }
            None => {
                if let Some(h) = self.heading.as_mut() {
                    h.bidi |= is_bidi_tag(tag);
                }
            }
        }
    }

    /// Whether an HTML heading is open and shows some text so far.
    pub fn heading_has_text(&self) -> bool {
        self.heading
            .as_ref()
            .is_some_and(|h| !h.title.trim().is_empty())
    }

    /// Markdown text shown at this point (`<h2>` *TODO* `</h2>` inline):
    /// part of the open HTML heading's title, if one is open and the text
    /// is shown (or the heading is hidden as a whole, whose title is kept
    /// as a hidden heading's is). Whether a heading is open.
    pub fn heading_text(&mut self, text: &str) -> bool {
        let hidden = self.hidden();
        let fallback = self.fallback();
        match self.heading.as_mut() {
            Some(h) => {
                if h.hidden || !hidden {
                    h.title.push_str(text);
                    h.maybe.push_str(text);
                } else if fallback {
                    h.maybe.push_str(text);
                }
                true
            }
            None => false,
        }
    }

    /// At the end of a block while an HTML heading is still open: the
    /// block's part of its title as a heading of its own (none when the
    /// part is blank). The heading stays open.
    pub fn split_heading(&mut self) -> Option<HtmlHeading> {
        let h = self.heading.as_mut()?;
        let title = decode_entities(h.title.trim());
        let maybe = decode_entities(h.maybe.trim());
        h.title.clear();
        h.maybe.clear();
        if title.trim().is_empty() {
            return None;
        }
        self.heading_parts += 1;
        Some(HtmlHeading {
            level: h.level,
            title,
            hidden: h.hidden,
            bidi: h.bidi,
            maybe,
        })
    }

    /// End the open HTML heading (its end tag, a heading start tag, a
    /// Markdown heading, the end of the document): its last part, or
    /// the whole heading when it has no part yet, even empty
    /// (`<h2 class="n"></h2>` is a heading).
    pub fn end_heading(&mut self) -> Option<HtmlHeading> {
        let mut h = self.heading.take()?;
        h.title = decode_entities(h.title.trim());
        h.maybe = decode_entities(h.maybe.trim());
        let parts = std::mem::take(&mut self.heading_parts);
        (parts == 0 || !h.title.trim().is_empty()).then_some(h)
    }
}
