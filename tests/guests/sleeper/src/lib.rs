//! Sleeps an hour, a hundred times, inside host calls (wasi:clocks), then
//! claims a pass. The host's time is frozen, so a sleep must end at once:
//! no guest can make the host wait on a clock.
use vcc_sdk::{Criterion, Description, Outcome, Validator};

struct Sleeper;

impl Validator for Sleeper {
    fn describe() -> Description {
        Description::new("sleeper", "0.1.0", "sleeps for a long time")
    }
    fn validate(_: Criterion) -> Result<Outcome, String> {
        for _ in 0..100 {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
        Ok(Outcome::pass("slept 100 hours"))
    }
}

vcc_sdk::export_validator!(Sleeper);
