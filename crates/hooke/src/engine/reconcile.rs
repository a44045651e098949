//! The reconcile step: once per block boundary, THE place where the engine decides which path
//! runs the system as changed. The changes recorded since the last boundary
//! (`engine::change`) are offered to the path running, which takes them in place where it can
//! ([`Stage::take`]); then, walking the candidate paths in order (`engine::paths::PATHS`), the
//! first that admits the situation (observers, stops, forces) runs the system:
//!
//! - the path running, if it is that candidate and took every change;
//! - a kept path of that candidate, which takes over in place, allocating nothing
//!   ([`Stage::take_over`]): the paths a performance moves between are kept once built, and
//!   prepared before play ([`Engine::reserve_for_play`]), so that live play builds nothing;
//! - a new path of that candidate, where the candidate is eager (the device).
//!
//! While a force acts, a candidate that yields then (the modal kernel) is passed over, so that a
//! kept string bank takes over. Where none of these runs the system, the path running runs on
//! if it took every change (the modal kernel while a force acts, with no string bank kept),
//! unless observers need every state; otherwise the first candidate that fits is built from the
//! state.
//!
//! So a live performance on the modal kernel moves to the kept string bank at a fret (a stopped
//! mass) or while an excitation plays (the bank steps one step at a time several times faster),
//! and back once neither holds and the strings are as the modal kernel has them.

use super::change::overlay;
use super::paths::{candidate, Candidate, Situation, PATHS};
use super::stage::Stage;
use super::Engine;
use crate::system::State;

impl Engine {
    /// The situation now, with observers watching or not.
    fn situation(&self, observed: bool) -> Situation {
        Situation {
            observed,
            stopped: !self.stopped.is_empty(),
            forced: !self.playing.is_empty() || !self.held.is_empty(),
        }
    }

    /// THE reconcile step (module documentation): the recorded changes taken by the path
    /// running, or the path the situation and the changes call for taking over.
    pub(super) fn reconcile(&mut self, observed: bool) {
        let situation = self.situation(observed);
        let admitted = (candidate(self.stage.kind()).admits)(&self.paths, situation);
        if self.changes.is_empty() && admitted {
            return;
        }
        let taken = self.changes.iter().all(|change| self.stage.take(&self.system, change));
        // A path that took every change runs on where no kept or eager path takes over, even
        // where it is not the one the situation prefers (the modal kernel while a force acts),
        // unless observers need every state.
        if !self.keep_or_take_over(situation, taken) && (!taken || !admitted && observed) {
            // The first candidate that fits is built.
            let built = self.paths.first_fit(&self.system, &self.handed_state(), &self.stopped, situation);
            self.switch(built);
        }
        self.changes.clear();
    }

    /// Walks the candidates that admit `situation`, in order (those that yield while a force
    /// acts left out then), until the path running (if it `taken` the changes), a kept path
    /// that takes over, or an eager candidate built anew runs the system; returns whether one
    /// did.
    fn keep_or_take_over(&mut self, situation: Situation, taken: bool) -> bool {
        let admitted = |candidate: &&Candidate| (candidate.admits)(&self.paths, situation);
        let preferred = |candidate: &&Candidate| !(candidate.yields_while_forced && situation.forced);
        for candidate in PATHS.iter().filter(admitted).filter(preferred) {
            if candidate.runs(self.stage.kind()) && taken {
                return true;
            }
            if let Some(at) = self.kept.iter().position(|kept| candidate.runs(kept.kind())) {
                let mut kept = self.kept.swap_remove(at);
                if self.take_over(&mut *kept) {
                    self.switch(kept);
                    return true;
                }
                self.kept.push(kept);
            }
            if candidate.eager {
                let state = self.handed_state();
                if let Some(built) = (candidate.build)(&self.paths, &self.system, &state, &self.stopped) {
                    self.switch(built);
                    return true;
                }
            }
        }
        false
    }

    /// The state of the path running with the recorded changes laid over it, for a path built
    /// from it.
    fn handed_state(&self) -> State {
        let mut state = self.stage.state(&self.system);
        overlay(&self.changes, self.system.dimension(), &mut state);
        state
    }

    /// `next` takes over from the path running, in place: the running path's step and motions
    /// with the recorded changes laid over them, the system's links, drags and forces, and the
    /// stops. Returns whether it can run the system so.
    fn take_over(&self, next: &mut dyn Stage) -> bool {
        next.take_over(&self.system, self.stage.step(), &|coordinate| self.motion(coordinate), &self.stopped)
    }

    /// Runs on `next` from now; the path replaced is kept if its candidate says so.
    pub(super) fn switch(&mut self, next: Box<dyn Stage>) {
        self.stage.restore_history(&mut self.decimator);
        let replaced = std::mem::replace(&mut self.stage, next);
        if candidate(replaced.kind()).kept {
            self.kept.retain(|kept| kept.kind() != replaced.kind());
            self.kept.push(replaced);
        }
    }

    /// Builds and keeps the paths that a performance may move to from the path running (those
    /// kept once built that admit stops and forces: the string bank beside the modal kernel),
    /// so that play builds nothing ([`Engine::reserve_for_play`]).
    pub(super) fn prepare_kept_paths(&mut self) {
        let playing = Situation { observed: false, stopped: true, forced: true };
        let state = self.stage.state(&self.system);
        for candidate in PATHS.iter().filter(|c| c.kept && (c.admits)(&self.paths, playing)) {
            let present =
                candidate.runs(self.stage.kind()) || self.kept.iter().any(|k| candidate.runs(k.kind()));
            if !present {
                if let Some(built) = (candidate.build)(&self.paths, &self.system, &state, &self.stopped) {
                    self.kept.push(built);
                }
            }
        }
    }
}
