//! A first estimate of a note's fundamental, from the spectrum of its first second: the
//! frequency whose first eight harmonics stand highest above the noise, each missing harmonic
//! counted against it. A harmonic is sought from 1% below `k f_0` to 3.5% above it, so that
//! stiff strings' stretched partials (`B` up to 1e-3) are found. An octave too low finds
//! nothing at its odd harmonics and scores less; an octave too high can score as well (its
//! harmonics are the note's even partials), so the estimate goes down an octave while the
//! lower note's odd harmonics stand nearly as high as its even ones.

use super::RecordingError;
use rustfft::{num_complex::Complex, FftPlanner};
use std::f64::consts::PI;

/// The lowest fundamental sought without a hint, Hz.
const LOWEST_HZ: f64 = 25.0;

/// The harmonics a candidate fundamental is scored on.
const HARMONICS: usize = 8;

/// How far a harmonic must stand above the noise to count as present, dB; a missing one
/// counts as minus this.
const PRESENT_DB: f64 = 10.0;

/// How far the lower octave's odd harmonics may stand under its even ones, on average, for the
/// lower octave to be the note, dB.
const OCTAVE_DB: f64 = 12.0;

/// The highest fundamental sought without a hint, Hz.
const HIGHEST_HZ: f64 = 4500.0;

/// The estimated fundamental of `segment` (the note after its attack), Hz; near `hint` (within
/// 60 cents) when one is given.
pub(super) fn fundamental(segment: &[f64], rate: f64, hint: Option<f64>) -> Result<f64, RecordingError> {
    let Spectrum { level, bin_hz, floor } = Spectrum::of(segment, rate);
    let above = |from_hz: f64, to_hz: f64| -> f64 {
        let (from, to) = ((from_hz / bin_hz) as usize, ((to_hz / bin_hz) as usize).min(level.len() - 1));
        level[from.min(to)..=to].iter().fold(f64::NEG_INFINITY, |m, x| m.max(*x)) - floor
    };
    // A harmonic's height above the noise: the highest level from 1% below `k f_0` to 3.5%
    // above it (a stiff string's eighth partial lies 3.1% sharp at B = 1e-3), clipped to 0-60 dB.
    let height = |f0: f64, k: f64| above(k * f0 * 0.99, k * f0 * 1.035).clamp(0.0, 60.0);
    let score = |f0: f64| -> f64 {
        (1..=HARMONICS)
            .map(|k| height(f0, k as f64))
            .map(|h| if h < PRESENT_DB { -PRESENT_DB } else { h })
            .sum()
    };
    let (low, high) = match hint {
        Some(hz) => (hz * 2f64.powf(-0.05), hz * 2f64.powf(0.05)),
        None => (LOWEST_HZ, HIGHEST_HZ.min(rate / 4.0)),
    };
    let step = 2f64.powf(1.0 / 192.0);
    let mut best = (f64::NEG_INFINITY, low);
    let mut f0 = low;
    while f0 <= high {
        let s = score(f0);
        if s > best.0 {
            best = (s, f0);
        }
        f0 *= step;
    }
    let range = match hint {
        Some(hz) => format!("within 60 cents of {hz:.2} Hz"),
        None => format!("from {low:.0} to {high:.0} Hz"),
    };
    if best.0 <= 0.0 {
        return Err(RecordingError::NoPitch { range });
    }
    // An octave too high scores as well as the note when its even partials are strong: go down
    // an octave while the lower note's odd harmonics stand nearly as high as its even ones (a
    // note's sub-octave has only noise and body resonances there, far under its partials).
    let mut f0 = best.1;
    while hint.is_none() && f0 / 2.0 >= low {
        let mean = |ks: [f64; 4]| ks.iter().map(|k| height(f0 / 2.0, *k)).sum::<f64>() / 4.0;
        if mean([1.0, 3.0, 5.0, 7.0]) < mean([2.0, 4.0, 6.0, 8.0]) - OCTAVE_DB {
            break;
        }
        f0 /= 2.0;
    }
    // Candidates within a harmonic's window tie; the first harmonic present gives the note.
    let peak_in = |from_hz: f64, to_hz: f64| -> f64 {
        let (from, to) = ((from_hz / bin_hz) as usize, ((to_hz / bin_hz) as usize).min(level.len() - 1));
        let bin = (from.min(to)..=to).max_by(|a, b| level[*a].total_cmp(&level[*b])).unwrap_or(from);
        bin as f64 * bin_hz
    };
    let first = (1..=HARMONICS).find(|k| height(f0, *k as f64) >= PRESENT_DB).unwrap_or(1) as f64;
    Ok(peak_in(first * f0 * 0.99, first * f0 * 1.035) / first)
}

/// The level of a segment, Hann-windowed and zero-padded to four times its length, dB, with its
/// bin spacing and its noise floor.
pub(super) struct Spectrum {
    /// The level of each bin from 0 Hz to half the rate, dB.
    pub(super) level: Vec<f64>,
    /// The bins' spacing, Hz.
    pub(super) bin_hz: f64,
    /// The noise: the median level, but no lower than 70 dB under the peak (a clean
    /// recording's window leakage lies everywhere far above its median), dB.
    pub(super) floor: f64,
}

impl Spectrum {
    /// The spectrum of `segment` at `rate` Hz.
    pub(super) fn of(segment: &[f64], rate: f64) -> Self {
        let size = (4 * segment.len()).next_power_of_two();
        let mut buffer: Vec<Complex<f64>> = (0..size)
            .map(|i| {
                let value = segment.get(i).map_or(0.0, |x| {
                    x * (0.5 - 0.5 * (2.0 * PI * i as f64 / (segment.len() - 1) as f64).cos())
                });
                Complex::new(value, 0.0)
            })
            .collect();
        FftPlanner::new().plan_fft_forward(size).process(&mut buffer);
        let level: Vec<f64> =
            buffer[..size / 2].iter().map(|c| 20.0 * c.norm().max(1e-300).log10()).collect();
        let mut sorted = level.clone();
        sorted.sort_by(f64::total_cmp);
        let floor = sorted[sorted.len() / 2].max(sorted[sorted.len() - 1] - 70.0);
        Self { level, bin_hz: rate / size as f64, floor }
    }

    /// The local maxima standing `height_db` or more above the floor, as (Hz, dB), by frequency.
    pub(super) fn peaks(&self, height_db: f64) -> Vec<(f64, f64)> {
        (1..self.level.len() - 1)
            .filter(|&k| {
                self.level[k] >= self.floor + height_db
                    && self.level[k] > self.level[k - 1]
                    && self.level[k] >= self.level[k + 1]
            })
            .map(|k| (k as f64 * self.bin_hz, self.level[k]))
            .collect()
    }
}
