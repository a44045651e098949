//! The magnitude spectrum of an output in dB, with each mode's predicted digital frequency
//! marked: seed 001 fig. 13 (the 20-mass string, symplectic Euler against the analytical
//! solution; its high modes are played sharp, as eq. 11 predicts).

use crate::chart::{Axis, Chart, Curve, LegendPosition, Series, Style};
use crate::error::PlotError;
use crate::fft::hann_magnitudes;
use crate::style::{color, INK};
use hooke::analysis::report::{analyse, AnalysisOptions};
use hooke::scheme::SchemeKind;
use hooke::system::System;

/// The lowest level shown, dB below the peak.
pub const FLOOR_DB: f64 = -120.0;

/// The data of a spectrum plot.
#[derive(Debug, Clone, PartialEq)]
pub struct SpectrumData {
    /// The title.
    pub title: String,
    /// Per run: `(f, level)`, Hz and dB relative to the run's peak.
    pub spectra: Vec<Curve>,
    /// Per run, in the same order: the frequencies (Hz) where its modes are predicted to sound.
    pub predicted: Vec<Vec<f64>>,
}

/// The spectrum plot of `data`: each spectrum with thin dashed lines at its predicted
/// frequencies, in its colour (the first spectrum, the reference, in black).
pub fn chart(data: &SpectrumData) -> Chart {
    let top = 5.0;
    let mut chart = Chart::new(
        &data.title,
        Axis::linear("frequency f (Hz)"),
        Axis::linear("magnitude (dB re peak)").with_range(FLOOR_DB, top),
    );
    for (i, (spectrum, predicted)) in data.spectra.iter().zip(&data.predicted).enumerate() {
        let colour = if i == 0 { INK } else { color(i - 1) };
        let marks = predicted.iter().flat_map(|&f| [(f, FLOOR_DB), (f, top)]).collect();
        chart.series.push(
            Series::line(format!("predicted modes, {}", spectrum.label), marks, colour)
                .styled(Style::Segments)
                .width(1),
        );
        let clipped = spectrum.points.iter().map(|&(f, db)| (f, db.max(FLOOR_DB))).collect();
        chart.series.push(Series::line(&spectrum.label, clipped, colour).width(1));
    }
    chart.legend = LegendPosition::UpperRight;
    chart
}

/// The level in dB (re its peak) of `signal`, sampled at `rate` Hz, from 0 to `rate / 2`.
pub fn level_db(signal: &[f64], rate: f64) -> Vec<(f64, f64)> {
    let magnitudes = hann_magnitudes(signal);
    let peak = magnitudes.iter().copied().fold(0.0, f64::max);
    let bins = (magnitudes.len() - 1) as f64;
    magnitudes
        .iter()
        .enumerate()
        .map(|(k, &m)| {
            let level = if peak > 0.0 && m > 0.0 { 20.0 * (m / peak).log10() } else { FLOOR_DB };
            (0.5 * rate * k as f64 / bins, level)
        })
        .collect()
}

/// The frequencies (Hz) at which `scheme` at step `dt` plays the modes of `system` (the analog
/// frequencies for the exact flow).
pub fn predicted_frequencies(system: &System, scheme: SchemeKind, dt: f64) -> Result<Vec<f64>, PlotError> {
    let report = analyse(system, scheme, dt, &AnalysisOptions::default())?;
    Ok(report.modes.iter().map(|m| m.discrete.frequency_hz()).filter(|f| *f > 0.0).collect())
}
