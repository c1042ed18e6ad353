//! Requirement ids as a reader sees them. A producer who wants a
//! requirement the trace matrix need not cover writes its id so that it
//! shows as `REQ-2` but is no match of the id pattern in the source:
//! `REQ&#45;2` (a character reference), `REQ-<span>2</span>` or `REQ-*2*`
//! (markup inside), `REQ-\u{200b}2` (a zero-width character), `REQ‑2`
//! (U+2011, a hyphen a reader cannot tell from `-`) or `REQ-２` (a
//! full-width digit). The pattern is therefore also matched against the
//! rendered text of each paragraph, heading and HTML block (`shown`), and
//! both it and the source lines are first folded (`fold`): invisible
//! characters removed, NFKC, and each other non-ASCII character replaced
//! by its UTS #39 confusable skeleton when that is ASCII. ASCII is never
//! folded (the skeleton maps `m` to `rn`, `0` to `O`): an id written in
//! ASCII reads as written.

use unicode_security::skeleton;
use vcc_plugin_common::LineIndex;
use vcc_plugin_common::markdown::Reading;
use vcc_plugin_common::text::Normalized;

/// `text` as its requirement ids are matched (see the module).
pub fn fold(text: &str) -> String {
    let normal = Normalized::of(text);
    let text = normal.as_ref().map_or(text, |n| n.text.as_str());
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
            continue;
        }
        let skel: String = skeleton(c.encode_utf8(&mut [0; 4])).collect();
        if !skel.is_empty() && skel.is_ascii() {
            out.push_str(&skel);
        } else {
            out.push(c);
        }
    }
    out
}

/// The rendered text of every visible paragraph, heading and HTML block,
/// folded, by line: character references decoded, markup inside a word
/// gone. Lines of a pipe table are left out: tables are read cell by cell
/// (a trace matrix's own rows define no requirement).
pub fn shown(text: &str, reading: &Reading, lines: &LineIndex) -> Vec<(u32, String)> {
    let source: Vec<&str> = text.lines().collect();
    let table_line = |line: u32| {
        source
            .get((line as usize).saturating_sub(1))
            .is_some_and(|l| l.trim_start().starts_with('|'))
    };
    let mut out = Vec::new();
    for p in &reading.paragraphs {
        let rendered: Vec<&str> = p.text.split('\n').collect();
        let by_line = rendered.len() == p.lines.len();
        for (i, r) in rendered.iter().enumerate() {
            let at = if by_line { p.lines[i].0 } else { p.range.start };
            let line = lines.line(at);
            if r.trim_start().starts_with('|') || (by_line && table_line(line)) {
                continue;
            }
            out.push((line, fold(r)));
        }
    }
    for h in reading.headings.iter().filter(|h| !h.hidden) {
        out.push((lines.line(h.range.start), fold(&h.title)));
    }
    for (at, prose) in &reading.html_prose {
        let line = lines.line(*at);
        out.extend(prose.lines().map(|l| (line, fold(l))));
    }
    out
}
