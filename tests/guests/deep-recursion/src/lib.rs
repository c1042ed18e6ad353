//! Recurses without bound on the WebAssembly stack itself (values only, so
//! no frame lives in linear memory), until the host's stack limit stops it.
use vcc_sdk::{Criterion, Description, Outcome, Validator};

struct DeepRecursion;

#[inline(never)]
#[allow(unconditional_recursion)]
fn down(n: u64) -> u64 {
    // black_box keeps the call from being turned into a loop.
    std::hint::black_box(down(std::hint::black_box(n + 1))) ^ n
}

impl Validator for DeepRecursion {
    fn describe() -> Description {
        Description::new("deep-recursion", "0.1.0", "recurses forever")
    }
    fn validate(_: Criterion) -> Result<Outcome, String> {
        let depth = down(0);
        Ok(Outcome::pass(format!("returned from depth {depth}")))
    }
}

vcc_sdk::export_validator!(DeepRecursion);
