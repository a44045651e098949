//! A device's path ([`crate::engine::Device`]) as a stage: the pickups' terms summed into
//! channels, and the state read back after every call, so that the engine can read a mass's
//! motion or rebuild the path without asking the device again.

use super::{Stage, TapChannels};
use crate::engine::{DevicePath, DeviceRequest, PathKind, Pickups, Precision, RunError};
use crate::scheme::SchemeKind;
use crate::system::{State, System};

/// A device's path, its pickup terms and the state after its last call.
pub(crate) struct DeviceStage {
    path: Box<dyn DevicePath>,
    taps: TapChannels,
    /// The state after the last call (read back from the device).
    state: State,
    dt: f64,
}

impl DeviceStage {
    /// The device's path for `system` from `state` in `precision`, or the device's reason for
    /// refusing it.
    pub(crate) fn new(
        device: &dyn crate::engine::Device,
        system: &System,
        scheme: SchemeKind,
        dt: f64,
        precision: Precision,
        state: State,
        pickups: &Pickups,
    ) -> Result<Self, String> {
        let taps = TapChannels::new(pickups);
        let request = DeviceRequest { system, scheme, dt, state: &state, taps: taps.taps(), precision };
        let path = device.path(&request)?;
        Ok(Self { path, taps, state, dt })
    }
}

impl Stage for DeviceStage {
    fn kind(&self) -> PathKind {
        PathKind::Device
    }

    fn step(&self) -> u64 {
        self.state.step
    }

    fn motion(&self, coordinate: usize) -> (f64, f64) {
        (self.state.x[coordinate], self.state.v[coordinate])
    }

    fn advance(&mut self, _system: &System, steps: usize, record: &mut [f64]) -> Result<usize, RunError> {
        let step = self.state.step;
        let failed = |message| RunError::Device { step, message };
        let (_, rows) = self.taps.rows(steps);
        let done = self.path.advance(steps, rows).map_err(failed)?.min(steps);
        self.taps.mix(steps, done, record);
        self.path.read_state(&mut self.state).map_err(failed)?;
        self.state.step += done as u64;
        self.state.t = self.state.step as f64 * self.dt;
        Ok(done)
    }

    fn state(&self, _system: &System) -> State {
        self.state.clone()
    }
}
