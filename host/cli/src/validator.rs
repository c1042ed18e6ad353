//! `vcc validator`: writing, building and testing validators (new, build,
//! componentize, wit, golden tests).

pub mod author;
pub mod componentize;
pub mod golden;
pub mod toolchain;
pub mod wit;
