//! Agents and hooks: `vcc hook`, `vcc converge`, `vcc mcp`, `vcc explain` and
//! `vcc init --agents`.

pub mod converge;
pub mod explain;
pub mod hook;
pub mod instructions;
pub mod mcp;
