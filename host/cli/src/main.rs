//! `vcc`: check deliverables against a Verifiable Completion Contract.

mod args;
mod commands;
mod record;
mod render;

fn main() {
    std::process::exit(commands::run());
}
