//! The standard validator bundle: the components in `plugins/`, built from
//! source by this crate's build script and embedded — with their native
//! code, precompiled for the target's baseline CPU — so `vcc check` works on
//! a fresh machine with nothing else installed, and compiles nothing to run
//! them. Both are zstd frames (W12), compressed with a dictionary: one
//! validator's own bytes ([`WASM_DICTIONARY`], [`NATIVE_DICTIONARY`]).

/// Bytes stored as one zstd frame.
pub struct Frame {
    pub zst: &'static [u8],
    /// The size, decompressed.
    pub size: usize,
    /// blake3 of the bytes, decompressed, computed at build time.
    pub digest: [u8; 32],
}

/// Bytes stored as they are, page-aligned.
pub struct Raw {
    pub bytes: &'static [u8],
    /// blake3 of the bytes, computed at build time.
    pub digest: [u8; 32],
}

/// The alignment of [`Raw::bytes`]: the runtime can make its pages
/// executable where the executable is mapped.
pub const RAW_ALIGN: usize = 4096;

/// `include_bytes!`, starting on a [`RAW_ALIGN`] boundary.
macro_rules! page_aligned {
    ($path:expr) => {{
        #[repr(C, align(4096))]
        struct Aligned<T: ?Sized>(T);
        const DATA: &Aligned<[u8]> = &Aligned(*include_bytes!($path));
        &DATA.0
    }};
}

/// One embedded validator.
pub struct Embedded {
    /// `std/NAME`.
    pub name: &'static str,
    /// The component (dictionary: [`WASM_DICTIONARY`]).
    pub wasm: Frame,
    /// The component compiled for the target's baseline CPU with the engine
    /// settings of `vcc-engine` (dictionary: [`NATIVE_DICTIONARY`], which
    /// is one validator's native code as is).
    pub native: Frame,
}

include!(concat!(env!("OUT_DIR"), "/builtins.rs"));

#[cfg(test)]
mod tests {
    use super::*;

    fn unpack(frame: &Frame, dictionary: &[u8]) -> Vec<u8> {
        let mut z = zstd::bulk::Decompressor::with_dictionary(dictionary).unwrap();
        let bytes = z.decompress(frame.zst, frame.size).unwrap();
        assert_eq!(bytes.len(), frame.size);
        assert_eq!(blake3::hash(&bytes).as_bytes(), &frame.digest);
        bytes
    }

    #[test]
    fn digests_are_of_the_embedded_bytes() {
        assert!(!BUILTINS.is_empty());
        let wasm_dictionary = unpack(&WASM_DICTIONARY, &[]);
        let native_dictionary = NATIVE_DICTIONARY.bytes;
        assert_eq!(
            blake3::hash(native_dictionary).as_bytes(),
            &NATIVE_DICTIONARY.digest
        );
        for b in BUILTINS {
            unpack(&b.wasm, &wasm_dictionary);
            unpack(&b.native, native_dictionary);
        }
    }

    #[test]
    fn the_native_dictionary_is_page_aligned() {
        assert_eq!(NATIVE_DICTIONARY.bytes.as_ptr() as usize % RAW_ALIGN, 0);
    }
}
