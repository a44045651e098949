//! A struck body's modes, measured: a bar's first two bending modes (a marimba bar's second
//! mode lies about 4 times above its first, a xylophone's 3, a uniform bar's 2.76; Fletcher &
//! Rossing 1998, ch. 19), or every mode of a bell (its hum, prime, tierce, quint, nominal and
//! above; ch. 21) or a plate. Neither is a harmonic series, so the modes are found as peaks of the
//! spectrum of the first second and then each measured in its own band, as a string's partials
//! are ([`super::partials`]).

use super::partials::{measure_partial, note_start, MeasuredPartial, MEASURED_SECONDS};
use super::pitch::Spectrum;
use super::RecordingError;
use crate::model::MAX_BODY_MODES;

/// How far above the noise a spectral peak must stand to be a mode, dB.
const MODE_DB: f64 = 20.0;

/// How far under the strongest mode a mode may lie and still be measured, dB.
const MODES_RANGE_DB: f64 = 45.0;

/// Half the span, in bins of the spectrum's true resolution (`1 / T` for `T` seconds analysed),
/// within which a mode is the highest peak: a Hann window's sidelobes lie within 4 bins
/// of their main lobe, and two modes this close could not be told apart by their decays either.
const MODE_PEAK_BINS: f64 = 6.0;

/// The highest mode measured, Hz (or 45% of the rate, whichever is lower).
const MAX_MODE_HZ: f64 = 10_000.0;

/// The lowest mode measured, Hz: below it a recording's rumble, not a bell.
const MIN_MODE_HZ: f64 = 20.0;

/// Where the second mode is sought, as multiples of the first: from under a uniform bar's 2.76
/// to above what an undercut reaches.
pub const SECOND_MODE_RANGE: (f64, f64) = (2.5, 5.0);

/// A struck recording's first look: where it starts and the peaks of its first second.
struct Struck<'a> {
    /// The onset, a sample index.
    onset: usize,
    /// Where the modes are measured from, [`note_start`]'s.
    start: usize,
    /// The samples up to [`MEASURED_SECONDS`] after the onset.
    samples: &'a [f64],
    /// The spectrum's peaks standing [`MODE_DB`] above its noise, as (Hz, dB), by frequency.
    peaks: Vec<(f64, f64)>,
    /// The strongest peak's level, dB.
    strongest: f64,
    /// How long the spectrum's segment is, s (its resolution's inverse).
    analysed_s: f64,
}

impl<'a> Struck<'a> {
    /// `samples` (mono, full scale 1) at `rate` Hz, checked and looked at.
    fn of(samples: &'a [f64], rate: f64) -> Result<Self, RecordingError> {
        let (onset, start) = note_start(samples, rate)?;
        let samples = &samples[..samples.len().min(onset + (MEASURED_SECONDS * rate) as usize)];
        let segment = &samples[start..(start + rate as usize).min(samples.len())];
        let peaks = Spectrum::of(segment, rate).peaks(MODE_DB);
        let strongest = peaks.iter().fold(f64::NEG_INFINITY, |m, p| m.max(p.1));
        Ok(Self { onset, start, samples, peaks, strongest, analysed_s: segment.len() as f64 / rate })
    }
}

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
    let Struck { onset, start, samples, peaks, strongest, .. } = Struck::of(samples, rate)?;
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

/// What [`measure_modes`] finds.
#[derive(Debug, Clone, PartialEq)]
pub struct ModesMeasurement {
    /// The onset, s from the first sample.
    pub onset_s: f64,
    /// The modes, lowest first, numbered from 1; amplitudes at the onset.
    pub modes: Vec<MeasuredPartial>,
}

/// Measures every mode of the body (a bell, a plate) struck in `samples` (mono, full scale 1) at
/// `rate` Hz: the peaks of the first second's spectrum that stand [`MODE_DB`] above the noise,
/// within [`MODES_RANGE_DB`] of the strongest and the highest within [`MODE_PEAK_BINS`] of
/// themselves, from [`MIN_MODE_HZ`] to [`MAX_MODE_HZ`] (the strongest [`MAX_BODY_MODES`] of
/// them), each measured in a band as wide as the distance to its nearer neighbour. A peak whose decay cannot be measured above the
/// noise is left out; none measured is an error.
pub fn measure_modes(samples: &[f64], rate: f64) -> Result<ModesMeasurement, RecordingError> {
    let Struck { onset, start, samples, peaks, strongest, analysed_s } = Struck::of(samples, rate)?;
    let span_hz = MODE_PEAK_BINS / analysed_s;
    let top_hz = MAX_MODE_HZ.min(0.45 * rate);
    let mut found: Vec<(f64, f64)> = peaks
        .iter()
        .filter(|p| p.1 >= strongest - MODES_RANGE_DB && p.0 > MIN_MODE_HZ && p.0 < top_hz)
        .filter(|p| peaks.iter().all(|q| (q.0 - p.0).abs() > span_hz || q.1 <= p.1))
        .copied()
        .collect();
    found.sort_by(|a, b| b.1.total_cmp(&a.1));
    found.truncate(MAX_BODY_MODES);
    found.sort_by(|a, b| a.0.total_cmp(&b.0));
    let modes: Vec<MeasuredPartial> = found
        .iter()
        .enumerate()
        .filter_map(|(k, &(hz, _))| {
            let below = k.checked_sub(1).map_or(hz, |j| hz - found[j].0);
            let above = found.get(k + 1).map_or(hz, |next| next.0 - hz);
            measure_partial(samples, rate, onset, start, k + 1, hz, below.min(above).min(hz))
        })
        .enumerate()
        .map(|(k, mode)| MeasuredPartial { number: k + 1, ..mode })
        .collect();
    if modes.is_empty() {
        return Err(RecordingError::NoModes { range: format!("from {MIN_MODE_HZ} to {top_hz:.0} Hz") });
    }
    Ok(ModesMeasurement { onset_s: onset as f64 / rate, modes })
}
