//! Authoring contracts: `vcc init` (with `--task`, the drafted criteria and
//! files) and `vcc package manifest`.

pub mod draft_files;
pub mod init;
pub mod package;
pub mod task;
