//! The standard validator bundle: the components in `plugins/`, built from
//! source by this crate's build script and embedded — with their native
//! code, precompiled for the target's baseline CPU — so `vcc check` works on
//! a fresh machine with nothing else installed, and compiles nothing to run
//! them. Both are zstd frames (W12); the runtime decompresses them.

/// One embedded validator.
pub struct Embedded {
    /// `std/NAME`.
    pub name: &'static str,
    /// The component, one zstd frame.
    pub wasm: &'static [u8],
    /// The component's size, decompressed.
    pub size: usize,
    /// blake3 of the component, computed at build time.
    pub digest: [u8; 32],
    /// The component compiled for the target's baseline CPU, with the
    /// engine settings of `vcc-engine`, as one zstd frame.
    pub native: &'static [u8],
    /// The native code's size, decompressed.
    pub native_size: usize,
    /// blake3 of the native code, decompressed: what a copy of it read
    /// back from the cache must hash to.
    pub native_digest: [u8; 32],
}

include!(concat!(env!("OUT_DIR"), "/builtins.rs"));

#[cfg(test)]
mod tests {
    #[test]
    fn digests_are_of_the_embedded_bytes() {
        assert!(!super::BUILTINS.is_empty());
        for b in super::BUILTINS {
            let bytes = zstd::bulk::decompress(b.wasm, b.size).unwrap();
            assert_eq!(bytes.len(), b.size, "{}", b.name);
            assert_eq!(blake3::hash(&bytes).as_bytes(), &b.digest, "{}", b.name);
            let native = zstd::bulk::decompress(b.native, b.native_size).unwrap();
            assert_eq!(native.len(), b.native_size, "{}", b.name);
            assert_eq!(
                blake3::hash(&native).as_bytes(),
                &b.native_digest,
                "{}",
                b.name
            );
        }
    }
}
