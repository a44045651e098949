//! The candidate paths, as data: [`PATHS`], in the order the engine prefers them, each saying
//! when it may run a system (the scheme, the precision, the situation: observers, stops, forces)
//! and how it is built (the structure it needs, found by the analysis layer or its kernel's
//! detector). The engine takes the first that fits when it builds and when the path running
//! cannot take a change (`engine::reconcile`); a new path is one more entry here and one stage.

use super::stage::{DeviceStage, GeneralStage, KernelStage, ModalStage, PartsStage, Stage, StringStage};
use super::{Device, EngineConfig, PathKind, Pickups, Precision};
use crate::analysis::structure::{string_paths, Lattices};
use crate::scheme::SchemeKind;
use crate::system::{State, System};
use std::sync::Arc;

/// What every path is built with besides the system: the config, the step, the device, the
/// pickups and the thread pool.
pub(super) struct Paths {
    pub(super) config: EngineConfig,
    /// The simulation step, s.
    pub(super) dt: f64,
    /// The device, if the engine was given one.
    pub(super) device: Option<Arc<dyn Device>>,
    pub(super) pickups: Pickups,
    pub(super) pool: Option<Arc<rayon::ThreadPool>>,
}

/// What, besides the system and the config, decides which paths may run it now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Situation {
    /// Observers watch every step (only the general path shows every state).
    pub(super) observed: bool,
    /// A mass is stopped.
    pub(super) stopped: bool,
    /// A force is held or an excitation plays (the engine steps one step at a time).
    pub(super) forced: bool,
}

/// How a candidate is built: the path for a system from a state, the masses given stopped, if
/// the system has the structure it needs.
pub(super) type Build = fn(&Paths, &System, &State, &[usize]) -> Option<Box<dyn Stage>>;

/// One candidate path.
pub(super) struct Candidate {
    /// The paths it builds (the stencils: a chain's or a membrane's).
    pub(super) kinds: &'static [PathKind],
    /// Whether it may run a system in a situation, before its structure is looked at.
    pub(super) admits: fn(&Paths, Situation) -> bool,
    /// The path for `system` from `state`, the masses `stopped` stopped, if the system has the
    /// structure it needs.
    pub(super) build: Build,
    /// Whether the engine builds it as soon as it may run the system (the device: it is worth
    /// the build), not only when the path running cannot take a change.
    pub(super) eager: bool,
    /// Whether the engine keeps it, once built and replaced, to take over again in place
    /// ([`Stage::take_over`]): the paths a performance moves between.
    pub(super) kept: bool,
    /// Whether, while a force acts (the engine then steps one step at a time), a kept path
    /// further down the list takes over from it: the modal kernel yields to a kept string bank,
    /// whose single steps are several times cheaper.
    pub(super) yields_while_forced: bool,
}

impl Candidate {
    /// Whether `kind` is one of its paths.
    pub(super) fn runs(&self, kind: PathKind) -> bool {
        self.kinds.contains(&kind)
    }
}

/// The candidate paths, the engine's preference first: the device; uniform strings or a uniform
/// membrane mode by mode on the modal kernel (every scheme; symplectic Euler in f64; yielding to
/// a kept string bank while a force acts); a uniform chain's or membrane's
/// stencil (symplectic Euler, nothing stopped or forced); independent strings on the string bank;
/// a linear network split into parts on the coupled modal kernel (both symplectic Euler); the
/// general path, any scheme on any system.
pub(super) const PATHS: [Candidate; 6] = [
    Candidate {
        kinds: &[PathKind::Device],
        admits: |paths, s| paths.device.is_some() && paths.fast(s) && !s.stopped && !s.forced,
        build: |paths, system, state, _| paths.on_device(system, state).ok().map(|d| Box::new(d) as _),
        eager: true,
        kept: false,
        yields_while_forced: false,
    },
    Candidate {
        kinds: &[PathKind::Modal],
        admits: |paths, s| {
            let symplectic = paths.config.scheme == SchemeKind::SymplecticEuler;
            let precise = !symplectic || paths.config.precision == Precision::F64;
            paths.fast(s) && paths.config.modal && precise && !s.stopped
        },
        build: |paths, system, state, _| {
            let (scheme, dt, oversample) = (paths.config.scheme, paths.dt, paths.config.oversample);
            let lattices = Lattices::detect(system)?;
            let modal = ModalStage::new(lattices, system, scheme, dt, state, &paths.pickups, oversample)?;
            Some(Box::new(modal))
        },
        eager: false,
        kept: true,
        yields_while_forced: true,
    },
    Candidate {
        kinds: &[PathKind::Chain, PathKind::Membrane],
        admits: |paths, s| paths.symplectic_fast(s) && !s.stopped && !s.forced,
        build: |paths, system, state, _| {
            let (pool, precision) = (paths.pool.clone(), paths.config.precision);
            let kernel = KernelStage::detect(system, paths.dt, state, &paths.pickups, precision, pool)?;
            Some(Box::new(kernel))
        },
        eager: false,
        kept: false,
        yields_while_forced: false,
    },
    Candidate {
        kinds: &[PathKind::Strings],
        admits: |paths, s| paths.symplectic_fast(s),
        build: |paths, system, state, stopped| paths.string_bank(system, state, stopped),
        eager: false,
        kept: true,
        yields_while_forced: false,
    },
    Candidate {
        kinds: &[PathKind::Parts],
        admits: |paths, s| paths.symplectic_fast(s) && paths.config.modal,
        build: |paths, system, state, stopped| {
            let parts = PartsStage::new(system, paths.dt, state, &paths.pickups, stopped)?;
            Some(Box::new(parts))
        },
        eager: false,
        kept: false,
        yields_while_forced: false,
    },
    Candidate {
        kinds: &[PathKind::General],
        admits: |_, _| true,
        build: |paths, system, state, stopped| {
            let (scheme, pickups) = (paths.config.scheme, paths.pickups.clone());
            let mut general = GeneralStage::new(system, scheme, paths.dt, state.clone(), pickups);
            for &mass in stopped {
                general.stop(mass, true);
            }
            Some(Box::new(general))
        },
        eager: false,
        kept: false,
        yields_while_forced: false,
    },
];

/// The candidate that runs paths of `kind`.
pub(super) fn candidate(kind: PathKind) -> &'static Candidate {
    PATHS.iter().find(|candidate| candidate.runs(kind)).expect("every path is a candidate's")
}

impl Paths {
    /// The first candidate that admits `situation` and builds for `system` from `state`, the
    /// masses `stopped` stopped (the general path at worst).
    pub(super) fn first_fit(
        &self,
        system: &System,
        state: &State,
        stopped: &[usize],
        situation: Situation,
    ) -> Box<dyn Stage> {
        PATHS
            .iter()
            .filter(|candidate| (candidate.admits)(self, situation))
            .find_map(|candidate| (candidate.build)(self, system, state, stopped))
            .expect("the general path runs every system")
    }

    /// Whether a fast path may run in `situation`: the config allows them and no observer
    /// watches.
    fn fast(&self, situation: Situation) -> bool {
        self.config.kernels && !situation.observed
    }

    /// [`Paths::fast`], with symplectic Euler (the stencils', the bank's and the coupled path's
    /// one scheme).
    fn symplectic_fast(&self, situation: Situation) -> bool {
        self.fast(situation) && self.config.scheme == SchemeKind::SymplecticEuler
    }

    /// The string bank for `system` from `state`, the masses `stopped` stopped, if the system is
    /// made of strings (symplectic Euler).
    fn string_bank(&self, system: &System, state: &State, stopped: &[usize]) -> Option<Box<dyn Stage>> {
        let strings = string_paths(system)?;
        // One thread: eight strings to a group (an AVX-512 register); several: four
        // (AVX2), so a guitar's six strings make one group per thread.
        let (pool, dt, pickups) = (self.pool.clone(), self.dt, &self.pickups);
        let mut bank: Box<dyn Stage> = if pool.is_some() {
            Box::new(StringStage::<4>::new(system, &strings, dt, state, pickups, pool)?)
        } else {
            Box::new(StringStage::<8>::new(system, &strings, dt, state, pickups, None)?)
        };
        for &mass in stopped {
            bank.take(system, &super::change::Change::Stop { mass, stopped: true });
        }
        Some(bank)
    }

    /// The device's path for `system` from `state`, or why there is none (no device, or the
    /// device's own reason).
    pub(super) fn on_device(&self, system: &System, state: &State) -> Result<DeviceStage, String> {
        let Some(device) = self.device.as_deref() else { return Err("no device".into()) };
        let (scheme, precision) = (self.config.scheme, self.config.precision);
        DeviceStage::new(device, system, scheme, self.dt, precision, state.clone(), &self.pickups)
    }
}
