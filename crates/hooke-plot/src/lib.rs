//! Pictures of Hooke's runs and analyses, drawn with plotters in PNG, SVG or (for a motion) an
//! animated GIF, with an embedded font so that they render on a machine with no fonts.
//!
//! Every kind of plot is one module that turns plain data (curves, poles, positions) into a
//! [`chart::Chart`], with helpers that compute that data from the `hooke` library (a run through
//! [`record::simulate`], an analysis):
//!
//! | module | what | reproduces |
//! |---|---|---|
//! | [`trajectory`] | 2D motion: anchors, springs at the start and end, paths; a GIF on request | the plots of Domoszlai's blog post |
//! | [`time`] | positions against time, schemes over the exact or a reference solution | Morgan & Qiao 2008, figs. 10-12; Morgan & Qiao 2009, figs. 3-5, 18-19 |
//! | [`phase`] | position against momentum, or the modified phase space of Chatziioannou 2019 | Morgan & Qiao 2008, figs. 5-8; Chatziioannou 2019, fig. 2 |
//! | [`energy`] | energy and K, or their relative error, against time | Chatziioannou 2019, figs. 1, 3, 5, 6 |
//! | [`poles`] | the z-plane with each mode's discrete pole; the s-plane regions | Morgan & Qiao 2009, figs. 8-9, 12, 21 |
//! | [`warping`] | digital against analog frequency; isofrequency and isodamping maps | Morgan & Qiao 2009, figs. 10-11, 16-17 |
//! | [`spectrum`] | magnitude in dB of an output, with each mode's predicted frequency | Morgan & Qiao 2008, fig. 13 |
//! | [`compare`] | each scheme's error against a reference over time, on a log scale | |
//! | [`partials`] | a recorded note's partials (T60 against frequency) and spectrum against the string fitted to it | |
//!
//! [`output`] writes a chart to a file whose extension picks the format, atomically.

pub mod chart;
pub mod compare;
pub mod decimate;
pub mod energy;
pub mod error;
mod fft;
pub mod legend;
pub mod output;
pub mod partials;
pub mod phase;
pub mod poles;
pub mod record;
pub mod spectrum;
pub mod style;
pub mod time;
pub mod trajectory;
pub mod warping;

pub use chart::{Axis, Chart, Curve, Marker, Series, Style};
pub use error::PlotError;
pub use output::{save, save_animation, Format};
