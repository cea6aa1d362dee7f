//! R33: `Move::parse` never panics, and whatever it accepts prints to a string that
//! parses to the same move.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sannin::rules::Move;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(m) = Move::parse(s) {
        let printed = m.to_string();
        assert_eq!(Move::parse(&printed), Ok(m), "{s:?} printed as {printed:?}");
    }
});
