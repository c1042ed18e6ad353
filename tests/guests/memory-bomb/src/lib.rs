//! Allocates until something gives.
use vcc_sdk::{Criterion, Description, Outcome, Validator};

struct MemoryBomb;

impl Validator for MemoryBomb {
    fn describe() -> Description {
        Description::new("memory-bomb", "0.1.0", "allocates without bound")
    }
    fn validate(_: Criterion) -> Result<Outcome, String> {
        let mut hoard: Vec<Vec<u8>> = Vec::new();
        loop {
            hoard.push(vec![1u8; 4 << 20]);
            std::hint::black_box(&hoard);
            if hoard.len() == usize::MAX {
                return Ok(Outcome::pass("never"));
            }
        }
    }
}

vcc_sdk::export_validator!(MemoryBomb);
