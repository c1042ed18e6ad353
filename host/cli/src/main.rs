//! `vcc`: check deliverables against a Verifiable Completion Contract.

mod approvals;
mod approve;
mod args;
mod attach;
mod attest;
mod author;
mod binding;
mod bundles;
mod cache;
mod check;
mod ci;
mod commands;
mod componentize;
mod converge;
mod deliver;
mod draft_files;
mod evaluate;
mod explain;
mod golden;
mod hook;
mod init;
mod instructions;
mod judges;
mod key;
mod ledger;
mod ledger_proofs;
mod mcp;
mod merge;
mod output;
mod package;
mod paths;
mod progress;
mod record;
mod refresh;
mod render;
mod settings;
mod store_cmd;
mod task;
mod toolchain;
mod watch;
mod wit;

fn main() {
    // Started by `vcc converge` as its command's guard: only that.
    if let Some(code) = converge::serve_guard() {
        std::process::exit(code);
    }
    std::process::exit(commands::run());
}
