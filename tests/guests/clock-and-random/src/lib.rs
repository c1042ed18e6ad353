//! Reports the wall clock, the monotonic clock and random bytes as evidence:
//! the host makes them fixed, so two runs report the same bytes.
use vcc_sdk::{Criterion, Description, Outcome, Validator};

struct ClockAndRandom;

impl Validator for ClockAndRandom {
    fn describe() -> Description {
        Description::new("clock-and-random", "0.1.0", "reports time and randomness")
    }
    fn validate(_: Criterion) -> Result<Outcome, String> {
        let wall = wasi::clocks::wall_clock::now();
        let mono = wasi::clocks::monotonic_clock::now();
        let random = wasi::random::random::get_random_u64();
        let insecure = wasi::random::insecure::get_insecure_random_u64();
        let seed = wasi::random::insecure_seed::insecure_seed();
        let std_now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let text = format!(
            "wall={} mono={mono} random={random} insecure={insecure} seed={:?} std_now={std_now}\n",
            wall.seconds, seed
        );
        Ok(Outcome::pass("reported").evidence("observed.txt", "text/plain", text))
    }
}

vcc_sdk::export_validator!(ClockAndRandom);
