//! How far each scheme strays from a reference run: the error `|x - x_ref|` of one coordinate
//! against time, on a log scale, one line per scheme (the picture of `hooke compare --plot`).
//!
//! Over a run of seconds at audio rates the positions themselves, one curve per scheme, fill
//! the plot; their error is what a comparison is about, and it stays readable at any length when
//! drawn as its upper envelope per pixel column ([`crate::decimate::upper_envelope`]): the
//! largest error within each column's stretch of time, as the table of `hooke compare` gives the
//! largest over the run. A scheme whose error passes twice the reference's largest `|x|` has
//! diverged (no bounded run strays further): its line stops there, and the legend says when, so
//! that one exploding scheme does not squash the others into the bottom of the plot.

use crate::chart::{plot_area, Axis, Chart, Curve, Series, Style};
use crate::decimate::upper_envelope;
use crate::record::{Coordinate, Recording};
use crate::style::{color, PALETTE};
use std::ops::Range;

/// The data of an error plot.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorData {
    /// The title.
    pub title: String,
    /// The coordinate compared (e.g. `s.1`).
    pub coordinate: String,
    /// The reference's name (e.g. `exact`).
    pub reference: String,
    /// Per scheme: `(t, largest |x - x_ref|)`, s and m, one point per pixel column at most.
    pub schemes: Vec<Curve>,
}

/// The vertical axis's label: `error |x - x_ref| of s.1 against exact (m)`.
pub fn error_label(coordinate: &str, reference: &str) -> String {
    format!("error |x − x_ref| of {coordinate} against {reference} (m)")
}

/// The error plot of `data`: one line per scheme on a log scale (solid for the first nine
/// colours, then dashed); a scheme equal to the reference (no positive error) is named in the
/// legend with no line.
pub fn chart(data: &ErrorData) -> Chart {
    let mut chart = Chart::new(
        &data.title,
        Axis::linear("time t (s)"),
        Axis::log(error_label(&data.coordinate, &data.reference)),
    );
    for (i, curve) in data.schemes.iter().enumerate() {
        let exact = curve.points.iter().all(|p| p.1 == 0.0);
        let label =
            if exact { format!("{} (equal to the reference)", curve.label) } else { curve.label.clone() };
        let style = if (i / PALETTE.len()).is_multiple_of(2) { Style::Line } else { Style::Dashed };
        chart.series.push(Series::line(label, curve.points.clone(), color(i)).width(1).styled(style));
    }
    chart
}

/// `errors` up to the first that passes `ceiling` (which is kept, at the ceiling), and the time
/// it passed it, if it did.
fn until_diverged(errors: Vec<(f64, f64)>, ceiling: f64) -> (Vec<(f64, f64)>, Option<f64>) {
    match errors.iter().position(|p| p.1.is_nan() || p.1 > ceiling) {
        Some(i) => {
            let t = errors[i].0;
            let mut kept = errors;
            kept.truncate(i);
            kept.push((t, ceiling));
            (kept, Some(t))
        }
        None => (errors, None),
    }
}

/// The error of the `k`-th recorded coordinate of each run against the run `reference`
/// (recorded at the same times), each reduced to its upper envelope over the pixel columns of a
/// picture of `size` px.
pub fn from_recordings(
    title: impl Into<String>,
    coordinate: &Coordinate,
    k: usize,
    runs: &[Recording],
    reference: (&str, &Recording),
    size: (u32, u32),
) -> ErrorData {
    let columns = plot_area(size).0 as usize;
    let truth = reference.1.position_series(k);
    let ceiling = 2.0 * truth.iter().map(|p| p.1.abs()).fold(0.0, f64::max);
    let end = truth.last().map_or(1.0, |p| p.0);
    let span: Range<f64> = truth.first().map_or(0.0, |p| p.0)..end;
    let schemes = runs
        .iter()
        .map(|run| {
            let errors: Vec<(f64, f64)> = run
                .position_series(k)
                .iter()
                .zip(&truth)
                .map(|(&(t, x), &(_, x_ref))| (t, (x - x_ref).abs()))
                .collect();
            let (errors, diverged) = until_diverged(errors, ceiling);
            let label = match diverged {
                Some(t) => format!("{} (diverged at t = {t:.4} s)", run.scheme),
                None => run.scheme.name().to_string(),
            };
            Curve { label, points: upper_envelope(&errors, &span, columns) }
        })
        .collect();
    ErrorData {
        title: title.into(),
        coordinate: coordinate.name.clone(),
        reference: reference.0.to_string(),
        schemes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diverging_error_stops_at_the_ceiling_and_says_when() {
        let errors = vec![(0.0, 0.1), (1.0, 0.5), (2.0, 5.0), (3.0, f64::NAN), (4.0, 0.2)];
        assert_eq!(
            until_diverged(errors.clone(), 1.0),
            (vec![(0.0, 0.1), (1.0, 0.5), (2.0, 1.0)], Some(2.0))
        );
        assert_eq!(until_diverged(errors[..2].to_vec(), 1.0), (errors[..2].to_vec(), None));
        // A non-finite error (the run blew up) is divergence too.
        assert_eq!(until_diverged(vec![(0.0, 0.1), (1.0, f64::INFINITY)], 1.0).1, Some(1.0));
    }
}
