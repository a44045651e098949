//! The instrument format: any text is parsed or refused with a positioned error, and what is
//! accepted is built (designed and checked stable by the analysis) or refused the same way.
#![no_main]

use hooke_fuzz::{asks_for_at_most, check_error, worth_reading, BUILD_NODES, READ_NODES};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(text) = worth_reading(data, READ_NODES) else { return };
    match hooke::format::instrument::parse(text, "fuzz.toml") {
        Err(error) => check_error(&error, text),
        // A large instrument is slow to build, not wrong: built only when small.
        Ok(file) if asks_for_at_most(text, BUILD_NODES) => {
            if let Err(error) = file.build_stable(file.scheme, file.rate, file.oversample) {
                check_error(&error, text);
            }
        }
        Ok(_) => {}
    }
});
