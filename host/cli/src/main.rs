//! `vcc`: check deliverables against a Verifiable Completion Contract.

mod args;
mod author;
mod commands;
mod golden;
mod record;
mod render;

fn main() {
    std::process::exit(commands::run());
}
