use super::*;

fn paragraphs(doc: &str) -> Vec<(String, bool, bool)> {
    read(doc)
        .paragraphs
        .iter()
        .map(|p| (p.joined().0, p.in_list, p.in_quote))
        .collect()
}

#[test]
fn headings_atx_and_setext_not_in_code() {
    let r = read("# One\n\n```\n# not\n```\n\nTwo\n---\n\n- ## In a list\n\n> ### Quoted\n");
    let h: Vec<(u8, &str)> = r
        .headings
        .iter()
        .map(|h| (h.level, h.title.as_str()))
        .collect();
    assert_eq!(
        h,
        vec![(1, "One"), (2, "Two"), (2, "In a list"), (3, "Quoted")]
    );
}

#[test]
fn list_items_quotes_and_html_led_text_are_paragraphs() {
    let doc = "Intro line\nlazy line.\n\n- tight [item](http://x)\n- loose\n\n    second paragraph of the item\n\n> quoted\n> more\n\n<span>Led by</span> inline HTML.\n\n<div>\nblock html\n</div>\n";
    assert_eq!(
        paragraphs(doc),
        vec![
            ("Intro line lazy line.".to_string(), false, false),
            ("tight [item](http://x)".to_string(), true, false),
            ("loose".to_string(), true, false),
            ("second paragraph of the item".to_string(), true, false),
            ("quoted more".to_string(), false, true),
            ("<span>Led by</span> inline HTML.".to_string(), false, false),
        ]
    );
}

#[test]
fn hidden_html_is_not_words_or_paragraphs() {
    let doc = "# T\n\n<style>\na b c d e f\n</style>\n\n<div hidden>\n\nhidden para words here\n\n</div>\n\n<template>\nx y z\n</template>\n\nshown <span hidden>not [1]</span> text <!-- [2] --> end\n";
    let r = read(doc);
    assert_eq!(
        r.words_in(0..doc.len()),
        4,
        "T, shown, text, end: {:?}",
        r.words
    );
    assert_eq!(
        paragraphs(doc),
        vec![("shown  text  end".to_string(), false, false)]
    );
}

#[test]
fn titles_are_compared_as_seen() {
    assert_eq!(title_key(" TO\u{200b}DO: "), "TODO");
    assert_eq!(title_key("\u{ff34}\u{ff2f}\u{ff24}\u{ff2f}"), "TODO");
    assert_eq!(title_key("Risks  and\tissues"), "Risks and issues");
}

#[test]
fn alt_text_and_character_references_are_not_words() {
    let doc =
        "# T\n\n![four words of alt](x.png) seen\n\n<div>\n&nbsp; &nbsp; &#8203; &copy;\n</div>\n";
    assert_eq!(read(doc).words_in(0..doc.len()), 2, "T and seen");
    assert_eq!(
        paragraphs(doc)[0].0,
        "seen",
        "an image is not a paragraph's text"
    );
}

#[test]
fn any_text_reads_without_panicking() {
    // Cut and splice a document full of markup at pseudo-random places: the
    // reading must never panic (a panic would be the validator's error).
    let doc = "# T&amp;\n\n<div hidden a='>' b=\"x\">\n\n- i ![a](b) <a href=\"u\">[1]</a>\n\n  > q &#x200B;\n\n</div>\n\n<script>x</scr\n```\n<!-- c\n~~~\n<template><p hidden>é</template>\nSet\n===\n";
    let chars: Vec<char> = doc.chars().collect();
    let mut seed: u64 = 34;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    for _ in 0..2000 {
        let (a, b) = (next(chars.len()), next(chars.len()));
        let (from, to) = (a.min(b), a.max(b));
        let at = next(chars.len());
        let mut mutated: String = chars[..at].iter().collect();
        mutated.extend(&chars[from..to]);
        mutated.extend(&chars[at..]);
        let r = read(&mutated);
        let _ = r.words_in(0..mutated.len());
        for p in &r.paragraphs {
            let _ = p.joined();
        }
    }
}

#[test]
fn html_headings_bidi_and_css_hidden_text() {
    let doc = "# A\n\n<h2>TODO</h2>\n\n## \u{202e}ODOT\u{202c}\n\n## <bdo dir=\"rtl\">Summary</bdo>\n\n## TO<span style=\"display:none\">x</span>DO\n\n<div style=\"display:none\">\n\n## Hidden\n\nwords here\n\n</div>\n";
    let r = read(doc);
    let got: Vec<(u8, &str, bool, bool)> = r
        .headings
        .iter()
        .map(|h| (h.level, h.title.as_str(), h.hidden, h.bidi))
        .collect();
    assert_eq!(
        got,
        vec![
            (1, "A", false, false),
            (2, "TODO", false, false),
            (2, "\u{202e}ODOT\u{202c}", false, true),
            (2, "Summary", false, true),
            (2, "TODO", false, false),
            (2, "Hidden", true, false),
        ]
    );
    assert_eq!(r.headings[1].range.start, 5, "where the HTML block starts");
    let hidden_from = doc.find("<div").unwrap_or(0);
    assert_eq!(r.words_in(hidden_from..doc.len()), 0);
}

#[test]
fn style_sheets_that_may_hide_are_located() {
    let doc = "# A\n\nok\n\n<style>\nh2:nth-of-type(2) { display: none }\n</style>\n\n## B\n";
    assert_eq!(read(doc).hiding_style, doc.find("<style>"));
    assert_eq!(
        read("# A\n\n<style>p { color: red }</style>\n").hiding_style,
        None
    );
}

fn titles(doc: &str) -> Vec<(u8, String, usize)> {
    read(doc)
        .headings
        .iter()
        .map(|h| (h.level, h.title.clone(), h.range.start))
        .collect()
}

#[test]
fn inline_html_headings_are_headings_wherever_shown() {
    // Mid-paragraph, in a link's text, in a table row (a paragraph in
    // CommonMark; a cell in GFM): a browser's parser closes the `<p>` at
    // `<h2>`, so each is a heading a reader sees.
    for doc in [
        "# Notes\n\nDone here. <h2>TODO</h2>\n",
        "# Notes\n\n[<h2>TODO</h2>](#x)\n",
        "# Notes\n\n| <h2>TODO</h2> |\n|---|\n",
        "# Notes\n\nDone <h2>*TO*`DO`</h2> ok\n",
        "# Notes\n\n- item <h2>TO&#68;O</h2>\n",
    ] {
        let got = titles(doc);
        assert_eq!(got.len(), 2, "{doc:?}: {got:?}");
        assert_eq!((got[1].0, got[1].1.as_str()), (2, "TODO"), "{doc:?}");
        assert!(got[1].2 >= 9 && got[1].2 < doc.len(), "{doc:?}: {got:?}");
    }
}

#[test]
fn html_headings_end_as_a_browser_ends_them() {
    // A heading start tag ends the open heading; a Markdown heading too.
    let got = titles("<h3>Notes<h2>TODO</h2>\n\n# Notes <h4>TODO</h4>\n");
    let got: Vec<(u8, &str)> = got.iter().map(|(l, t, _)| (*l, t.as_str())).collect();
    assert_eq!(
        got,
        vec![(3, "Notes"), (2, "TODO"), (1, "Notes"), (4, "TODO")]
    );
    // Unclosed: it runs on over the blocks after it, each part a heading.
    let doc = "# A\n\nDone <h2>TODO\n\nmore words\n\n<h3>\n\nRisks\n\n</h3>\n\n## B\n";
    let got = titles(doc);
    let names: Vec<(u8, &str)> = got.iter().map(|(l, t, _)| (*l, t.as_str())).collect();
    assert_eq!(
        names,
        vec![
            (1, "A"),
            (2, "TODO"),
            (2, "more words"),
            (3, "Risks"),
            (2, "B")
        ]
    );
    assert_eq!(got[1].2, doc.find("TODO").unwrap_or(0));
    assert_eq!(got[3].2, doc.find("Risks").unwrap_or(0));
    // Still an (empty) heading; alt text holds no heading.
    let got = titles("# A\n\n<h2 class=\"n\"></h2>\n\n![<h2>TODO</h2>](x.png)\n");
    let names: Vec<(u8, &str)> = got.iter().map(|(l, t, _)| (*l, t.as_str())).collect();
    assert_eq!(names, vec![(1, "A"), (2, "")]);
}

#[test]
fn css_that_generates_or_recases_text_is_located() {
    let doc =
        "# A\n\n<style>h2.n::before { content: \"\\54 ODO\" }</style>\n\n<h2 class=\"n\"></h2>\n";
    assert_eq!(read(doc).generated_text, doc.find("<style>"));
    // Hidden or inline, a style sheet still applies.
    let doc = "# A\n\n<div hidden>\n<style>\nq { quotes: 'TODO' '' }\n</style>\n</div>\n";
    assert_eq!(read(doc).generated_text, doc.find("<style>"));
    let doc = "ok <style>p::after { content: 'x' }</style> done\n";
    assert_eq!(read(doc).generated_text, doc.find("<style>"));
    let doc = "Done.\n\n<span style=\"text-transform:uppercase\">todo</span>\n";
    let r = read(doc);
    assert_eq!(
        (r.generated_text, r.case_transform),
        (None, doc.find("<span"))
    );
    // Code is not a style sheet.
    let doc = "```html\n<style>p::after { content: 'x' }</style>\n```\n\n`<b style=\"text-transform:uppercase\">`\n";
    let r = read(doc);
    assert_eq!((r.generated_text, r.case_transform), (None, None));
}

#[test]
fn round4_hidden_words_and_headings() {
    let words = |doc: &str| read(doc).words.iter().map(|(_, n)| n).sum::<usize>();
    // Styles vcc cannot read as shown hide (refused as layout-hidden where
    // hiding is the lenient reading).
    for style in [
        "opacity:5%",
        "font-size:calc(0px)",
        "scale:0",
        "zoom:0.01",
        "position:absolute;inset:-99999px auto auto -99999px",
        "mask-image:linear-gradient(transparent,transparent)",
        "filter:blur(40px)",
        "color:color-mix(in srgb, red 0%, transparent)",
        "font-size:var(--x)",
    ] {
        assert_eq!(
            words(&format!("<div style=\"{style}\">a b c</div>\n")),
            0,
            "{style}"
        );
    }
    for style in [
        "font-weight:bold",
        "margin:0 auto",
        "color:#333",
        "font-size:small",
    ] {
        assert_eq!(
            words(&format!("<div style=\"{style}\">a b c</div>\n")),
            3,
            "{style}"
        );
    }
    for html in [
        "<progress>a b c</progress>",
        "<select><option>a b c</option></select>",
        "<math><semantics><mi>x</mi><annotation>a b c</annotation></semantics></math>",
        "<svg display=\"none\"><text>a b c</text></svg>",
        "<svg width=\"0\" height=\"0\"><text>a b c</text></svg>",
        "<table><colgroup><col style=\"visibility:collapse\"></colgroup><tr><td>a b c</td></tr></table>",
    ] {
        let n = words(&format!("{html}\n"));
        assert!(n <= 1, "{html}: {n}");
    }
    assert_eq!(words("Done.\n\n<div/hidden>a b c</div>\n"), 1);
    // Front matter: no section, no words; a heading in it still forbidden.
    let r = read("---\nTesting:\n---\n\na b c\n\n# Notes\n");
    assert_eq!(r.front_matter, Some(0..17));
    assert!(r.headings.iter().any(|h| h.title == "Testing:" && h.hidden));
    assert!(r.headings.iter().any(|h| h.title == "Notes" && !h.hidden));
    assert_eq!(front_matter("# x\n---\n"), None);
    // What a browser may show in a heading besides its text.
    let r = read("## Done <img src=\"x.png\" alt=\"TODO\">\n\n<h2><input value=\"TODO\"></h2>\n");
    let maybe: Vec<_> = r
        .headings
        .iter()
        .map(|h| h.maybe_title.as_deref())
        .collect();
    assert_eq!(maybe, vec![Some("Done TODO"), Some("TODO")]);
    assert!(
        read("<div style=\"display:flex;flex-direction:column-reverse\">\n")
            .reordered
            .is_some()
    );
    assert!(read("<div style=\"display:flex\">\n").reordered.is_none());
}
