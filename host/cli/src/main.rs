//! `vcc`: check deliverables against a Verifiable Completion Contract.

mod args;
mod author;
mod bundles;
mod cache;
mod commands;
mod converge;
mod gate;
mod golden;
mod hook;
mod init;
mod mcp;
mod progress;
mod record;
mod render;
mod watch;

fn main() {
    std::process::exit(commands::run());
}
