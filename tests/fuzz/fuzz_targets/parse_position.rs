//! R32: `Position::parse` never panics, and whatever it accepts prints to a string that
//! parses to the same position, on which move generation runs.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sannin::rules::Position;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(pos) = Position::parse(s) {
        let printed = pos.to_string();
        let again = Position::parse(&printed)
            .unwrap_or_else(|e| panic!("{s:?} printed as {printed:?}, which fails: {e}"));
        assert_eq!(again.to_string(), printed, "from {s:?}");
        assert_eq!(again.count_legal_moves(), again.legal_moves().len() as u64);
    }
});
