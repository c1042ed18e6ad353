//! Anchors a browser creates from the HTML in a Markdown document: the
//! `id` attribute of any element and the `name` of an `<a>`, in HTML the
//! CommonMark reading passes through as HTML (blocks and inline). Not an
//! anchor: escaped markup (`\<a id="T-1">` is text), a look-alike
//! attribute (`data-id`), markup inside an attribute value, a comment, or
//! raw-text and RCDATA elements (`<script>`, `<style>`, `<textarea>`,
//! `<title>`…), where the HTML parsing spec makes no elements.

use pulldown_cmark::{Event, Options, Parser};

/// Elements whose content is text to the HTML parser, never markup.
const RAW: &[&str] = &[
    "script",
    "style",
    "textarea",
    "title",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "plaintext",
];

/// The explicit HTML anchors of a Markdown document, in order.
pub fn ids(markdown: &str) -> Vec<String> {
    // The HTML a renderer emits as HTML, in document order: state (an
    // open `<script>`, say) runs across blocks as it does in the page.
    let mut html = String::new();
    for event in Parser::new_ext(markdown, Options::empty()) {
        if let Event::Html(t) | Event::InlineHtml(t) = event {
            html.push_str(&t);
        } else {
            // Text between HTML pieces: markup cannot span it.
            html.push('\u{0}');
        }
    }
    scan(&html)
}

/// Tokenise HTML the way the parsing spec's tokenizer does, closely
/// enough to know which start tags are elements and what their
/// attributes are.
fn scan(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        rest = &rest[i..];
        if let Some(body) = rest.strip_prefix("<!--") {
            rest = body.find("-->").map_or("", |e| &body[e + 3..]);
            continue;
        }
        let Some((name, attrs, end)) = start_tag(rest) else {
            rest = &rest[1..];
            continue;
        };
        for (key, value) in &attrs {
            if (key == "id" || (key == "name" && name == "a"))
                && let Some(v) = value.as_deref().map(str::trim).filter(|v| !v.is_empty())
            {
                out.push(v.to_string());
            }
        }
        rest = &rest[end..];
        if RAW.contains(&name.as_str()) {
            // Text up to the matching end tag; without one, to the end.
            let close = format!("</{name}");
            let lower = rest.to_ascii_lowercase();
            rest = lower.find(&close).map_or("", |e| &rest[e..]);
        }
    }
    out
}

/// An attribute: its lower-case name and its value, if any.
type Attr = (String, Option<String>);

/// `<name attr=value …>` at the start of `s`: its lower-case name, its
/// attributes (lower-case names, values unquoted, character references
/// left as written) and the length of the tag. End tags and anything that
/// is not a start tag are `None`.
fn start_tag(s: &str) -> Option<(String, Vec<Attr>, usize)> {
    let b = s.as_bytes();
    if b.len() < 2 || !b[1].is_ascii_alphabetic() {
        return None;
    }
    let mut i = 1;
    while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'/' && b[i] != b'>' {
        i += 1;
    }
    let name = s[1..i].to_ascii_lowercase();
    let mut attrs = Vec::new();
    loop {
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'/') {
            i += 1;
        }
        if i >= b.len() || b[i] == 0 {
            // Unclosed: no element.
            return None;
        }
        if b[i] == b'>' {
            return Some((name, attrs, i + 1));
        }
        let start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() && !matches!(b[i], b'/' | b'>' | b'=' | 0)
            || i == start && i < b.len() && b[i] == b'='
        {
            i += 1;
        }
        let key = s[start..i].to_ascii_lowercase();
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value = None;
        if i < b.len() && b[i] == b'=' {
            i += 1;
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            match b.get(i) {
                Some(q @ (b'"' | b'\'')) => {
                    let close = s[i + 1..].find(*q as char)? + i + 1;
                    value = Some(s[i + 1..close].to_string());
                    i = close + 1;
                }
                _ => {
                    let v = i;
                    while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'>' && b[i] != 0 {
                        i += 1;
                    }
                    value = Some(s[v..i].to_string());
                }
            }
        }
        // The first of two attributes with one name wins, as in the spec.
        if !attrs.iter().any(|(k, _): &(String, _)| *k == key) {
            attrs.push((key, value));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_anchors_a_browser_creates() {
        let doc = "<a id=\"T-1\"></a> <span id='T-2'>x</span> <a name=T-3></a>\n\n\
            Tests \\<a id=\"X-1\"> later. <span data-id=\"X-2\"></span> <div name=\"X-3\"></div>\n\n\
            <img alt='<a id=\"X-4\">' title='<a id=\"X-5\">'>\n\n\
            <script>\nvar a='<a id=\"X-6\"></a>';\n</script>\n\n\
            <textarea>\n<a id=\"X-7\"></a>\n</textarea>\n\n\
            <!-- <a id=\"X-8\"> -->\n\n`<a id=\"X-9\">`\n\n<P ID=\"T-4\">y</P>\n";
        assert_eq!(ids(doc), ["T-1", "T-2", "T-3", "T-4"]);
    }
}
