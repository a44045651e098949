//! WAV output: float or integer samples, optional peak normalisation, clipping report.

use super::AtomicFile;
use crate::model::number;
use std::io::{Seek, Write};
use std::path::Path;

/// The sample encoding of a WAV file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SampleFormat {
    /// 32-bit IEEE float (the default): values beyond +-1 are kept, but reported; values beyond
    /// its range (about 3.4e38) are refused.
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

/// How samples are encoded and scaled. The default is 32-bit float scaled to -1 dBFS: a
/// simulation's values are metres or metres per second, often far below full scale, and a file
/// should be audible unless raw values are asked for (`normalize: false`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WavOptions {
    /// Sample encoding.
    pub format: SampleFormat,
    /// Scale so the largest absolute sample is at [`NORMALIZED_PEAK`] (-1 dBFS).
    pub normalize: bool,
}

impl Default for WavOptions {
    fn default() -> Self {
        Self { format: SampleFormat::default(), normalize: true }
    }
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

/// The most bytes of samples a RIFF WAV can hold: its size fields are 32-bit, and the header
/// before the samples takes 44 bytes.
pub const MAX_WAV_DATA_BYTES: u64 = u32::MAX as u64 - 44;

impl SampleFormat {
    /// Bytes per sample.
    pub fn bytes(self) -> u64 {
        match self {
            SampleFormat::Float32 => 4,
            SampleFormat::Int16 => 2,
            SampleFormat::Int24 => 3,
        }
    }
}

/// Why a WAV file cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum WavError {
    /// Creating or writing the file failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The samples would not fit the format's 32-bit sizes (a header that wraps would announce
    /// the wrong length).
    #[error(
        "{frames} frames of {channels} channel(s) in {bytes_per_sample}-byte samples need {} bytes, \
         more than the {MAX_WAV_DATA_BYTES} a WAV file can hold (its sizes are 32-bit); write fewer \
         steps, a lower rate, i16 samples, or a CSV file instead",
        frames.saturating_mul(*channels as u64).saturating_mul(*bytes_per_sample)
    )]
    TooLarge {
        /// Frames asked for.
        frames: u64,
        /// Channels per frame.
        channels: usize,
        /// Bytes per sample.
        bytes_per_sample: u64,
    },
    /// There is nothing to write.
    #[error("no output channel to write: the model has no pickup and no moving mass")]
    NoChannels,
    /// A sample is NaN or infinite: the signal it belongs to is not a sound.
    #[error("channel {channel}, frame {frame}: the sample is {value}, not a finite number; nothing written")]
    NotFinite {
        /// Channel, 1-based.
        channel: usize,
        /// Frame, 0-based.
        frame: usize,
        /// The sample.
        value: f64,
    },
    /// A sample, after the gain, beyond what a 32-bit float holds (about 3.4e38): the file would
    /// hold an infinity where the signal has a value.
    #[error(
        "channel {channel}, frame {frame}: the sample {} is beyond the range of 32-bit float samples \
         (+-{:e}); nothing written: normalise the output or lower the pickup weights",
        number(*value),
        f32::MAX
    )]
    BeyondFloat32 {
        /// Channel, 1-based.
        channel: usize,
        /// Frame, 0-based.
        frame: usize,
        /// The sample, after the gain.
        value: f64,
    },
    /// Normalisation asked for a signal whose peak is below the smallest normal `f64`: its
    /// samples have lost their precision, and the gain to full scale is beyond an `f64`.
    #[error(
        "the loudest sample is {}, below the smallest normal double ({:e}): too quiet to scale to \
         full scale (its samples have lost their precision); nothing written: raise the pickup weights",
        number(*peak),
        f64::MIN_POSITIVE
    )]
    TooQuiet {
        /// The largest absolute sample.
        peak: f64,
    },
    /// The encoder refused.
    #[error("WAV encoding: {0}")]
    Encode(#[from] hound::Error),
}

/// Checks, before any work, that `frames` frames of `channels` channels fit a WAV file.
pub fn check_wav_size(frames: u64, channels: usize, format: SampleFormat) -> Result<(), WavError> {
    if channels == 0 {
        return Err(WavError::NoChannels);
    }
    let bytes = u128::from(frames) * channels as u128 * u128::from(format.bytes());
    if channels > usize::from(u16::MAX) || bytes > u128::from(MAX_WAV_DATA_BYTES) {
        return Err(WavError::TooLarge { frames, channels, bytes_per_sample: format.bytes() });
    }
    Ok(())
}

/// Writes `channels` (one vector per channel, equal lengths) as an interleaved WAV at `rate` Hz.
/// Refuses, before writing a byte, a file too large for the format, no channels, a sample that
/// is not finite, a sample beyond the range of 32-bit floats (without normalisation), or a
/// signal too quiet to normalise (a peak below the smallest normal `f64`): a file never holds an
/// infinity or a NaN.
pub fn write_wav<W: Write + Seek>(
    out: W,
    channels: &[Vec<f64>],
    rate: u32,
    options: WavOptions,
) -> Result<WavReport, WavError> {
    let frames = channels.first().map_or(0, Vec::len);
    check_wav_size(frames as u64, channels.len(), options.format)?;
    for (c, channel) in channels.iter().enumerate() {
        if let Some(frame) = channel.iter().position(|s| !s.is_finite()) {
            return Err(WavError::NotFinite { channel: c + 1, frame, value: channel[frame] });
        }
    }
    let raw_peak = channels.iter().flatten().fold(0.0f64, |p, s| p.max(s.abs()));
    if options.normalize && raw_peak > 0.0 && raw_peak < f64::MIN_POSITIVE {
        return Err(WavError::TooQuiet { peak: raw_peak });
    }
    let gain = if options.normalize && raw_peak > 0.0 { NORMALIZED_PEAK / raw_peak } else { 1.0 };
    if options.format == SampleFormat::Float32 && (raw_peak * gain) as f32 == f32::INFINITY {
        for (c, channel) in channels.iter().enumerate() {
            if let Some(frame) = channel.iter().position(|s| (s * gain).abs() as f32 == f32::INFINITY) {
                return Err(WavError::BeyondFloat32 { channel: c + 1, frame, value: channel[frame] * gain });
            }
        }
    }
    let (bits, sample_format) = match options.format {
        SampleFormat::Float32 => (32, hound::SampleFormat::Float),
        SampleFormat::Int16 => (16, hound::SampleFormat::Int),
        SampleFormat::Int24 => (24, hound::SampleFormat::Int),
    };
    let spec = hound::WavSpec {
        channels: channels.len() as u16,
        sample_rate: rate,
        bits_per_sample: bits,
        sample_format,
    };
    let mut writer = hound::WavWriter::new(out, spec)?;
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
) -> Result<WavReport, WavError> {
    let mut file = AtomicFile::create(path)?;
    let report = write_wav(file.writer(), channels, rate, options)?;
    file.commit()?;
    Ok(report)
}
