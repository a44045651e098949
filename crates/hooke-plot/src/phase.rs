//! Phase portraits: position against momentum of one mass (Morgan & Qiao 2008, figs. 5-8:
//! symplectic Euler's ellipse, forward Euler's outward spiral, RK4's slow inward spiral, VEFRL's
//! circle), and the modified phase space `(psi, xi) = e^{gamma t / 2} (y, p)` of
//! Chatziioannou 2019 (fig. 2), in which the exact flow of a damped oscillator and every
//! conformal-symplectic scheme draw a closed curve.
//!
//! A scheme's samples are its only values, and at audio rates a mode has few of them per period
//! (the reed of Chatziioannou 2019 has 18 at 44.1 kHz): straight chords between them draw a
//! polygon, which is no more what the scheme computes than a curve is. What a reader expects is
//! the smooth closed curve the samples lie on, so each scheme's curve is drawn through every one
//! of its samples as a centripetal Catmull-Rom spline ([`smooth`]), with points inserted until the
//! drawn line turns by at most [`MAX_TURN_DEGREES`] at a time; the samples themselves are kept
//! exactly. A reference solution needs no such help: the exact flow is computed at 16 times the
//! rate when the runs are short (`hooke plot phase`).

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
        chart.series.push(Series::line(&curve.label, smooth(&curve.points), color(i)).width(1));
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

/// The most the drawn line of a phase curve turns between two of its chords, degrees.
pub const MAX_TURN_DEGREES: f64 = 3.0;

/// At most this many points are inserted between two samples.
const MAX_INSERTED: usize = 64;

/// `points` (a curve sampled in order) with points inserted on the centripetal Catmull-Rom
/// spline through them (Barry & Goldman's form, which neither overshoots nor loops; at the ends
/// the missing neighbour is extrapolated along the parabola through the next three), so that the
/// line through the result turns by at most [`MAX_TURN_DEGREES`] between chords, as seen in a
/// picture (each axis scaled to the curve's extent). Every point of `points` is kept, in order;
/// a curve already dense enough is returned as it is.
pub fn smooth(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let finite: Vec<(f64, f64)> =
        points.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite()).collect();
    if finite.len() < 3 {
        return finite;
    }
    let extent = |axis: fn(&(f64, f64)) -> f64| {
        let (low, high) =
            finite.iter().map(axis).fold((f64::MAX, f64::MIN), |(l, h), v| (l.min(v), h.max(v)));
        if high > low {
            high - low
        } else {
            1.0
        }
    };
    let scale = (extent(|p| p.0), extent(|p| p.1));
    let unit: Vec<(f64, f64)> = finite.iter().map(|p| (p.0 / scale.0, p.1 / scale.1)).collect();
    let n = unit.len();
    let mut out = Vec::with_capacity(2 * n);
    for i in 0..n - 1 {
        let (p1, p2) = (unit[i], unit[i + 1]);
        // Neighbours; at the ends, extrapolated along the parabola through the next three
        // samples (or mirrored, where that or a repeated sample gives no chord).
        let beyond = |a: (f64, f64), b: (f64, f64), c: (f64, f64)| {
            (3.0 * a.0 - 3.0 * b.0 + c.0, 3.0 * a.1 - 3.0 * b.1 + c.1)
        };
        let p0 = match i {
            0 => beyond(p1, p2, unit[2]),
            _ => unit[i - 1],
        };
        let p0 = if distance(p0, p1) > 0.0 { p0 } else { mirror(p2, p1) };
        let p3 = if i + 2 < n { unit[i + 2] } else { beyond(p2, p1, unit[i - 1]) };
        let p3 = if distance(p3, p2) > 0.0 { p3 } else { mirror(p1, p2) };
        out.push(finite[i]);
        if distance(p1, p2) == 0.0 {
            continue;
        }
        let turn = turn_degrees(p0, p1, p2).max(turn_degrees(p1, p2, p3));
        let pieces = ((turn / MAX_TURN_DEGREES).ceil() as usize).clamp(1, MAX_INSERTED + 1);
        for k in 1..pieces {
            let q = catmull_rom([p0, p1, p2, p3], k as f64 / pieces as f64);
            out.push((q.0 * scale.0, q.1 * scale.1));
        }
    }
    out.push(finite[n - 1]);
    out
}

fn distance(a: (f64, f64), b: (f64, f64)) -> f64 {
    (b.0 - a.0).hypot(b.1 - a.1)
}

/// `a` reflected through `centre`.
fn mirror(a: (f64, f64), centre: (f64, f64)) -> (f64, f64) {
    (2.0 * centre.0 - a.0, 2.0 * centre.1 - a.1)
}

/// The angle between the chords `a -> b` and `b -> c`, degrees.
fn turn_degrees(a: (f64, f64), b: (f64, f64), c: (f64, f64)) -> f64 {
    let (u, v) = ((b.0 - a.0, b.1 - a.1), (c.0 - b.0, c.1 - b.1));
    (u.0 * v.1 - u.1 * v.0).atan2(u.0 * v.0 + u.1 * v.1).abs().to_degrees()
}

/// The point at fraction `s` of the way from `p[1]` to `p[2]` on the centripetal Catmull-Rom
/// spline through `p` (knots spaced by the square roots of the chord lengths).
fn catmull_rom(p: [(f64, f64); 4], s: f64) -> (f64, f64) {
    let t1 = distance(p[0], p[1]).sqrt();
    let t2 = t1 + distance(p[1], p[2]).sqrt();
    let t3 = t2 + distance(p[2], p[3]).sqrt();
    let t = t1 + s * (t2 - t1);
    let lerp = |a: (f64, f64), b: (f64, f64), ta: f64, tb: f64| {
        let w = (t - ta) / (tb - ta);
        (a.0 + w * (b.0 - a.0), a.1 + w * (b.1 - a.1))
    };
    let a1 = lerp(p[0], p[1], 0.0, t1);
    let a2 = lerp(p[1], p[2], t1, t2);
    let a3 = lerp(p[2], p[3], t2, t3);
    let b1 = lerp(a1, a2, 0.0, t2);
    let b2 = lerp(a2, a3, t1, t3);
    lerp(b1, b2, t1, t2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    /// Two loops of an ellipse of very unequal axes (a reed: 0.1 mm and 0.1 kg m/s), `per_loop`
    /// samples each.
    fn ellipse(per_loop: usize) -> Vec<(f64, f64)> {
        (0..=2 * per_loop)
            .map(|i| 2.0 * PI * i as f64 / per_loop as f64)
            .map(|a| (1e-4 * a.cos(), 0.1 * a.sin()))
            .collect()
    }

    /// How far `p` is from the ellipse, relative to its size.
    fn off_ellipse(p: (f64, f64)) -> f64 {
        ((p.0 / 1e-4).hypot(p.1 / 0.1) - 1.0).abs()
    }

    #[test]
    fn a_sparse_ellipse_is_drawn_smooth_through_every_sample() {
        let samples = ellipse(16);
        let drawn = smooth(&samples);
        // Every sample is kept, in order.
        let mut rest = drawn.iter();
        assert!(samples.iter().all(|s| rest.any(|d| d == s)));
        assert!(drawn.len() >= 4 * samples.len(), "{} points", drawn.len());
        // The chords between samples stray 2 % inside the ellipse; the spline 0.2 % at most.
        let chord_middle = ((samples[0].0 + samples[1].0) / 2.0, (samples[0].1 + samples[1].1) / 2.0);
        assert!(off_ellipse(chord_middle) > 0.015);
        let worst = drawn.iter().map(|&p| off_ellipse(p)).fold(0.0, f64::max);
        assert!(worst < 2e-3, "{worst}");
        // As drawn (each axis to its extent), the line turns by MAX_TURN_DEGREES at most per chord.
        let unit: Vec<(f64, f64)> = drawn.iter().map(|p| (p.0 / 2e-4, p.1 / 0.2)).collect();
        let sharpest = unit.windows(3).map(|w| turn_degrees(w[0], w[1], w[2])).fold(0.0, f64::max);
        assert!(sharpest <= MAX_TURN_DEGREES + 0.5, "{sharpest}");
    }

    #[test]
    fn a_dense_curve_is_kept_as_it_is() {
        let samples = ellipse(400);
        assert_eq!(smooth(&samples), samples);
        // Repeated samples and short inputs do not break it.
        assert_eq!(smooth(&[(0.0, 0.0), (0.0, 0.0), (1.0, 1.0)]).len(), 3);
        assert_eq!(smooth(&[(0.0, 0.0), (1.0, 1.0)]), vec![(0.0, 0.0), (1.0, 1.0)]);
    }
}
