//! The standard validator bundle: the components in `plugins/`, built from
//! source by this crate's build script and embedded — with their native
//! code, precompiled for the target's baseline CPU — so `vcc check` works on
//! a fresh machine with nothing else installed, and compiles nothing to run
//! them.

/// One embedded validator.
pub struct Embedded {
    /// `std/NAME`.
    pub name: &'static str,
    /// The component.
    pub bytes: &'static [u8],
    /// blake3 of `bytes`, computed at build time.
    pub digest: [u8; 32],
    /// The component compiled for the target's baseline CPU, with the
    /// engine settings of `vcc-engine`.
    pub precompiled: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/builtins.rs"));

#[cfg(test)]
mod tests {
    #[test]
    fn digests_are_of_the_embedded_bytes() {
        assert!(!super::BUILTINS.is_empty());
        for b in super::BUILTINS {
            assert_eq!(blake3::hash(b.bytes).as_bytes(), &b.digest, "{}", b.name);
        }
    }
}
