//! WAV output: float or integer samples, optional peak normalisation, clipping report.

use super::AtomicFile;
use std::io::{Seek, Write};
use std::path::Path;

/// The sample encoding of a WAV file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SampleFormat {
    /// 32-bit IEEE float (the default): values beyond +-1 are kept, but reported.
    #[default]
    Float32,
    /// 16-bit integer PCM: values beyond +-1 are clipped.
    Int16,
    /// 24-bit integer PCM: values beyond +-1 are clipped.
    Int24,
}

impl SampleFormat {
    /// The names used in files and on the command line.
    pub const NAMES: [(&'static str, SampleFormat); 3] =
        [("f32", Self::Float32), ("i16", Self::Int16), ("i24", Self::Int24)];

    /// The format with this name (`f32`, `i16`, `i24`).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::NAMES.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
    }
}

/// How samples are encoded and scaled.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WavOptions {
    /// Sample encoding.
    pub format: SampleFormat,
    /// Scale so the largest absolute sample is at [`NORMALIZED_PEAK`] (-1 dBFS).
    pub normalize: bool,
}

/// The peak a normalised file reaches: -1 dBFS.
pub const NORMALIZED_PEAK: f64 = 0.891_250_938_133_745_5;

/// What writing did to the signal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WavReport {
    /// Factor applied to every sample.
    pub gain: f64,
    /// Largest absolute sample after the gain (1.0 is full scale).
    pub peak: f64,
    /// Samples beyond full scale: clipped in integer formats, kept in float.
    pub over_full_scale: usize,
}

/// Writes `channels` (one vector per channel, equal lengths) as an interleaved WAV at `rate` Hz.
pub fn write_wav<W: Write + Seek>(
    out: W,
    channels: &[Vec<f64>],
    rate: u32,
    options: WavOptions,
) -> Result<WavReport, hound::Error> {
    let raw_peak = channels.iter().flatten().fold(0.0f64, |p, s| p.max(s.abs()));
    let gain = if options.normalize && raw_peak > 0.0 { NORMALIZED_PEAK / raw_peak } else { 1.0 };
    let (bits, sample_format) = match options.format {
        SampleFormat::Float32 => (32, hound::SampleFormat::Float),
        SampleFormat::Int16 => (16, hound::SampleFormat::Int),
        SampleFormat::Int24 => (24, hound::SampleFormat::Int),
    };
    let spec = hound::WavSpec {
        channels: u16::try_from(channels.len().max(1)).unwrap_or(u16::MAX),
        sample_rate: rate,
        bits_per_sample: bits,
        sample_format,
    };
    let mut writer = hound::WavWriter::new(out, spec)?;
    let frames = channels.first().map_or(0, Vec::len);
    let full_scale = f64::from((1u32 << (bits - 1)) - 1);
    let mut over_full_scale = 0;
    for frame in 0..frames {
        for channel in channels {
            let sample = channel[frame] * gain;
            if sample.abs() > 1.0 {
                over_full_scale += 1;
            }
            match options.format {
                SampleFormat::Float32 => writer.write_sample(sample as f32)?,
                _ => writer.write_sample((sample.clamp(-1.0, 1.0) * full_scale).round() as i32)?,
            }
        }
    }
    writer.finalize()?;
    Ok(WavReport { gain, peak: raw_peak * gain, over_full_scale })
}

/// Writes `channels` to the WAV file `path` in one call: under a temporary name, renamed into
/// place when complete (see [`write_wav`] for the rest).
pub fn write_wav_file(
    path: &Path,
    channels: &[Vec<f64>],
    rate: u32,
    options: WavOptions,
) -> Result<WavReport, hound::Error> {
    let mut file = AtomicFile::create(path)?;
    let report = write_wav(file.writer(), channels, rate, options)?;
    file.commit()?;
    Ok(report)
}
