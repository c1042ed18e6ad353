//! What a reader is shown that the bytes do not say: bidi controls and
//! direction overrides (the shown order is not the byte order, "Trojan
//! Source"), and, in a Markdown file, the rendered text (`T&#79;DO` is
//! shown as `TODO`).

use crate::{dialects, page};
use vcc_plugin_common::markdown;
use vcc_plugin_common::text::is_bidi_control;

/// A Markdown file as rendered, for must_not_match.
pub struct Rendered {
    /// (offset in the source of the line it comes from, one line of the
    /// rendered text): headings, paragraphs (entities decoded, emphasis
    /// and comments removed), the visible prose of HTML blocks.
    pub lines: Vec<(usize, String)>,
    /// Offsets of tags that override the direction (`<bdo>`, `dir="rtl"`).
    pub bidi_tags: Vec<usize>,
    /// Where CSS puts text on the page the markup does not hold
    /// (`::before { content: "\54 ODO" }`): what a reader sees cannot be
    /// told from the markup.
    pub generated: Option<usize>,
    /// Where CSS may show letters in another case than written
    /// (`text-transform: uppercase`): forbidden text is then matched
    /// whatever its case.
    pub recased: Option<usize>,
    /// Where CSS draws letters closer than written (a negative
    /// `word-spacing`): the words a reader sees cannot be told.
    pub spaced: Option<usize>,
}

/// A bidi embedding, override or isolate control.
pub fn is_bidi_control_char(c: char) -> bool {
    is_bidi_control(c)
}

/// Whether a path is read as Markdown by its consumers: Markdown, and
/// the dialects whose prose is Markdown or renders character references
/// and HTML as Markdown does (MDX, Quarto, R Markdown, AsciiDoc,
/// Livebook).
pub fn is_markdown(path: &str) -> bool {
    ends_with_any(
        path,
        &[
            ".md",
            ".markdown",
            ".mdown",
            ".mkd",
            ".mkdn",
            ".mdwn",
            ".mdtxt",
            ".mdtext",
            ".mdx",
            ".qmd",
            ".rmd",
            ".rmarkdown",
            ".adoc",
            ".asciidoc",
            ".livemd",
        ],
    )
}

fn ends_with_any(path: &str, exts: &[&str]) -> bool {
    let lower = path.to_ascii_lowercase();
    exts.iter().any(|ext| lower.ends_with(ext))
}

/// Whether a path is a page a browser renders.
pub fn is_html(path: &str) -> bool {
    ends_with_any(path, &[".html", ".htm", ".xhtml", ".shtml", ".svg"])
}

/// The rendered readings of the file at `path`, when its consumers render
/// it: Markdown (and its dialects) and HTML read both as Markdown and as
/// a browser shows the page (`page`); reStructuredText with its escapes
/// applied; a Jupyter notebook's cells decoded, Markdown cells rendered.
pub fn reading(path: &str, text: &str) -> Option<Rendered> {
    let lower = path.to_ascii_lowercase();
    if is_markdown(path) || is_html(path) {
        let mut r = Rendered::of(text);
        r.lines.extend(page::lines(text, is_markdown(path)));
        r.spaced = dialects::closed_spacing(text);
        r.lines.sort_by_key(|(at, _)| *at);
        return Some(r);
    }
    if lower.ends_with(".rst") || lower.ends_with(".rest") {
        return Some(Rendered::from_lines(dialects::rst_lines(text)));
    }
    if lower.ends_with(".ipynb") {
        let cells = dialects::notebook_cells(text)?;
        let mut r = Rendered::from_lines(Vec::new());
        for (at, source, markdown) in cells {
            let placed = |lines: Vec<(usize, String)>| lines.into_iter().map(move |(_, l)| (at, l));
            r.lines.extend(source.lines().map(|l| (at, l.to_string())));
            if markdown {
                let cell = Rendered::of(&source);
                r.generated = r.generated.or(cell.generated.map(|_| at));
                r.recased = r.recased.or(cell.recased.map(|_| at));
                r.spaced = r.spaced.or(dialects::closed_spacing(&source).map(|_| at));
                r.bidi_tags.extend(cell.bidi_tags.iter().map(|_| at));
                r.lines.extend(placed(cell.lines));
                r.lines.extend(placed(page::lines(&source, true)));
            }
        }
        r.bidi_tags.sort_unstable();
        r.bidi_tags.dedup();
        return Some(r);
    }
    None
}

impl Rendered {
    fn from_lines(lines: Vec<(usize, String)>) -> Rendered {
        Rendered {
            lines,
            bidi_tags: Vec::new(),
            generated: None,
            recased: None,
            spaced: None,
        }
    }

    pub fn of(text: &str) -> Rendered {
        let reading = markdown::read(text);
        let mut lines = Vec::new();
        for h in &reading.headings {
            lines.push((h.range.start, h.title.clone()));
        }
        for p in &reading.paragraphs {
            let shown: Vec<&str> = p.text.split('\n').collect();
            // A soft break is a line of the source: line i of the text is
            // line i of the source, unless a construct spans lines.
            let same = shown.len() == p.lines.len();
            for (i, line) in shown.iter().enumerate() {
                let at = if same { p.lines[i].0 } else { p.range.start };
                lines.push((at, line.to_string()));
            }
        }
        for (at, prose) in &reading.html_prose {
            lines.push((*at, prose.split_whitespace().collect::<Vec<_>>().join(" ")));
        }
        lines.sort_by_key(|(at, _)| *at);
        let mut bidi_tags = markdown::bidi_tags(text);
        // A bidi control written as a character reference (`&#x202E;`)
        // is one once rendered.
        bidi_tags.extend(
            lines
                .iter()
                .filter(|(_, l)| l.chars().any(is_bidi_control))
                .map(|(at, _)| *at),
        );
        bidi_tags.sort_unstable();
        bidi_tags.dedup();
        Rendered {
            lines,
            bidi_tags,
            generated: reading.generated_text,
            recased: reading.case_transform,
            spaced: None,
        }
    }
}

/// Offsets of every bidi control character in `text`, and of every
/// direction-override tag when it is Markdown.
pub fn bidi_offsets(text: &str, rendered: Option<&Rendered>) -> Vec<usize> {
    let mut out: Vec<usize> = text
        .char_indices()
        .filter(|(_, c)| is_bidi_control(*c))
        .map(|(i, _)| i)
        .collect();
    if let Some(r) = rendered {
        out.extend(&r.bidi_tags);
        out.sort_unstable();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_is_read_as_rendered_and_overrides_are_found() {
        let doc = "Done.\n\nT&#79;DO: *fin*<!-- x -->ish\nthis\n\n<bdo dir=\"rtl\">ODOT</bdo>\n";
        let r = Rendered::of(doc);
        let texts: Vec<&str> = r.lines.iter().map(|(_, l)| l.as_str()).collect();
        assert!(texts.contains(&"TODO: finish"), "{texts:?}");
        let at = r.lines.iter().find(|(_, l)| l == "this").map(|(a, _)| *a);
        assert_eq!(at, doc.find("this"));
        assert_eq!(r.bidi_tags, vec![doc.find("<bdo").unwrap_or(0)]);
        assert_eq!(bidi_offsets("a\u{202e}b", None), vec![1]);
        assert!(is_markdown("docs/NOTES.MD") && !is_markdown("lib.rs"));
        let doc = "ok\n\n&#x202E;ODOT&#x202C;: finish\n";
        assert_eq!(Rendered::of(doc).bidi_tags, vec![4]);
    }

    #[test]
    fn generated_content_and_case_changes_are_located() {
        let doc = "<style>.n::before { content: \"\\54 ODO: finish this\" }</style>\n\nDone. <span class=\"n\"></span>\n";
        let r = Rendered::of(doc);
        assert_eq!((r.generated, r.recased), (Some(0), None));
        let doc = "Done.\n\n<span style=\"text-transform:uppercase\">todo</span>: finish this\n";
        let r = Rendered::of(doc);
        assert_eq!((r.generated, r.recased), (None, doc.find("<span")));
    }
}
