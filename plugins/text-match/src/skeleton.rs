//! The text as its UTS #39 confusable skeleton: `TОDO` with a Cyrillic `О`
//! reads `TODO` to a person, so a forbidden `TODO` must find it.
//!
//! Each character outside ASCII is replaced by its skeleton (Unicode's
//! confusables.txt prototype, via the `unicode-security` crate, Unicode
//! 18.0), recomposed (NFC) so an accented letter stays one letter. ASCII
//! stays as written: the patterns are regexes over ASCII syntax, and the
//! full skeleton also maps ASCII (`m` → `rn`, `I` → `l`, `|` → `l`), which
//! would make a plain pattern like `FIXME` never match. A look-alike of `I`
//! (Greek `Ι`, Cyrillic `І`, `Ӏ`) has the prototype `l`, while a pattern's
//! ASCII `I` stays: so the text is also read as a second skeleton where
//! each non-ASCII character whose prototype is `l` becomes `I`
//! (`Skeleton::of_with_capital_i`); a pattern is tried on both.

use unicode_normalization::UnicodeNormalization as _;
use unicode_security::skeleton;

pub struct Skeleton {
    pub text: String,
    /// Segments in order: (offset in `text`, offset in the source, whether
    /// the segment is one replaced character). An unchanged segment runs
    /// one for one until the next.
    map: Vec<(usize, usize, bool)>,
}

impl Skeleton {
    /// `None` when no character changes (ASCII text, say).
    pub fn of(source: &str) -> Option<Skeleton> {
        Self::build(source, false)
    }

    /// The skeleton where a non-ASCII look-alike of `l` or `I` (prototype
    /// `l`) reads `I`: `FΙXME` with a Greek Iota is `FIXME`.
    pub fn of_with_capital_i(source: &str) -> Option<Skeleton> {
        Self::build(source, true)
    }

    fn build(source: &str, capital_i: bool) -> Option<Skeleton> {
        if source.is_ascii() {
            return None;
        }
        let mut text = String::with_capacity(source.len());
        let mut map = vec![(0, 0, false)];
        let mut buf = [0u8; 4];
        for (i, c) in source.char_indices() {
            if !c.is_ascii() {
                let mut proto: String = skeleton(c.encode_utf8(&mut buf)).nfc().collect();
                if capital_i && proto == "l" {
                    proto = "I".to_string();
                }
                if proto != *c.encode_utf8(&mut buf) {
                    map.push((text.len(), i, true));
                    text.push_str(&proto);
                    map.push((text.len(), i + c.len_utf8(), false));
                    continue;
                }
            }
            text.push(c);
        }
        (map.len() > 1).then_some(Skeleton { text, map })
    }

    /// The offset in the source of `offset` in the skeleton: inside a
    /// replaced character, that character's start.
    pub fn original(&self, offset: usize) -> usize {
        let i = self.map.partition_point(|(s, ..)| *s <= offset);
        let (s, o, replaced) = self.map[i.saturating_sub(1)];
        if replaced { o } else { o + (offset - s) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alikes_become_their_prototype_and_map_back() {
        let src = "ok T\u{41e}DO and caf\u{e9}";
        let s = Skeleton::of(src).unwrap();
        assert_eq!(
            s.text, "ok TODO and caf\u{e9}",
            "é is not a look-alike of e"
        );
        let at = s.text.find("DO").unwrap();
        assert_eq!(&src[s.original(at)..s.original(at) + 2], "DO");
        assert_eq!(
            s.original(s.text.find("TODO").unwrap() + 1),
            4,
            "the Cyrillic О"
        );
        assert!(Skeleton::of("plain ascii").is_none());
        assert!(Skeleton::of("déjà vu").is_none());
        // Greek Omicron, Cyrillic Т and Е: FIXME is reached through them.
        let s = Skeleton::of("\u{422}\u{39f}D\u{39f} F\u{406}XM\u{415}").unwrap();
        assert_eq!(s.text, "TODO FlXME", "І is a look-alike of l (the I class)");
        let s = Skeleton::of_with_capital_i("F\u{399}XME F\u{406}XME l").unwrap();
        assert_eq!(s.text, "FIXME FIXME l", "Greek Ι and Cyrillic І read I");
    }
}
