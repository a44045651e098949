//! Writing charts: the format from the file's extension (PNG, SVG, or GIF for an animation),
//! rendering in memory, and writing through [`AtomicFile`] so that a failed plot leaves no
//! half-written file.
//!
//! SVG output is deterministic: the same chart gives the same bytes.

use crate::chart::Chart;
use crate::error::PlotError;
use hooke::io::AtomicFile;
use image::codecs::png::PngEncoder;
use image::{ColorType, ImageEncoder};
use plotters::prelude::*;
use std::io::Write;
use std::path::Path;

/// A picture format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A PNG bitmap.
    Png,
    /// An SVG drawing.
    Svg,
    /// An animated GIF (trajectories only).
    Gif,
}

impl Format {
    /// The format a still picture at `path` is written in: `.png` or `.svg` (any case).
    pub fn still(path: &Path) -> Result<Self, PlotError> {
        match Self::of(path) {
            Some(format @ (Format::Png | Format::Svg)) => Ok(format),
            _ => Err(extension_error(path, ".png or .svg")),
        }
    }

    /// The format of a picture at `path` that may also be an animation: `.png`, `.svg` or
    /// `.gif`.
    pub fn still_or_animation(path: &Path) -> Result<Self, PlotError> {
        Self::of(path).ok_or_else(|| extension_error(path, ".png, .svg or .gif"))
    }

    fn of(path: &Path) -> Option<Self> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        match extension.as_str() {
            "png" => Some(Format::Png),
            "svg" => Some(Format::Svg),
            "gif" => Some(Format::Gif),
            _ => None,
        }
    }
}

fn extension_error(path: &Path, expected: &'static str) -> PlotError {
    let found = match path.extension() {
        Some(extension) => format!("\".{}\"", extension.to_string_lossy()),
        None => "no extension".to_string(),
    };
    PlotError::Extension { path: path.to_path_buf(), expected, found }
}

/// Renders `chart` as an SVG document of `size` px.
pub fn render_svg(chart: &Chart, size: (u32, u32)) -> Result<String, PlotError> {
    let mut text = String::new();
    {
        let area = SVGBackend::with_string(&mut text, size).into_drawing_area();
        chart.draw(&area)?;
        area.present().map_err(|e| PlotError::Draw(e.to_string()))?;
    }
    Ok(text)
}

/// Renders `chart` as RGB pixels (3 bytes each, row by row) of `size` px.
pub fn render_rgb(chart: &Chart, size: (u32, u32)) -> Result<Vec<u8>, PlotError> {
    let mut pixels = vec![255u8; size.0 as usize * size.1 as usize * 3];
    {
        let area = BitMapBackend::with_buffer(&mut pixels, size).into_drawing_area();
        chart.draw(&area)?;
        area.present().map_err(|e| PlotError::Draw(e.to_string()))?;
    }
    Ok(pixels)
}

/// Renders `chart` as a PNG file's bytes, `size` px.
pub fn render_png(chart: &Chart, size: (u32, u32)) -> Result<Vec<u8>, PlotError> {
    let pixels = render_rgb(chart, size)?;
    let mut bytes = Vec::new();
    PngEncoder::new(&mut bytes)
        .write_image(&pixels, size.0, size.1, ColorType::Rgb8)
        .map_err(|e| PlotError::Draw(format!("PNG encoding: {e}")))?;
    Ok(bytes)
}

/// Writes `chart` to `path` as PNG or SVG (from the extension), `size` px.
pub fn save(chart: &Chart, path: &Path, size: (u32, u32)) -> Result<(), PlotError> {
    let bytes = match Format::still(path)? {
        Format::Png => render_png(chart, size)?,
        _ => render_svg(chart, size)?.into_bytes(),
    };
    write_atomically(path, &bytes)
}

/// Writes `frames` to `path` as an animated GIF, `size` px, each frame shown `delay_ms`.
pub fn save_animation(
    frames: &[Chart],
    path: &Path,
    size: (u32, u32),
    delay_ms: u32,
) -> Result<(), PlotError> {
    if Format::still_or_animation(path)? != Format::Gif {
        return Err(extension_error(path, ".gif"));
    }
    let (width, height) = gif_size(size)?;
    let mut bytes = Vec::new();
    {
        let mut encoder = gif::Encoder::new(&mut bytes, width, height, &[]).map_err(gif_error)?;
        encoder.set_repeat(gif::Repeat::Infinite).map_err(gif_error)?;
        for chart in frames {
            let pixels = render_rgb(chart, size)?;
            let mut frame = gif::Frame::from_rgb_speed(width, height, &pixels, 10);
            frame.delay = (delay_ms / 10).clamp(1, u16::MAX.into()) as u16;
            encoder.write_frame(&frame).map_err(gif_error)?;
        }
    }
    write_atomically(path, &bytes)
}

fn gif_size((width, height): (u32, u32)) -> Result<(u16, u16), PlotError> {
    match (u16::try_from(width), u16::try_from(height)) {
        (Ok(w), Ok(h)) => Ok((w, h)),
        _ => Err(PlotError::Draw(format!("a GIF is at most 65535 px wide and high, found {width}x{height}"))),
    }
}

fn gif_error(error: gif::EncodingError) -> PlotError {
    PlotError::Draw(format!("GIF encoding: {error}"))
}

/// Writes `bytes` under a temporary name next to `path` and renames it into place.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), PlotError> {
    let context = |source| PlotError::Write { path: path.to_path_buf(), source };
    let mut file = AtomicFile::create(path).map_err(context)?;
    file.write_all(bytes).map_err(context)?;
    file.commit().map_err(context)
}
