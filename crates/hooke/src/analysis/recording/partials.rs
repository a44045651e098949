//! The partials of one note, tracked from the fundamental up (module documentation of
//! [`super`]).

use super::band::{demodulate, Band, Sinusoid};
use super::{check, onset, pitch, RecordingError, MIN_LENGTH};

/// When the partials' analysis starts, after the onset, s: past a pluck's or a hammer's contact.
const ATTACK: f64 = 0.02;

/// How much of a recording after its onset is measured, s: a note's partials have sunk into any
/// recording's noise by then, and the measure's cost stays bounded.
pub const MEASURED_SECONDS: f64 = 30.0;

/// How far below the strongest partial a partial may lie and still be measured, dB.
pub(super) const RANGE_DB: f64 = 60.0;

/// The most partials measured.
const MAX_PARTIALS: usize = 60;

/// The highest partial measured, Hz (or 45% of the rate, whichever is lower).
const MAX_PARTIAL_HZ: f64 = 10_000.0;

/// The partials the inharmonicity is fitted to: the first ten, as a string's design matches
/// them ([`crate::analysis::string_partials`]); above them a real string's partials stray from
/// the stiff string's law too (its bridge, its winding).
pub const STIFF_PARTIALS: usize = 10;

/// One partial of a note.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredPartial {
    /// Its number `n` (1 for the fundamental).
    pub number: usize,
    /// The strongest damped sinusoid in its band; its amplitude at the onset.
    pub main: Sinusoid,
    /// A second one in the same band (a beating partial: two polarisations or two strings), its
    /// amplitude at the onset; `None` when one explains the band.
    pub second: Option<Sinusoid>,
    /// The decay rate of the partial's level, 1/s: the main sinusoid's, or for a beating partial
    /// the slope of a line through its level in dB (what a T60 measures).
    pub decay_rate: f64,
    /// The time over which it was measured, s from the onset.
    pub span_s: (f64, f64),
}

impl MeasuredPartial {
    /// Its T60, the time to fall by 60 dB, s.
    pub fn t60(&self) -> f64 {
        t60(self.decay_rate)
    }
}

/// The T60 of an amplitude decaying at `decay_rate` (1/s): the time to fall by 60 dB, `3 ln 10 /
/// decay_rate`, s.
pub fn t60(decay_rate: f64) -> f64 {
    3.0 * std::f64::consts::LN_10 / decay_rate
}

/// What [`measure_note`] finds in a recording of one note.
#[derive(Debug, Clone, PartialEq)]
pub struct NoteMeasurement {
    /// The sample rate, Hz.
    pub rate: f64,
    /// The onset, s from the first sample.
    pub onset_s: f64,
    /// The fundamental `f_0` of `f_n = n f_0 sqrt(1 + B n^2)` fitted to the partials, Hz.
    pub fundamental_hz: f64,
    /// The inharmonicity `B` fitted to the partials (negative when they are compressed).
    pub inharmonicity: f64,
    /// The partials measured, by number; a number left out had nothing above the noise.
    pub partials: Vec<MeasuredPartial>,
    /// The highest partial number sought.
    pub sought: usize,
}

/// Measures the note in `samples` (mono, full scale 1) at `rate` Hz: its onset, fundamental,
/// inharmonicity and partials (module documentation). `hint`: the fundamental expected, Hz (the
/// note found lies within 60 cents of it).
pub fn measure_note(
    samples: &[f64],
    rate: f64,
    hint: Option<f64>,
) -> Result<NoteMeasurement, RecordingError> {
    let (onset, start) = note_start(samples, rate)?;
    let samples = &samples[..samples.len().min(onset + (MEASURED_SECONDS * rate) as usize)];
    let first_second = &samples[start..(start + rate as usize).min(samples.len())];
    let rough = pitch::fundamental(first_second, rate, hint)?;
    let top_hz = MAX_PARTIAL_HZ.min(0.45 * rate);
    let mut fit = (rough, 0.0);
    let mut partials: Vec<MeasuredPartial> = Vec::new();
    let mut strongest = 0.0f64;
    let mut sought = 0;
    for number in 1..=MAX_PARTIALS {
        let n = number as f64;
        let expected = n * fit.0 * (1.0 + fit.1 * n * n).max(0.0).sqrt();
        if expected + fit.0 / 2.0 > top_hz {
            break;
        }
        sought = number;
        if let Some(partial) = measure_partial(samples, rate, onset, start, number, expected, fit.0) {
            let dropped = 20.0 * (strongest / partial.main.amplitude).log10();
            strongest = strongest.max(partial.main.amplitude);
            // A partial is where its number puts it, and above the one before by at least half a
            // fundamental (a band that caught its neighbour does not count twice).
            let above_previous = partials.last().is_none_or(|p: &MeasuredPartial| {
                partial.main.frequency_hz - p.main.frequency_hz > 0.5 * fit.0 * (number - p.number) as f64
            });
            if dropped < RANGE_DB
                && (partial.main.frequency_hz - expected).abs() < 0.3 * fit.0
                && above_previous
            {
                partials.push(partial);
                fit = inharmonic_fit(&partials).unwrap_or(fit);
            }
        }
    }
    let strongest = partials.iter().fold(0.0f64, |m, p| m.max(p.main.amplitude));
    partials.retain(|p| 20.0 * (strongest / p.main.amplitude).log10() < RANGE_DB);
    if partials.is_empty() {
        return Err(RecordingError::NoPitch { range: format!("near {rough:.2} Hz") });
    }
    let (fundamental_hz, inharmonicity) = inharmonic_fit(&partials).unwrap_or(fit);
    Ok(NoteMeasurement {
        rate,
        onset_s: onset as f64 / rate,
        fundamental_hz,
        inharmonicity,
        partials,
        sought,
    })
}

/// The checked recording's onset and the sample its partials are measured from, [`ATTACK`]
/// after it; an error for a recording that cannot be measured or is too short.
pub(super) fn note_start(samples: &[f64], rate: f64) -> Result<(usize, usize), RecordingError> {
    check(samples, rate)?;
    let onset = onset(samples, rate)?;
    let found_s = (samples.len() - onset) as f64 / rate;
    if found_s < MIN_LENGTH {
        return Err(RecordingError::TooShort { needed_s: MIN_LENGTH, found_s });
    }
    Ok((onset, onset + (ATTACK * rate) as usize))
}

/// `(f_0, B)` of `f_n^2 / n^2 = f_0^2 + f_0^2 B n^2` fitted in least squares to the
/// frequencies of partials 1 to [`STIFF_PARTIALS`] (Fletcher & Rossing's stiff string); with
/// fewer than three of them, `B = 0` and `f_0` from the lowest partial.
fn inharmonic_fit(partials: &[MeasuredPartial]) -> Option<(f64, f64)> {
    let points: Vec<(f64, f64)> = partials
        .iter()
        .filter(|p| p.number <= STIFF_PARTIALS)
        .map(|p| {
            let n = p.number as f64;
            (n * n, (p.main.frequency_hz / n).powi(2))
        })
        .collect();
    if points.len() < 3 {
        let p = partials.first()?;
        return Some((p.main.frequency_hz / p.number as f64, 0.0));
    }
    let count = points.len() as f64;
    let (mean_x, mean_y) = points.iter().fold((0.0, 0.0), |(a, b), (x, y)| (a + x / count, b + y / count));
    let (sxy, sxx) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + (x - mean_x) * (y - mean_y), b + (x - mean_x).powi(2)));
    let slope = sxy / sxx;
    let intercept = mean_y - slope * mean_x;
    (intercept > 0.0).then(|| (intercept.sqrt(), slope / intercept))
}

/// Partial `number`, expected at `expected` Hz with neighbours `spacing` Hz away, measured from
/// sample `start` until it sinks into the noise: `None` when it never stands above it.
pub(super) fn measure_partial(
    samples: &[f64],
    rate: f64,
    onset: usize,
    start: usize,
    number: usize,
    expected: f64,
    spacing: f64,
) -> Option<MeasuredPartial> {
    let band = demodulate(samples, rate, expected, spacing, start, samples.len());
    // The noise: the level halfway to the next partial, where no partial is, through a window
    // whose first zeros fall on the two partials.
    let between = demodulate(samples, rate, expected + spacing / 2.0, spacing / 2.0, start, samples.len());
    let mut levels: Vec<f64> = between.values.iter().map(|z| z.norm()).collect();
    levels.sort_by(f64::total_cmp);
    let noise = levels.get(levels.len() / 2).copied().unwrap_or(0.0);
    let envelope: Vec<f64> = band.values.iter().map(|z| z.norm()).collect();
    let peak = envelope.iter().fold(0.0f64, |m, x| m.max(*x));
    let floor = (peak * 10f64.powf(-RANGE_DB / 20.0)).max(4.0 * noise);
    let smooth =
        |k: usize| envelope[k.saturating_sub(2)..(k + 3).min(envelope.len())].iter().sum::<f64>() / 5.0;
    let end = (0..envelope.len()).find(|&k| smooth(k) < floor).unwrap_or(envelope.len());
    if end < 12 {
        return None;
    }
    let kept = band.truncated(end);
    let (one, residual_one) = kept.sinusoids(1)?;
    let two = kept.sinusoids(2).filter(|(found, residual)| {
        *residual * 10.0 < residual_one
            && residual_one > 1e-4
            && found.iter().all(|s| (s.frequency_hz - expected).abs() < 0.5 * spacing && s.decay_rate > -0.1)
    });
    let onset_s = onset as f64 / rate;
    let at_onset = |s: Sinusoid| Sinusoid { amplitude: s.amplitude * (-s.decay_rate * onset_s).exp(), ..s };
    let span_s = (kept.time(0) - onset_s, kept.time(end - 1) - onset_s);
    let (main, second, decay_rate) = match two {
        Some((found, _)) => (at_onset(found[0]), Some(at_onset(found[1])), level_slope(&kept)),
        None => (at_onset(one[0]), None, one[0].decay_rate),
    };
    // A decay that would have taken the partial far below the floor within the span it was
    // measured over is noise's, not the partial's.
    let drop_db = 20.0 * std::f64::consts::LOG10_E * decay_rate * (span_s.1 - span_s.0);
    (main.decay_rate > -0.1 && main.amplitude.is_finite() && drop_db < 1.5 * RANGE_DB)
        .then_some(MeasuredPartial { number, main, second, decay_rate, span_s })
}

/// The decay rate of a line through the band's level (ln of its magnitude) in least squares,
/// 1/s.
fn level_slope(band: &Band) -> f64 {
    let points: Vec<(f64, f64)> =
        band.values.iter().enumerate().map(|(k, z)| (band.time(k), z.norm().max(1e-300).ln())).collect();
    let count = points.len() as f64;
    let (mean_t, mean_l) = points.iter().fold((0.0, 0.0), |(a, b), (t, l)| (a + t / count, b + l / count));
    let (stl, stt) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), (t, l)| (a + (t - mean_t) * (l - mean_l), b + (t - mean_t).powi(2)));
    -stl / stt
}
