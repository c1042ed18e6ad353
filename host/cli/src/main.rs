//! `vcc`: the binary. Everything is in the library (`lib.rs`).

fn main() {
    std::process::exit(vcc_cli::main());
}
