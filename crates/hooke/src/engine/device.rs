//! Devices beside the CPU: a backend that steps some systems itself (the GPU, crate
//! `hooke-gpu`), plugged into the engine's one choice of path ([`super::Engine::with_device`]).
//!
//! The library knows nothing of any GPU API: a device is whatever implements [`Device`]. The
//! engine offers it every system it is about to run, with the scheme, the step, the state and
//! the pickups' terms; a device that can run it returns a [`DevicePath`], one that cannot says
//! why, and the engine takes its own paths instead (except when the engine is built, where a
//! refusal is an error: a device asked for and never used would be a silent surprise).
//! A device path takes no change in place: after an event (a pluck, a tension change) the
//! engine reads the state back and offers the changed system again, so excitations and
//! parameter changes land between blocks.
//!
//! ```
//! use hooke::engine::{Device, DevicePath, DeviceRequest, Engine, EngineConfig, PickupSpec};
//! use hooke::model::{Model, StringSpec};
//!
//! /// A device that runs nothing, and says so.
//! struct Nothing;
//! impl Device for Nothing {
//!     fn name(&self) -> String {
//!         "nothing".into()
//!     }
//!     fn path(&self, _request: &DeviceRequest<'_>) -> Result<Box<dyn DevicePath>, String> {
//!         Err("it runs no system".into())
//!     }
//! }
//!
//! let mut model = Model::new(1)?;
//! let masses = model.add_string(StringSpec::new("s", 10).mass(1e-3).stiffness(2e5))?;
//! let pickups = [PickupSpec::position(masses[3])];
//! let refused = Engine::with_device(&model, &pickups, EngineConfig::default(), std::sync::Arc::new(Nothing));
//! assert!(refused.err().unwrap().to_string().contains("it runs no system"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::config::Precision;
use crate::kernel::chain::Tap;
use crate::scheme::SchemeKind;
use crate::system::{State, System};

/// A device that can step some systems (a GPU).
pub trait Device: Send + Sync {
    /// What the device is, for reports (e.g. "NVIDIA H100 80GB HBM3 (discrete GPU; Vulkan)").
    fn name(&self) -> String;

    /// A path stepping `request.system` from `request.state`, or a sentence saying why this
    /// device cannot run it (the scheme, the structure, a size limit).
    fn path(&self, request: &DeviceRequest<'_>) -> Result<Box<dyn DevicePath>, String>;
}

/// What the engine asks a device to run.
#[derive(Debug, Clone, Copy)]
pub struct DeviceRequest<'a> {
    /// The system, with every change made so far.
    pub system: &'a System,
    /// The scheme.
    pub scheme: SchemeKind,
    /// The simulation step, s.
    pub dt: f64,
    /// The state to start from (every node; masses first).
    pub state: &'a State,
    /// Every pickup term: `mass` is the moving state coordinate, `weight` its factor.
    pub taps: &'a [Tap],
    /// The precision asked for (the device may have only f32, and then says so in its name).
    pub precision: Precision,
}

/// A system being stepped on a device.
pub trait DevicePath: Send {
    /// Advances up to `steps` steps, writing tap `j`'s weighted value after step `s` to
    /// `record[j * steps + s]` (`record` holds `taps x steps` values, whatever they were
    /// before). Returns the steps done: fewer than `steps` when a value became non-finite,
    /// with the state kept after the steps done (the engine's general path then goes on from
    /// there and names the step and mass). The error is a device failure (a lost device, a
    /// failed transfer), in words.
    fn advance(&mut self, steps: usize, record: &mut [f64]) -> Result<usize, String>;

    /// Writes the moving coordinates' positions (m) and velocities (m/s) into `state` (the
    /// first entries, as [`System::initial_state`] lays them out; the anchors are left alone).
    fn read_state(&self, state: &mut State) -> Result<(), String>;
}
