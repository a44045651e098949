//! Phase portraits: position against momentum of one mass (Morgan & Qiao 2008, figs. 5-8:
//! symplectic Euler's ellipse, forward Euler's outward spiral, RK4's slow inward spiral, VEFRL's
//! circle), and the modified phase space `(psi, xi) = e^{gamma t / 2} (y, p)` of
//! Chatziioannou 2019 (fig. 2), in which the exact flow of a damped oscillator and every
//! conformal-symplectic scheme draw a closed curve.

use crate::chart::{Axis, Chart, Curve, Series};
use crate::error::PlotError;
use crate::record::{Coordinate, Recording};
use crate::style::{color, INK};
use hooke::analysis::report::{AnalysisOptions, ModelModes};
use hooke::system::System;

/// The data of a phase portrait.
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseData {
    /// The title.
    pub title: String,
    /// Which mass coordinate, e.g. `reed` or `bob.y`.
    pub coordinate: String,
    /// `Some(gamma)` (1/s) for the modified phase space `e^{gamma t/2} (y, p)`, `None` for `(y, p)`.
    pub modified: Option<f64>,
    /// The reference solution's curve (drawn in black), if any.
    pub reference: Option<Curve>,
    /// Each scheme's curve `(y, p)` or `(psi, xi)`, m and kg m/s.
    pub schemes: Vec<Curve>,
}

/// The axes' labels, naming the coordinate plotted: `position of bob.x (m)` and `momentum of
/// bob.x (kg m/s)`, or in the modified phase space `ψ = e^(γt/2) × position of bob.x (m)` and
/// `ξ = e^(γt/2) × momentum of bob.x (kg m/s)`.
pub fn axis_labels(coordinate: &str, modified: bool) -> (String, String) {
    let (position, momentum) = (format!("position of {coordinate}"), format!("momentum of {coordinate}"));
    if modified {
        (format!("ψ = e^(γt/2) × {position} (m)"), format!("ξ = e^(γt/2) × {momentum} (kg m/s)"))
    } else {
        (format!("{position} (m)"), format!("{momentum} (kg m/s)"))
    }
}

/// The phase portrait of `data`.
pub fn chart(data: &PhaseData) -> Chart {
    let (x, y) = axis_labels(&data.coordinate, data.modified.is_some());
    let mut chart = Chart::new(&data.title, Axis::linear(x), Axis::linear(y));
    for (i, curve) in data.schemes.iter().enumerate() {
        chart.series.push(Series::line(&curve.label, curve.points.clone(), color(i)).width(1));
    }
    if let Some(curve) = &data.reference {
        chart.series.push(Series::line(&curve.label, curve.points.clone(), INK).width(2));
    }
    chart
}

/// The damping `gamma` (1/s) of `system`'s lowest mode, which the modified phase space uses: for
/// one damped oscillator (the reed of Chatziioannou 2019) it is the oscillator's `gamma`.
pub fn lowest_mode_gamma(system: &System) -> Result<f64, PlotError> {
    let modes = ModelModes::new(system, &AnalysisOptions::default())?;
    modes
        .modes()
        .modes
        .first()
        .map(|mode| mode.oscillator.gamma)
        .ok_or_else(|| PlotError::Unsuitable("the model has no mode, so no damping to scale by".into()))
}

/// The portrait of the `k`-th recorded coordinate of each run (and of the reference run named
/// `reference.0`); `modified` gives `gamma` for the `(psi, xi)` of Chatziioannou 2019.
pub fn from_recordings(
    title: impl Into<String>,
    coordinate: &Coordinate,
    k: usize,
    runs: &[Recording],
    reference: Option<(&str, &Recording)>,
    modified: Option<f64>,
) -> PhaseData {
    let curve = |label: &str, run: &Recording| {
        let points = run
            .phase_series(k)
            .into_iter()
            .zip(&run.times)
            .map(|((y, p), t)| {
                let scale = modified.map_or(1.0, |gamma| (0.5 * gamma * t).exp());
                (scale * y, scale * p)
            })
            .collect();
        Curve { label: label.to_string(), points }
    };
    PhaseData {
        title: title.into(),
        coordinate: coordinate.name.clone(),
        modified,
        reference: reference.map(|(label, run)| curve(label, run)),
        schemes: runs.iter().map(|run| curve(run.scheme.name(), run)).collect(),
    }
}
