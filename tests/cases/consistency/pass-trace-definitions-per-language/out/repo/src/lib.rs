//! `cargo test` compiles cursor.rs through this crate root.
pub mod cursor;
