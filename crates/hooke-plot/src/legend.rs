//! Where a chart's legend goes, and drawing it.
//!
//! A legend must not hide what it explains. [`Chart::layout`] tries the corners of the plot, then
//! the middles of its edges, and keeps the first place where the legend's box hides nothing that
//! is drawn: no line passes under it, no marker or text lies under it (a single anchor counts as
//! much as a whole curve). Where every place hides something, the legend goes into a band added
//! above the data when the vertical range is fitted to the data; otherwise (a fixed vertical
//! range, or equal scales on both axes) it goes outside, under the plot, in as many columns as
//! fit. The legend is drawn here rather than by plotters so that the box tested is the box drawn.

use crate::chart::{marker_element, plot_area, Chart, Scale, Series, Style, MARGIN};
use crate::error::PlotError;
use crate::style::{self, FAMILY};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::ops::Range;

/// A place for the legend inside the plot area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Corner {
    /// Top right.
    UpperRight,
    /// Top left.
    UpperLeft,
    /// Bottom right.
    LowerRight,
    /// Bottom left.
    LowerLeft,
    /// Middle of the right edge.
    MiddleRight,
    /// Middle of the left edge.
    MiddleLeft,
    /// Middle of the top edge.
    UpperMiddle,
    /// Middle of the bottom edge.
    LowerMiddle,
}

impl Corner {
    /// Every place, in the order they are tried.
    pub const ALL: [Corner; 8] = [
        Corner::UpperRight,
        Corner::UpperLeft,
        Corner::LowerRight,
        Corner::LowerLeft,
        Corner::MiddleRight,
        Corner::MiddleLeft,
        Corner::UpperMiddle,
        Corner::LowerMiddle,
    ];

    /// Where a box of `size` starts (its left and top edge) in an area of `area`, `inset` from
    /// the edges; any units, y downwards.
    fn origin(self, size: (f64, f64), area: (f64, f64), inset: f64) -> (f64, f64) {
        let (left, centre, right) = (inset, 0.5 * (area.0 - size.0), area.0 - size.0 - inset);
        let (top, middle, bottom) = (inset, 0.5 * (area.1 - size.1), area.1 - size.1 - inset);
        match self {
            Corner::UpperRight => (right, top),
            Corner::UpperLeft => (left, top),
            Corner::LowerRight => (right, bottom),
            Corner::LowerLeft => (left, bottom),
            Corner::MiddleRight => (right, middle),
            Corner::MiddleLeft => (left, middle),
            Corner::UpperMiddle => (centre, top),
            Corner::LowerMiddle => (centre, bottom),
        }
    }
}

/// Where the legend of a chart goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// No legend: fewer than two series have a label.
    None,
    /// Inside the plot area, where it hides nothing.
    Inside(Corner),
    /// At the upper right of a band added above the data (the vertical range is widened).
    Above,
    /// Outside, under the plot, in `columns` columns and `rows` rows.
    Below {
        /// Entries per row.
        columns: usize,
        /// Rows.
        rows: usize,
    },
}

/// The legend's place and the ranges the axes show with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// Where the legend goes.
    pub placement: Placement,
    /// The horizontal range shown.
    pub x: Range<f64>,
    /// The vertical range shown (with the band of [`Placement::Above`]).
    pub y: Range<f64>,
    /// The height of the legend under the plot, px (0 unless [`Placement::Below`]).
    pub below_px: u32,
    /// The legend's box in the plot area, in fractions of its width and height from its lower
    /// left corner: `[left, bottom, width, height]` (inside placements only).
    unit_box: Option<[f64; 4]>,
    scales: (Scale, Scale),
}

impl Layout {
    /// Whether the legend's box lies over the point `(x, y)` (in data units).
    pub fn covers(&self, point: (f64, f64)) -> bool {
        let Some([left, bottom, width, height]) = self.unit_box else { return false };
        let (u, v) = to_unit(point, &self.x, &self.y, self.scales);
        (left..=left + width).contains(&u) && (bottom..=bottom + height).contains(&v)
    }
}

/// One legend entry.
struct Entry<'a> {
    series: &'a Series,
    label: &'a str,
    text_width: f64,
}

/// Height of a legend row, px.
const ROW: f64 = 20.0;
/// Width of an entry's sample (line or marker) with the gap before its text, px.
const SAMPLE: f64 = 30.0;
/// Space inside the legend's frame, and between columns, px.
const PAD: f64 = 8.0;
/// Distance between the legend's frame and the plot's edges, px.
const INSET: f64 = 6.0;
/// Space kept clear around the legend's box when testing what it hides (a marker's size), px.
const CLEARANCE: f64 = 6.0;

impl Chart {
    fn entries(&self) -> Vec<Entry<'_>> {
        self.series
            .iter()
            .filter_map(|series| {
                let label = series.label.as_deref()?;
                Some(Entry { series, label, text_width: text_width(label) })
            })
            .collect()
    }

    /// Where the legend goes in a picture of `size` px, and the ranges the axes show then (see
    /// the module documentation).
    pub fn layout(&self, size: (u32, u32)) -> Result<Layout, PlotError> {
        let entries = self.entries();
        let (x, y) = self.ranges(size)?;
        let scales = (self.x.scale, self.y.scale);
        let layout =
            |placement, x, y, below_px, unit_box| Layout { placement, x, y, below_px, unit_box, scales };
        if entries.len() < 2 {
            return Ok(layout(Placement::None, x, y, 0, None));
        }
        let (width, height) = column_size(&entries);
        let plot = plot_area(size);
        let unit = |(left, top): (f64, f64)| {
            let box_px = (width + 2.0 * CLEARANCE, height + 2.0 * CLEARANCE);
            let (l, t) = (left - CLEARANCE, top - CLEARANCE);
            [l / plot.0, 1.0 - (t + box_px.1) / plot.1, box_px.0 / plot.0, box_px.1 / plot.1]
        };
        for corner in Corner::ALL {
            let unit_box = unit(corner.origin((width, height), plot, INSET));
            if !self.hides(unit_box, &x, &y, plot) {
                return Ok(layout(Placement::Inside(corner), x, y, 0, Some(unit_box)));
            }
        }
        let band = (height + 2.0 * INSET) / plot.1;
        if !self.equal_aspect && self.y.range.is_none() && band < 0.5 {
            let stretch = band / (1.0 - band);
            let y = match self.y.scale {
                Scale::Linear => y.start..y.end + (y.end - y.start) * stretch,
                Scale::Log => y.start..y.end * (y.end / y.start).powf(stretch),
            };
            let unit_box = unit(Corner::UpperRight.origin((width, height), plot, INSET));
            return Ok(layout(Placement::Above, x, y, 0, Some(unit_box)));
        }
        let widest = entries.iter().map(|e| SAMPLE + e.text_width + PAD).fold(0.0, f64::max);
        let available = f64::from(size.0) - 2.0 * f64::from(MARGIN);
        let columns = ((available / widest).floor() as usize).clamp(1, entries.len());
        let rows = entries.len().div_ceil(columns);
        let below_px = (rows as f64 * ROW + PAD).ceil() as u32;
        let (x, y) = self.ranges((size.0, size.1.saturating_sub(below_px)))?;
        Ok(layout(Placement::Below { columns, rows }, x, y, below_px, None))
    }

    /// Whether anything drawn (a line, a marker, a text) lies under `unit_box`, in fractions of
    /// the plot area of `plot` px with the axes showing `x` and `y`.
    fn hides(&self, unit_box: [f64; 4], x: &Range<f64>, y: &Range<f64>, plot: (f64, f64)) -> bool {
        let scales = (self.x.scale, self.y.scale);
        let unit = |p: (f64, f64)| to_unit(p, x, y, scales);
        let usable = |p: &(f64, f64)| shown(p.0, scales.0) && shown(p.1, scales.1);
        let [left, bottom, width, height] = unit_box;
        let inside = |(u, v): (f64, f64)| {
            (left..=left + width).contains(&u) && (bottom..=bottom + height).contains(&v)
        };
        let crosses = |a: (f64, f64), b: (f64, f64)| segment_meets_box(a, b, unit_box);
        let series_hidden = self.series.iter().any(|series| {
            let points: Vec<(f64, f64)> =
                series.points.iter().filter(|p| usable(p)).map(|&p| unit(p)).collect();
            match series.style {
                Style::Line | Style::Dashed => {
                    points.windows(2).any(|w| crosses(w[0], w[1])) || points.len() == 1 && inside(points[0])
                }
                Style::Segments => points.chunks_exact(2).any(|w| crosses(w[0], w[1])),
                Style::Markers(_) => points.into_iter().any(inside),
            }
        });
        // A label's text runs right of its point, 16 px high.
        series_hidden
            || self.labels.iter().filter(|l| usable(&l.at)).any(|label| {
                let (u, v) = unit(label.at);
                let (w, h) = ((text_width(&label.text) + 10.0) / plot.0, 8.0 / plot.1);
                crosses((u, v - h), (u + w, v + h)) || crosses((u, v + h), (u + w, v - h))
            })
    }
}

/// The size of a one-column legend of `entries` inside its frame, px.
fn column_size(entries: &[Entry<'_>]) -> (f64, f64) {
    let widest = entries.iter().map(|e| e.text_width).fold(0.0, f64::max);
    (SAMPLE + widest + 2.0 * PAD, entries.len() as f64 * ROW + PAD)
}

/// The width of `text` in the legend's font, px (from the embedded font, or estimated).
fn text_width(text: &str) -> f64 {
    let measured = style::ensure_font()
        .ok()
        .and_then(|()| (FAMILY, style::LABEL_SIZE).into_font().box_size(text).ok())
        .map(|(w, _)| f64::from(w));
    measured.unwrap_or(0.6 * f64::from(style::LABEL_SIZE) * text.chars().count() as f64)
}

/// Whether `value` can be drawn on an axis of `scale`.
fn shown(value: f64, scale: Scale) -> bool {
    value.is_finite() && (scale == Scale::Linear || value > 0.0)
}

/// `point` in fractions of the plot area (0 at the lower left, 1 at the upper right).
fn to_unit(point: (f64, f64), x: &Range<f64>, y: &Range<f64>, scales: (Scale, Scale)) -> (f64, f64) {
    let map = |v: f64, range: &Range<f64>, scale: Scale| match scale {
        Scale::Linear => (v - range.start) / (range.end - range.start),
        Scale::Log => (v.ln() - range.start.ln()) / (range.end.ln() - range.start.ln()),
    };
    (map(point.0, x, scales.0), map(point.1, y, scales.1))
}

/// Whether the segment from `a` to `b` meets the box `[left, bottom, width, height]`
/// (Liang-Barsky clipping).
fn segment_meets_box(a: (f64, f64), b: (f64, f64), [left, bottom, width, height]: [f64; 4]) -> bool {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (mut enter, mut leave) = (0.0f64, 1.0f64);
    for (p, q) in
        [(-dx, a.0 - left), (dx, left + width - a.0), (-dy, a.1 - bottom), (dy, bottom + height - a.1)]
    {
        if p == 0.0 {
            if q < 0.0 {
                return false;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                enter = enter.max(t);
            } else {
                leave = leave.min(t);
            }
        }
    }
    enter <= leave
}

/// Draws the legend of `chart` on `area`: framed, in one column, in `corner` of the plot whose
/// pixels are `plot` (inside placements); or unframed in `columns` columns filling `area` (under
/// the plot).
pub(crate) fn draw<DB: DrawingBackend>(
    chart: &Chart,
    area: &DrawingArea<DB, Shift>,
    at: Where,
) -> Result<(), PlotError> {
    let entries = chart.entries();
    let (columns, origin, column_width) = match at {
        Where::Inside { corner, plot } => {
            let (width, height) = column_size(&entries);
            let size = ((plot.0.end - plot.0.start) as f64, (plot.1.end - plot.1.start) as f64);
            let (left, top) = corner.origin((width, height), size, INSET);
            let (left, top) = (plot.0.start + left as i32, plot.1.start + top as i32);
            let frame = [(left, top), (left + width as i32, top + height as i32)];
            area.draw(&Rectangle::new(frame, WHITE.mix(0.9).filled())).map_err(draw_error)?;
            area.draw(&Rectangle::new(frame, RGBColor(180, 180, 180))).map_err(draw_error)?;
            (1, (left + PAD as i32, top + (0.5 * PAD) as i32), width)
        }
        Where::Below { columns } => {
            let widest = entries.iter().map(|e| SAMPLE + e.text_width + PAD).fold(0.0, f64::max);
            (columns, (MARGIN as i32, 0), widest)
        }
    };
    let font =
        TextStyle::from((FAMILY, style::LABEL_SIZE).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    for (i, entry) in entries.iter().enumerate() {
        let x = origin.0 + ((i % columns) as f64 * column_width) as i32;
        let y = origin.1 + ((i / columns) as f64 * ROW + 0.5 * ROW) as i32;
        draw_sample(area, entry.series, (x, y))?;
        area.draw(&Text::new(entry.label.to_string(), (x + SAMPLE as i32, y), font.clone()))
            .map_err(draw_error)?;
    }
    Ok(())
}

/// Where [`draw`] puts the legend.
pub(crate) enum Where {
    /// In a corner of the plot whose pixel ranges are `plot`.
    Inside {
        /// The corner.
        corner: Corner,
        /// The plot area's pixels, horizontal and vertical.
        plot: (Range<i32>, Range<i32>),
    },
    /// Filling the area, in columns.
    Below {
        /// Entries per row.
        columns: usize,
    },
}

/// The sample of a series in the legend, starting at `(x, y)` px: a short line (dashed for a
/// dashed series) or its marker.
fn draw_sample<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    series: &Series,
    (x, y): (i32, i32),
) -> Result<(), PlotError> {
    let line = ShapeStyle::from(&series.color).stroke_width(series.width);
    let result = match series.style {
        Style::Line | Style::Segments => area.draw(&PathElement::new(vec![(x, y), (x + 22, y)], line)),
        Style::Dashed => area
            .draw(&PathElement::new(vec![(x, y), (x + 8, y)], line))
            .and_then(|()| area.draw(&PathElement::new(vec![(x + 13, y), (x + 21, y)], line))),
        Style::Markers(marker) => {
            area.draw(&marker_element(marker, (x + 11, y), series.width as i32, series.color))
        }
    };
    result.map_err(draw_error)
}

fn draw_error(error: impl std::fmt::Display) -> PlotError {
    PlotError::Draw(error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_meet_a_box_only_when_they_cross_it() {
        let unit_box = [0.5, 0.5, 0.5, 0.5];
        // Through it, ending in it, and passing beside or short of it.
        assert!(segment_meets_box((0.0, 0.0), (1.0, 1.0), unit_box));
        assert!(segment_meets_box((0.2, 0.7), (0.6, 0.7), unit_box));
        assert!(!segment_meets_box((0.0, 0.6), (0.4, 0.6), unit_box));
        assert!(!segment_meets_box((0.0, 0.4), (1.0, 0.45), unit_box));
    }

    #[test]
    fn every_place_is_inside_the_area() {
        for corner in Corner::ALL {
            let (left, top) = corner.origin((30.0, 20.0), (100.0, 80.0), 5.0);
            assert!((5.0..=65.0).contains(&left) && (5.0..=55.0).contains(&top), "{corner:?}");
        }
    }
}
