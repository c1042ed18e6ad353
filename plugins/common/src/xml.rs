//! A small XML element tree (for JUnit and Cobertura reports), with the line
//! of each element. quick-xml never fetches external entities; depth and
//! element count are bounded so a hostile file cannot exhaust the guest.
//! The text is UTF-8 (the host decoded it): a declaration that names
//! another encoding is refused, since lxml and ElementTree would decode the
//! same bytes differently, or not at all (issue 34).

use quick_xml::Reader;
use quick_xml::events::{BytesDecl, BytesStart, Event};

use crate::LineIndex;

#[derive(Debug, Default)]
pub struct Element {
    /// Local name (namespace prefix dropped).
    pub name: String,
    /// In a namespace: a prefix, or a default `xmlns="…"` in scope. A
    /// namespace-aware reader (lxml, ElementTree) does not see
    /// `{urn:x}testcase` as `testcase`.
    pub namespaced: bool,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Element>,
    /// Text and CDATA directly inside this element.
    pub text: String,
    pub line: u32,
}

const MAX_DEPTH: usize = 256;
const MAX_ELEMENTS: usize = 2_000_000;

impl Element {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every descendant (depth first, document order) named `name`.
    pub fn descendants<'a>(&'a self, name: &'a str) -> Vec<&'a Element> {
        let mut out = Vec::new();
        let mut todo: Vec<&Element> = self.children.iter().rev().collect();
        while let Some(e) = todo.pop() {
            if e.name == name {
                out.push(e);
            }
            todo.extend(e.children.iter().rev());
        }
        out
    }

    pub fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }
}

/// Parse a document into its root element; on error, the message and line.
pub fn parse(text: &str) -> Result<Element, (String, u32)> {
    let lines = LineIndex::new(text);
    let mut reader = Reader::from_str(text);
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    let mut count = 0usize;
    // Whether a default namespace is in scope, per open element.
    let mut defaults: Vec<bool> = Vec::new();
    loop {
        let at = reader.buffer_position() as usize;
        let line = lines.line(at.min(text.len()));
        let event = reader.read_event().map_err(|e| (e.to_string(), line))?;
        match event {
            Event::Start(start) | Event::Empty(start) if root.is_some() => {
                return Err((
                    format!("content after the root element: <{}>", name_of(&start)),
                    line,
                ));
            }
            Event::Decl(decl) => declared_encoding(&decl, text, line)?,
            Event::Start(start) => {
                count += 1;
                if stack.len() >= MAX_DEPTH || count > MAX_ELEMENTS {
                    return Err((
                        "the document is nested too deeply or too large".into(),
                        line,
                    ));
                }
                let e = element(&start, line, &defaults)?;
                defaults.push(e.1);
                stack.push(e.0);
            }
            Event::Empty(start) => {
                count += 1;
                if count > MAX_ELEMENTS {
                    return Err(("the document is too large".into(), line));
                }
                let (e, _) = element(&start, line, &defaults)?;
                match stack.last_mut() {
                    Some(parent) => parent.children.push(e),
                    None => root = Some(e),
                }
            }
            Event::End(_) => {
                defaults.pop();
                let done = stack
                    .pop()
                    .ok_or_else(|| ("unbalanced end tag".to_string(), line))?;
                match stack.last_mut() {
                    Some(parent) => parent.children.push(done),
                    None => root = Some(done),
                }
            }
            Event::Text(t) => {
                if let Some(top) = stack.last_mut() {
                    let text = t.xml_content().map_err(|e| (e.to_string(), line))?;
                    top.text.push_str(&text);
                }
            }
            Event::CData(t) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&String::from_utf8_lossy(&t));
                }
            }
            Event::GeneralRef(r) => {
                if let Some(top) = stack.last_mut() {
                    // A character reference (`&#10;`) is text to every
                    // parser; quick-xml hands it over unresolved.
                    if let Some(c) = r.resolve_char_ref().map_err(|e| (e.to_string(), line))? {
                        top.text.push(c);
                        continue;
                    }
                    let name = r.decode().map_err(|e| (e.to_string(), line))?;
                    top.text.push_str(
                        predefined(&name)
                            .ok_or_else(|| (format!("unknown entity &{name};"), line))?,
                    );
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !stack.is_empty() {
        return Err((
            "the document ends inside an element".into(),
            lines.line(text.len()),
        ));
    }
    root.ok_or_else(|| ("no root element".into(), 1))
}

fn predefined(name: &str) -> Option<&'static str> {
    Some(match name {
        "lt" => "<",
        "gt" => ">",
        "amp" => "&",
        "apos" => "'",
        "quot" => "\"",
        _ => return None,
    })
}

fn name_of(start: &BytesStart) -> String {
    String::from_utf8_lossy(start.local_name().as_ref()).into_owned()
}

/// The encoding a declaration names must be what the bytes are: UTF-8, or
/// an ASCII-compatible one over a document that is all ASCII (the only case
/// where every reader decodes the same text).
fn declared_encoding(decl: &BytesDecl, text: &str, line: u32) -> Result<(), (String, u32)> {
    let Some(encoding) = decl.encoding() else {
        return Ok(());
    };
    let encoding = encoding.map_err(|e| (e.to_string(), line))?;
    let name = String::from_utf8_lossy(&encoding).to_ascii_lowercase();
    let ascii_alike = ["us-ascii", "ascii", "iso-8859-1", "latin1", "iso-latin-1"];
    if name == "utf-8" || (ascii_alike.contains(&name.as_str()) && text.is_ascii()) {
        return Ok(());
    }
    Err((
        format!(
            "the XML declaration says encoding=\"{}\" but the file is UTF-8: an XML parser decodes it as the declaration says (or refuses it); write encoding=\"UTF-8\"",
            String::from_utf8_lossy(&encoding)
        ),
        line,
    ))
}

/// An element, and whether a default namespace is in scope inside it.
fn element(
    start: &BytesStart,
    line: u32,
    defaults: &[bool],
) -> Result<(Element, bool), (String, u32)> {
    let mut attrs = Vec::new();
    let mut default_ns = defaults.last().copied().unwrap_or(false);
    for attr in start.attributes() {
        let attr = attr.map_err(|e| (e.to_string(), line))?;
        if attr.key.as_ref() == b"xmlns" {
            // `xmlns=""` undeclares the default namespace.
            default_ns = !attr.value.is_empty();
        }
        let key = String::from_utf8_lossy(attr.key.local_name().as_ref()).into_owned();
        let value = attr
            .unescape_value()
            .map_err(|e| (e.to_string(), line))?
            .into_owned();
        attrs.push((key, value));
    }
    let namespaced = default_ns || start.name().prefix().is_some();
    Ok((
        Element {
            name: name_of(start),
            namespaced,
            attrs,
            children: Vec::new(),
            text: String::new(),
            line,
        },
        default_ns,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_a_tree_with_lines() {
        let doc = parse("<?xml version=\"1.0\"?>\n<a x=\"1 &amp; 2\">\n  <b/>\n  <c>t &lt; u<![CDATA[<raw>]]></c>\n</a>\n").unwrap();
        assert_eq!(doc.name, "a");
        assert_eq!(doc.attr("x"), Some("1 & 2"));
        assert_eq!(doc.children.len(), 2);
        assert_eq!(doc.children[1].line, 4);
        assert_eq!(doc.children[1].text, "t < u<raw>");
        assert_eq!(doc.descendants("c").len(), 1);
        let refs = parse("<a>x&#65;&#x42;y</a>").unwrap();
        assert_eq!(refs.text, "xABy");
        assert!(parse("<a>&#0;</a>").is_err());
    }

    #[test]
    fn refuses_broken_and_hostile_documents() {
        assert!(parse("<a><b></a>").is_err());
        assert!(parse("<a>").is_err());
        assert!(parse("<a>&xxe;</a>").is_err());
        let deep = format!("{}{}", "<a>".repeat(300), "</a>".repeat(300));
        assert!(parse(&deep).unwrap_err().0.contains("deeply"));
    }

    #[test]
    fn namespaces_are_seen() {
        let doc =
            parse(r#"<a><x:b xmlns:x="urn:x"/><c xmlns="urn:y"><d/><e xmlns=""/></c><f/></a>"#)
                .unwrap();
        let ns: Vec<(&str, bool)> = ["b", "c", "d", "e", "f"]
            .iter()
            .map(|n| (*n, doc.descendants(n)[0].namespaced))
            .collect();
        assert_eq!(
            ns,
            [
                ("b", true),
                ("c", true),
                ("d", true),
                ("e", false),
                ("f", false)
            ]
        );
        assert!(!doc.namespaced);
    }

    #[test]
    fn the_declared_encoding_must_be_the_bytes() {
        assert!(parse("<?xml version=\"1.0\" encoding=\"utf-8\"?><a/>").is_ok());
        assert!(parse("<?xml version=\"1.0\" encoding=\"UTF-8\"?><a/>").is_ok());
        assert!(parse("<?xml version=\"1.0\"?><a/>").is_ok());
        assert!(parse("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a/>").is_ok());
        let latin = parse("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>é</a>");
        assert!(latin.unwrap_err().0.contains("ISO-8859-1"));
        let utf16 = parse("<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<a/>").unwrap_err();
        assert!(utf16.0.contains("UTF-16") && utf16.1 == 1, "{utf16:?}");
        assert!(parse("<?xml version=\"1.0\" encoding=\"utf-8-sig\"?><a/>").is_err());
    }
}
