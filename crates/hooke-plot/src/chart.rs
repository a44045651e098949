//! The one chart every plot kind draws: a title, two labelled axes (linear or logarithmic), a
//! list of series (lines, dashed lines, markers, segments) and a legend.
//!
//! Each kind of plot ([`crate::trajectory`], [`crate::time`], ...) turns its data into a
//! [`Chart`]; [`crate::output`] draws it to PNG, SVG or GIF frames. The legend goes where it
//! hides nothing ([`crate::legend`]); a long line whose horizontal values only grow is drawn
//! through its envelope per pixel column ([`crate::decimate`]).

use crate::decimate;
use crate::error::PlotError;
use crate::legend::{self, Placement, Where};
use crate::style::{self, FAMILY};
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::element::ComposedElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::ops::Range;

/// How an axis maps values to positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Evenly spaced values.
    Linear,
    /// Evenly spaced powers of ten (positive values only; others are left out).
    Log,
}

/// One axis: its description (with the unit) and scale, and optionally a fixed range.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// What the axis shows, with its unit, e.g. `time t (s)`.
    pub label: String,
    /// Linear or logarithmic.
    pub scale: Scale,
    /// A fixed range; `None` fits the data.
    pub range: Option<Range<f64>>,
}

impl Axis {
    /// A linear axis fitted to the data.
    pub fn linear(label: impl Into<String>) -> Self {
        Self { label: label.into(), scale: Scale::Linear, range: None }
    }

    /// A logarithmic axis fitted to the positive data.
    pub fn log(label: impl Into<String>) -> Self {
        Self { label: label.into(), scale: Scale::Log, range: None }
    }

    /// The same axis with a fixed range.
    pub fn with_range(mut self, from: f64, to: f64) -> Self {
        self.range = Some(from..to);
        self
    }
}

/// A marker shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// An open circle.
    Circle,
    /// A filled circle.
    Dot,
    /// A diagonal cross.
    Cross,
    /// An open square.
    Square,
    /// A filled triangle.
    Triangle,
}

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// A solid line through the points, in order.
    Line,
    /// A dashed line through the points.
    Dashed,
    /// A marker at each point.
    Markers(Marker),
    /// Separate straight segments between points 0-1, 2-3, ... (springs, marker lines).
    Segments,
}

/// One series: points in data units, how to draw them, and a legend entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The legend entry; `None` keeps the series out of the legend.
    pub label: Option<String>,
    /// The points `(x, y)`; non-finite points are left out.
    pub points: Vec<(f64, f64)>,
    /// How to draw them.
    pub style: Style,
    /// The colour.
    pub color: RGBColor,
    /// Line width or marker size, px.
    pub width: u32,
}

impl Series {
    /// A solid line of width 2.
    pub fn line(label: impl Into<String>, points: Vec<(f64, f64)>, color: RGBColor) -> Self {
        Self { label: Some(label.into()), points, style: Style::Line, color, width: 2 }
    }

    /// Markers of size 4.
    pub fn markers(
        label: impl Into<String>,
        points: Vec<(f64, f64)>,
        marker: Marker,
        color: RGBColor,
    ) -> Self {
        Self { label: Some(label.into()), points, style: Style::Markers(marker), color, width: 4 }
    }

    /// The same series drawn in another style.
    pub fn styled(mut self, style: Style) -> Self {
        self.style = style;
        self
    }

    /// The same series with another line width or marker size.
    pub fn width(mut self, width: u32) -> Self {
        self.width = width;
        self
    }

    /// The same series without a legend entry.
    pub fn unlabelled(mut self) -> Self {
        self.label = None;
        self
    }
}

/// A text written in the plot at a point in data units (e.g. the name of a region or a line's
/// level), left-aligned and vertically centred on the point.
#[derive(Debug, Clone, PartialEq)]
pub struct Label {
    /// The text.
    pub text: String,
    /// Where, in data units.
    pub at: (f64, f64),
}

/// A named curve: the plain data most plot kinds take, in data units.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// What it is, for the legend (e.g. the scheme's name).
    pub label: String,
    /// Its points `(x, y)`.
    pub points: Vec<(f64, f64)>,
}

/// A whole picture: title, axes, series and texts; the legend names the labelled series.
#[derive(Debug, Clone)]
pub struct Chart {
    /// The title (what, which model, which scheme).
    pub title: String,
    /// The horizontal axis.
    pub x: Axis,
    /// The vertical axis.
    pub y: Axis,
    /// The series, drawn in order (later ones on top).
    pub series: Vec<Series>,
    /// Whether one unit spans as many pixels on both axes (trajectories, phase portraits, the
    /// z-plane).
    pub equal_aspect: bool,
    /// Texts written in the plot.
    pub labels: Vec<Label>,
}

impl Chart {
    /// A chart with no series yet.
    pub fn new(title: impl Into<String>, x: Axis, y: Axis) -> Self {
        Self { title: title.into(), x, y, series: Vec::new(), equal_aspect: false, labels: Vec::new() }
    }

    /// The ranges the axes will show: fixed where given, else fitted to the finite data (positive
    /// data on a log axis) with a margin; with [`Chart::equal_aspect`], the narrower range is
    /// widened so that a unit spans as many pixels on both axes of a plot of `size` px.
    pub fn ranges(&self, size: (u32, u32)) -> Result<(Range<f64>, Range<f64>), PlotError> {
        let x = fit(&self.x, self.series.iter().flat_map(|s| s.points.iter().map(|p| p.0)))
            .ok_or_else(|| self.nothing_to_plot())?;
        let y = fit(&self.y, self.series.iter().flat_map(|s| s.points.iter().map(|p| p.1)))
            .ok_or_else(|| self.nothing_to_plot())?;
        if !self.equal_aspect || self.x.scale == Scale::Log || self.y.scale == Scale::Log {
            return Ok((x, y));
        }
        let (width, height) = plot_area(size);
        let (x_per_px, y_per_px) = ((x.end - x.start) / width, (y.end - y.start) / height);
        Ok(if x_per_px < y_per_px {
            (widen(x, y_per_px * width), y)
        } else {
            (x, widen(y, x_per_px * height))
        })
    }

    fn nothing_to_plot(&self) -> PlotError {
        PlotError::Empty(format!("\"{}\" has no finite point", self.title))
    }

    /// Draws the chart on `area` (which it first paints white), with the legend where
    /// [`Chart::layout`] puts it.
    pub fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        style::ensure_font()?;
        area.fill(&WHITE).map_err(draw_error)?;
        let (width, height) = area.dim_in_pixel();
        let layout = self.layout((width, height))?;
        let (plot, below) = match layout.placement {
            Placement::Below { columns, .. } => {
                let (plot, below) = area.split_vertically(height.saturating_sub(layout.below_px));
                (plot, Some((below, columns)))
            }
            _ => (area.clone(), None),
        };
        let (x, y) = (layout.x.clone(), layout.y.clone());
        let corner = match layout.placement {
            Placement::Inside(corner) => Some(corner),
            Placement::Above => Some(legend::Corner::UpperRight),
            Placement::None | Placement::Below { .. } => None,
        };
        match (self.x.scale, self.y.scale) {
            (Scale::Linear, Scale::Linear) => self.draw_in(&plot, x, y, corner),
            (Scale::Linear, Scale::Log) => self.draw_in(&plot, x, y.log_scale(), corner),
            (Scale::Log, Scale::Linear) => self.draw_in(&plot, x.log_scale(), y, corner),
            (Scale::Log, Scale::Log) => self.draw_in(&plot, x.log_scale(), y.log_scale(), corner),
        }?;
        match below {
            Some((below, columns)) => legend::draw(self, &below, Where::Below { columns }),
            None => Ok(()),
        }
    }

    fn draw_in<DB, X, Y>(
        &self,
        area: &DrawingArea<DB, Shift>,
        x: X,
        y: Y,
        legend: Option<legend::Corner>,
    ) -> Result<(), PlotError>
    where
        DB: DrawingBackend,
        X: AsRangedCoord<Value = f64>,
        Y: AsRangedCoord<Value = f64>,
        X::CoordDescType: ValueFormatter<f64>,
        Y::CoordDescType: ValueFormatter<f64>,
    {
        let mut chart = ChartBuilder::on(area)
            .caption(&self.title, (FAMILY, style::TITLE_SIZE))
            .margin(MARGIN)
            .x_label_area_size(X_LABEL_AREA)
            .y_label_area_size(Y_LABEL_AREA)
            .build_cartesian_2d(x, y)
            .map_err(draw_error)?;
        let (x_range, y_range) = (chart.x_range(), chart.y_range());
        let x_format = tick_formatter(self.x.scale, x_range.clone());
        let y_format = tick_formatter(self.y.scale, y_range.clone());
        let in_view = |(x, y): (f64, f64)| x_range.contains(&x) && y_range.contains(&y);
        chart
            .configure_mesh()
            .x_desc(&self.x.label)
            .y_desc(&self.y.label)
            .x_labels(8)
            .y_labels(8)
            .x_label_formatter(&x_format)
            .y_label_formatter(&y_format)
            .label_style((FAMILY, style::LABEL_SIZE))
            .axis_desc_style((FAMILY, style::AXIS_SIZE))
            .light_line_style(RGBColor(235, 235, 235))
            .bold_line_style(RGBColor(215, 215, 215))
            .draw()
            .map_err(draw_error)?;
        let columns = chart.plotting_area().dim_in_pixel().0 as usize;
        for series in &self.series {
            draw_series(&mut chart, series, self.x.scale, self.y.scale, &x_range, columns)?;
        }
        let font =
            TextStyle::from((FAMILY, style::LABEL_SIZE).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
        chart
            .draw_series(
                self.labels.iter().filter(|l| in_view(l.at)).map(|l| {
                    EmptyElement::at(l.at) + Text::new(l.text.clone(), (LABEL_OFFSET, 0), font.clone())
                }),
            )
            .map_err(draw_error)?;
        if let Some(corner) = legend {
            let plot = chart.plotting_area().get_pixel_range();
            legend::draw(self, area, Where::Inside { corner, plot })?;
        }
        Ok(())
    }
}

/// How far right of its point a label starts, px.
const LABEL_OFFSET: i32 = 10;

/// Space around the chart, px.
pub(crate) const MARGIN: u32 = 12;
/// Height of the area under the plot for tick labels and the axis description, px.
const X_LABEL_AREA: u32 = 48;
/// Width of the area left of the plot for tick labels and the axis description, px.
const Y_LABEL_AREA: u32 = 78;
/// Height of the title, px (an estimate for the equal-aspect ranges).
const TITLE_AREA: u32 = 34;

/// The plotting area's size in px for a picture of `size` px (an estimate).
pub(crate) fn plot_area((width, height): (u32, u32)) -> (f64, f64) {
    let w = width.saturating_sub(2 * MARGIN + Y_LABEL_AREA).max(1);
    let h = height.saturating_sub(2 * MARGIN + X_LABEL_AREA + TITLE_AREA).max(1);
    (f64::from(w), f64::from(h))
}

/// `range` widened about its centre to `span`.
fn widen(range: Range<f64>, span: f64) -> Range<f64> {
    let centre = 0.5 * (range.start + range.end);
    centre - 0.5 * span..centre + 0.5 * span
}

/// The range an axis shows: its fixed range, or the data's (finite, and positive on a log axis)
/// with 4 % margins (a factor on a log axis); a single value gets a range around it.
fn fit(axis: &Axis, values: impl Iterator<Item = f64>) -> Option<Range<f64>> {
    if let Some(range) = &axis.range {
        return Some(range.clone());
    }
    let usable = |v: &f64| v.is_finite() && (axis.scale == Scale::Linear || *v > 0.0);
    let (low, high) = values
        .filter(usable)
        .fold(None, |acc: Option<(f64, f64)>, v| Some(acc.map_or((v, v), |(a, b)| (a.min(v), b.max(v)))))?;
    Some(match axis.scale {
        Scale::Linear if high > low => {
            let pad = 0.04 * (high - low);
            low - pad..high + pad
        }
        Scale::Linear => {
            let pad = if low == 0.0 { 1.0 } else { 0.1 * low.abs() };
            low - pad..high + pad
        }
        Scale::Log if high > low => low / 1.5..high * 1.5,
        Scale::Log => low / 10.0..high * 10.0,
    })
}

/// Tick labels: plain decimals with as many digits as the tick spacing needs, scientific
/// notation for very large or small values; powers of ten on a log axis.
fn tick_formatter(scale: Scale, range: Range<f64>) -> impl Fn(&f64) -> String {
    let span = (range.end - range.start).abs();
    let magnitude = range.start.abs().max(range.end.abs());
    move |value: &f64| match scale {
        Scale::Log => format_log_tick(*value),
        Scale::Linear => format_linear_tick(*value, span, magnitude),
    }
}

fn format_linear_tick(value: f64, span: f64, magnitude: f64) -> String {
    if value == 0.0 || value.abs() < 1e-9 * span {
        return "0".to_string();
    }
    let step = span / 8.0;
    if !(1e-3..1e5).contains(&magnitude) {
        // Digits after the mantissa's point: enough to tell ticks `step` apart.
        let exponent = value.abs().log10().floor();
        let digits = (exponent - step.log10().floor()).clamp(0.0, 6.0) as usize;
        return trim_exponent(&format!("{value:.digits$e}"));
    }
    let digits = (-step.log10().floor()).clamp(0.0, 9.0) as usize;
    trim_zeros(format!("{value:.digits$}"))
}

fn format_log_tick(value: f64) -> String {
    let exponent = value.log10().round();
    if (value / 10f64.powf(exponent) - 1.0).abs() < 1e-6 {
        if (-3.0..=4.0).contains(&exponent) {
            trim_zeros(format!("{value:.3}"))
        } else {
            format!("1e{exponent}")
        }
    } else {
        trim_exponent(&format!("{value:.0e}"))
    }
}

/// `1.50` -> `1.5`, `2.000` -> `2`.
fn trim_zeros(text: String) -> String {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// `1.50e-3` -> `1.5e-3`.
fn trim_exponent(text: &str) -> String {
    match text.split_once('e') {
        Some((mantissa, exponent)) => format!("{}e{exponent}", trim_zeros(mantissa.to_string())),
        None => text.to_string(),
    }
}

fn draw_error(error: impl std::fmt::Display) -> PlotError {
    PlotError::Draw(error.to_string())
}

type Context<'a, DB, X, Y> = ChartContext<'a, DB, Cartesian2d<X, Y>>;

/// Above this many points per pixel column, a line whose horizontal values only grow is drawn
/// through its envelope ([`decimate::envelope`]).
const POINTS_PER_COLUMN: usize = 4;

/// Draws one series (its finite points; positive ones on a log axis); a long line over a linear
/// horizontal axis `x_range` of `columns` px through its envelope.
fn draw_series<'a, DB, X, Y>(
    chart: &mut Context<'a, DB, X, Y>,
    series: &Series,
    x_scale: Scale,
    y_scale: Scale,
    x_range: &Range<f64>,
    columns: usize,
) -> Result<(), PlotError>
where
    DB: DrawingBackend + 'a,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let shown = |v: f64, scale: Scale| v.is_finite() && (scale == Scale::Linear || v > 0.0);
    let keep = |p: &(f64, f64)| shown(p.0, x_scale) && shown(p.1, y_scale);
    let color = series.color;
    let line = ShapeStyle::from(&color).stroke_width(series.width);
    let size = series.width as i32;
    let line_points = || -> Vec<(f64, f64)> {
        let points: Vec<(f64, f64)> = series.points.iter().copied().filter(keep).collect();
        let long = points.len() > POINTS_PER_COLUMN * columns;
        if long && x_scale == Scale::Linear && decimate::is_ordered(&points) {
            decimate::envelope(&points, x_range, columns)
        } else {
            points
        }
    };
    match series.style {
        Style::Line => chart.draw_series(LineSeries::new(line_points(), line)).map(|_| ()),
        Style::Dashed => chart.draw_series(DashedLineSeries::new(line_points(), 8, 5, line)).map(|_| ()),
        Style::Segments => chart
            .draw_series(
                series
                    .points
                    .chunks_exact(2)
                    .filter(|pair| pair.iter().all(keep))
                    .map(|pair| PathElement::new(vec![pair[0], pair[1]], line)),
            )
            .map(|_| ()),
        Style::Markers(marker) => {
            let points = series.points.iter().copied().filter(keep);
            chart.draw_series(points.map(|p| marker_element(marker, p, size, color))).map(|_| ())
        }
    }
    .map_err(draw_error)
}

/// A marker: a filled polygon under an outline, in pixel offsets from its point.
type MarkerElement<C, DB> = ComposedElement<C, DB, Polygon<(i32, i32)>, PathElement<(i32, i32)>>;

/// A marker at `at`: a polygon (filled with the colour, or white for an open marker) under an
/// outline, in pixel offsets from the point; every shape has this one element type.
pub(crate) fn marker_element<C, DB: DrawingBackend>(
    marker: Marker,
    at: C,
    size: i32,
    color: RGBColor,
) -> MarkerElement<C, DB> {
    let s = size;
    let round = |n: usize| -> Vec<(i32, i32)> {
        (0..=n)
            .map(|k| {
                let angle = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
                ((f64::from(s) * angle.cos()).round() as i32, (f64::from(s) * angle.sin()).round() as i32)
            })
            .collect()
    };
    let (outline, filled) = match marker {
        Marker::Circle => (round(16), false),
        Marker::Dot => (round(16), true),
        Marker::Cross => (vec![(-s, -s), (s, s), (0, 0), (-s, s), (s, -s)], false),
        Marker::Square => (vec![(-s, -s), (s, -s), (s, s), (-s, s), (-s, -s)], false),
        Marker::Triangle => (vec![(0, -s - 1), (s + 1, s), (-s - 1, s), (0, -s - 1)], true),
    };
    let fill = if filled { color } else { WHITE };
    let fill_area = if marker == Marker::Cross { Vec::new() } else { outline.clone() };
    EmptyElement::at(at)
        + Polygon::new(fill_area, ShapeStyle::from(&fill).filled())
        + PathElement::new(outline, ShapeStyle::from(&color).stroke_width(2))
}
