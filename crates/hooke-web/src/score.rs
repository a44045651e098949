//! A score played on an instrument: the score file read against a [`BuiltInstrument`] (every
//! event resolved, errors at their line and column), performed on the engine by
//! [`Performance::render`] and handed out in blocks of interleaved stereo, as the live
//! instrument's are.

use crate::instrument::BuiltInstrument;
use crate::playground::WebError;
use hooke::score::performance::Performance;

/// The most frames one [`ScorePlayer::render`] call gives.
pub const MAX_SCORE_FRAMES: usize = 8192;

/// The output frames a performance of `steps` simulation steps lasts, `oversample` steps a
/// frame, as the page counts them (the score check and the player): `steps / oversample + 1`.
pub(crate) fn output_frames(steps: u64, oversample: usize) -> u64 {
    steps / oversample as u64 + 1
}

/// A score being performed.
pub struct ScorePlayer {
    file: String,
    performance: Performance,
    /// Frames computed and not yet handed out, one vector per channel (room for two calls'
    /// worth is made at load, so that a block allocates nothing).
    pending: Vec<Vec<f64>>,
    /// Interleaved stereo frames of the last render (`MAX_SCORE_FRAMES` of them).
    output: Vec<f32>,
    /// Output samples (full scale 1) per pickup unit.
    gain: f64,
    oversample: usize,
    /// Whether the decimator's last frames have been flushed (the score is over).
    finished: bool,
    /// The output frames the score lasts.
    frames: u64,
}

impl ScorePlayer {
    /// Reads the score file `source` (called `file` in errors) against `instrument` and makes
    /// its performance.
    pub fn load(instrument: &BuiltInstrument, source: &str, file: &str) -> Result<Self, WebError> {
        let score = instrument.score(source, file)?;
        let performance = Performance::new(&instrument.instrument, score, instrument.options())
            .map_err(|e| WebError::run(&instrument.file, e.to_string()))?;
        let oversample = instrument.oversample;
        let frames = output_frames(performance.total_steps(), oversample);
        let room = 4 * MAX_SCORE_FRAMES + 1024;
        let pending = (0..performance.channels()).map(|_| Vec::with_capacity(room)).collect();
        Ok(Self {
            file: file.to_string(),
            performance,
            pending,
            output: vec![0.0; 2 * MAX_SCORE_FRAMES],
            gain: instrument.gain,
            oversample,
            finished: false,
            frames,
        })
    }

    /// The output frames the score lasts (its duration at the output rate).
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Renders the next `frames` frames (at most [`MAX_SCORE_FRAMES`]) as interleaved stereo
    /// (channel 1 left, channel 2 right, or channel 1 on both), full scale 1, silence after
    /// the score's end; returns them. An instability stops the performance with its error.
    pub fn render(&mut self, frames: usize) -> Result<&[f32], WebError> {
        let frames = frames.min(MAX_SCORE_FRAMES);
        let run = |e: hooke::engine::RunError| WebError::run(&self.file, e.to_string());
        while self.pending[0].len() < frames && !self.finished {
            if self.performance.step() < self.performance.total_steps() {
                let steps = (frames * self.oversample) as u64;
                self.performance.render(steps, &mut self.pending).map_err(run)?;
            } else {
                self.performance.finish(&mut self.pending).map_err(run)?;
                self.finished = true;
            }
        }
        let available = self.pending[0].len().min(frames);
        let right = self.pending.len().min(2) - 1;
        for i in 0..frames {
            let (left, right) =
                if i < available { (self.pending[0][i], self.pending[right][i]) } else { (0.0, 0.0) };
            self.output[2 * i] = (left * self.gain) as f32;
            self.output[2 * i + 1] = (right * self.gain) as f32;
        }
        for channel in &mut self.pending {
            channel.drain(..available);
        }
        Ok(&self.output)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example(name: &str) -> String {
        let path = format!("{}/../../examples/instruments/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(path).unwrap()
    }

    #[test]
    fn a_score_plays_to_its_end_then_falls_silent() {
        let pendulum =
            BuiltInstrument::load(&example("pendulum.toml"), "pendulum.toml", 44_100.0, None).unwrap();
        let mut player = ScorePlayer::load(&pendulum, &example("pendulum-score.toml"), "score.toml").unwrap();
        let frames = player.frames() as usize;
        let (mut peak, mut rendered, mut after) = (0.0f32, 0, 0.0f32);
        while rendered < frames + 4096 {
            let block = player.render(4096).unwrap();
            for (i, x) in block[..8192].iter().enumerate() {
                if rendered + i / 2 < frames {
                    peak = peak.max(x.abs());
                } else {
                    after = after.max(x.abs());
                }
            }
            rendered += 4096;
        }
        assert!(peak > 1e-3 && peak < 4.0, "peak {peak}");
        assert!(after < peak * 1e-2, "after the end: {after}, peak {peak}");
    }

    #[test]
    fn a_score_error_names_its_line_and_column() {
        let pendulum =
            BuiltInstrument::load(&example("pendulum.toml"), "pendulum.toml", 44_100.0, None).unwrap();
        let text = example("pendulum-score.toml");
        let bad = text.replacen("\ntime = 1.0\n", "\ntime = -1.0\n", 1);
        let line = bad.lines().position(|l| l.starts_with("time = -")).unwrap() + 1;
        let error = ScorePlayer::load(&pendulum, &bad, "score.toml").err().unwrap();
        assert_eq!(error.position.map(|p| p.0), Some(line), "{error:?}");
        assert_eq!(error.file, "score.toml");
    }
}
