//! The standard validator bundle: the components in `plugins/`, built from
//! source by this crate's build script and embedded, so `vcc check` works on
//! a fresh machine with nothing else installed.

include!(concat!(env!("OUT_DIR"), "/builtins.rs"));
