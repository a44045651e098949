//! WAV input: every channel, full scale 1, with its size checked before the samples are read.

use crate::limits::MAX_READ_SAMPLES;
use std::path::Path;

/// A WAV file's samples.
#[derive(Debug, Clone, PartialEq)]
pub struct WavSamples {
    /// Frames per second, Hz.
    pub rate: f64,
    /// Channels (interleaved in `interleaved`).
    pub channels: usize,
    /// Every sample, frame by frame, full scale 1: integer samples divided by `2^(bits - 1)`,
    /// float samples as they are.
    pub interleaved: Vec<f64>,
}

impl WavSamples {
    /// Channel `channel` (0-based).
    pub fn channel(&self, channel: usize) -> Vec<f64> {
        self.interleaved.iter().skip(channel).step_by(self.channels).copied().collect()
    }

    /// The mean of the channels.
    pub fn mono(&self) -> Vec<f64> {
        self.interleaved
            .chunks(self.channels)
            .map(|frame| frame.iter().sum::<f64>() / self.channels as f64)
            .collect()
    }
}

/// Why a WAV file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum WavReadError {
    /// Not a WAV file hound can read, or a read failed.
    #[error("{0}")]
    Unreadable(#[from] hound::Error),
    /// More samples than [`MAX_READ_SAMPLES`].
    #[error(
        "at most {MAX_READ_SAMPLES} samples; the file holds {found} ({frames} frames of {channels} channels)"
    )]
    TooLarge {
        /// Samples in the file.
        found: u64,
        /// Frames.
        frames: u64,
        /// Channels.
        channels: usize,
    },
}

/// Reads every sample of the WAV file at `path` (module documentation).
pub fn read_wav(path: &Path) -> Result<WavSamples, WavReadError> {
    let mut reader = hound::WavReader::open(path)?;
    let spec = reader.spec();
    let channels = usize::from(spec.channels).max(1);
    let frames = u64::from(reader.duration());
    let found = frames * channels as u64;
    if found > MAX_READ_SAMPLES as u64 {
        return Err(WavReadError::TooLarge { found, frames, channels });
    }
    let interleaved = match spec.sample_format {
        hound::SampleFormat::Float => {
            reader.samples::<f32>().map(|s| s.map(f64::from)).collect::<Result<_, _>>()?
        }
        hound::SampleFormat::Int => {
            let full_scale = 2f64.powi(i32::from(spec.bits_per_sample) - 1);
            reader.samples::<i32>().map(|s| s.map(|v| f64::from(v) / full_scale)).collect::<Result<_, _>>()?
        }
    };
    Ok(WavSamples { rate: f64::from(spec.sample_rate), channels, interleaved })
}
