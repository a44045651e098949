//! Stages: what the engine steps. A stage holds the moving state of a system on one path (the
//! general path with any scheme, or a kernel) and takes the changes a performance makes between
//! steps where its path can ([`Stage::take`]: a motion, a stop, a link, a drag, a mass, a held
//! force, a mode damping; each held through the next steps).
//!
//! A stage that cannot take a change answers `false`, and the engine's reconcile step hands the
//! state to another path (`engine::reconcile`): a kept one that takes over in place
//! ([`Stage::take_over`]), or one built from the state; the [`System`] the engine owns always
//! holds every change, so nothing goes stale.

mod device;
mod general;
mod kernels;
mod modal;
mod parts;
mod strings;
mod taps;

pub(crate) use device::DeviceStage;
pub(crate) use general::GeneralStage;
pub(crate) use kernels::KernelStage;
pub(crate) use modal::ModalStage;
pub(crate) use parts::PartsStage;
pub(crate) use strings::StringStage;
use taps::TapChannels;

use super::change::Change;
use super::decimate::Decimator;
use super::{PathKind, RunError};
use crate::scheme::EnergyExchange;
use crate::system::{State, System};

/// Each moving coordinate's position (m) and velocity (m/s), by coordinate.
pub(crate) type Motions<'a> = &'a dyn Fn(usize) -> (f64, f64);

/// A system being stepped on one path.
pub(crate) trait Stage: Send {
    /// Which path this is.
    fn kind(&self) -> PathKind;
    /// The steps taken.
    fn step(&self) -> u64;
    /// Position (m) and velocity (m/s) of a moving state coordinate.
    fn motion(&self, coordinate: usize) -> (f64, f64);
    /// Takes `change`, already made in `system`, in place; returns whether it could (a path
    /// that holds no force can take only a zero force).
    fn take(&mut self, _system: &System, change: &Change) -> bool {
        matches!(change, Change::Force { force, .. } if *force == 0.0)
    }
    /// The force (N) on a moving state coordinate now from everything but the held forces
    /// (by default from [`Stage::state`], every force computed).
    fn free_force(&mut self, system: &System, coordinate: usize) -> f64 {
        let state = self.state(system);
        let mut force = vec![0.0; state.x.len()];
        crate::forces::total(system, &state.x, &state.v, state.t, &mut force);
        force[coordinate]
    }
    /// Advances up to `steps` steps, writing each channel's value after step `s` to
    /// `record[channel * steps + s]` (`record` holds `channels x steps` values, whatever they
    /// were before); returns the steps done. A kernel that finds a non-finite
    /// value at the end of a block returns the steps before that block (fewer than `steps`),
    /// for the general path to locate the failure; the other paths return the error, with
    /// [`Stage::step`] counting the steps recorded.
    fn advance(&mut self, system: &System, steps: usize, record: &mut [f64]) -> Result<usize, RunError>;
    /// [`Stage::advance`], the channels then decimated by `decimator` into `output` (one
    /// vector per channel; `record` holds `channels x steps` values). A path may make the
    /// decimated outputs itself where it can (the modal path folds the filter into its own
    /// outputs), leaving the decimator's history behind until [`Stage::restore_history`].
    fn advance_decimated(
        &mut self,
        system: &System,
        steps: usize,
        record: &mut [f64],
        decimator: &mut Decimator,
        output: &mut [Vec<f64>],
    ) -> Result<usize, RunError> {
        advance_and_filter(self, system, steps, record, decimator, output)
    }
    /// Makes `decimator`'s history hold this path's last inputs, where
    /// [`Stage::advance_decimated`] left it behind: before another path takes over and before
    /// the decimator flushes.
    fn restore_history(&mut self, _decimator: &mut Decimator) {}
    /// Takes over in place, allocating nothing, at step `step`, each moving coordinate's
    /// position (m) and velocity (m/s) given by `motion`, every link, drag and held force as in
    /// `system`, the masses `stopped` stopped. Returns whether this path can run the system so
    /// (a path the engine keeps, `engine::reconcile`); by default it cannot.
    fn take_over(&mut self, _system: &System, _step: u64, _motion: Motions, _stopped: &[usize]) -> bool {
        false
    }
    /// Prepares for `variants` (the system with some stops and links changed, and the masses
    /// then stopped) to be taken in place during play ([`super::Engine::prepare`]); by default
    /// there is nothing to prepare.
    fn prepare(&mut self, _system: &System, _variants: &mut dyn Iterator<Item = (System, Vec<usize>)>) {}
    /// The state now (every node; anchors as in the system).
    fn state(&self, system: &System) -> State;
    /// The general path, to step with observers (`None` on a kernel).
    fn general(&mut self) -> Option<&mut GeneralStage> {
        None
    }
    /// The energy exchanged since the start, for schemes with an exact balance.
    fn exchanged(&self) -> Option<EnergyExchange> {
        None
    }
}

/// [`Stage::advance`] on `stage`, then every step's channels through `decimator` into `output`
/// (the default [`Stage::advance_decimated`]).
fn advance_and_filter<S: Stage + ?Sized>(
    stage: &mut S,
    system: &System,
    steps: usize,
    record: &mut [f64],
    decimator: &mut Decimator,
    output: &mut [Vec<f64>],
) -> Result<usize, RunError> {
    let start = stage.step();
    let result = stage.advance(system, steps, record);
    let done = (stage.step() - start) as usize;
    decimator.process(record, steps, done, output);
    result
}
