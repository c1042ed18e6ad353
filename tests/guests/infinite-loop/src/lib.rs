//! Never returns: spins in pure WebAssembly, then would claim a pass.
use vcc_sdk::{Criterion, Description, Outcome, Validator};

struct InfiniteLoop;

impl Validator for InfiniteLoop {
    fn describe() -> Description {
        Description::new("infinite-loop", "0.1.0", "loops forever")
    }
    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let mut n: u64 = criterion.id.len() as u64;
        while std::hint::black_box(n) != 0 {
            n = std::hint::black_box(n.wrapping_mul(6364136223846793005).wrapping_add(1)) | 1;
        }
        Ok(Outcome::pass("finished"))
    }
}

vcc_sdk::export_validator!(InfiniteLoop);
