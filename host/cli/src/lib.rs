//! `vcc`: check deliverables against a Verifiable Completion Contract.
//!
//! The command line as a library, with a thin binary (`main.rs`): the
//! commands' code is tested by unit tests here, without the binary, and by
//! the end-to-end tests (`tests/e2e`) through it.
//!
//! The modules, by command family (each family is a folder; nothing in a
//! family imports a family that imports it, `.ci/structure.py`):
//!
//! - [`checking`]: `vcc check`, `merge`, `approve`; a contract read into a
//!   run (`evaluate`) and its reports delivered (`deliver`);
//! - [`agents`]: `vcc hook`, `converge`, `mcp`, `explain`, `init --agents`;
//! - [`trust`]: what binds a contract beyond its text (`binding`), keys,
//!   bundles, approvals, attestations, the verdict log, `vcc record`;
//! - [`validator`]: `vcc validator` (new, build, componentize, golden tests);
//! - [`authoring`]: `vcc init` and `vcc package`;
//!
//! and, for all of them: the arguments (`args`), the dispatch (`commands`),
//! the runtime made from the global flags (`settings`), human output
//! (`render`, `progress`), writing files (`output`), paths in the root
//! (`paths`), files from outside it (`attach`), and `vcc cache`.

mod agents;
mod args;
mod attach;
mod authoring;
mod cache;
mod checking;
mod commands;
mod output;
mod paths;
mod progress;
mod render;
mod settings;
mod trust;
mod validator;

/// Everything `vcc` does, from the process's arguments; the exit code.
pub fn main() -> i32 {
    // Started by `vcc converge` as its command's guard: only that.
    if let Some(code) = agents::converge::serve_guard() {
        return code;
    }
    commands::run()
}
