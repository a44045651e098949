//! The general path: any scheme on any system, stepped one step at a time through
//! [`crate::scheme`]. The scheme is rebuilt whenever the system's revision differs from the one
//! it was built for, so a change to the system can never leave a stale scheme behind. A scheme
//! refused for the system ([`SchemeKind::build`]) is kept as its refusal: the engine reports it
//! when it is made, and a step reports it after a change.

use super::Stage;
use crate::engine::change::Change;
use crate::engine::{PathKind, Pickups, RunError};
use crate::scheme::{EnergyExchange, Scheme, SchemeError, SchemeKind};
use crate::system::{State, System};

/// Any scheme on any system. A stopped mass is put back where it was stopped, with velocity 0,
/// after every step (exact for symplectic Euler, whose other masses only read its old
/// position; a projection for the others).
pub(crate) struct GeneralStage {
    kind: SchemeKind,
    dimension: usize,
    scheme: Result<Box<dyn Scheme>, SchemeError>,
    /// The system revision the scheme was built for.
    built_for: u64,
    state: State,
    dt: f64,
    pickups: Pickups,
    /// The stopped masses and where (m, the first `dimension` axes), room for every mass.
    stopped: Vec<(usize, [f64; 3])>,
    /// Scratch for the free force of a coordinate.
    force: Vec<f64>,
    /// Scratch: one pickup value per channel.
    sample: Vec<f64>,
    exchanged: Option<EnergyExchange>,
}

impl GeneralStage {
    /// Stops mass `mass` where it is (it keeps its position, with velocity 0), or frees it.
    pub(crate) fn stop(&mut self, mass: usize, stopped: bool) {
        let dim = self.dimension;
        self.stopped.retain(|(m, _)| *m != mass);
        if stopped {
            self.state.v[mass * dim..(mass + 1) * dim].fill(0.0);
            let mut position = [0.0; 3];
            position[..dim].copy_from_slice(&self.state.x[mass * dim..(mass + 1) * dim]);
            self.stopped.push((mass, position));
        }
    }

    /// `system` from `state`, stepped by `kind` at `dt` (s), read by `pickups`.
    pub(crate) fn new(system: &System, kind: SchemeKind, dt: f64, state: State, pickups: Pickups) -> Self {
        let force = vec![0.0; state.x.len()];
        let stopped = Vec::with_capacity(state.x.len() / system.dimension());
        let sample = vec![0.0; pickups.channel_count()];
        Self {
            kind,
            dimension: system.dimension(),
            scheme: kind.build(system, dt),
            built_for: system.revision(),
            state,
            dt,
            pickups,
            stopped,
            force,
            sample,
            exchanged: None,
        }
    }

    /// Why the scheme could not be built for the system, if it could not.
    pub(crate) fn refusal(&self) -> Option<&SchemeError> {
        self.scheme.as_ref().err()
    }

    /// The state now.
    pub(crate) fn current(&self) -> &State {
        &self.state
    }

    /// Takes one step: the scheme (rebuilt first if the system changed), the stops, the clock,
    /// the energy exchanged and the finiteness check. On a non-finite result the step is not
    /// counted.
    pub(crate) fn step_once(&mut self, system: &System) -> Result<(), RunError> {
        if self.built_for != system.revision() {
            // The scheme takes the new values in place where it can, else it is built again.
            if !self.scheme.as_mut().is_ok_and(|scheme| scheme.retake(system)) {
                self.scheme = self.kind.build(system, self.dt);
            }
            self.built_for = system.revision();
        }
        let (step, time) = (self.state.step, self.state.t);
        let failed = |source| RunError::Scheme { step: step + 1, time, source };
        let scheme = self.scheme.as_mut().map_err(|refusal| failed(refusal.clone()))?;
        scheme.step(system, &mut self.state).map_err(failed)?;
        let dim = system.dimension();
        for (mass, position) in &self.stopped {
            self.state.x[mass * dim..(mass + 1) * dim].copy_from_slice(&position[..dim]);
            self.state.v[mass * dim..(mass + 1) * dim].fill(0.0);
        }
        if let Some(last) = self.scheme.as_ref().ok().and_then(|scheme| scheme.last_exchange()) {
            let total = self.exchanged.get_or_insert(EnergyExchange { dissipated: 0.0, external_work: 0.0 });
            total.dissipated += last.dissipated;
            total.external_work += last.external_work;
        }
        self.state.step += 1;
        self.state.t = self.state.step as f64 * self.dt;
        if let Err(error) = super::super::check_finite(system, &self.state) {
            self.state.step -= 1;
            self.state.t = self.state.step as f64 * self.dt;
            return Err(error);
        }
        Ok(())
    }
}

impl Stage for GeneralStage {
    fn kind(&self) -> PathKind {
        PathKind::General
    }

    fn step(&self) -> u64 {
        self.state.step
    }

    fn motion(&self, coordinate: usize) -> (f64, f64) {
        (self.state.x[coordinate], self.state.v[coordinate])
    }

    /// Takes every change: a motion or a stop in its state; the scheme reads links, drags,
    /// masses, held forces and mode dampings from the system.
    fn take(&mut self, _system: &System, change: &Change) -> bool {
        match *change {
            Change::Motion { coordinate, x, v } => {
                (self.state.x[coordinate], self.state.v[coordinate]) = (x, v)
            }
            Change::Stop { mass, stopped } => self.stop(mass, stopped),
            _ => {}
        }
        true
    }

    fn free_force(&mut self, system: &System, coordinate: usize) -> f64 {
        crate::forces::total(system, &self.state.x, &self.state.v, self.state.t, &mut self.force);
        self.force[coordinate] - system.external_forces().held.get(coordinate).copied().unwrap_or(0.0)
    }

    fn advance(&mut self, system: &System, steps: usize, record: &mut [f64]) -> Result<usize, RunError> {
        for s in 0..steps {
            self.step_once(system)?;
            let state = &self.state;
            self.pickups.read(|c, q| state.read(c, q), &mut self.sample);
            for (channel, value) in self.sample.iter().enumerate() {
                record[channel * steps + s] = *value;
            }
        }
        Ok(steps)
    }

    fn state(&self, _system: &System) -> State {
        self.state.clone()
    }

    fn general(&mut self) -> Option<&mut GeneralStage> {
        Some(self)
    }

    fn exchanged(&self) -> Option<EnergyExchange> {
        self.exchanged
    }
}
