//! The standby path: a second path built before play, which takes over from the running one in
//! place when that one cannot take a change, so that playing builds (allocates) nothing. A live
//! performance on the modal kernel keeps the string bank ready: a fret (a stopped mass and a
//! tuned link) moves the strings to the bank, which takes every later change in place, and so
//! does an excitation (a pluck's force pulse, a hammer, a bow), which the engine steps one step at
//! a time, something the bank does several times faster; once no excitation plays, no mass is
//! stopped and the strings are again as the modal kernel has them (the last fret lifted, a
//! tension set back), they move back to it, where a sounding string costs least.

use super::{Engine, PathKind};

impl Engine {
    /// Builds the standby path for the path running now, if it has one: the string bank
    /// beside the modal kernel running symplectic Euler on strings. Called before play
    /// ([`Engine::reserve_for_play`]).
    pub(super) fn prepare_standby(&mut self) {
        if self.standby.is_some() || self.stage.kind() != PathKind::Modal {
            return;
        }
        if self.paths.config.scheme == crate::scheme::SchemeKind::SymplecticEuler {
            self.standby = self.paths.string_bank(&self.system, &self.stage.state(&self.system));
        }
    }

    /// Takes a change the path running refused: on the standby path if it can run the system
    /// as changed, otherwise on a path built anew.
    pub(super) fn take_refused_change(&mut self) {
        if !self.switch_to_standby() {
            self.rebuild(|_| ());
        }
    }

    /// Back on the standby path where it is the modal kernel, no excitation plays, no mass is
    /// stopped and the strings are again as it has them: after a stop is lifted, a link changed
    /// in place or the last excitation ended.
    pub(super) fn prefer_modal_standby(&mut self) {
        let modal = self.standby.as_ref().is_some_and(|s| s.kind() == PathKind::Modal);
        if modal && self.playing.is_empty() && self.held.is_empty() && self.paths.stopped.is_empty() {
            self.switch_to_standby();
        }
    }

    /// On the standby path where it is the string bank, when an excitation starts: the bank
    /// steps one step at a time (as the engine does while an excitation plays) several times
    /// faster than the modal kernel, and gives a mass's force in constant time.
    pub(super) fn prefer_bank_standby(&mut self) {
        if self.standby.as_ref().is_some_and(|s| s.kind() == PathKind::Strings) {
            self.switch_to_standby();
        }
    }

    /// Swaps the running path and the standby one, if the standby takes over (see
    /// [`super::stage::Stage::take_over`]); returns whether it did.
    fn switch_to_standby(&mut self) -> bool {
        let Some(mut standby) = self.standby.take() else { return false };
        self.settle();
        if !standby.take_over(&self.system, &*self.stage, &self.paths.stopped) {
            self.standby = Some(standby);
            return false;
        }
        self.standby = Some(std::mem::replace(&mut self.stage, standby));
        true
    }
}
