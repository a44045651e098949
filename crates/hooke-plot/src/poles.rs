//! Poles: the z-plane with the unit circle and each mode's discrete pole under a scheme
//! (Morgan & Qiao 2009, figs. 8-9, which also trace where one oscillator's two poles go as `w0 h`
//! grows), and the s-plane with symplectic Euler's regions and a model's analog poles (figs. 12,
//! 21 of the same paper).

use crate::chart::{Axis, Chart, Curve, Label, Marker, Series, Style};
use crate::error::PlotError;
use crate::style::{color, INK};
use hooke::analysis::discrete::{oscillator_poles, Oscillator};
use hooke::analysis::regions::region_boundaries;
use hooke::analysis::report::{analyse, AnalysisOptions};
use hooke::scheme::SchemeKind;
use hooke::system::System;
use std::f64::consts::PI;

/// The data of a z-plane plot.
#[derive(Debug, Clone, PartialEq)]
pub struct ZPlaneData {
    /// The title.
    pub title: String,
    /// Per scheme: every mode's discrete poles (both of a conjugate pair), `(Re z, Im z)`.
    pub poles: Vec<Curve>,
    /// Per scheme: the poles of one oscillator with the lowest mode's `gamma h` as `w0 h` runs
    /// from 0 to pi (the loci of Morgan & Qiao 2009, figs. 8-9).
    pub loci: Vec<Curve>,
}

/// The z-plane plot of `data`: the unit circle, the loci as small dots, the poles as markers.
pub fn z_plane_chart(data: &ZPlaneData) -> Chart {
    let mut chart =
        Chart::new(&data.title, Axis::linear("Re z (dimensionless)"), Axis::linear("Im z (dimensionless)"));
    chart.equal_aspect = true;
    let circle = (0..=360).map(|d| f64::from(d) * PI / 180.0).map(|a| (a.cos(), a.sin())).collect();
    for (i, locus) in data.loci.iter().enumerate() {
        chart
            .series
            .push(Series::markers(&locus.label, locus.points.clone(), Marker::Dot, color(i)).width(1));
    }
    chart.series.push(Series::line("unit circle |z| = 1", circle, INK).width(1));
    // Room around the circle for the legend.
    let extent = data
        .poles
        .iter()
        .chain(&data.loci)
        .flat_map(|c| &c.points)
        .fold(1.0f64, |m, p| m.max(p.0.abs()).max(p.1.abs()));
    chart.x = chart.x.clone().with_range(-extent - 0.3, extent + 0.3);
    chart.y = chart.y.clone().with_range(-extent - 0.3, extent + 0.3);
    for (i, poles) in data.poles.iter().enumerate() {
        chart
            .series
            .push(Series::markers(&poles.label, poles.points.clone(), Marker::Cross, color(i)).width(6));
    }
    chart
}

/// Every mode's discrete poles of `system` under each of `schemes` at step `dt` (s), with the
/// locus of an oscillator of the lowest mode's `gamma h`.
pub fn z_plane(
    title: impl Into<String>,
    system: &System,
    schemes: &[SchemeKind],
    dt: f64,
) -> Result<ZPlaneData, PlotError> {
    let mut data = ZPlaneData { title: title.into(), poles: Vec::new(), loci: Vec::new() };
    for &scheme in schemes {
        let report = analyse(system, scheme, dt, &AnalysisOptions::default())?;
        let poles = report
            .modes
            .iter()
            .flat_map(|m| [(m.discrete.z.re, m.discrete.z.im), (m.discrete.z.re, -m.discrete.z.im)])
            .collect();
        data.poles.push(Curve { label: format!("poles of the modes, {scheme}"), points: poles });
        let gamma_h = report.modes.first().map_or(0.0, |m| m.mode.oscillator.gamma * dt);
        data.loci.push(locus(scheme, gamma_h)?);
    }
    Ok(data)
}

/// Loci leave out poles beyond this modulus (an unstable pole runs off far along the real axis).
const LOCUS_LIMIT: f64 = 1.6;

/// Both poles of an oscillator with damping `gamma h` under `scheme` as `w0 h` runs from 0 to pi
/// (those within [`LOCUS_LIMIT`] of the origin).
fn locus(scheme: SchemeKind, gamma_h: f64) -> Result<Curve, PlotError> {
    const SAMPLES: usize = 400;
    let oscillators: Vec<Oscillator> = (0..=SAMPLES)
        .map(|i| PI * i as f64 / SAMPLES as f64)
        .map(|w| Oscillator { gamma: gamma_h, omega0_squared: w * w })
        .collect();
    let points = oscillator_poles(scheme, &oscillators, 1.0)?
        .into_iter()
        .flat_map(|pair| pair.into_iter().filter(|z| z.norm() <= LOCUS_LIMIT).map(|z| (z.re, z.im)))
        .collect();
    let gamma_h =
        if gamma_h == 0.0 || gamma_h >= 0.01 { format!("{gamma_h:.3}") } else { format!("{gamma_h:.2e}") };
    Ok(Curve { label: format!("one oscillator, γh = {gamma_h}, ω₀h from 0 to π, {scheme}"), points })
}

/// The data of an s-plane plot: symplectic Euler's regions (fig. 12) and a model's poles.
#[derive(Debug, Clone, PartialEq)]
pub struct SPlaneData {
    /// The title.
    pub title: String,
    /// The region boundaries `(sigma h, mu h)`, each with its name and equation.
    pub boundaries: Vec<Curve>,
    /// The model's analog poles in per-step units `(sigma h, mu h)`, if a model is given.
    pub poles: Option<Curve>,
}

/// An empty chart of the s-plane in per-step units, `(sigma h, mu h)` (also the frame of
/// [`crate::warping`]'s maps).
pub fn s_plane_frame(title: &str) -> Chart {
    Chart::new(
        title,
        Axis::linear("σh, analog decay per step (dimensionless)"),
        Axis::linear("μh, analog frequency (rad/sample)"),
    )
}

/// The s-plane plot of `data`, with the regions named.
pub fn s_plane_chart(data: &SPlaneData) -> Chart {
    let mut chart = s_plane_frame(&data.title);
    for (i, curve) in data.boundaries.iter().enumerate() {
        let style = if i == 0 { Style::Line } else { Style::Dashed };
        chart.series.push(Series::line(&curve.label, curve.points.clone(), color(i + 1)).styled(style));
    }
    if let Some(poles) = &data.poles {
        chart.series.push(Series::markers(&poles.label, poles.points.clone(), Marker::Cross, INK).width(6));
    }
    let region = |text: &str, at| Label { text: text.to_string(), at };
    chart.labels = vec![
        region("unstable", (-0.3, 1.85)),
        region("complex z: vibrates", (-0.3, 1.05)),
        region("z > 0: no vibration", (-0.62, 0.12)),
        region("Nyquist", (-0.72, 0.6)),
    ];
    chart
}

/// Symplectic Euler's regions (Morgan & Qiao 2009, eqs. (58), (60), (61)), and the analog poles of
/// `system`'s modes times the step `dt` (s), if a system is given.
pub fn s_plane(title: impl Into<String>, system: Option<&System>, dt: f64) -> Result<SPlaneData, PlotError> {
    let boundaries = region_boundaries(300)
        .into_iter()
        .map(|b| Curve {
            label: format!("{} ({})", b.name, b.equation),
            points: b.points.iter().map(|p| (p.sigma_h, p.mu_h)).collect(),
        })
        .collect();
    let poles = match system {
        Some(system) => {
            let report = analyse(system, SchemeKind::SymplecticEuler, dt, &AnalysisOptions::default())?;
            let points = report.modes.iter().map(|m| (m.mode.pole.re * dt, m.mode.pole.im * dt)).collect();
            Some(Curve { label: format!("analog poles of the model, h = {dt:.4e} s"), points })
        }
        None => None,
    };
    Ok(SPlaneData { title: title.into(), boundaries, poles })
}
