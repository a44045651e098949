//! A struck bar's first two bending modes, measured: not a harmonic series (a marimba bar's
//! second mode lies about 4 times above its first, a xylophone's 3, a uniform bar's 2.76;
//! Fletcher & Rossing 1998, ch. 19), so the modes are found as peaks of the spectrum of the
//! first second and then each measured in its own band, as a string's partials are
//! ([`super::partials`]).

use super::partials::{measure_partial, note_start, MeasuredPartial, MEASURED_SECONDS};
use super::pitch::Spectrum;
use super::RecordingError;

/// How far above the noise a spectral peak must stand to be a mode, dB.
const MODE_DB: f64 = 20.0;

/// Where the second mode is sought, as multiples of the first: from under a uniform bar's 2.76
/// to above what an undercut reaches.
pub const SECOND_MODE_RANGE: (f64, f64) = (2.5, 5.0);

/// What [`measure_bar`] finds.
#[derive(Debug, Clone, PartialEq)]
pub struct BarMeasurement {
    /// The onset, s from the first sample.
    pub onset_s: f64,
    /// The first two bending modes (`number` 1 and 2), amplitudes at the onset.
    pub modes: [MeasuredPartial; 2],
}

/// Measures the bar struck in `samples` (mono, full scale 1) at `rate` Hz: the first mode is
/// the lowest spectral peak within 30 dB of the strongest (or the strongest within 60 cents of
/// `hint`, Hz), the second the strongest between [`SECOND_MODE_RANGE`] times it.
pub fn measure_bar(samples: &[f64], rate: f64, hint: Option<f64>) -> Result<BarMeasurement, RecordingError> {
    let (onset, start) = note_start(samples, rate)?;
    let samples = &samples[..samples.len().min(onset + (MEASURED_SECONDS * rate) as usize)];
    let spectrum = Spectrum::of(&samples[start..(start + rate as usize).min(samples.len())], rate);
    let peaks = spectrum.peaks(MODE_DB);
    let strongest = peaks.iter().fold(f64::NEG_INFINITY, |m, p| m.max(p.1));
    let first = match hint {
        Some(hz) => peaks
            .iter()
            .filter(|p| (1200.0 * (p.0 / hz).log2()).abs() <= 60.0)
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .copied(),
        None => peaks.iter().find(|p| p.1 >= strongest - 30.0).copied(),
    };
    let range = match hint {
        Some(hz) => format!("within 60 cents of {hz:.2} Hz"),
        None => "from 0 Hz".to_string(),
    };
    let (f1, _) = first.ok_or(RecordingError::NoPitch { range })?;
    let second = peaks
        .iter()
        .filter(|p| p.0 > SECOND_MODE_RANGE.0 * f1 && p.0 < SECOND_MODE_RANGE.1 * f1)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .copied()
        .ok_or_else(|| RecordingError::NoPitch {
            range: format!(
                "for a second mode from {} to {} times the first ({f1:.2} Hz)",
                SECOND_MODE_RANGE.0, SECOND_MODE_RANGE.1
            ),
        })?;
    let measure = |number: usize, hz: f64| {
        measure_partial(samples, rate, onset, start, number, hz, f1)
            .ok_or(RecordingError::ModeNotMeasured { number, frequency_hz: hz })
    };
    Ok(BarMeasurement { onset_s: onset as f64 / rate, modes: [measure(1, f1)?, measure(2, second.0)?] })
}
