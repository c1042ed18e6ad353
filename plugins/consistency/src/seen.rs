//! Words as a reader sees them, for comparing two claims: a producer who
//! wants two contradicting sentences to look different to vcc, and the
//! same to a reader, writes `n\u{200b}ot`, a full-width `ｎｏｔ`, or a
//! Cyrillic `е` in `sеrver`. Each word here has default-ignorable code
//! points removed and NFKC applied (as text-match reads text), and is then
//! replaced by its UTS #39 confusable skeleton (confusables.txt, via the
//! `unicode-security` crate), lower-cased: two words a reader cannot tell
//! apart compare equal. Only comparisons use these; findings quote the
//! text as written.

use unicode_normalization::UnicodeNormalization as _;
use unicode_security::skeleton;
use vcc_plugin_common::text::Normalized;

use crate::doc::normalize;

/// The words of `text` as compared, articles dropped.
pub fn words(text: &str) -> Vec<String> {
    let normal = Normalized::of(text);
    let text = normal.as_ref().map_or(text, |n| n.text.as_str());
    let articles = [word("the"), word("a"), word("an")];
    normalize(text)
        .split_whitespace()
        .map(word)
        .filter(|w| !w.is_empty() && !articles.contains(w))
        .collect()
}

/// The words of `text` as compared, joined by single spaces.
pub fn key(text: &str) -> String {
    words(text).join(" ")
}

/// One word's skeleton, lower case and recomposed. The skeleton maps some
/// ASCII too (`m` → `rn`); both sides of a comparison go through it.
pub fn word(w: &str) -> String {
    let lower = w.to_lowercase();
    let skel: String = skeleton(&lower).collect();
    skel.to_lowercase()
        .nfc()
        .filter(|c| c.is_alphanumeric())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alikes_invisibles_and_compatibility_forms_compare_equal() {
        assert_eq!(key("The server"), key("The s\u{435}rver"), "Cyrillic е");
        assert_eq!(key("must not"), key("must n\u{200b}ot"), "zero-width space");
        assert_eq!(key("must not"), key("ｍｕｓｔ ｎｏｔ"), "full-width");
        assert_eq!(key("Offline mode"), key("\u{41e}ffline mode"), "Cyrillic О");
        assert_eq!(key("The API"), key("api"), "articles and case");
        assert_ne!(key("must log"), key("must not log"));
        assert_ne!(key("cafe"), key("caf\u{e9}"), "é is not e");
    }
}
