//! One CommonMark reading for every standard validator that reads
//! Markdown (issue 34): headings, paragraphs and the words a reader sees,
//! from pulldown-cmark in plain CommonMark (no extensions), the parse a
//! CommonMark renderer makes. A heading inside a code block is not a
//! heading; a paragraph inside a list item or a block quote, or one that
//! begins with inline HTML, is a paragraph; an HTML `<h1>`–`<h6>` is a
//! heading; text a browser hides (`<style>`, `<script>`, `<template>`, an
//! element with `hidden` or a hiding inline style, the elements the HTML
//! rendering spec does not show: see `html.rs`; a comment) is neither words
//! nor a paragraph, nor is an image's alt text.

mod html;

use std::ops::Range;

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use crate::text::{Normalized, is_bidi_control, joined_words, visible_words};
use html::Hider;
/// The source ranges a browser hides, by the same rules (`html.rs`).
pub use html::{Hidden, element_text, hidden, hidden_ranges, layout_hides};

/// A heading (ATX or setext).
#[derive(Debug, Clone, PartialEq)]
pub struct Heading {
    pub level: u8,
    /// Its text as rendered (hidden inline HTML left out).
    pub title: String,
    /// Where the heading is in the source.
    pub range: Range<usize>,
    /// Inside an element a browser hides.
    pub hidden: bool,
    /// Holds a bidi control character (`text::is_bidi_control`) or a bidi
    /// override element (`<bdo>`, `dir="rtl"`): a browser shows other
    /// letters or another order than the bytes ("Trojan Source").
    pub bidi: bool,
    /// Its title with the text a browser may also show in it (an image's
    /// `alt`, an `<input>`'s value, `<textarea>` or `<object>` fallback
    /// content, an `<iframe srcdoc>`), when that differs from `title`: a
    /// forbidden title is looked for in it too.
    pub maybe_title: Option<String>,
}

/// A paragraph (explicit, or the text of a tight list item).
#[derive(Debug, Clone, PartialEq)]
pub struct Paragraph {
    /// Its source, markup and all, with hidden inline HTML and comments
    /// cut out: each line trimmed of indentation and `>` markers, with the
    /// offset in the source it starts at.
    pub lines: Vec<(usize, String)>,
    /// Its text as rendered, lines joined by `\n`.
    pub text: String,
    pub range: Range<usize>,
    pub in_list: bool,
    pub in_quote: bool,
}

impl Paragraph {
    /// The source lines joined by single spaces, and for each line the
    /// offset in that joined text where it starts.
    pub fn joined(&self) -> (String, Vec<usize>) {
        let mut out = String::new();
        let mut starts = Vec::new();
        for (_, line) in &self.lines {
            if !out.is_empty() {
                out.push(' ');
            }
            starts.push(out.len());
            out.push_str(line);
        }
        (out, starts)
    }
}

/// A Markdown document as the standard validators read it.
#[derive(Debug, Default)]
pub struct Reading {
    pub headings: Vec<Heading>,
    /// Visible paragraphs only.
    pub paragraphs: Vec<Paragraph>,
    /// (offset, words a reader sees starting there): text, code and the
    /// visible text of HTML.
    pub words: Vec<(usize, usize)>,
    /// Each HTML block's visible prose (links as Markdown links, no code
    /// or tables, character references decoded), by the offset the block
    /// starts at; blocks with none left out.
    pub html_prose: Vec<(usize, String)>,
    /// Where a style sheet first appears that may hide content by selector
    /// (`<style>` with `display:none` in a rule, `@import`, `<link
    /// rel=stylesheet>`): from there what a reader sees cannot be told
    /// from the markup, and a validator should refuse.
    pub hiding_style: Option<usize>,
    /// Where CSS first appears that puts text on the page the markup does
    /// not hold (`::before { content: "\54 ODO" }`, `quotes`, a string
    /// list marker, `@counter-style`, `@font-face`, or a style sheet's
    /// `unicode-bidi`/`direction` that reorders it: `html/css.rs`), in a
    /// `<style>` or a `style` attribute, hidden or not: what a reader sees
    /// cannot be told from the markup, and a validator should refuse.
    pub generated_text: Option<usize>,
    /// Where CSS first appears that may show letters in another case than
    /// written (`text-transform`, small capitals): a forbidden word is
    /// then to be matched whatever its case.
    pub case_transform: Option<usize>,
    /// Where CSS first appears that may show boxes in another order than
    /// the markup (`order`, a reversed `flex-direction`, grid placement):
    /// the order of sections a reader sees cannot be told from it.
    pub reordered: Option<usize>,
    /// The YAML front matter the document starts with (`---` … `---`),
    /// which GitHub shows as a table and site generators strip: no
    /// heading in it is a section (one is kept as hidden, so it is still
    /// forbidden), no word in it counts.
    pub front_matter: Option<Range<usize>>,
}

impl Reading {
    /// Words a reader sees in `range` of the source.
    pub fn words_in(&self, range: Range<usize>) -> usize {
        self.words
            .iter()
            .filter(|(at, _)| range.contains(at))
            .map(|(_, n)| n)
            .sum()
    }
}

/// A heading title as compared: default-ignorable characters removed
/// (`TO\u{200b}DO`), NFKC applied (`ＴＯＤＯ`), trimmed, a trailing `:`
/// dropped, runs of white space made one space. Case is the caller's.
pub fn title_key(title: &str) -> String {
    let normal = Normalized::of(title);
    let t = normal.as_ref().map_or(title, |n| n.text.as_str());
    let t = t.trim().trim_end_matches(':').trim();
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

struct Open {
    start: usize,
    end: usize,
    text: String,
    /// Source ranges cut out (hidden inline HTML, comments).
    cut: Vec<Range<usize>>,
    hidden_from: Option<usize>,
    in_list: bool,
    in_quote: bool,
    /// Opened by text in a tight list item, not by a paragraph.
    implicit: bool,
}

/// Read `text` as CommonMark.
pub fn read(text: &str) -> Reading {
    let mut out = Reading::default();
    let mut hider = Hider::default();
    let mut styles = html::StyleScan::default();
    // Where the shown part of the open HTML heading starts.
    let mut part_at: Option<usize> = None;
    // (level, title, start, hidden, bidi override tag seen)
    let mut heading: Option<(u8, String, usize, bool, bool)> = None;
    // Text a browser may also show in the open Markdown heading (an
    // image's alt, an `<input>`'s value).
    let mut heading_maybe = String::new();
    let mut para: Option<Open> = None;
    let mut html_block: Option<(String, usize)> = None;
    let (mut lists, mut quotes, mut code) = (0usize, 0usize, false);
    // Inside an image: its text is alt text, which a reader does not see.
    let mut images = 0usize;
    // The last word shown is still open: text next to it with no space
    // between (split by emphasis or hidden markup) continues it.
    let mut open_word = false;
    let close = |p: Option<Open>, out: &mut Reading| {
        if let Some(p) = p {
            let cut = if let Some(from) = p.hidden_from {
                // An element hidden to the paragraph's end.
                let mut c = p.cut.clone();
                c.push(from..p.end);
                c
            } else {
                p.cut.clone()
            };
            let lines = source_lines(text, p.start..p.end, &cut);
            if !lines.is_empty() {
                out.paragraphs.push(Paragraph {
                    lines,
                    text: p.text,
                    range: p.start..p.end,
                    in_list: p.in_list,
                    in_quote: p.in_quote,
                });
            }
        }
    };
    for (event, range) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
        let inline = matches!(
            event,
            Event::Text(_)
                | Event::Code(_)
                | Event::InlineHtml(_)
                | Event::SoftBreak
                | Event::HardBreak
                | Event::Start(Tag::Emphasis | Tag::Strong | Tag::Link { .. } | Tag::Image { .. })
        );
        if inline
            && heading.is_none()
            && para.is_none()
            && !code
            && html_block.is_none()
            && !hider.hidden()
        {
            // A tight list item's text has no paragraph events.
            para = Some(Open {
                start: range.start,
                end: range.end,
                text: String::new(),
                cut: Vec::new(),
                hidden_from: None,
                in_list: lists > 0,
                in_quote: quotes > 0,
                implicit: true,
            });
        }
        if let Some(p) = para.as_mut()
            && inline
        {
            p.end = p.end.max(range.end);
        }
        let block_end = matches!(&event, Event::End(tag) if !is_inline_end(tag));
        let block_range = range.clone();
        if matches!(event, Event::Start(_) | Event::End(_)) {
            let ends_word = match &event {
                Event::Start(tag) => is_block(tag),
                Event::End(tag) => !is_inline_end(tag),
                _ => false,
            };
            // A block boundary ends the word; emphasis does not.
            if ends_word {
                open_word = false;
            }
        }
        match event {
            Event::Start(Tag::Paragraph) => {
                close(para.take(), &mut out);
                para = (!hider.hidden()).then_some(Open {
                    start: range.start,
                    end: range.end,
                    text: String::new(),
                    cut: Vec::new(),
                    hidden_from: None,
                    in_list: lists > 0,
                    in_quote: quotes > 0,
                    implicit: false,
                });
                if hider.hidden() {
                    // Hidden as a whole: collect nothing, count nothing.
                    para = None;
                }
            }
            Event::End(TagEnd::Paragraph) => {
                if let Some(p) = para.as_mut() {
                    p.end = range.end;
                }
                close(para.take(), &mut out);
            }
            Event::Start(tag) => {
                if para.as_ref().is_some_and(|p| p.implicit) && is_block(&tag) {
                    close(para.take(), &mut out);
                }
                match tag {
                    Tag::Heading { level, .. } => {
                        // The parser pops an open HTML heading at a new one.
                        if let Some(h) = hider.end_heading() {
                            let shown = std::iter::once(h).collect();
                            html_headings(shown, range.clone(), &mut part_at, &mut out);
                        }
                        heading_maybe.clear();
                        heading = Some((
                            level_number(level),
                            String::new(),
                            range.start,
                            hider.hidden(),
                            false,
                        ))
                    }
                    Tag::List(_) => lists += 1,
                    Tag::BlockQuote(_) => quotes += 1,
                    Tag::CodeBlock(_) => code = true,
                    Tag::HtmlBlock => html_block = Some((String::new(), range.start)),
                    Tag::Image { .. } => {
                        images += 1;
                        // Not text a reader reads, nor a citation: an
                        // image's source leaves the paragraph's lines.
                        if let Some(p) = para.as_mut() {
                            p.cut.push(range.clone());
                        }
                    }
                    _ => {}
                }
            }
            Event::End(tag) => {
                if para.as_ref().is_some_and(|p| p.implicit) && !is_inline_end(&tag) {
                    close(para.take(), &mut out);
                }
                match tag {
                    TagEnd::Heading(_) => {
                        if let Some((level, title, start, hidden, tag)) = heading.take() {
                            let maybe = std::mem::take(&mut heading_maybe);
                            out.headings.push(Heading {
                                level,
                                bidi: tag || title.chars().any(is_bidi_control),
                                maybe_title: maybe_title(&title, &maybe),
                                title: title.trim().to_string(),
                                range: start..range.end,
                                hidden,
                            });
                        }
                    }
                    TagEnd::List(_) => lists = lists.saturating_sub(1),
                    TagEnd::BlockQuote(_) => quotes = quotes.saturating_sub(1),
                    TagEnd::CodeBlock => code = false,
                    TagEnd::Image => images = images.saturating_sub(1),
                    TagEnd::HtmlBlock => {
                        if let Some((block, start)) = html_block.take() {
                            // Whole: a tag may run over its lines.
                            styles.html(&block, start);
                            let shown = hider.feed(&block);
                            if hider.hiding_css {
                                out.hiding_style.get_or_insert(start);
                            }
                            html_headings(shown.headings, start..range.end, &mut part_at, &mut out);
                            if hider.heading_has_text() {
                                part_at.get_or_insert(start);
                            }
                            let text = html::decode_entities(&shown.text);
                            out.words.push((start, visible_words(&text)));
                            let prose = html::decode_entities(&shown.prose);
                            if !prose.trim().is_empty() {
                                out.html_prose.push((start, prose));
                            }
                        }
                    }
                    _ => {}
                }
            }
            Event::Html(t) => {
                if let Some((block, _)) = html_block.as_mut() {
                    block.push_str(&t);
                }
            }
            Event::InlineHtml(t) => {
                if images > 0 {
                    // Alt text: markup in it is not rendered.
                    continue;
                }
                styles.html(&t, range.start);
                let was = hider.hidden();
                if let Some((.., tag)) = heading.as_mut() {
                    *tag |= html::is_bidi_tag(&t);
                }
                let shown = hider.feed(&t);
                if hider.hiding_css {
                    out.hiding_style.get_or_insert(range.start);
                }
                if heading.is_some() {
                    heading_maybe.push_str(&shown.maybe);
                }
                html_headings(shown.headings, range.clone(), &mut part_at, &mut out);
                if hider.heading_has_text() {
                    part_at.get_or_insert(range.start);
                }
                let shown = shown.text;
                // A tag shows as nothing and joins the words around it
                // (`Ri<b>s</b>ks`), unless it breaks the line.
                let text = shown.trim_matches(' ');
                if html::breaks_words(&t) {
                    open_word = false;
                }
                out.words
                    .push((range.start, joined_words(text, &mut open_word)));
                if let Some(p) = para.as_mut() {
                    match (was, hider.hidden()) {
                        (false, true) => p.hidden_from = Some(range.start),
                        (true, false) => {
                            let from = p.hidden_from.take().unwrap_or(p.start);
                            p.cut.push(from..range.end);
                        }
                        // A comment is not seen.
                        (false, false) if t.starts_with("<!--") => p.cut.push(range.clone()),
                        _ => {}
                    }
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if images > 0 {
                    // An image's alt text is shown when it does not load.
                    if heading.is_some() {
                        heading_maybe.push_str(&t);
                    }
                    continue;
                }
                styles.text(&t);
                // Text inside an inline HTML heading (`<h2>TODO</h2>` in a
                // paragraph, a link's text, a table row) is its title.
                let in_html_heading = hider.heading_text(&t);
                if in_html_heading && !t.trim().is_empty() {
                    part_at.get_or_insert(range.start);
                }
                if hider.hidden() {
                    // A hidden heading keeps its title: it still counts
                    // as a forbidden section.
                    if let Some((_, title, _, true, _)) = heading.as_mut() {
                        title.push_str(&t);
                    }
                    continue;
                }
                // `<div/hidden>` is text to CommonMark, but an HTML
                // parser given it raw reads the `/` as a space and hides
                // the div (html5lib): read as HTML, the stricter reading.
                // The parser splits text at `<`: the tag starts one byte
                // before this text.
                let lt = text[..range.start].ends_with('<') && !t.starts_with('<');
                let from = range.start - usize::from(lt);
                let raw = if lt {
                    text.get(from..range.end).unwrap_or(&t)
                } else {
                    &t
                };
                let words = if slash_tag(raw) {
                    html::decode_entities(&hider.feed(raw).text)
                } else {
                    t.to_string()
                };
                out.words
                    .push((range.start, joined_words(&words, &mut open_word)));
                if in_html_heading {
                    // Shown in the HTML heading, not in the Markdown
                    // heading or paragraph around it (a browser closes
                    // the `<p>` at `<h2>`): a title is not prose.
                    if let Some(p) = para.as_mut() {
                        p.cut.push(range.clone());
                    }
                } else if let Some((_, title, ..)) = heading.as_mut() {
                    title.push_str(&t);
                    heading_maybe.push_str(&t);
                } else if let Some(p) = para.as_mut() {
                    p.text.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                open_word = false;
                // A setext heading may run over several lines: a space.
                if hider.heading_text(" ") {
                    // Inside an HTML heading: a space in its title; the
                    // paragraph keeps its line.
                    if let Some(p) = para.as_mut() {
                        p.text.push('\n');
                    }
                } else if let Some((_, title, ..)) = heading.as_mut() {
                    title.push(' ');
                    heading_maybe.push(' ');
                } else if let Some(p) = para.as_mut() {
                    p.text.push('\n');
                }
            }
            _ => {}
        }
        if block_end {
            // An unclosed HTML heading goes on over the next block, shown
            // in its style: this block's part is a heading of its own.
            if let Some(h) = hider.split_heading() {
                let shown = std::iter::once(h).collect();
                html_headings(shown, block_range, &mut part_at, &mut out);
            }
        }
    }
    close(para.take(), &mut out);
    styles.finish();
    out.generated_text = styles.generated;
    // Also a sheet the hider did not read (inside a hidden element) or
    // wrote with CSS escapes (`\64 isplay: none`).
    out.hiding_style = match (out.hiding_style, styles.hiding) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    out.case_transform = styles.case;
    out.reordered = styles.reorder;
    if let Some(h) = hider.end_heading() {
        let shown = std::iter::once(h).collect();
        html_headings(shown, text.len()..text.len(), &mut part_at, &mut out);
    }
    // HTML headings are pushed when their block ends: back in order.
    out.headings.sort_by_key(|h| h.range.start);
    if let Some(end) = front_matter(text) {
        for h in out.headings.iter_mut().filter(|h| h.range.start < end) {
            h.hidden = true;
        }
        out.words.retain(|(at, _)| *at >= end);
        out.paragraphs.retain(|p| p.range.start >= end);
        out.html_prose.retain(|(at, _)| *at >= end);
        out.front_matter = Some(0..end);
    }
    out
}

/// Where the YAML front matter `text` starts with ends: a first line
/// `---`, up to a line `---` or `...` (as Jekyll, Hugo, MkDocs and GitHub
/// read it); `None` without one.
pub fn front_matter(text: &str) -> Option<usize> {
    let mut lines = text.split_inclusive('\n');
    let first = lines.next()?;
    if first.trim_end() != "---" {
        return None;
    }
    let mut at = first.len();
    for line in lines {
        at += line.len();
        if matches!(line.trim_end(), "---" | "...") {
            return Some(at.min(text.len()));
        }
    }
    None
}

/// Whether text holds what an HTML parser reads as a start tag with
/// attributes after a `/` (`<div/hidden>`), which CommonMark leaves as
/// text.
fn slash_tag(text: &str) -> bool {
    text.match_indices('<').any(|(i, _)| {
        let rest = &text[i + 1..];
        let name = rest
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(rest.len());
        rest.starts_with(|c: char| c.is_ascii_alphabetic())
            && rest[name..].starts_with('/')
            && !rest[name..].starts_with("/>")
            && rest[name..].contains('>')
    })
}

/// A heading's title with the text a browser may also show in it, when
/// that differs from the title.
fn maybe_title(title: &str, maybe: &str) -> Option<String> {
    let maybe = maybe.split_whitespace().collect::<Vec<_>>().join(" ");
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    (maybe != title && !maybe.is_empty()).then_some(maybe)
}

/// HTML headings (`<h2>TODO</h2>`) ended in a piece of the document at
/// `range`: headings in every renderer. The first starts where its shown
/// part began (`part_at`), if known.
fn html_headings(
    found: Vec<html::HtmlHeading>,
    range: Range<usize>,
    part_at: &mut Option<usize>,
    out: &mut Reading,
) {
    for h in found {
        let start = part_at.take().unwrap_or(range.start).min(range.end);
        out.headings.push(Heading {
            level: h.level,
            bidi: h.bidi || h.title.chars().any(is_bidi_control),
            maybe_title: maybe_title(&h.title, &h.maybe),
            title: h.title,
            range: start..range.end,
            hidden: h.hidden,
        });
    }
}

/// The offsets of the tags in `html` that override the direction of
/// their text (`<bdo>`, `dir="rtl"`, a `direction`/`unicode-bidi` style).
pub fn bidi_tags(html: &str) -> Vec<usize> {
    html::bidi_tags(html)
}

/// Tags that start a block (and so end a tight item's text).
fn is_block(tag: &Tag) -> bool {
    !matches!(
        tag,
        Tag::Emphasis | Tag::Strong | Tag::Link { .. } | Tag::Image { .. } | Tag::Strikethrough
    )
}

fn is_inline_end(tag: &TagEnd) -> bool {
    matches!(
        tag,
        TagEnd::Emphasis | TagEnd::Strong | TagEnd::Link | TagEnd::Image | TagEnd::Strikethrough
    )
}

/// The lines of `range` with `cut` removed, each trimmed of indentation
/// and block-quote markers; blank lines dropped.
fn source_lines(text: &str, range: Range<usize>, cut: &[Range<usize>]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut at = range.start;
    for line in text[range.clone()].split_inclusive('\n') {
        let start = at;
        at += line.len();
        let mut kept = String::new();
        let mut first = None;
        for (i, c) in line.char_indices() {
            let pos = start + i;
            if cut.iter().any(|r| r.contains(&pos)) {
                continue;
            }
            first.get_or_insert(pos);
            kept.push(c);
        }
        let trimmed = kept.trim_start_matches(|c: char| c.is_whitespace() || c == '>');
        let lead = kept.len() - trimmed.len();
        let trimmed = trimmed.trim_end();
        if !trimmed.is_empty() {
            out.push((first.unwrap_or(start) + lead, trimmed.to_string()));
        }
    }
    out
}

fn level_number(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

#[cfg(test)]
mod tests;
