//! The text an element shows beside its content (issue 34, round 4): a
//! form control's value, an image's `alt` when the image does not load, a
//! frame's `srcdoc`, the fallback content of `<object>`, `<textarea>`'s
//! text, and a CDATA section in SVG or MathML (text there, a comment in
//! HTML). A validator that must not miss words a reader may see (a
//! forbidden heading title) reads this text too; one counting words as
//! evidence does not (`Shown::maybe`, `HtmlHeading::maybe`).

use super::{Hider, Shown, attr, decode_entities, parse_tag};

/// Elements whose content a browser shows when it cannot show the
/// element itself (an `<object>` whose data is missing, `<video>` where
/// it cannot play, `<noscript>` with scripting off) or shows in a box
/// (`<textarea>`): hidden for words, read for forbidden titles.
pub(super) const FALLBACK: [&str; 8] = [
    "textarea", "object", "video", "audio", "canvas", "noscript", "noembed", "noframes",
];

/// The text a browser may draw for this start tag from its attributes:
/// an `<input>`'s `value` (else its `placeholder`) unless it is of type
/// `hidden`; an `<img>`'s `alt` (shown when the image does not load); an
/// `<iframe>`'s `srcdoc`, the visible text of that document. Character
/// references decoded. `None` for any other tag.
pub fn element_text(tag: &str) -> Option<String> {
    let (closing, name, attrs) = parse_tag(tag)?;
    if closing {
        return None;
    }
    let value = |n: &str| attr(attrs, n).flatten().map(|v| v.into_owned()); // attr decodes references
    let text = match name.as_str() {
        "input" => {
            let kind = value("type").unwrap_or_default().to_ascii_lowercase();
            if kind.trim() == "hidden" {
                return None;
            }
            value("value").or_else(|| value("placeholder"))?
        }
        "img" => value("alt")?,
        "iframe" => {
            let doc = value("srcdoc")?;
            decode_entities(&Hider::default().feed(&doc).text)
        }
        _ => return None,
    };
    (!text.trim().is_empty()).then_some(text)
}

impl Hider {
    /// Whether the element hiding text now is one whose content a browser
    /// may show (`FALLBACK`).
    pub(super) fn fallback(&self) -> bool {
        self.hiding
            .as_ref()
            .is_some_and(|(name, _)| FALLBACK.contains(&name.as_str()))
    }

    /// Text a browser shows at this point that is not in the markup's text
    /// runs (a CDATA section in SVG or MathML). It is `maybe` text, like
    /// an image's `alt`: a forbidden title finds it, but it never meets a
    /// required title and never counts as words, since GitHub's sanitizer
    /// drops inline SVG and CommonMark renderers' readers disagree on it.
    pub(super) fn shown_text(&mut self, text: &str, out: &mut Shown) {
        let hidden = self.hidden();
        if let Some(h) = self.heading.as_mut()
            && (h.hidden || !hidden)
        {
            h.maybe.push_str(text);
        }
        if !hidden {
            out.maybe.push(' ');
            out.maybe.push_str(text);
        }
    }

    /// Before a tag is read: the text it may show from its attributes
    /// (`element_text`), if it is not hidden; and whether SVG or MathML
    /// opens or closes.
    pub(super) fn track_element(&mut self, tag: &str, out: &mut Shown) {
        if !self.hidden()
            && let Some(text) = element_text(tag)
        {
            out.maybe.push(' ');
            out.maybe.push_str(&text);
            if let Some(h) = self.heading.as_mut() {
                h.maybe.push_str(&text);
            }
        }
        if let Some((closing, name, attrs)) = parse_tag(tag)
            && matches!(name.as_str(), "svg" | "math")
        {
            if closing {
                self.foreign = self.foreign.saturating_sub(1);
            } else if !attrs.trim_end().ends_with('/') {
                self.foreign += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heading(html: &str) -> (String, String) {
        let mut h = Hider::default();
        let shown = h.feed(html);
        let first = shown.headings.into_iter().next().unwrap_or_default();
        (first.title, first.maybe)
    }

    #[test]
    fn attribute_and_fallback_text_is_maybe_shown() {
        for html in [
            "<h2><input value=\"TODO\"></h2>",
            "<h2><input placeholder='TODO'></h2>",
            "<h2><img src=\"missing.png\" alt=\"TODO\"></h2>",
            "<h2><object data=\"missing.png\">TODO</object></h2>",
            "<h2><textarea>TODO</textarea></h2>",
            "<h2><iframe srcdoc=\"<p>TODO</p>\"></iframe></h2>",
            "<h2><iframe srcdoc=\"&lt;b&gt;TODO&lt;/b&gt;\"></iframe></h2>",
        ] {
            let (title, maybe) = heading(html);
            assert_eq!((title.trim(), maybe.trim()), ("", "TODO"), "{html}");
        }
        assert_eq!(heading("<h2><input type=hidden value=TODO></h2>").1, "");
        assert_eq!(
            element_text("<img alt=\"a &amp; b\">").as_deref(),
            Some("a & b")
        );
        assert_eq!(element_text("<p title=x>"), None);
    }

    #[test]
    fn cdata_is_text_in_svg_only() {
        let (title, maybe) = heading("<h2><svg><text><![CDATA[TODO]]></text></svg></h2>");
        assert_eq!((title.trim(), maybe.trim()), ("", "TODO"));
        let shown = Hider::default().feed("<p><![CDATA[x]]>y</p>");
        assert_eq!(shown.text.trim(), "y");
        let shown = Hider::default().feed("<svg/><![CDATA[x]]>y");
        assert_eq!(shown.text.trim(), "y");
    }
}
