//! Forward Euler, the update of Domoszlai's blog post (and Morgan & Qiao 2009, eq. (5)).

use super::{ForceEvaluation, Scheme, SchemeError, SchemeKind};
use crate::system::{State, System};

/// Forward (explicit) Euler: all forces from the old state, then both positions and velocities
/// from the old values:
///
/// ```text
/// F_n     = F(x_n, v_n, t_n)
/// x_{n+1} = x_n + h v_n
/// v_{n+1} = v_n + h F_n / m
/// ```
///
/// First order. Not symplectic: on an undamped oscillator the one-step matrix
/// `[[1, h], [-w0^2 h, 1]]` has determinant `1 + w0^2 h^2`, so the energy grows by that factor
/// every step (see docs/errata.md on Domoszlai's blog post), for every step size: without damping
/// it is never stable. With damping rate gamma it is stable while `w0^2 h < gamma` (determinant `1
/// - gamma h + w0^2 h^2 <= 1`).
#[derive(Debug, Clone)]
pub struct ForwardEuler {
    dt: f64,
    forces: ForceEvaluation,
}

impl ForwardEuler {
    /// Forward Euler for `system` with step `dt` (s).
    pub fn new(system: &System, dt: f64) -> Self {
        Self { dt, forces: ForceEvaluation::new(system) }
    }
}

impl Scheme for ForwardEuler {
    fn kind(&self) -> SchemeKind {
        SchemeKind::ForwardEuler
    }

    /// It keeps nothing of the system but buffers the size of its state.
    fn retake(&mut self, _system: &System) -> bool {
        true
    }

    fn step(&mut self, system: &System, state: &mut State) -> Result<(), SchemeError> {
        let h = self.dt;
        self.forces.update_each(system, state, |x, v, acceleration| {
            *x += h * *v;
            *v += h * acceleration;
        });
        Ok(())
    }
}
