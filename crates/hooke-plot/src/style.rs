//! The look shared by every plot: the embedded font, the palette and the sizes.
//!
//! The font is DejaVu Sans (a subset: Latin-1, Greek, arrows and mathematical operators; see
//! `fonts/LICENSE-DejaVu.txt`), compiled into the binary and registered with plotters' `ab_glyph`
//! text engine, so a picture renders the same on a machine with no fonts installed. SVG files
//! name the family `sans-serif` and leave the glyphs to the viewer.

use crate::error::PlotError;
use plotters::style::{register_font, FontStyle, RGBColor};
use std::sync::OnceLock;

/// The font family every text uses (registered under this name).
pub const FAMILY: &str = "sans-serif";

/// DejaVu Sans, subset (about 74 kB).
const FONT: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");

/// Text sizes, px.
pub const TITLE_SIZE: u32 = 22;
/// Axis descriptions.
pub const AXIS_SIZE: u32 = 17;
/// Tick labels and the legend.
pub const LABEL_SIZE: u32 = 14;

/// Default picture size, px (small enough for a gallery, large enough to read).
pub const DEFAULT_SIZE: (u32, u32) = (800, 500);

/// Registers the embedded font once per process.
pub fn ensure_font() -> Result<(), PlotError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| register_font(FAMILY, FontStyle::Normal, FONT).is_ok());
    if ok {
        Ok(())
    } else {
        Err(PlotError::Draw("the embedded font fonts/DejaVuSans.ttf is not a valid TrueType font".into()))
    }
}

/// A palette that reads on white and stays distinct for colour-blind readers (Okabe-Ito),
/// then two greys.
pub const PALETTE: [RGBColor; 9] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(230, 159, 0),   // orange
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(153, 136, 0),   // olive
    RGBColor(0, 0, 0),       // black
    RGBColor(110, 110, 110), // grey
];

/// The colour for series number `index` (cycling through [`PALETTE`]).
pub fn color(index: usize) -> RGBColor {
    PALETTE[index % PALETTE.len()]
}

/// Black, for references and structure (springs, the unit circle).
pub const INK: RGBColor = RGBColor(0, 0, 0);

/// Grey, for what is drawn for orientation only (the start of a motion, boundaries).
pub const GREY: RGBColor = RGBColor(150, 150, 150);
