//! The standby path: a second path built before play, which takes over from the running one in
//! place when that one cannot take a change, so that playing builds (allocates) nothing. A live
//! performance on the modal kernel keeps the string bank ready: a fret (a stopped mass and a
//! tuned link) moves the strings to the bank, which takes every later change in place; once no
//! mass is stopped and the strings are again as the modal kernel has them (the last fret lifted,
//! a tension set back), they move back to it.

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

    /// After a stop is lifted or a link changed in place: back on the standby path where it is
    /// the modal kernel, no mass is stopped and the strings are again as it has them.
    pub(super) fn prefer_modal_standby(&mut self) {
        if self.paths.stopped.is_empty() && self.standby.as_ref().is_some_and(|s| s.kind() == PathKind::Modal)
        {
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
