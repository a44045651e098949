//! The 2D motion of every mass: anchors, the springs at the start and at the end, and the path
//! of each mass (the pictures of the simulator of Domoszlai's blog post), and the same drawn
//! frame by frame for an animated GIF. A 3D model is drawn in its x-y plane.

use crate::chart::{Axis, Chart, Label, Marker, Series, Style};
use crate::error::PlotError;
use crate::record::{Recording, Request};
use crate::style::{color, GREY, INK};
use hooke::system::System;

/// The data of a trajectory plot, in the x-y plane (m).
#[derive(Debug, Clone, PartialEq)]
pub struct TrajectoryData {
    /// The title.
    pub title: String,
    /// The masses' ids.
    pub masses: Vec<String>,
    /// The anchors' positions.
    pub anchors: Vec<(f64, f64)>,
    /// The springs, as pairs of node indices (masses first, then anchors).
    pub springs: Vec<(usize, usize)>,
    /// The times of the frames, s.
    pub times: Vec<f64>,
    /// The masses' positions at each time: `frames[i][mass]`.
    pub frames: Vec<Vec<(f64, f64)>>,
}

/// More masses than this share one legend entry for their paths.
const NAMED_PATHS: usize = 6;

impl TrajectoryData {
    /// The position of node `node` (a mass, then the anchors) in frame `i`.
    fn node(&self, i: usize, node: usize) -> (f64, f64) {
        match node.checked_sub(self.masses.len()) {
            None => self.frames[i][node],
            Some(anchor) => self.anchors[anchor],
        }
    }

    fn springs_at(&self, i: usize) -> Vec<(f64, f64)> {
        self.springs.iter().flat_map(|&(a, b)| [self.node(i, a), self.node(i, b)]).collect()
    }

    /// The chart of the whole motion, or of the motion up to frame `upto` (with the springs and
    /// masses drawn there) when animating.
    fn chart_upto(&self, upto: usize, title: &str) -> Chart {
        let mut chart = Chart::new(title, Axis::linear("x (m)"), Axis::linear("y (m)"));
        chart.equal_aspect = true;
        let t = |i: usize| self.times[i];
        chart.series.push(
            Series::line(format!("springs at t = {} s", format_time(t(0))), self.springs_at(0), GREY)
                .styled(Style::Segments)
                .width(1),
        );
        for m in 0..self.masses.len() {
            let path: Vec<(f64, f64)> = self.frames[..=upto].iter().map(|frame| frame[m]).collect();
            let series = Series::line(format!("path of {}", self.masses[m]), path, color(m)).width(1);
            chart.series.push(match m {
                _ if self.masses.len() <= NAMED_PATHS => series,
                0 => Series { label: Some("paths of the masses".into()), ..series },
                _ => series.unlabelled(),
            });
        }
        chart.series.push(
            Series::line(format!("springs at t = {} s", format_time(t(upto))), self.springs_at(upto), INK)
                .styled(Style::Segments),
        );
        chart.series.push(Series::markers("masses", self.frames[upto].clone(), Marker::Dot, INK).width(5));
        chart.series.push(Series::markers("anchors", self.anchors.clone(), Marker::Square, INK).width(6));
        if self.masses.len() <= NAMED_PATHS {
            chart.labels = self.frames[upto]
                .iter()
                .zip(&self.masses)
                .map(|(&at, id)| Label { text: id.clone(), at })
                .collect();
        }
        chart
    }

    /// The whole frame range fitted once, so that an animation does not jump.
    fn fixed_ranges(&self, chart: &mut Chart) {
        let points = self.frames.iter().flatten().chain(&self.anchors);
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(x, y) in points.filter(|p| p.0.is_finite() && p.1.is_finite()) {
            (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
        }
        if x0 <= x1 {
            let pad = 0.06 * (x1 - x0).max(y1 - y0).max(1e-9);
            chart.x = chart.x.clone().with_range(x0 - pad, x1 + pad);
            chart.y = chart.y.clone().with_range(y0 - pad, y1 + pad);
        }
    }
}

/// The chart of the whole motion in `data`.
pub fn chart(data: &TrajectoryData) -> Chart {
    data.chart_upto(data.frames.len() - 1, &data.title)
}

/// `count` charts of the motion up to evenly spaced times, for an animation.
pub fn frames(data: &TrajectoryData, count: usize) -> Vec<Chart> {
    let last = data.frames.len() - 1;
    let count = count.clamp(1, last + 1);
    (0..count)
        .map(|k| {
            let upto = if count == 1 { last } else { k * last / (count - 1) };
            let mut chart =
                data.chart_upto(upto, &format!("{}, t = {} s", data.title, format_time(data.times[upto])));
            data.fixed_ranges(&mut chart);
            chart.equal_aspect = true;
            chart
        })
        .collect()
}

fn format_time(t: f64) -> String {
    let text = format!("{t:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// What a trajectory needs recorded: every mass coordinate, one sample every `every` steps.
pub fn request(system: &System, every: u64) -> Request {
    Request { coordinates: (0..system.mass_coordinates()).collect(), every, balance: false }
}

/// The motion of `system` from a run recorded with [`request`]; an error for a 1D model.
pub fn from_recording(
    title: impl Into<String>,
    system: &System,
    run: &Recording,
) -> Result<TrajectoryData, PlotError> {
    let dimension = system.dimension();
    if dimension < 2 {
        return Err(PlotError::Unsuitable(
            "a trajectory needs a 2D or 3D model, found a 1D model; plot its positions with `time`".into(),
        ));
    }
    let masses = system.mass_count();
    let ids = system.node_ids();
    let initial = system.initial_state();
    let xy = |x: &[f64], node: usize| (x[node * dimension], x[node * dimension + 1]);
    let springs = system.springs();
    Ok(TrajectoryData {
        title: title.into(),
        masses: ids[..masses].to_vec(),
        anchors: (masses..ids.len()).map(|node| xy(&initial.x, node)).collect(),
        springs: springs.a.iter().zip(&springs.b).map(|(&a, &b)| (a as usize, b as usize)).collect(),
        times: run.times.clone(),
        frames: (0..run.len()).map(|i| (0..masses).map(|m| xy(run.row(i), m)).collect()).collect(),
    })
}
