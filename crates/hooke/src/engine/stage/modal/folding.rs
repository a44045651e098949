//! The modal path's own decimation (`kernel::modal::folding`): where a run oversamples, no
//! force acts and the filter's window has passed the last change, the modal kernel steps `K`
//! steps at once and reads each output through the filter folded into its weights, the
//! decimator only counting; around a change it steps one step at a time through the decimator,
//! whose history it first rebuilds by stepping back from the state (so the engine need only ask
//! for the history before another path takes over and before the decimator flushes).

use super::ModalStage;
use crate::engine::decimate::Decimator;
use crate::engine::stage::{advance_and_filter, Stage};
use crate::engine::RunError;
use crate::system::System;

/// How the modal path makes an oversampled run's outputs itself (`kernel::modal::folding`):
/// once the filter's window has passed the last change, it steps `K` steps at once and reads
/// each output folded, the decimator only counting; after a change, until the window has
/// passed it, it steps one step at a time through the decimator.
pub(super) struct Folding {
    /// `K`, the steps per output.
    factor: usize,
    /// `N`, the filter's length in steps.
    length: usize,
    /// The step of the last change (the path's start counts as one).
    changed_at: u64,
    /// Whether the decimator's history is behind the path (outputs made here since).
    stale: bool,
    /// Whether `history` holds the decimator's history, taken at a change (the state then
    /// changed, so it can no longer be found by stepping back), for the decimator's next steps.
    held: bool,
    /// The step of the state a look ahead keeps aside ([`ModalKernel::look_ahead`]), if any.
    ahead_to: Option<u64>,
    /// That state's output (one per channel).
    ahead_frame: Vec<f64>,
    /// The channels' last `N` inputs, channel by channel (scratch for the history).
    history: Vec<f64>,
    /// One output per channel (scratch).
    frame: Vec<f64>,
}

impl Folding {
    /// The folding of the decimation by `factor` into `kernel`'s outputs, over `channels`
    /// channels, from step `step`, if the kernel can fold it.
    pub(super) fn new(
        kernel: &mut crate::kernel::modal::ModalKernel,
        factor: usize,
        channels: usize,
        step: u64,
    ) -> Option<Self> {
        let taps = Decimator::new(factor, 0).taps().to_vec();
        kernel.fold(&taps, factor).then(|| Self {
            factor,
            length: taps.len(),
            changed_at: step,
            stale: false,
            held: false,
            ahead_to: None,
            ahead_frame: vec![0.0; channels],
            history: vec![0.0; channels * taps.len()],
            frame: vec![0.0; channels],
        })
    }
}

impl ModalStage {
    /// Notes a change at the current step, before the state changes: the folded outputs wait
    /// until the filter's window has passed it, and the decimator's history, if behind, is
    /// taken now from the state as it was.
    pub(super) fn changed(&mut self) {
        let Some(folding) = &mut self.folding else { return };
        if folding.stale {
            folding.ahead_to = None;
            self.kernel.history(folding.length, &mut folding.history);
            (folding.stale, folding.held) = (false, true);
        }
        folding.changed_at = self.step;
        folding.ahead_to = None;
    }

    /// Fine steps with the outputs folded: `steps` steps, at most up to the next output, the
    /// decimator counting them, and the output made if they reach it. Returns the steps taken
    /// and whether they all were (none are on a non-finite value).
    fn fine_folded(
        &mut self,
        steps: usize,
        record: &mut [f64],
        decimator: &mut Decimator,
        output: &mut [Vec<f64>],
    ) -> (usize, bool) {
        let Some(folding) = &mut self.folding else { return (0, false) };
        if self.kernel.advance(steps, &mut record[..folding.frame.len() * steps]).is_err() {
            return (0, false);
        }
        self.step += steps as u64;
        folding.stale = true;
        if steps == decimator.due_in() {
            decimator.skip(steps - 1);
            self.kernel.read_folded(&mut folding.frame);
            decimator.push_output(|channel| folding.frame[channel], output);
        } else {
            decimator.skip(steps);
        }
        (steps, true)
    }

    /// `frames` outputs, `K` steps at a time, from a step where an output is `K` steps away.
    /// Returns the steps taken and whether every frame was made.
    fn folded_frames(
        &mut self,
        frames: usize,
        record: &mut [f64],
        decimator: &mut Decimator,
        output: &mut [Vec<f64>],
    ) -> (usize, bool) {
        let Some(folding) = &mut self.folding else { return (0, false) };
        let record = &mut record[..folding.frame.len() * frames];
        let made = self.kernel.advance_folded(frames, record).map_or_else(|made| made, |()| frames);
        for frame in 0..made {
            decimator.push_output(|channel| record[channel * frames + frame], output);
        }
        self.step += (made * folding.factor) as u64;
        folding.stale = true;
        (made * folding.factor, made == frames)
    }

    /// `steps < K` steps from a step where an output is `K` steps away, the `K` steps taken at
    /// once and kept aside ([`ModalKernel::look_ahead`]) so that a run stopped here goes on as
    /// one that never stopped.
    fn look_ahead(&mut self, steps: usize, record: &mut [f64], decimator: &mut Decimator) -> (usize, bool) {
        let Some(folding) = &mut self.folding else { return (0, false) };
        let record = &mut record[..folding.frame.len() * steps];
        if self.kernel.look_ahead(steps, &mut folding.ahead_frame, record).is_err() {
            return (0, false);
        }
        decimator.skip(steps);
        folding.ahead_to = Some(self.step + folding.factor as u64);
        folding.stale = true;
        self.step += steps as u64;
        (steps, true)
    }

    /// Up to `steps` steps towards the state a look ahead kept for step `target`: there, the
    /// kept state and its output; short of it, fine steps.
    fn go_ahead(
        &mut self,
        target: u64,
        steps: usize,
        record: &mut [f64],
        decimator: &mut Decimator,
        output: &mut [Vec<f64>],
    ) -> (usize, bool) {
        let gap = (target - self.step) as usize;
        if steps < gap {
            return self.fine_folded(steps, record, decimator, output);
        }
        let Some(folding) = &mut self.folding else { return (0, false) };
        self.kernel.catch_up();
        decimator.skip(gap - 1);
        decimator.push_output(|channel| folding.ahead_frame[channel], output);
        folding.ahead_to = None;
        self.step = target;
        (gap, true)
    }

    /// [`Stage::advance_decimated`] on the modal path: folded where the run oversamples, no
    /// force acts and the filter's window has passed the last change; otherwise step by step
    /// through the decimator.
    pub(super) fn advance_folding(
        &mut self,
        system: &System,
        steps: usize,
        record: &mut [f64],
        decimator: &mut Decimator,
        output: &mut [Vec<f64>],
    ) -> Result<usize, RunError> {
        let mut done = 0;
        while done < steps {
            let remaining = steps - done;
            let folding =
                self.folding.as_ref().filter(|f| f.factor == decimator.factor() && !self.kernel.forced());
            let Some(folding) = folding else {
                self.restore_history(decimator);
                return Ok(done + advance_and_filter(self, system, remaining, record, decimator, output)?);
            };
            // The filter's window must have passed the last change and hold only inputs made
            // since the decimator started.
            let unsettled =
                (folding.changed_at + folding.length as u64 - 1).saturating_sub(self.step) as usize;
            let unsettled = unsettled.max(decimator.unfilled());
            let (factor, due) = (folding.factor, decimator.due_in());
            let (made, whole) = if unsettled > 0 {
                // Fine steps go through the decimator, whose history must be this path's.
                self.restore_history(decimator);
                let fine = remaining.min(unsettled);
                let made = advance_and_filter(self, system, fine, record, decimator, output)?;
                (made, made == fine)
            } else if let Some(target) = folding.ahead_to {
                self.go_ahead(target, remaining, record, decimator, output)
            } else if due == factor && remaining >= factor {
                self.folded_frames(remaining / factor, record, decimator, output)
            } else if due == factor {
                self.look_ahead(remaining, record, decimator)
            } else {
                self.fine_folded(due.min(remaining), record, decimator, output)
            };
            done += made;
            if !whole {
                // A non-finite value: the steps before it are kept, the decimator's history
                // brought up to them, and the engine goes on on the general path.
                self.restore_history(decimator);
                return Ok(done);
            }
        }
        Ok(done)
    }

    /// [`Stage::restore_history`] on the modal path: the decimator's history as taken at the
    /// last change, or rebuilt from the state by stepping back, a look ahead forgotten (the path
    /// goes on from the state it shows).
    pub(super) fn restore_folded_history(&mut self, decimator: &mut Decimator) {
        let Some(folding) = self.folding.as_mut().filter(|folding| folding.stale || folding.held) else {
            return;
        };
        let length = folding.length;
        if folding.stale {
            folding.ahead_to = None;
            self.kernel.history(length, &mut folding.history);
        }
        decimator.restore_history(|channel, age| folding.history[channel * length + age]);
        (folding.stale, folding.held) = (false, false);
    }
}
