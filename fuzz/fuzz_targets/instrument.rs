//! The instrument format: any text is parsed or refused with a positioned error, and what is
//! accepted is built (designed and checked stable by the analysis) or refused the same way.
#![no_main]

use hooke_fuzz::{check_error, worth_reading, READ_NODES};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(text) = worth_reading(data, READ_NODES) else { return };
    match hooke::format::instrument::parse(text, "fuzz.toml") {
        Err(error) => check_error(&error, text),
        Ok(file) => {
            if let Err(error) = file.build_stable(file.scheme, file.rate, file.oversample) {
                check_error(&error, text);
            }
        }
    }
});
