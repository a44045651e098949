//! The score format: any text is resolved against each example instrument (guitar, drum,
//! reed, sitar, pendulum) or refused with a positioned error, and what is accepted is
//! performed for a few thousand steps, never a panic, a hang or a runaway allocation.
#![no_main]

use hooke_fuzz::{check_error, instruments, perform, worth_reading, READ_NODES};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(text) = worth_reading(data, READ_NODES) else { return };
    for (oversample, instrument) in instruments() {
        match hooke::format::score::parse(text, "fuzz.toml", instrument, None) {
            Err(error) => check_error(&error, text),
            Ok(score) => perform(instrument, *oversample, score),
        }
    }
});
