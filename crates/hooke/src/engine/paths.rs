//! Where the engine chooses the path that runs a system: [`Paths::select`], THE place where the
//! fast path is chosen, and the paths it builds (the string bank, a device's path).

use super::stage::{
    self, DeviceStage, GeneralStage, KernelStage, Lattices, ModalStage, PartsStage, Stage, StringStage,
};
use super::{Device, EngineConfig, Pickups, Precision};
use crate::scheme::SchemeKind;
use crate::system::{State, System};
use std::sync::Arc;

/// What the choice of a path depends on besides the system: the config, the kernels'
/// permission, the device, the pickups, the thread pool and the stopped masses.
pub(super) struct Paths {
    pub(super) config: EngineConfig,
    /// The simulation step, s.
    pub(super) dt: f64,
    /// Whether the kernels (and the device) may run: false when the config says so, when
    /// observers need the state of every step, or after a kernel met a non-finite value.
    pub(super) kernels: bool,
    /// The device offered each system first, if the engine was given one.
    pub(super) device: Option<Arc<dyn Device>>,
    pub(super) pickups: Pickups,
    pub(super) pool: Option<Arc<rayon::ThreadPool>>,
    /// The stopped masses.
    pub(super) stopped: Vec<usize>,
    /// Whether an event has been applied.
    pub(super) played: bool,
}

impl Paths {
    /// The path for `system` from `state`: THE place where the fast path is chosen. The
    /// device, if any, is offered the system first (with no stopped mass). Uniform strings or a
    /// uniform membrane with no stopped mass run mode by mode on the modal kernel with every
    /// scheme (symplectic Euler there only in f64). Otherwise, with symplectic Euler, a uniform
    /// chain with no stopped mass and no held force gets its stencil (f32), a uniform membrane
    /// its stencil, a system of independent strings the string bank (first, once the engine has
    /// been played), a linear network that splits into parts (strings on a body, bars, plates)
    /// the coupled modal kernel; anything else the general path.
    pub(super) fn select(&self, system: &System, state: State) -> Box<dyn Stage> {
        if let Ok(stage) = self.on_device(system, &state) {
            return Box::new(stage);
        }
        let (dt, scheme) = (self.dt, self.config.scheme);
        let symplectic = scheme == SchemeKind::SymplecticEuler;
        let modal = self.config.modal && (!symplectic || self.config.precision == Precision::F64);
        if self.kernels && modal && self.stopped.is_empty() {
            if let Some(modal) = Lattices::detect(system).and_then(|lattices| {
                ModalStage::new(lattices, system, scheme, dt, &state, &self.pickups, self.config.oversample)
            }) {
                return Box::new(modal);
            }
        }
        if self.kernels && symplectic {
            let stencil = || {
                if !self.stopped.is_empty() {
                    return None;
                }
                let (pool, precision) = (self.pool.clone(), self.config.precision);
                let kernel = KernelStage::detect(system, dt, &state, &self.pickups, precision, pool)?;
                Some(Box::new(kernel) as Box<dyn Stage>)
            };
            let bank = || self.string_bank(system, &state);
            // Once played, the bank, which takes every change in place, before a stencil that
            // would be rebuilt after each.
            let chosen = if self.played { bank().or_else(stencil) } else { stencil().or_else(bank) };
            if let Some(stage) = chosen {
                return stage;
            }
            if self.config.modal {
                if let Some(parts) = PartsStage::new(system, dt, &state, &self.pickups, &self.stopped) {
                    return Box::new(parts);
                }
            }
        }
        let mut general = GeneralStage::new(system, scheme, dt, state, self.pickups.clone());
        for &mass in &self.stopped {
            general.set_stopped(mass, true);
        }
        Box::new(general)
    }

    /// The string bank for `system` from `state`, the stopped masses stopped, if the system is
    /// made of strings (symplectic Euler).
    pub(super) fn string_bank(&self, system: &System, state: &State) -> Option<Box<dyn Stage>> {
        let strings = stage::string_paths(system)?;
        // One thread: eight strings to a group (an AVX-512 register); several: four
        // (AVX2), so a guitar's six strings make one group per thread.
        let (pool, dt, pickups) = (self.pool.clone(), self.dt, &self.pickups);
        let mut bank: Box<dyn Stage> = if pool.is_some() {
            Box::new(StringStage::<4>::new(system, &strings, dt, state, pickups, pool)?)
        } else {
            Box::new(StringStage::<8>::new(system, &strings, dt, state, pickups, None)?)
        };
        for &mass in &self.stopped {
            bank.set_stopped(mass, true);
        }
        Some(bank)
    }

    /// The device's path for `system` from `state`, or why there is none (no device, the
    /// kernels are off, a mass is stopped, or the device's own reason).
    pub(super) fn on_device(&self, system: &System, state: &State) -> Result<DeviceStage, String> {
        let Some(device) = self.device.as_deref() else { return Err("no device".into()) };
        if !self.kernels {
            return Err("the fast paths are off (observers watch every step, or the config says so)".into());
        }
        if !self.stopped.is_empty() {
            return Err("a mass is stopped".into());
        }
        let (scheme, precision) = (self.config.scheme, self.config.precision);
        DeviceStage::new(device, system, scheme, self.dt, precision, state.clone(), &self.pickups)
    }
}
