//! The standard validator bundle: the components in `plugins/`, built from
//! source by this crate's build script and embedded, so `vcc check` works on
//! a fresh machine with nothing else installed.

include!(concat!(env!("OUT_DIR"), "/builtins.rs"));

#[cfg(test)]
mod tests {
    #[test]
    fn digests_are_of_the_embedded_bytes() {
        assert!(!super::BUILTINS.is_empty());
        for (name, bytes, digest) in super::BUILTINS {
            assert_eq!(blake3::hash(bytes).as_bytes(), digest, "{name}");
        }
    }
}
