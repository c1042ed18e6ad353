//! `vcc`: check deliverables against a Verifiable Completion Contract.

mod args;
mod author;
mod bundles;
mod commands;
mod gate;
mod golden;
mod record;
mod render;

fn main() {
    std::process::exit(commands::run());
}
