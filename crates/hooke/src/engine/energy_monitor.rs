//! An observer that follows the total mechanical energy through a run.

use crate::analysis::energy::{energy, Energy};
use crate::system::{Observer, State, System};

/// First, last and extreme energies of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EnergySummary {
    /// Energy of the first observed state, J.
    pub initial: Energy,
    /// Energy of the last observed state, J.
    pub last: Energy,
    /// Largest `|E - E_0|` over the observed states, J.
    pub max_deviation: f64,
    /// The step of the last observed state.
    pub last_step: u64,
}

impl EnergySummary {
    /// `(E_last - E_0) / |E_0|`, or the absolute change when `E_0` is 0.
    pub fn relative_drift(&self) -> f64 {
        relative(self.last.total() - self.initial.total(), self.initial.total())
    }

    /// `max |E - E_0| / |E_0|`, or the absolute value when `E_0` is 0.
    pub fn relative_max_deviation(&self) -> f64 {
        relative(self.max_deviation, self.initial.total())
    }
}

fn relative(change: f64, reference: f64) -> f64 {
    if reference == 0.0 {
        change
    } else {
        change / reference.abs()
    }
}

/// The larger of `a` and `b`, or NaN if either is NaN (so a NaN energy is never hidden).
fn nan_propagating_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// Computes the energy of every observed state.
#[derive(Debug, Clone, Default)]
pub struct EnergyMonitor {
    summary: Option<EnergySummary>,
}

impl EnergyMonitor {
    /// A monitor that has seen nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The summary so far (`None` before the first state).
    pub fn summary(&self) -> Option<EnergySummary> {
        self.summary
    }
}

impl Observer for EnergyMonitor {
    fn observe(&mut self, system: &System, state: &State) -> std::io::Result<()> {
        let now = energy(system, state);
        check_finite_energy(&now, state.step)?;
        self.summary = Some(match self.summary {
            None => EnergySummary { initial: now, last: now, max_deviation: 0.0, last_step: state.step },
            Some(s) => EnergySummary {
                last: now,
                max_deviation: nan_propagating_max(s.max_deviation, (now.total() - s.initial.total()).abs()),
                last_step: state.step,
                ..s
            },
        });
        Ok(())
    }
}

/// Refuses an energy that is not finite while the state is (the model's figures overflow double
/// precision, e.g. a gravity near 1e308): a report or a file must not show NaN or inf as a result.
pub fn check_finite_energy(energy: &Energy, step: u64) -> std::io::Result<()> {
    if energy.total().is_finite() && energy.kinetic.is_finite() {
        return Ok(());
    }
    Err(std::io::Error::other(format!(
        "the energy at step {step} is not a finite number (kinetic {:e} J, potential {:e} J): the \
         model's figures overflow double precision",
        energy.kinetic,
        energy.potential()
    )))
}
