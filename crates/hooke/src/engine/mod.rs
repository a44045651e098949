//! The run loop: a scheme steps a state, observers record what they need after every step.

pub mod decimate;
mod energy_monitor;
mod pickup;
mod renderer;
mod settings;
pub mod stage;

pub use energy_monitor::{EnergyMonitor, EnergySummary};
pub mod excitation;
pub use crate::quantity::Quantity;
pub use crate::system::Observer;
pub use pickup::{PickupError, PickupRecorder, PickupSpec, Pickups};
pub use renderer::{Precision, RenderOptions, Renderer};
pub use settings::{PartialRunSettings, RunLength, RunSettings, StepSize};

use crate::scheme::{EnergyExchange, Scheme, SchemeError, SchemeKind};
use crate::system::{State, System};

/// Why a run stopped early. The observers keep everything up to the last good step.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A position or velocity became NaN or infinite.
    #[error(
        "the simulation became unstable at step {step} (t = {} s): \
         mass \"{mass}\" has a non-finite {quantity}",
        seconds(*time)
    )]
    NonFinite {
        /// The step whose result was not finite.
        step: u64,
        /// Its time, s.
        time: f64,
        /// The id of the first mass found with a non-finite coordinate.
        mass: String,
        /// `position` or `velocity`.
        quantity: &'static str,
    },
    /// The scheme could not complete a step.
    #[error("step {step} (t = {} s) failed: {source}", seconds(*time))]
    Scheme {
        /// The step that failed.
        step: u64,
        /// Its start time, s.
        time: f64,
        /// What the scheme reported.
        source: SchemeError,
    },
    /// An observer could not write its output.
    #[error("writing output failed at step {step}: {source}")]
    Output {
        /// The step being recorded.
        step: u64,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// A time in seconds to 9 decimals, without trailing zeros (`0.502`, not `0.5020000000000001`).
fn seconds(t: f64) -> String {
    let text = format!("{t:.9}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A system, a scheme built for it, and the current state.
pub struct Simulation {
    system: System,
    scheme: Box<dyn Scheme>,
    state: State,
    dt: f64,
    exchanged: Option<EnergyExchange>,
}

impl Simulation {
    /// A simulation of `system` from its initial state, with `scheme` and step `dt` (s).
    pub fn new(system: System, scheme: SchemeKind, dt: f64) -> Self {
        let scheme = scheme.build(&system, dt);
        let state = system.initial_state();
        Self { system, scheme, state, dt, exchanged: None }
    }

    /// The compiled system.
    pub fn system(&self) -> &System {
        &self.system
    }

    /// The current state.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// Replaces the current state (same system; the scheme carries on from it).
    pub fn set_state(&mut self, state: State) {
        self.state = state;
    }

    /// The scheme in use.
    pub fn scheme_kind(&self) -> SchemeKind {
        self.scheme.kind()
    }

    /// The step, s.
    pub fn dt(&self) -> f64 {
        self.dt
    }

    /// The energy exchanged since the start, summed over the steps, for a scheme with an exact
    /// discrete energy balance ([`Scheme::last_exchange`]): then
    /// `H_now + dissipated - external_work` stays at `H_0` to round-off.
    pub fn exchanged(&self) -> Option<EnergyExchange> {
        self.exchanged
    }

    /// Runs `steps` steps. Observers see the current state first (when it is step 0) and then
    /// every new state. `progress` is called now and then with the number of steps done.
    pub fn run(
        &mut self,
        steps: u64,
        observers: &mut [&mut dyn Observer],
        progress: &mut dyn FnMut(u64),
    ) -> Result<(), RunError> {
        const PROGRESS_INTERVAL: u64 = 4096;
        if self.state.step == 0 {
            self.notify(observers)?;
        }
        for done in 1..=steps {
            take_step(self.scheme.as_mut(), &self.system, &mut self.state)?;
            if let Some(last) = self.scheme.last_exchange() {
                let total =
                    self.exchanged.get_or_insert(EnergyExchange { dissipated: 0.0, external_work: 0.0 });
                total.dissipated += last.dissipated;
                total.external_work += last.external_work;
            }
            self.state.step += 1;
            self.state.t = self.state.step as f64 * self.dt;
            check_finite(&self.system, &self.state)?;
            self.notify(observers)?;
            if done % PROGRESS_INTERVAL == 0 {
                progress(done);
            }
        }
        progress(steps);
        Ok(())
    }

    fn notify(&self, observers: &mut [&mut dyn Observer]) -> Result<(), RunError> {
        for observer in observers.iter_mut() {
            observer
                .observe(&self.system, &self.state)
                .map_err(|source| RunError::Output { step: self.state.step, source })?;
        }
        Ok(())
    }
}

/// One step of `scheme` from `state` (not counted in `state.step` and `state.t`: the caller
/// does that); a failure names the step and its start time.
pub(crate) fn take_step(scheme: &mut dyn Scheme, system: &System, state: &mut State) -> Result<(), RunError> {
    let (step, time) = (state.step, state.t);
    scheme.step(system, state).map_err(|source| RunError::Scheme { step: step + 1, time, source })
}

/// Checks that every moving coordinate of `state` is finite; the error names the step, the time
/// and the first mass found with a non-finite position or velocity.
pub(crate) fn check_finite(system: &System, state: &State) -> Result<(), RunError> {
    let n = system.mass_coordinates();
    for (values, quantity) in [(&state.x, "position"), (&state.v, "velocity")] {
        if let Some(coordinate) = values[..n].iter().position(|c| !c.is_finite()) {
            return Err(RunError::NonFinite {
                step: state.step,
                time: state.t,
                mass: system.mass_of_coordinate(coordinate).to_string(),
                quantity,
            });
        }
    }
    Ok(())
}
