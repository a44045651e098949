//! The score format: any text is resolved against each example instrument (guitar, drum,
//! reed, sitar, pendulum) or refused with a positioned error, and what is accepted is
//! performed for a few thousand steps, never a panic, a hang or a runaway allocation.
#![no_main]

use hooke::instrument::drum::DrumSpec;
use hooke::instrument::guitar::GuitarSpec;
use hooke::instrument::pendulum::PendulumSpec;
use hooke::instrument::reed::ReedSpec;
use hooke::instrument::sitar::SitarSpec;
use hooke::instrument::{Instrument, InstrumentSpec};
use hooke::score::performance::{Performance, PerformanceOptions};
use hooke_fuzz::{check_error, worth_reading, READ_NODES};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

/// The most simulation steps of a performance.
const STEPS: u64 = 2_048;

/// Each instrument with its defaults, built once at 44.1 kHz with the oversampling the
/// analysis chooses: the oversampling and the instrument.
fn instruments() -> &'static [(usize, Instrument)] {
    static INSTRUMENTS: OnceLock<Vec<(usize, Instrument)>> = OnceLock::new();
    INSTRUMENTS.get_or_init(|| {
        [
            InstrumentSpec::Guitar(GuitarSpec::default()),
            InstrumentSpec::Drum(DrumSpec::default()),
            InstrumentSpec::Reed(ReedSpec::default()),
            InstrumentSpec::Sitar(SitarSpec::default()),
            InstrumentSpec::Pendulum(PendulumSpec::default()),
        ]
        .iter()
        .map(|spec| spec.build_stable(spec.default_scheme(), 44_100.0, None).expect("a default instrument"))
        .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some(text) = worth_reading(data, READ_NODES) else { return };
    for (oversample, instrument) in instruments() {
        match hooke::format::score::parse(text, "fuzz.toml", instrument, None) {
            Err(error) => check_error(&error, text),
            Ok(score) => {
                let options = PerformanceOptions { oversample: *oversample, ..PerformanceOptions::default() };
                let mut performance =
                    Performance::new(instrument, score, options).expect("an instrument's pickups");
                let mut output = vec![Vec::new(); performance.channels()];
                let steps = performance.total_steps().min(STEPS);
                // An unstable performance is an error, not a crash.
                let _ = performance.render(steps, &mut output);
                performance.finish(&mut output).expect("one vector per channel");
            }
        }
    }
});
