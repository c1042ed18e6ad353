//! `vcc.lock`, which lies in the worker's workspace: any bytes read as a
//! lock never panic, and a lock that reads writes back to one that reads
//! the same.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use vcc_trust::lock::Lock;

fuzz_target!(|data: &[u8]| {
    if let Ok(lock) = Lock::parse(Path::new("vcc.lock"), data) {
        let again = Lock::parse(Path::new("vcc.lock"), lock.to_yaml().as_bytes())
            .expect("a lock vcc wrote reads back");
        assert_eq!(again.to_yaml(), lock.to_yaml());
        let _ = lock.bundle("acme/lint");
    }
});
