use super::*;

fn shown(text: &str) -> String {
    let seen = Seen::read(text);
    let lines = seen.lines(text, 0..text.len());
    let chars: Vec<(usize, char)> = lines.concat();
    visible(&chars, false).0
}

#[test]
fn hidden_html_and_css_and_closed_dialogs_hide() {
    for html in [
        "<div hidden>\n\n## References\n\n</div>\n",
        "<dialog>\n\n## Sources\n\n</dialog>\n",
        "<div style=\"display: none\">\n\n## Sources\n\n</div>\n",
        "<!--\n[2]: https://example.com\n-->\n",
    ] {
        let seen = Seen::read(html);
        let at = html.find(['#', '[']).unwrap();
        assert!(seen.is_hidden(at), "{html:?}");
        assert!(seen.definitions.is_empty(), "{html:?}");
    }
    let open = "<dialog open>\n\n## Sources\n\n</dialog>\n";
    assert!(!Seen::read(open).is_hidden(open.find('#').unwrap()));
    let defined = Seen::read("Claim [2].\n\n[2]: https://example.com\n");
    assert_eq!(defined.definitions.len(), 1);
}

#[test]
fn what_the_shared_reading_hides_cites_nothing() {
    // Issue 34, round 3: each of these hid the only citation of a claim
    // from a reader, and citation-coverage read it.
    for hiding in [
        "<span style=\"color:transparent\">",
        "<span style=\"position:absolute;left:-9999px\">",
        "<span style=\"display:inline-block;transform:scale(0)\">",
        "<span style=\"position:absolute;clip-path:inset(50%)\">",
        "<span style=\"display:inline-block;width:0;height:0;overflow:hidden\">",
        "<span style=\"visibility : hidden !important\">",
    ] {
        let s = shown(&format!("A claim{hiding} [1]</span>."));
        assert_eq!(s, "A claim.", "{hiding}");
    }
    for el in [
        "details", "noscript", "video", "audio", "object", "iframe", "dialog",
    ] {
        let s = shown(&format!("A claim<{el}><summary></summary> [1]</{el}>."));
        assert_eq!(s, "A claim.", "{el}");
    }
    assert_eq!(
        shown("A claim<span style=\"color: red\"> [1]</span>."),
        "A claim [1]."
    );
}

#[test]
fn citations_need_visible_text() {
    for text in [
        "A claim <span style=\"display:none\">[1]</span>.",
        "A claim <a href=\"https://example.com\"></a>.",
        "A claim [ ](https://example.com).",
        "A claim [&nbsp;](https://example.com).",
        "A claim [\u{200b}](https://example.com).",
        "A claim [&#8203;](https://example.com).",
        "A claim [<!-- -->](https://example.com).",
        "A claim [<span hidden>1</span>](https://example.com).",
        "A claim <img src=\"x.png\" alt=\"https://example.com\">.",
    ] {
        let s = shown(text);
        assert!(
            !s.contains("://") && !s.contains("[1]"),
            "{text:?} -> {s:?}"
        );
    }
    assert_eq!(
        shown("A claim <a href=\"https://x.org\">Smith</a>."),
        "A claim [Smith](https://x.org)."
    );
    assert_eq!(shown("See <https://x.org/a>."), "See <https://x.org/a>.");
    assert_eq!(
        shown("A claim [docs](https://x.org)."),
        "A claim [docs](https://x.org)."
    );
}

#[test]
fn words_are_split_at_anything_blank() {
    assert_eq!(words(&shown("The&#32;migration&#32;removed&#32;every")), 4);
    assert_eq!(words("The\u{2800}migration\u{2800}removed\u{2800}every"), 4);
    assert_eq!(words("The\u{3164}migration\u{a0}removed\u{3000}every"), 4);
    assert_eq!(words(&shown("zero\u{200b}width")), 1, "zero-width joins");
}

#[test]
fn only_a_delimiter_row_makes_a_table() {
    let rows = |r: &[&str]| r.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(table_start(&rows(&["| a claim |", "| another |"])), None);
    assert_eq!(
        table_start(&rows(&["| a | b |", "|---|:-:|", "| 1 | 2 |"])),
        Some(0)
    );
    assert_eq!(
        table_start(&rows(&["Prose first.", "a | b", "--|--"])),
        Some(1)
    );
    assert_eq!(
        table_start(&rows(&["| a | b |", "|---|"])),
        None,
        "cells must agree"
    );
}

#[test]
fn html_blocks_are_read_as_shown() {
    let text = "<div>\n<p>A claim <span style=\"display:none\">[1]</span> with <code>[2]</code>.</p>\n<table><tr><td>no prose</td></tr></table>\n</div>\n";
    let seen = Seen::read(text);
    assert_eq!(seen.blocks.len(), 1);
    let chars = seen.lines(text, seen.blocks[0].clone()).concat();
    let (shown, _) = visible(&chars, true);
    assert_eq!(
        shown.split_whitespace().collect::<Vec<_>>(),
        ["A", "claim", "with", "."]
    );
}

#[test]
fn processing_instructions_and_cdata_are_not_seen() {
    for text in [
        "<?php a claim with many words ?>\n",
        "<![CDATA[ a claim with many words ]]>\n",
        "Text <?php a claim [1] ?> here.\n",
    ] {
        let s = shown(text);
        assert!(!s.contains("claim"), "{text:?} -> {s:?}");
    }
}

#[test]
fn many_tags_read_in_linear_time() {
    let text = format!("A claim {}[1].\n", "<b>x</b> ".repeat(50_000));
    let start = std::time::Instant::now();
    assert!(shown(&text).ends_with("[1]."));
    assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
}
