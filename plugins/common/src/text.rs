//! Text as a reader sees it. A producer who wants a check to pass can hide
//! things from a byte-level match: a zero-width space inside `TODO`, words
//! no reader sees (a Hangul filler is a "letter"), a full-width `ＴＯＤＯ`.
//! These helpers remove Unicode's default-ignorable code points and apply
//! NFKC, and map what they find back to the text as written.

use unicode_normalization::UnicodeNormalization as _;
use unicode_normalization::char::canonical_combining_class;

/// Unicode's `Default_Ignorable_Code_Point` (DerivedCoreProperties.txt,
/// Unicode 15.1): characters that render as nothing when a font lacks
/// them — zero-width spaces and joiners, bidi controls, variation
/// selectors, the byte-order mark, Hangul fillers, tag characters.
pub fn is_default_ignorable(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x034F | 0x061C | 0x115F..=0x1160 | 0x17B4..=0x17B5
        | 0x180B..=0x180F | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F
        | 0x3164 | 0xFE00..=0xFE0F | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFF8
        | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A | 0xE0000..=0xE0FFF)
}

/// Bidi embedding, override and isolate controls (U+202A–U+202E,
/// U+2066–U+2069): the text a reader is shown differs from its bytes in
/// order ("Trojan Source", CVE-2021-42574); rustc refuses them in source.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c as u32, 0x202A..=0x202E | 0x2066..=0x2069)
}

/// Words a reader sees in `text`: whitespace-separated tokens that still
/// hold a letter or digit once default-ignorable code points are removed.
pub fn visible_words(text: &str) -> usize {
    text.split_whitespace()
        .filter(|w| {
            w.chars()
                .any(|c| !is_default_ignorable(c) && c.is_alphanumeric())
        })
        .count()
}

/// Words a reader sees in `text` when it follows, with no space between,
/// text whose last word is still open (`*open`): `Ri` then `sks` (split by
/// markup, `Ri<span hidden>x</span>sks`, `a*b*c`) is one word on the page,
/// not two. Updates `*open` for the next piece.
pub fn joined_words(text: &str, open: &mut bool) -> usize {
    let is_word = |w: &str| {
        w.chars()
            .any(|c| !is_default_ignorable(c) && c.is_alphanumeric())
    };
    let mut n = visible_words(text);
    let starts_joined = !text.starts_with(char::is_whitespace);
    let first = text.split_whitespace().next();
    if *open && starts_joined && first.is_some_and(is_word) && n > 0 {
        n -= 1;
    }
    let last = text.split_whitespace().last();
    *open = if text.is_empty() {
        *open
    } else if text.ends_with(char::is_whitespace) {
        false
    } else if text.contains(char::is_whitespace) {
        last.is_some_and(is_word)
    } else {
        *open || last.is_some_and(is_word)
    };
    n
}

/// One line with default-ignorable code points removed and NFKC applied,
/// and where each part of it came from.
pub struct Normalized {
    pub text: String,
    /// (offset in `text`, offset in the original line) at the start of each
    /// normalisation segment, in order.
    map: Vec<(usize, usize)>,
}

impl Normalized {
    /// `None` when normalising changes nothing (ASCII text, say).
    pub fn of(line: &str) -> Option<Normalized> {
        if line.is_ascii() {
            return None;
        }
        // Normalise segment by segment (a segment starts at a character of
        // combining class 0), remembering where each began in `line`.
        let mut text = String::with_capacity(line.len());
        let mut map = Vec::new();
        let mut kept = String::with_capacity(line.len());
        let mut segment = String::new();
        let mut segment_start = 0;
        for (i, c) in line.char_indices() {
            if is_default_ignorable(c) {
                continue;
            }
            kept.push(c);
            if canonical_combining_class(c) == 0 && !segment.is_empty() {
                map.push((text.len(), segment_start));
                text.extend(segment.nfkc());
                segment.clear();
            }
            if segment.is_empty() {
                segment_start = i;
            }
            segment.push(c);
        }
        if !segment.is_empty() {
            map.push((text.len(), segment_start));
            text.extend(segment.nfkc());
        }
        // Composition across segments is rare (Hangul jamo, a few Indic
        // vowels); then the whole line is normalised at once and a match
        // points at the start of the line.
        let whole: String = kept.nfkc().collect();
        if whole != text {
            return Some(Normalized {
                text: whole,
                map: vec![(0, 0)],
            });
        }
        (text != line).then_some(Normalized { text, map })
    }

    /// The offset in the original line of the segment holding `offset` of
    /// the normalised text.
    pub fn original(&self, offset: usize) -> usize {
        let i = self.map.partition_point(|(n, _)| *n <= offset);
        self.map[i.saturating_sub(1)].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_and_compatibility_forms_are_seen_through() {
        let n = Normalized::of("ok TO\u{200b}DO: ＦＩＸ this").unwrap();
        assert_eq!(n.text, "ok TODO: FIX this");
        let at = n.text.find("FIX").unwrap();
        assert_eq!(n.original(at), "ok TO\u{200b}DO: ".len());
        assert!(Normalized::of("plain ascii").is_none());
        assert!(Normalized::of("déjà vu").is_none(), "already NFKC");
        let n = Normalized::of("e\u{301}t\u{e9}").unwrap();
        assert_eq!(n.text, "\u{e9}t\u{e9}");
    }

    #[test]
    fn fillers_and_zero_width_characters_are_not_words() {
        assert_eq!(visible_words("\u{3164} \u{3164} \u{200b} \u{feff}"), 0);
        assert_eq!(visible_words("two words\u{200b}"), 2);
    }

    #[test]
    fn words_split_by_markup_are_one_word() {
        let count = |pieces: &[&str]| {
            let mut open = false;
            pieces
                .iter()
                .map(|p| joined_words(p, &mut open))
                .sum::<usize>()
        };
        assert_eq!(count(&["Ri", "sks"]), 1);
        assert_eq!(count(&["a", "b", "c", "d"]), 1);
        assert_eq!(count(&["foo", ".", "bar"]), 1);
        assert_eq!(count(&["foo ", "bar"]), 2);
        assert_eq!(count(&["one two", " three"]), 3);
        assert_eq!(count(&[".", "foo"]), 1);
    }
}
