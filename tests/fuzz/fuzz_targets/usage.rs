//! `$VCC_USAGE` lines, which the command `vcc converge` runs writes: any
//! line never panics, and one that reads is a spend of zero or more that
//! adds up without overflow or NaN.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vcc_report::converge::Usage;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut total = Usage::default();
    for line in text.lines() {
        if let Ok(u) = Usage::parse_line(line) {
            assert!(u.cost.is_finite() && u.cost >= 0.0, "a cost of {}", u.cost);
            total.add(u);
            assert!(!total.cost.is_nan());
        }
    }
});
