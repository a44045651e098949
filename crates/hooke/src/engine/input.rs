//! A live input: a signal that arrives block by block with the frames it goes with (a plugin's
//! audio input, a microphone), pushing on chosen coordinates as a force.
//!
//! The caller feeds the samples of the frames the next render will emit ([`InputDrive::feed`]),
//! at the output rate, and the engine computes each step's force from them
//! ([`InputDrive::force`]): `gain x(u)`, `x` interpolated linearly between the output frames
//! at the fractional frame `u = s / K - L` of step `s` (`K` steps a frame). The engine runs up
//! to its decimator's half-length `D` steps past the last frame it emits, and those steps need
//! samples not yet fed: the input acts `L = ceil(D / K)` frames late, the least that keeps every
//! step's two samples already fed (the last step of a block, `D` past its last frame's, lands
//! on frame `D / K - L <= 0` from it; between two frames only when that is below 0). The same
//! force offline is a drive (`crate::engine::excitation::Drive`) of the input delayed by `L`
//! frames, its samples at the output rate, started at step 0: the two agree to rounding
//! (`tests/live_input.rs`).

use super::Engine;
use crate::model::ModelError;

impl Engine {
    /// Opens a live input on the state coordinates `coordinates` (each pushed by the whole
    /// force), fed blocks of up to `max_frames` frames ([`Engine::feed_input`]); it pushes once
    /// given a gain ([`Engine::set_input_gain`]). Allocates: before play. Returns the frames by
    /// which the input acts late (`L`). Refused for a coordinate that is not a moving mass's.
    pub fn open_input(&mut self, coordinates: Vec<usize>, max_frames: usize) -> Result<u64, ModelError> {
        let moving = self.system.mass_coordinates();
        if let Some(&bad) = coordinates.iter().find(|&&c| c >= moving) {
            let expected = format!("a moving coordinate (below {moving})");
            return Err(ModelError::new("input", "coordinate", expected, bad));
        }
        let room = coordinates.len() + self.forces.capacity();
        self.forces.reserve(room.saturating_sub(self.forces.len()));
        self.held.reserve(room.saturating_sub(self.held.len()));
        let (oversample, delay) = (self.paths.config.oversample, self.decimator.delay());
        let input = InputDrive::new(coordinates, oversample, delay, max_frames);
        let late = input.delay();
        self.input = Some(input);
        Ok(late)
    }

    /// Sets the force (N) an input of 1 pushes with (0: the input is off, and the fast paths
    /// run in blocks again). Refused without an open input, or unless finite.
    pub fn set_input_gain(&mut self, gain: f64) -> Result<(), ModelError> {
        let input = self.input.as_mut().ok_or_else(no_input)?;
        input.set_gain(gain)
    }

    /// Feeds the input of the output frames the next [`Engine::render`] emits. Allocates
    /// nothing. Refused without an open input, or for more frames than it was opened for.
    pub fn feed_input(&mut self, samples: &[f32]) -> Result<(), ModelError> {
        let frame = self.emitted_frames();
        let input = self.input.as_mut().ok_or_else(no_input)?;
        input.feed(frame, samples)
    }
}

/// The error of an input used before it was opened.
fn no_input() -> ModelError {
    ModelError::new("input", "input", "an input opened first (Engine::open_input)", "none")
}

/// An input driving coordinates, with the frames fed so far.
#[derive(Debug, Clone)]
pub(crate) struct InputDrive {
    /// The state coordinates it pushes, each by the whole force.
    pub(crate) coordinates: Vec<usize>,
    /// Newtons for an input of 1 (0: the input is off and pushes nothing).
    gain: f64,
    /// Simulation steps a frame (the oversampling `K`).
    steps_per_frame: u64,
    /// The frames by which the input acts late (`L`).
    delay: u64,
    /// The largest block fed at once, frames.
    max_frames: usize,
    /// The last frames fed: frame `n` at `n % len`.
    ring: Vec<f64>,
    /// The frames the ring holds: `first..end`, absolute output frame numbers.
    first: u64,
    end: u64,
}

impl InputDrive {
    /// An input on `coordinates`, off, for an engine taking `steps_per_frame` steps a frame
    /// whose decimator looks `decimator_delay` steps ahead, fed blocks of up to `max_frames`
    /// frames.
    pub(crate) fn new(
        coordinates: Vec<usize>,
        steps_per_frame: usize,
        decimator_delay: usize,
        max_frames: usize,
    ) -> Self {
        let steps_per_frame = steps_per_frame.max(1) as u64;
        let delay = (decimator_delay as u64).div_ceil(steps_per_frame);
        let max_frames = max_frames.max(1);
        Self {
            coordinates,
            gain: 0.0,
            steps_per_frame,
            delay,
            max_frames,
            // A block, the frames it acts late and the one after the last interpolated.
            ring: vec![0.0; max_frames + delay as usize + 2],
            first: 0,
            end: 0,
        }
    }

    /// The frames by which the input acts late.
    pub(crate) fn delay(&self) -> u64 {
        self.delay
    }

    /// Whether it pushes (a gain other than 0).
    pub(crate) fn is_on(&self) -> bool {
        self.gain != 0.0
    }

    /// Sets the newtons an input of 1 pushes with (0: off). Refused unless finite.
    pub(crate) fn set_gain(&mut self, gain: f64) -> Result<(), ModelError> {
        if !gain.is_finite() {
            return Err(ModelError::new("input", "gain", "a finite force in N", gain));
        }
        self.gain = gain;
        Ok(())
    }

    /// Takes `samples` as the input of output frames `frame..frame + samples.len()`. Frames
    /// skipped since the last feed are silent. Refused for more than the largest block.
    pub(crate) fn feed(&mut self, frame: u64, samples: &[f32]) -> Result<(), ModelError> {
        if samples.len() > self.max_frames {
            let expected = format!("at most {} frames a block", self.max_frames);
            return Err(ModelError::new("input", "frames", expected, samples.len()));
        }
        let length = self.ring.len() as u64;
        if frame > self.end {
            if frame - self.end >= length {
                self.first = frame;
            } else {
                (self.end..frame).for_each(|n| self.ring[(n % length) as usize] = 0.0);
            }
        }
        for (n, &sample) in (frame..).zip(samples) {
            self.ring[(n % length) as usize] = f64::from(sample);
        }
        self.end = self.end.max(frame + samples.len() as u64);
        self.first = self.first.min(frame).max(self.end.saturating_sub(length));
        Ok(())
    }

    /// The force (N) on each coordinate through step `step`; `None` while off.
    pub(crate) fn force(&self, step: u64) -> Option<f64> {
        if !self.is_on() {
            return None;
        }
        let u = step as f64 / self.steps_per_frame as f64 - self.delay as f64;
        let n = u.floor();
        let (here, next) = (self.sample(n), self.sample(n + 1.0));
        Some(self.gain * (here + (u - n) * (next - here)))
    }

    /// The sample of output frame `n` (a whole number): 0 where none was fed (before frame 0
    /// among them).
    fn sample(&self, n: f64) -> f64 {
        if n >= self.first as f64 && n < self.end as f64 {
            self.ring[(n as u64 % self.ring.len() as u64) as usize]
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_between_frames_take_the_line_between_their_samples() {
        // Four steps a frame, a decimator 5 steps ahead: the input acts 2 frames late.
        let mut input = InputDrive::new(vec![0], 4, 5, 8);
        assert_eq!(input.delay(), 2);
        input.set_gain(2.0).unwrap();
        input.feed(0, &[1.0, 3.0, -1.0]).unwrap();
        // Step 9: frame 9/4 - 2 = 0.25, a quarter of the way from 1 to 3.
        assert_eq!(input.force(9), Some(2.0 * 1.5));
        assert_eq!(input.force(3), Some(0.0));
        // Step 7: frame -0.25, from silence a quarter of the way to 1.
        assert_eq!(input.force(7), Some(2.0 * 0.75));
        assert_eq!(input.force(14), Some(2.0 * (3.0 + 0.5 * -4.0)));
    }

    #[test]
    fn frames_skipped_are_silent_and_old_frames_forgotten() {
        let mut input = InputDrive::new(vec![0], 1, 0, 4);
        input.set_gain(1.0).unwrap();
        input.feed(0, &[5.0; 4]).unwrap();
        input.feed(6, &[7.0; 4]).unwrap();
        // Frame 5 (step 5) was skipped; frame 1 has left the ring.
        assert_eq!(input.force(5), Some(0.0));
        assert_eq!(input.force(1), Some(0.0));
        assert_eq!(input.force(7), Some(7.0));
        assert!(input.feed(10, &[0.0; 5]).is_err());
        assert!(input.set_gain(f64::NAN).is_err());
    }
}
