//! The standard validator bundle: the components in `plugins/`, built from
//! source by this crate's build script and embedded — with their native
//! code, precompiled for the target's baseline CPU — so `vcc check` works on
//! a fresh machine with nothing else installed, and compiles nothing to run
//! them.

/// One embedded validator.
pub struct Embedded {
    /// `std/NAME`.
    pub name: &'static str,
    /// The component, deflated (raw DEFLATE, RFC 1951): it is read only when
    /// the native code cannot run here, so it need not take its full size.
    pub deflated: &'static [u8],
    /// The component's size, inflated.
    pub size: usize,
    /// blake3 of the component, computed at build time.
    pub digest: [u8; 32],
    /// The component compiled for the target's baseline CPU, with the
    /// engine settings of `vcc-engine`; starts on a 4 KiB boundary, as
    /// does its code inside it, so the pages can be made executable where
    /// the executable is mapped.
    pub precompiled: &'static [u8],
}

/// The alignment of [`Embedded::precompiled`].
pub const PRECOMPILED_ALIGN: usize = 4096;

/// `include_bytes!`, starting on a [`PRECOMPILED_ALIGN`] boundary.
macro_rules! page_aligned {
    ($path:expr) => {{
        #[repr(C, align(4096))]
        struct Aligned<T: ?Sized>(T);
        const DATA: &Aligned<[u8]> = &Aligned(*include_bytes!($path));
        &DATA.0
    }};
}

include!(concat!(env!("OUT_DIR"), "/builtins.rs"));

#[cfg(test)]
mod tests {
    #[test]
    fn digests_are_of_the_embedded_bytes() {
        assert!(!super::BUILTINS.is_empty());
        for b in super::BUILTINS {
            let bytes = miniz_oxide::inflate::decompress_to_vec(b.deflated).unwrap();
            assert_eq!(bytes.len(), b.size, "{}", b.name);
            assert_eq!(blake3::hash(&bytes).as_bytes(), &b.digest, "{}", b.name);
        }
    }

    #[test]
    fn native_code_is_page_aligned() {
        for b in super::BUILTINS {
            let at = b.precompiled.as_ptr() as usize;
            assert_eq!(at % super::PRECOMPILED_ALIGN, 0, "{}", b.name);
        }
    }
}
