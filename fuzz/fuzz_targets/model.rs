//! The model format: any text is parsed (and validated) or refused with a positioned error,
//! never a panic, a hang or a runaway allocation.
#![no_main]

use hooke_fuzz::{check_error, worth_reading, READ_NODES};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(text) = worth_reading(data, READ_NODES) else { return };
    if let Err(error) = hooke::format::model::parse(text, "fuzz.toml") {
        check_error(&error, text);
    }
});
