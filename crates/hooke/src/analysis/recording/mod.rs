//! A recording of one note, measured: where it starts, its pitch, and each partial's frequency,
//! amplitude and decay ([`measure_note`]), or a struck bar's two modes ([`measure_bar`]), or a
//! bell's or a plate's modes ([`measure_modes`]); the inharmonicity and loss law of a string that
//! would sound them and where it was plucked, or the bar's or the bell's modes and decays
//! ([`fit`]), or the plate's lattice and loss law ([`plate`]). What `hooke fit` designs an instrument from (docs/fit.md).
//!
//! The partials are found one band at a time (module `band`): the recording is shifted so that the
//! partial expected next sits at 0 Hz, low-passed to half the distance to its neighbours and
//! decimated, and ESPRIT finds the one damped sinusoid in the band, or two when the partial
//! beats (two polarisations, or two strings of a course). Each partial found sharpens the
//! fundamental and the inharmonicity that predict the next.

use crate::limits::MAX_OUTPUT_RATE;

mod band;
pub mod fit;
mod modes;
mod partials;
mod pitch;
pub mod plate;

pub use band::Sinusoid;
pub use modes::{measure_bar, measure_modes, BarMeasurement, ModesMeasurement, SECOND_MODE_RANGE};
pub use partials::{measure_note, t60, MeasuredPartial, NoteMeasurement, MEASURED_SECONDS};

/// Why a recording cannot be measured as one note, with what was found.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RecordingError {
    /// The sample rate is below what the measure needs, or above what it may allocate for.
    #[error("a sample rate of at least {minimum} Hz and at most {maximum:e} Hz; found {found} Hz")]
    RateTooLow {
        /// The lowest rate accepted, Hz.
        minimum: f64,
        /// The highest rate accepted, Hz ([`MAX_OUTPUT_RATE`]).
        maximum: f64,
        /// The recording's, Hz.
        found: f64,
    },
    /// A sample is not a finite number.
    #[error("finite samples; found {value} at sample {index}")]
    NotFinite {
        /// The sample's index.
        index: usize,
        /// Its value.
        value: f64,
    },
    /// Nothing above the quietest level measured.
    #[error("a note; found silence (peak {peak_db:.1} dB full scale, below {floor_db} dB)")]
    Silent {
        /// The loudest sample's level, dB full scale.
        peak_db: f64,
        /// The level under which a recording counts as silent, dB full scale.
        floor_db: f64,
    },
    /// Runs of samples held at the loudest level: a clipped recording, whose partials are not
    /// the instrument's.
    #[error(
        "a recording that is not clipped; found {runs} runs of 3 or more samples held at full scale \
         ({level:.4}), the first at {first_s:.3} s"
    )]
    Clipped {
        /// Runs found.
        runs: usize,
        /// The level held, full scale = 1.
        level: f64,
        /// When the first starts, s.
        first_s: f64,
    },
    /// Less sound after the onset than a decay can be measured on.
    #[error("at least {needed_s} s of sound after the note's onset; found {found_s:.3} s")]
    TooShort {
        /// The least accepted, s.
        needed_s: f64,
        /// What the recording has after its onset, s.
        found_s: f64,
    },
    /// A second onset: the level rises again after the note has started to decay.
    #[error(
        "one note; found a second onset near {at_s:.3} s (the level of 100 ms rises by {rise_db:.1} dB \
         over the 100 ms before, after the first note at {onset_s:.3} s)"
    )]
    SeveralNotes {
        /// The first note's onset, s.
        onset_s: f64,
        /// The second's, s.
        at_s: f64,
        /// The rise, dB.
        rise_db: f64,
    },
    /// No periodic sound: no fundamental whose partials stand above the noise.
    #[error("a pitched note; found no fundamental {range} whose partials stand above the noise")]
    NoPitch {
        /// Where it was sought.
        range: String,
    },
    /// A bar's mode found in the spectrum whose decay could not be measured above the noise.
    #[error("mode {number} (near {frequency_hz:.2} Hz) decaying measurably above the noise; found none")]
    ModeNotMeasured {
        /// The mode's number.
        number: usize,
        /// Where its spectral peak is, Hz.
        frequency_hz: f64,
    },
    /// No mode of a struck body stands above the noise and decays measurably.
    #[error("a struck sound; found no mode {range} standing above the noise and decaying measurably")]
    NoModes {
        /// Where they were sought.
        range: String,
    },
    /// Too few modes to fit a shape to.
    #[error("at least {needed} modes standing above the noise and decaying measurably; found {found}")]
    TooFewModes {
        /// The fewest the fit takes.
        needed: usize,
        /// Modes measured.
        found: usize,
    },
    /// Too few partials decay measurably to fit a loss law to.
    #[error("the decays of at least two partials, each measured over 0.1 s or more; found {found}")]
    TooFewDecays {
        /// Partials whose decay was measured.
        found: usize,
    },
}

/// The lowest sample rate a recording may have, Hz.
pub const MIN_RATE: f64 = 8000.0;

/// The least sound after the onset, s.
pub const MIN_LENGTH: f64 = 0.3;

/// A recording below this peak level counts as silent, dB full scale.
pub const SILENCE_DB: f64 = -90.0;

/// Checks a recording before it is measured: its rate, its samples, that it is not silent or
/// clipped.
fn check(samples: &[f64], rate: f64) -> Result<f64, RecordingError> {
    if !(MIN_RATE..=MAX_OUTPUT_RATE).contains(&rate) {
        return Err(RecordingError::RateTooLow { minimum: MIN_RATE, maximum: MAX_OUTPUT_RATE, found: rate });
    }
    if let Some((index, value)) = samples.iter().enumerate().find(|(_, x)| !x.is_finite()) {
        return Err(RecordingError::NotFinite { index, value: *value });
    }
    let peak = samples.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let peak_db = 20.0 * peak.max(1e-300).log10();
    if peak_db < SILENCE_DB {
        return Err(RecordingError::Silent { peak_db, floor_db: SILENCE_DB });
    }
    let mut runs = 0;
    let mut first = None;
    let mut held = 0;
    for (i, x) in samples.iter().enumerate() {
        held = if x.abs() >= peak * (1.0 - 1e-9) { held + 1 } else { 0 };
        if held == 3 {
            runs += 1;
            first.get_or_insert(i - 2);
        }
    }
    if runs > 0 && peak >= 0.5 {
        let first_s = first.unwrap_or(0) as f64 / rate;
        return Err(RecordingError::Clipped { runs, level: peak, first_s });
    }
    Ok(peak)
}

/// The onset: the first millisecond whose rms reaches a tenth of the loudest millisecond's,
/// as a sample index; and a check that no second note follows ([`RecordingError::SeveralNotes`]).
fn onset(samples: &[f64], rate: f64) -> Result<usize, RecordingError> {
    let frame = ((rate / 1000.0) as usize).max(1);
    let rms: Vec<f64> = samples
        .chunks(frame)
        .map(|c| (c.iter().map(|x| x * x).sum::<f64>() / c.len() as f64).sqrt())
        .collect();
    let loudest = rms.iter().fold(0.0f64, |m, x| m.max(*x));
    let first = rms.iter().position(|x| *x >= 0.1 * loudest).unwrap_or(0);
    let onset = first * frame;
    // A second note: the mean level of 100 ms rising by more than 3 dB over the 100 ms before
    // it, to within 20 dB of the loudest, after the first 100 ms of the note. A note alone only
    // decays (its beats average out over 100 ms); a second one adds at least its own energy.
    let level_db = |from: usize| {
        let window = &rms[from..(from + 100).min(rms.len())];
        10.0 * (window.iter().map(|x| x * x).sum::<f64>() / window.len() as f64).max(1e-300).log10()
    };
    let loudest_db = 20.0 * loudest.max(1e-300).log10();
    let mut k = first + 100;
    while k + 200 <= rms.len() {
        let (before, after) = (level_db(k), level_db(k + 100));
        if after - before > 3.0 && after > loudest_db - 20.0 {
            let at =
                (k + 100..k + 200).find(|&j| rms[j] * rms[j] >= 10f64.powf(after / 10.0)).unwrap_or(k + 100);
            return Err(RecordingError::SeveralNotes {
                onset_s: onset as f64 / rate,
                at_s: (at * frame) as f64 / rate,
                rise_db: after - before,
            });
        }
        k += 10;
    }
    Ok(onset)
}
