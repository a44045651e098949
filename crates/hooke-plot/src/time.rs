//! Positions of chosen masses against time, several schemes over the exact or a reference
//! solution: Morgan & Qiao 2008, figs. 10-12 (a 20-mass string, symplectic Euler, RK4 and VEFRL
//! against the analytical solution) and Morgan & Qiao 2009, figs. 3-5 and 18-19 (one oscillator,
//! sample by sample).

use crate::chart::{Axis, Chart, Curve, Marker, Series, Style};
use crate::record::{Coordinate, Recording};
use crate::style::{color, INK};

/// The data of a time plot.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeData {
    /// The title.
    pub title: String,
    /// The coordinates plotted, as the user named them (e.g. `bob.x`, `s.1`).
    pub coordinates: Vec<String>,
    /// The reference solution's curves (`(t, x)`, s and m), drawn as thin black lines on top.
    pub reference: Vec<Curve>,
    /// The schemes' curves, drawn in colour: markers at each sample when there are few samples,
    /// lines otherwise.
    pub schemes: Vec<Curve>,
}

/// Up to this many samples a scheme's curve is drawn as markers, one per step (Morgan & Qiao 2009,
/// figs. 3-5, show single samples).
const MARKER_LIMIT: usize = 200;

const MARKERS: [Marker; 4] = [Marker::Circle, Marker::Cross, Marker::Square, Marker::Triangle];

/// The time plot of `data`.
pub fn chart(data: &TimeData) -> Chart {
    let mut chart =
        Chart::new(&data.title, Axis::linear("time t (s)"), Axis::linear(position_label(&data.coordinates)));
    for (i, curve) in data.schemes.iter().enumerate() {
        let series = if curve.points.len() <= MARKER_LIMIT {
            Series::markers(&curve.label, curve.points.clone(), MARKERS[i % MARKERS.len()], color(i))
        } else {
            Series::line(&curve.label, curve.points.clone(), color(i)).styled(if i % 2 == 1 {
                Style::Dashed
            } else {
                Style::Line
            })
        };
        chart.series.push(series);
    }
    // On top, thin, so that the schemes show where they leave it.
    for curve in &data.reference {
        chart.series.push(Series::line(&curve.label, curve.points.clone(), INK).width(1));
    }
    chart
}

/// Up to this many coordinates are named on the vertical axis; more are named in the legend only.
const NAMED_COORDINATES: usize = 3;

/// The vertical axis's label, naming the coordinates plotted: `position of bob.x (m)`,
/// `position of bob.x, bob.y (m)`; beyond [`NAMED_COORDINATES`], `position (m)`, the legend naming
/// each curve's coordinate.
pub fn position_label(coordinates: &[String]) -> String {
    if coordinates.is_empty() || coordinates.len() > NAMED_COORDINATES {
        "position (m)".to_string()
    } else {
        format!("position of {} (m)", coordinates.join(", "))
    }
}

/// The curves of `coordinates` (recorded in that order) from each run, and from the reference
/// run named `reference.0`.
pub fn from_recordings(
    title: impl Into<String>,
    coordinates: &[Coordinate],
    runs: &[Recording],
    reference: Option<(&str, &Recording)>,
) -> TimeData {
    let name = |what: &str, c: &Coordinate| {
        if coordinates.len() == 1 {
            what.to_string()
        } else {
            format!("{what}, {}", c.name)
        }
    };
    let curves = |what: &str, run: &Recording| -> Vec<Curve> {
        coordinates
            .iter()
            .enumerate()
            .map(|(k, c)| Curve { label: name(what, c), points: run.position_series(k) })
            .collect()
    };
    TimeData {
        title: title.into(),
        coordinates: coordinates.iter().map(|c| c.name.clone()).collect(),
        reference: reference.map(|(what, run)| curves(what, run)).unwrap_or_default(),
        schemes: runs.iter().flat_map(|run| curves(run.scheme.name(), run)).collect(),
    }
}
