//! Checking: `vcc check`, `vcc merge` and `vcc approve`; reading a contract
//! into a run (`evaluate`) and delivering its reports.

pub mod approve;
pub mod check;
pub mod ci;
pub mod deliver;
pub mod evaluate;
pub mod merge;
pub mod watch;
