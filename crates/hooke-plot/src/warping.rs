//! Frequency warping: the digital frequency a scheme plays against the analog frequency, per
//! scheme and damping (Morgan & Qiao 2009, figs. 10-11; Morgan & Qiao 2008, fig. 3), and the maps
//! of the s-plane of Morgan & Qiao 2009 with lines of equal digital frequency (fig. 16) and equal
//! digital damping (fig. 17).

use crate::chart::{Axis, Chart, Curve, Label, Series, Style};
use crate::error::PlotError;
use crate::style::{color, GREY, INK};
use hooke::analysis::regions::{
    isodamping_lines, isofrequency_lines, symplectic_euler_isofrequency, warping_curve,
    warping_stability_limit,
};
use hooke::scheme::SchemeKind;
use std::f64::consts::PI;

/// The data of a warping plot.
#[derive(Debug, Clone, PartialEq)]
pub struct WarpingData {
    /// The title.
    pub title: String,
    /// Per scheme and damping: `(w0 h, omega_d h)`, rad/sample, up to the scheme's stability
    /// limit.
    pub curves: Vec<Curve>,
    /// Per curve, in the same order: the `w0 h` where the scheme becomes unstable (where its
    /// curve ends), or `None` when it is stable over the whole range.
    pub limits: Vec<Option<f64>>,
}

/// The legend entry of a stability limit: `symplectic-euler, γh = 0: unstable beyond ω₀h = 2`.
pub fn limit_label(curve: &str, limit: f64) -> String {
    format!("{curve}: unstable beyond ω₀h = {}", trim(format!("{limit:.3}")))
}

fn trim(text: String) -> String {
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The warping plot of `data`, with the line of no warping, the Nyquist frequency and, dashed in
/// each curve's colour, the stability limit where the curve ends.
pub fn chart(data: &WarpingData) -> Chart {
    let mut chart = Chart::new(
        &data.title,
        Axis::linear("analog ω₀h (rad/sample)"),
        Axis::linear("digital ω_d h (rad/sample)").with_range(0.0, 3.3),
    );
    let end = data.curves.iter().flat_map(|c| c.points.iter().map(|p| p.0)).fold(0.0, f64::max);
    chart
        .series
        .push(Series::line("no warping", vec![(0.0, 0.0), (end, end)], GREY).width(1).styled(Style::Dashed));
    chart
        .series
        .push(Series::line("Nyquist, π", vec![(0.0, PI), (end, PI)], INK).width(1).styled(Style::Dashed));
    for (i, (curve, limit)) in data.curves.iter().zip(&data.limits).enumerate() {
        chart.series.push(Series::line(&curve.label, curve.points.clone(), color(i)));
        if let Some(limit) = *limit {
            let line = vec![(limit, 0.0), (limit, PI)];
            let series = Series::line(limit_label(&curve.label, limit), line, color(i));
            chart.series.push(series.width(1).styled(Style::Dashed));
        }
    }
    chart
}

/// Points per warping curve.
const CURVE_POINTS: usize = 500;

/// The warping curves of each scheme at each `gamma h`, for `w0 h` from 0 to `omega0_h_max` or
/// to the scheme's stability limit ([`warping_stability_limit`]), where each curve stops: past
/// it the scheme plays no frequency, its pole grows.
pub fn curves(
    title: impl Into<String>,
    schemes: &[SchemeKind],
    gamma_h: &[f64],
    omega0_h_max: f64,
) -> Result<WarpingData, PlotError> {
    let (mut curves, mut limits) = (Vec::new(), Vec::new());
    for &scheme in schemes {
        for &g in gamma_h {
            let limit = warping_stability_limit(scheme, g, omega0_h_max, CURVE_POINTS)?;
            let points = warping_curve(scheme, g, limit.unwrap_or(omega0_h_max), CURVE_POINTS)?;
            curves.push(Curve {
                label: format!("{scheme}, γh = {g}"),
                points: points.iter().map(|p| (p.omega0_h, p.omega_d_h)).collect(),
            });
            limits.push(limit);
        }
    }
    Ok(WarpingData { title: title.into(), curves, limits })
}

/// Which lines an s-plane map draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapKind {
    /// Lines of equal digital frequency `omega_d h` (Morgan & Qiao 2009, fig. 16).
    Isofrequency,
    /// Lines of equal digital damping `sigma_d h` (Morgan & Qiao 2009, fig. 17).
    Isodamping,
}

/// The data of an isofrequency or isodamping map.
#[derive(Debug, Clone, PartialEq)]
pub struct MapData {
    /// The title.
    pub title: String,
    /// Which lines.
    pub kind: MapKind,
    /// One line per level, `(sigma h, mu h)`, labelled with its level.
    pub lines: Vec<Curve>,
}

/// The map of `data`. Isofrequency lines are labelled with their level where they end at
/// `sigma h = 0`; isodamping lines, which crowd near `sigma h = 0`, get a legend. A line is
/// broken where it jumps (where its pole leaves the complex region).
pub fn map_chart(data: &MapData) -> Chart {
    let mut chart = crate::poles::s_plane_frame(&data.title);
    for (i, line) in data.lines.iter().enumerate() {
        let in_legend = data.kind == MapKind::Isodamping;
        for (k, piece) in pieces(&line.points).into_iter().enumerate() {
            let series = Series::line(&line.label, piece, color(i)).width(1);
            chart.series.push(if in_legend && k == 0 { series } else { series.unlabelled() });
        }
        if data.kind == MapKind::Isofrequency {
            if let Some(&end) = line.points.iter().max_by(|a, b| a.0.total_cmp(&b.0)) {
                chart.labels.push(Label { text: line.label.clone(), at: end });
            }
        }
    }
    if data.kind == MapKind::Isofrequency {
        // Room on the right for the labels.
        chart.x = chart.x.clone().with_range(-0.52, 0.13);
    }
    chart
}

/// Where consecutive points lie further apart than this (in `sigma h` or `mu h`), a line breaks.
const JUMP: f64 = 0.08;

/// `points` split where they jump.
fn pieces(points: &[(f64, f64)]) -> Vec<Vec<(f64, f64)>> {
    let mut pieces: Vec<Vec<(f64, f64)>> = Vec::new();
    for (i, &p) in points.iter().enumerate() {
        let jumps = i > 0 && {
            let q = points[i - 1];
            (p.0 - q.0).abs() > JUMP || (p.1 - q.1).abs() > JUMP
        };
        match pieces.last_mut() {
            Some(piece) if !jumps => piece.push(p),
            _ => pieces.push(vec![p]),
        }
    }
    pieces
}

/// The isofrequency (levels of `omega_d h`) or isodamping (levels of `sigma_d h`) lines of
/// `scheme` over `sigma h` in `[-0.5, 0]` (isofrequency) or `mu h` in `[0, 2]` (isodamping).
pub fn map(
    title: impl Into<String>,
    scheme: SchemeKind,
    kind: MapKind,
    levels: &[f64],
) -> Result<MapData, PlotError> {
    let grid = |from: f64, to: f64, n: usize| -> Vec<f64> {
        (0..=n).map(|i| from + (to - from) * i as f64 / n as f64).collect()
    };
    let iso = match kind {
        MapKind::Isofrequency => {
            let sigma_h = grid(-0.5, 0.0, 100);
            if scheme == SchemeKind::SymplecticEuler {
                symplectic_euler_isofrequency(levels, &sigma_h)
            } else {
                isofrequency_lines(scheme, levels, &sigma_h, 2.5)?
            }
        }
        MapKind::Isodamping => isodamping_lines(scheme, levels, &grid(0.0, 2.0, 100), -0.9)?,
    };
    let symbol = match kind {
        MapKind::Isofrequency => "ω_d h",
        MapKind::Isodamping => "σ_d h",
    };
    let lines = iso
        .into_iter()
        .filter(|line| !line.points.is_empty())
        .map(|line| Curve {
            label: format!("{symbol} = {}", line.level),
            points: line.points.iter().map(|p| (p.sigma_h, p.mu_h)).collect(),
        })
        .collect();
    Ok(MapData { title: title.into(), kind, lines })
}
