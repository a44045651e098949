//! The magnitude spectrum of an output in dB, with each mode's predicted digital frequency
//! marked: Morgan & Qiao 2008, fig. 13 (the 20-mass string, symplectic Euler against the
//! analytical solution; its high modes are played sharp, as eq. 11 predicts).

use crate::chart::{Axis, Chart, Curve, Marker, Series};
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
    /// The coordinate whose position the spectra are of (e.g. `s.1`).
    pub coordinate: String,
    /// Per run: `(f, level)`, Hz and dB relative to the run's peak.
    pub spectra: Vec<Curve>,
    /// Per run, in the same order: the frequencies (Hz) where its modes are predicted to sound.
    pub predicted: Vec<Vec<f64>>,
}

/// The spectrum plot of `data`: each spectrum in its colour (the first, the reference, in
/// black), and above 0 dB one row of markers per spectrum at its predicted frequencies. The
/// frequency axis ends a little above the highest predicted frequency.
pub fn chart(data: &SpectrumData) -> Chart {
    const ROW: f64 = 6.0;
    let top = ROW * (data.spectra.len() as f64 + 0.5);
    let highest = data.predicted.iter().flatten().copied().fold(0.0, f64::max);
    let nyquist = data.spectra.iter().filter_map(|s| s.points.last().map(|p| p.0)).fold(0.0, f64::max);
    let end = if highest > 0.0 { (1.15 * highest).min(nyquist) } else { nyquist };
    let mut chart = Chart::new(
        &data.title,
        Axis::linear("frequency f (Hz)").with_range(0.0, end),
        Axis::linear(level_label(&data.coordinate)).with_range(FLOOR_DB, top),
    );
    for (i, (spectrum, predicted)) in data.spectra.iter().zip(&data.predicted).enumerate() {
        let colour = if i == 0 { INK } else { color(i - 1) };
        let shown = spectrum.points.iter().filter(|p| p.0 <= end).map(|&(f, db)| (f, db.max(FLOOR_DB)));
        chart.series.push(Series::line(&spectrum.label, shown.collect(), colour).width(1));
        let row = ROW * (i as f64 + 0.5);
        let marks = predicted.iter().map(|&f| (f, row)).collect();
        let label = format!("predicted modes, {}", spectrum.label);
        chart.series.push(Series::markers(label, marks, Marker::Triangle, colour).width(3));
    }
    chart
}

/// The vertical axis's label: `level of the position of s.1 (dB re peak)`.
pub fn level_label(coordinate: &str) -> String {
    format!("level of the position of {coordinate} (dB re peak)")
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
