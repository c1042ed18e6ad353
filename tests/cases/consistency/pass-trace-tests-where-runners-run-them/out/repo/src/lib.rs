//! The crate root: `cargo test` compiles what its `mod`s reach.
pub mod store;
